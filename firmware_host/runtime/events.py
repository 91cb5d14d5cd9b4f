"""The events the device's parts publish on the hub, each with its payload.

A part that wants to hear one subscribes to its class (``hub.subscribe(ActionDurable, fn)``);
the part that knows it publishes it (``hub.publish(ActionDurable(...))``). Every event has a
stable ``name`` (``"action:durable"``) for logs and for parts that prefer names. Payloads are
frozen: a listener reads them, never changes them; what a listener needs beyond the payload it
asks its own door for.

Handlers run on the loop, in the order they subscribed, at the moment of the publish; a handler
that raises is logged and the others still run (a bug in a listener never stops the table).
A handler must not block: work that takes time goes off the loop (a thread, a task).

The events, in the order of a game's life:

- :class:`TableReady` — the table is up (menu or resumed game on the panel, READY sent).
- :class:`GameChanged` — a game started, resumed, ended or changed (undo, a timer's pause).
- :class:`ActionAccepted` — the game took an action, which is being journaled: nothing of it
  shows yet, but a part may get ready (the voice starts making the move's words, held).
- :class:`ActionDurable` — an accepted action is on disk: its effects show now.
- :class:`TurnPassed` — whose turn it is now: as a game starts or resumes, and after a durable
  action or an undo when it changed.
- :class:`ActionRefused` — an action (or a press) was refused: the reason shown.
- :class:`ActionUndone` — the last move was taken back and that is on disk.
- :class:`GameOver` — the game ended (its result on screen, not filed yet).
- :class:`TimerWarning`, :class:`TimerCountdown`, :class:`TimerExpired` — the turn timer.
- :class:`SaveFailed` — a journal write failed: play is refused until saving works.
- :class:`SpeakerStatus` — the voice's speaker was found or lost (the title bar marks it).
- :class:`TableStop` — the table is stopping (the journal is already durable).
- :class:`PageServing` — the companion page serves (its address).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

from games.core import Action, Effect, View

if TYPE_CHECKING:
    from firmware_host.core.session import Session

__all__ = [
    "EVENTS",
    "ActionAccepted",
    "ActionDurable",
    "ActionRefused",
    "ActionUndone",
    "Event",
    "GameChanged",
    "GameOver",
    "PageServing",
    "SaveFailed",
    "SpeakerStatus",
    "TableReady",
    "TableStop",
    "TimerCountdown",
    "TimerExpired",
    "TimerMoment",
    "TimerWarning",
    "TurnPassed",
]


@dataclass(frozen=True)
class Event:
    """What every event is: a name (``area:what``) and a frozen payload."""

    name: ClassVar[str] = "event"


@dataclass(frozen=True)
class TableReady(Event):
    """The table is up: the hardware attached, the game resumed (or the menu shown), READY sent."""

    name: ClassVar[str] = "table:ready"
    language: str = "en"
    """The table's language setting (``en``, ``de``, ``ja``…) at the start."""


@dataclass(frozen=True)
class TableStop(Event):
    """The table is stopping (SIGTERM, the end of a script): every accepted action is durable.

    Published before the parts close, on the loop; a listener may still use its door."""

    name: ClassVar[str] = "table:stop"
    reason: str = ""
    """Why it stops, as the panel shows it (``"Stopped"``, a translatable text)."""


class _Effects:
    """What an action's events read from its effects (their ``effects`` field)."""

    effects: tuple[Effect, ...]

    def said(self) -> tuple[str, ...]:
        """The lines the action's effects say, in order."""
        return tuple(e.value for e in self.effects if e.kind == "say")

    def spoken(self) -> tuple[str, ...]:
        """What the voice says of the action: the lines it says and those for the ear only, in order."""
        return tuple(e.value for e in self.effects if e.kind in ("say", "hear"))

    def signals(self) -> tuple[str, ...]:
        """The signals the action's effects play, in order."""
        return tuple(e.value for e in self.effects if e.kind == "signal")


@dataclass(frozen=True)
class ActionAccepted(_Effects, Event):
    """The game took an action and its journal write is in flight: **nothing of it may show yet**.
    A listener may only get ready for what it will show once the :class:`ActionDurable` of the
    same ``action`` (the same object) comes, which always follows unless the game was left in
    between or the process died — so what it prepares must stay invisible and be dropped then.
    The voice makes the move's words here and hands them to the speaker held, so the engine
    synthesises while the journal is written (``tablemate bench voice``)."""

    name: ClassVar[str] = "action:accepted"
    action: Action
    """The action as the game took it (the very object its :class:`ActionDurable` carries)."""
    effects: tuple[Effect, ...]
    """The engine's effects, as in :class:`ActionDurable`."""
    game: str
    """The game's id."""


@dataclass(frozen=True)
class ActionDurable(_Effects, Event):
    """An accepted action is journaled durably: now its effects show (the tower, the message
    line and the page are listeners of this event, like any other part).

    One event per action: a move whose action brought automatic ones (a roll after a fall)
    gives one event for each, in order."""

    name: ClassVar[str] = "action:durable"
    action: Action
    """The action as the game took it (``{"type": ..., ...}``)."""
    effects: tuple[Effect, ...]
    """The engine's effects, in order: ``Effect("say", text)`` a line for the table (a
    :class:`~games.core.Text`, translated when shown), ``Effect("signal", name)`` a named moment
    for light and sound (``"success"``, ``"explosion"``, ``"game_over"``…)."""
    view: View
    """The game's view after the action (its final view when the action ended the game)."""
    game: str
    """The game's id (``tonne``, ``bomb``…)."""
    language: str
    """The table's language now (what a ``say`` text is translated to when shown)."""
    over: bool = False
    """Whether this action ended the game (a :class:`GameOver` follows)."""


