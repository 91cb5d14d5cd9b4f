"""What every game engine shares: the engine base, prompts, effects and seeded randomness."""

from games.core.engine import (
    BaseState,
    Effect,
    Engine,
    Refused,
    SetupError,
    View,
    get_field,
    get_player,
    hear,
    need,
    say,
    score_places,
    signal,
    top_scorers,
)
from games.core.prompts import Action, Collect, Menu, Option, Order, Prompt, Task
from games.core.rng import Rng
from games.core.sensors import Piece, ScaleNow, ScaleUse
from games.core.text import T, Text, join

__all__ = [
    "Action",
    "BaseState",
    "Collect",
    "Effect",
    "Engine",
    "Menu",
    "Option",
    "Order",
    "Piece",
    "Prompt",
    "Refused",
    "Rng",
    "ScaleNow",
    "ScaleUse",
    "SetupError",
    "T",
    "Task",
    "Text",
    "View",
    "get_field",
    "get_player",
    "hear",
    "join",
    "need",
    "say",
    "score_places",
    "signal",
    "top_scorers",
]
