"""What a game declares about the table's sensors, as data: the runtime reads it, names no game.

A game whose pieces are weighed sets its engine's :attr:`~games.core.Engine.scale` to a
:class:`ScaleUse` (which pieces to calibrate, which actions a settled step of pieces and a fall
become) and answers :meth:`~games.core.Engine.scale_now` with a :class:`ScaleNow` for each state
(whose pieces the scale counts now, how many it may count, what a re-filled bin should hold).
The engine stays pure: the scale service turns the load cell's events into these very actions,
journaled like any button press.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from games.core.prompts import Action


@dataclass(frozen=True)
class Piece:
    """A kind of piece the scale weighs."""

    kind: str
    label: str
    """Its name on the calibration's steps."""
    grams: float
    """About what one weighs: the simulated table's piece (the calibration measures the real one)."""


@dataclass(frozen=True)
class ScaleUse:
    """How a game uses the scale (declared once, on the engine class)."""

    pieces: tuple[Piece, ...]
    """The piece kinds to calibrate, in order."""
    place: Mapping[str, Any] = field(default_factory=lambda: {"type": "place"})
    """The action a settled step of pieces becomes, with the count under :attr:`count_key`."""
    count_key: str = "count"
    fall: Mapping[str, Any] | None = field(default_factory=lambda: {"type": "fall"})
    """The action a sudden loss of weight (the pile fell) becomes; ``None``: falls mean nothing."""

    @property
    def labels(self) -> dict[str, str]:
        """Kind → label, for the calibration."""
        return {p.kind: p.label for p in self.pieces}

    def place_action(self, count: int) -> Action:
        """The action for ``count`` pieces placed."""
        return {**self.place, self.count_key: count}

    def fall_action(self) -> Action | None:
        """The action for a fall, if the game has one."""
        return dict(self.fall) if self.fall is not None else None

    def placed(self, action: Action) -> int:
        """How many pieces ``action`` places, when it is this game's place action (else 0)."""
        if any(action.get(k) != v for k, v in self.place.items()):
            return 0
        count = action.get(self.count_key, 1)
        return count if isinstance(count, int) and not isinstance(count, bool) else 0


@dataclass(frozen=True)
class ScaleNow:
    """What the scale is for in one state of the game."""

    placing: str | None = None
    """The player whose pieces the scale counts now; ``None``: its events change nothing."""
    owed: int = 0
    """The most pieces the scale may count now (what the player owes, what the supply holds)."""
    fill: Mapping[str, int] | None = None
    """Pieces of each kind the bin holds once a table job (a :class:`~games.core.Task`) to empty
    and re-fill it is done; the scale confirms the job when it sees that weight."""
