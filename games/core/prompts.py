"""What an engine is waiting for, as data.

An engine never reads buttons. It says who may act now and with which choices; one generic
input layer in the runtime turns button presses into the action the prompt describes. A new
game brings rules and a few words, not a new input system.

Three shapes cover every game:

- :class:`Menu` — one player (or anyone at the table) picks one option; options may open
  sub-menus, so a multi-part move (jumper kind, then normal or special, then the result) is a
  short walk down a tree that ends in one complete action.
- :class:`Collect` — several players answer at once, each on their own button: card
  values in a reveal, bets or passes. A Collect may also ride along a Menu (``Menu.side``):
  others answer out of turn while one player chooses. Either all answers become one action
  (``build``) or each answer is its own action (``each``).
- :class:`Order` — players press their buttons in the order that settles a tie.

A fourth, :class:`Task`, is a job for the table's hands (empty and re-fill the bin) that must
be done before the game goes on. Confirming it changes no game state: the runtime notes it in
the journal and shows the prompt that follows.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from games.core.text import T

Action = dict
"""A replay action: a JSON object with a ``type`` (see ``docs/commands.md``)."""


@dataclass(frozen=True)
class Option:
    """One entry of a :class:`Menu`: a complete action, or a sub-menu to walk into.

    ``then`` may be a function that makes the sub-menu when it is entered, so a deep tree (the
    faces of ten dice entered one by one) costs nothing until someone walks into it. ``then`` may
    also be an :class:`Order` (the players press in turn; ``back`` before anyone pressed returns
    to the menu).
    """

    label: str
    action: Action | None = None
    then: Menu | Order | Callable[[], Menu | Order] | None = None

    def __post_init__(self) -> None:
        if (self.action is None) == (self.then is None):
            raise ValueError(f"option {self.label!r} needs exactly one of action or then")

    def submenu(self) -> Menu | Order | None:
        """The sub-menu (or Order) this option opens (made now if it is lazy), or ``None``."""
        return self.then() if callable(self.then) else self.then


@dataclass(frozen=True)
class Menu:
    """One player (``player``; ``None`` for anyone at the table) picks one option.

    ``side`` is a :class:`Collect` open at the same time, for answers out of turn (bets on the
    diver's next decision): its players answer on their own buttons while ``player`` chooses,
    each answer handed over at once (``side.each``); picking an option first hands over
    ``side.default`` for everyone who has not answered, then the option's action. So when nobody
    bets, the whole table's decision is the chooser's one press.
    """

    title: str
    options: tuple[Option, ...]
    player: str | None = None
    default: int = 0
    side: Collect | None = None


@dataclass(frozen=True)
class Collect:
    """Every player in ``players`` answers with one of their ``values`` on their own button.

    ``hidden`` marks answers that stand for cards the table turns up before entering them: the
    device shows entries in the open (see the README), the flag is kept for the game's own
    record of what was secret before the reveal. ``default`` is the answer of a player who has
    not answered when the table moves on (a pass; see :attr:`Menu.side`). When all have
    answered, ``build`` turns the answers into one action, or into a follow-up prompt (an
    :class:`Order` settling a tie among the answers) whose answer makes that action; with
    ``each`` instead, every confirmed answer is handed over at once as its own action.
    """

    title: str
    players: tuple[str, ...]
    values: Mapping[str, tuple[str, ...]]
    hidden: bool = False
    build: Callable[[dict[str, str]], Action | Prompt] | None = None
    each: Callable[[str, str], Action] | None = None
    labels: Mapping[str, str] = field(default_factory=dict)
    default: str | None = None
    counting: bool = False
    """Answers are entered by holding: a player's held button counts up through their values
    (shown as it counts) and letting go locks the one showing. One press an answer, whatever
    the value: for cards already revealed on the table (Bomb, Ab in die Tonne)."""
    others: Mapping[str, str] = field(default_factory=dict)
    """Why a player of the game who is not in ``players`` cannot answer, by name (``Cy is out
    of the game``): what their button tells them; one not named is told who answers now."""

    def label(self, value: str) -> str:
        """How ``value`` reads on screen."""
        return self.labels.get(value, value)


@dataclass(frozen=True)
class Order:
    """The players press their buttons in turn; the order they pressed in becomes the action."""

    title: str
    players: tuple[str, ...]
    build: Callable[[list[str]], Action]
    others: Mapping[str, str] = field(default_factory=dict)
    """Why a player not in ``players`` cannot press here, by name (as :attr:`Collect.others`)."""


@dataclass(frozen=True)
class Task:
    """A job for the table's hands before the game goes on; then ``then`` is the prompt.

    ``key`` names this job within the game (the same job keeps the same key). Confirming it —
    ``ok`` on the buttons, or a sensor that sees the job done — is journaled by the runtime as a
    note, never as an action, so replays and the game state do not depend on it.
    """

    title: str
    lines: tuple[str, ...]
    key: str
    then: Prompt | None
    confirm: str = T("Done")
    mood: str = "waiting"


Prompt = Menu | Collect | Order | Task