@dataclass(frozen=True)
class ActionRefused(Event):
    """An action or a press was refused, or the table was told no: the reason is on the message
    line (and the tower plays ``refused``)."""

    name: ClassVar[str] = "action:refused"
    reason: str
    """The reason shown (a :class:`~games.core.Text` where the game or the device gave one)."""


@dataclass(frozen=True)
class ActionUndone(Event):
    """The last move (an action and the automatic ones it caused) was taken back, durably."""

    name: ClassVar[str] = "action:undone"
    said: tuple[str, ...]
    """What the undone move had said (its description: the words of ``Undone: …``)."""
    description: str
    """The message shown for it: ``Undone: …``, ``Undone``, or the reason the device gave
    instead (the scale took a place back)."""
    view: View | None = None
    """The game's view after the undo (``None`` when no game is in play any more)."""


@dataclass(frozen=True)
class GameChanged(Event):
    """A game started, resumed, ended or changed (an undo, a setting of its timer): the timer,
    the scale and the tower's mood follow it."""

    name: ClassVar[str] = "game:changed"
    session: Session | None
    """The game in play now, or ``None`` between games."""
    why: str = "changed"
    """``started``, ``resumed``, ``ended``, ``over`` or ``changed``."""


@dataclass(frozen=True)
class TurnPassed(Event):
    """Whose turn it is now, if the game has one (derived from the view's highlighted player):
    as a game starts or resumes, and after a durable action or an undo when it changed."""

    name: ClassVar[str] = "turn:passed"
    player: str | None
    """The player whose input comes next (``None``: several answer at once)."""
    seat: str | None = None
    """That player's seat button (``p1``…``p6``), when known."""
    game: str = ""
    """The game's id."""


@dataclass(frozen=True)
class GameOver(Event):
    """A game ended: its result is on screen (not yet filed, so its last move can be undone)."""

    name: ClassVar[str] = "game:over"
    view: View
    """The game's final view."""
    winners: tuple[str, ...]
    """Who won (empty when everyone lost or the game ranks nobody)."""
    entry: dict[str, Any] = field(default_factory=dict)
    """The history entry the game will be filed with (``game``, ``players``, ``scores``…)."""
    language: str = "en"
    """The table's language now."""


@dataclass(frozen=True)
class TimerMoment(Event):
    """What every turn-timer event carries: whose clock, and the seconds left on it."""

    seat: str | None
    """The seat whose clock runs (``None`` for a shared phase clock)."""
    player: str | None
    """The player whose clock runs (``None`` for a shared phase clock)."""
    seconds_left: float
    """Seconds left on the clock."""


@dataclass(frozen=True)
class TimerWarning(TimerMoment):
    """A turn's time reached its warning (the tower blinks yellow)."""

    name: ClassVar[str] = "timer:warning"


@dataclass(frozen=True)
class TimerCountdown(TimerMoment):
    """In the warning, each whole second the clock shows (a speaker may count down):
    ``seconds_left`` is that whole number of seconds."""

    name: ClassVar[str] = "timer:countdown"


@dataclass(frozen=True)
class TimerExpired(TimerMoment):
    """A turn's time ran out (soft: the tower says so; hard: the game took a timeout action)."""

    name: ClassVar[str] = "timer:expired"
    seconds_left: float = 0.0
    hard: bool = False
    """Whether the game took a timeout action for it."""


@dataclass(frozen=True)
class SaveFailed(Event):
    """A journal write failed: the game is back to what is on disk, its timer paused, play
    refused until a save works again."""

    name: ClassVar[str] = "save:failed"
    message: str
    """The message shown (the reason, as the message line says it)."""


@dataclass(frozen=True)
class SpeakerStatus(Event):
    """The voice's speaker answers again (``ok``) or is missing or failing (``lost``: it is
    reopened with backoff and the game goes on)."""

    name: ClassVar[str] = "voice:status"
    status: str
    """``ok`` or ``lost``."""
    detail: str | None = None
    """Why it is lost (the player's own words)."""


@dataclass(frozen=True)
class PageServing(Event):
    """The companion page serves (once the table is up; not at all when it cannot listen)."""

    name: ClassVar[str] = "page:serving"
    url: str
    """Its address on the LAN, ending in ``/``."""
    port: int = 0
    """The port it listens on."""


EVENTS: dict[str, type[Event]] = {
    cls.name: cls
    for cls in (
        TableReady,
        TableStop,
        ActionAccepted,
        ActionDurable,
        ActionRefused,
        ActionUndone,
        GameChanged,
        TurnPassed,
        GameOver,
        TimerWarning,
        TimerCountdown,
        TimerExpired,
        SaveFailed,
        SpeakerStatus,
        PageServing,
    )
}
"""Every event by its name."""
