"""The shape every game engine has: a deterministic state machine with no I/O and no clock.

``new(players, seed, options)`` makes the first state; ``apply(state, action)`` returns a new
state and the effects to play out, or raises :class:`Refused` with the reason a player will
read; ``summary(state)`` is the replay summary of ``docs/commands.md``. Randomness lives in
the state (:class:`~games.core.rng.Rng`), so the same seed and actions always give the same game.

Moves are methods named ``move_<type>``: they get a private copy of the state to change, the
action, and a list to append effects to. The base class makes the copy, dispatches, and checks
what every game checks (the action's shape, a game already over).
"""

from __future__ import annotations

import copy
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, Generic, TypeVar

from games.core.prompts import Action, Option, Prompt
from games.core.rng import Rng
from games.core.sensors import ScaleNow, ScaleUse
from games.core.text import T, Text, Told, join


class Refused(Told, Exception):
    """An action the rules forbid, or a malformed one. ``str()`` is the reason for players (a
    :class:`~games.core.text.Text`)."""


class SetupError(Told, ValueError):
    """Players or options a game cannot start with (``str()``: the reason, a Text where players
    may read it)."""


@dataclass(frozen=True)
class Effect:
    """Something for the host to play out: a tower/buzzer ``signal``, a line to ``say`` (shown and
    said), or a line to ``hear`` only (said by the voice; the panel shows it elsewhere)."""

    kind: str
    value: str


def signal(name: str) -> Effect:
    """A named moment (``"explosion"``, ``"fall"``, ``"success"``…) the host maps to light and sound."""
    return Effect("signal", name)


def say(text: str) -> Effect:
    """A short line shown to the table for a moment: a :class:`~games.core.text.Text`."""
    return Effect("say", text)


def hear(text: str) -> Effect:
    """A line for the ear only: the table's voice says it after the move's own lines, the panel
    does not show it (what it tells is on the panel already, e.g. Tonne's supply in the title)."""
    return Effect("hear", text)


@dataclass(frozen=True)
class View:
    """What the screen shows of a state, as data; the runtime draws it.

    ``mood`` names the lasting light of the tower while this state holds (``"choosing"``,
    ``"playing"``, ``"rolling"``, ``"over"``…); the runtime maps it to colours and blinking.
    ``news`` counts the leading ``lines`` that tell what the last move brought (a roll's dice
    and totals): the screen shows them before any other line and before its hints.
    ``needed`` names (by index) the ``lines`` the rules need the table to see (the bets riding
    on a dive, the supply while placing, the order of play, a card drawn): the screen shows them
    whole on every panel, before its hints and the other lines.
    ``facts`` are what else the table must be able to read in this state and the view shows
    elsewhere than its lines (Tonne's supply, in the title): with the needed lines, the facts of
    :meth:`must_read`.
    """

    title: str
    scores: tuple[tuple[str, str], ...]
    lines: tuple[str, ...] = ()
    active: tuple[str, ...] = ()
    mood: str = "playing"
    news: int = 0
    needed: tuple[int, ...] = ()
    facts: tuple[str, ...] = ()

    def must_read(self) -> tuple[str, ...]:
        """What the rules need the table to read in this state, each text whole (a player's name
        in it may show shortened): the needed lines, then :attr:`facts`."""
        return (*(self.lines[i] for i in self.needed if 0 <= i < len(self.lines)), *self.facts)


@dataclass
class BaseState:
    """Fields every game state has. Games subclass it with their own fields."""

    players: list[str]
    rng: Rng
    options: dict[str, Any] = field(default_factory=dict)
    over: bool = False


S = TypeVar("S", bound=BaseState)


class Engine(ABC, Generic[S]):
    """Base class of the five game engines."""

    id: ClassVar[str]
    title: ClassVar[str]
    """The game's name on the menus (a :class:`~games.core.text.Text`)."""
    min_players: ClassVar[int] = 2
    max_players: ClassVar[int | None] = None
    option_keys: ClassVar[frozenset[str]] = frozenset()
    rules_pick_start: ClassVar[bool] = False
    """Whether the rules decide who begins (cards, a roll): then the menu does not ask."""
    confirm: ClassVar[Mapping[str, str]] = {}
    """Action types a table cannot take back at a glance, each with the question the device asks
    before it hands one over (a fall that costs a chip, ending a session)."""
    timeout_action: ClassVar[bool] = False
    """Whether the game gives a hard turn timeout a consequence.

    A game that does defines ``move_timeout``; the runtime's turn timer then hands it
    ``{"type": "timeout", "player": NAME}`` when a turn's time runs out, or
    ``{"type": "timeout", "players": [NAME, ...]}`` (those who had not answered) when a
    simultaneous choice's does. Without it, hard mode is refused (``docs/timers.md``).
    """
    scale: ClassVar[ScaleUse | None] = None
    """How the game uses the scale under its pieces, if it does (:mod:`games.core.sensors`)."""
    ranks: ClassVar[bool] = True
    """Whether the game ranks its players; a session that names no winner (Trottelmütze) only
    counts, and its result is the totals, not places."""
    ear: ClassVar[Mapping[str, Callable[[Text], Text]]] = {}
    """What the game says, fitted for the ear: a panel message's msgid → the spoken Text made from
    its values (``B3 F2 C0 boom -2`` → "rolls three bombs…"); a message not listed is said as shown."""
    unit: ClassVar[str] = ""
    """What a score counts, where the number alone would not say it (Trottelmütze: ``drinks``,
    beer, shots and water together): the result screen and the history label the scores with it."""

    # -- making and changing states ---------------------------------------------------------
    def new(self, players: list[str], seed: int = 0, options: Mapping[str, Any] | None = None) -> S:
        """The first state; raises :class:`SetupError` for bad players or options."""
        if not isinstance(players, list) or not all(isinstance(p, str) and p.strip() for p in players):
            raise SetupError(T("players must be a list of non-empty names"))
        if len(set(players)) != len(players):
            raise SetupError(T("player names must differ"))
        top = self.max_players
        if len(players) < self.min_players or (top is not None and len(players) > top):
            low, n = self.min_players, len(players)
            if top:
                raise SetupError(T("{game} takes {low}–{top} players, not {n}", game=self.id, low=low, top=top, n=n))
            raise SetupError(T("{game} takes {low} or more players, not {n}", game=self.id, low=low, n=n))
        options = dict(options or {})
        unknown = sorted(set(options) - self.option_keys)
        if unknown:
            known = join(sorted(self.option_keys)) if self.option_keys else T("none")
            raise SetupError(
                T("unknown option {option!r} for {game} (known: {known})", option=unknown[0], game=self.id, known=known)
            )
        if not isinstance(seed, int) or isinstance(seed, bool):
            raise SetupError(T("seed must be an integer"))
        return self.setup(list(players), Rng(seed), options)

    @abstractmethod
    def setup(self, players: list[str], rng: Rng, options: dict[str, Any]) -> S:
        """The first state of a game with these players; validate ``options`` here."""

    def apply(self, state: S, action: Action) -> tuple[S, list[Effect]]:
        """The state after ``action`` and the effects to play out. ``state`` is left unchanged."""
        if not isinstance(action, dict) or not isinstance(action.get("type"), str):
            raise Refused(T("an action is an object with a string {key!r}", key="type"))
        move = getattr(self, "move_" + action["type"], None)
        if move is None:
            raise Refused(T("{game} has no action {action!r}", game=self.title, action=action["type"]))
        if state.over:
            raise Refused(T("the game is over"))
        new = copy.deepcopy(state)
        effects: list[Effect] = []
        move(new, action, effects)
        if new.over:  # the move that ends the game: every game's tower plays its end the same way
            effects.append(signal("game_over"))
        return new, effects

    # -- reading states -----------------------------------------------------------------------
    def scale_now(self, state: S) -> ScaleNow | None:
        """What the scale is for in ``state`` (games that declare :attr:`scale`); ``None``: nothing."""
        return None

    def summary(self, state: S) -> dict[str, Any]:
        """The replay summary of the contract: common keys, then the game's own."""
        out: dict[str, Any] = {
            "game": self.id,
            "players": list(state.players),
            "over": state.over,
            "winners": self.winners(state) if state.over else [],
            "scores": self.scores(state),
            "turn": None if state.over else self.turn(state),
        }
        out.update(self.details(state))
        return out

    @abstractmethod
    def scores(self, state: S) -> dict[str, int]:
        """Name → the integer the game counts."""

    @abstractmethod
    def winners(self, state: S) -> list[str]:
        """Who won a finished game (empty when everyone lost)."""

    def places(self, state: S) -> dict[str, int]:
        """Name → place (1 is best; ties share a place, the next place skips): by the scores,
        highest first. A game whose order of finishing ranks its players says so itself."""
        places = score_places(self.scores(state))
        return {p: places[p] for p in state.players}

    @abstractmethod
    def turn(self, state: S) -> str | None:
        """Whose input comes next, or ``None`` when several players answer at once."""

    @abstractmethod
    def details(self, state: S) -> dict[str, Any]:
        """The game's own summary keys."""

    @abstractmethod
    def prompt(self, state: S) -> Prompt | None:
        """What the game waits for now (``None`` when over)."""

    @abstractmethod
    def view(self, state: S) -> View:
        """What the screen shows."""

    def final_view(self, state: S, title: str, scores: tuple[tuple[str, str], ...], last: tuple[str, ...] = ()) -> View:
        """The view of a finished game: the winners (ties share the win) lit up, then what the
        last move brought (``last``): how the game ended, which the table must read."""
        win = self.winners(state)
        lines = (T("Winner: {players}", players=join(win)), *last)
        return View(title, scores, lines, tuple(win), "over", len(lines) if last else 0, tuple(range(len(lines))))

    def describe(self, state: S, action: Action) -> Text | None:
        """What ``action`` does in ``state`` (the state before it), for the question and the word
        of an undo, where what the move said would overstate it or say nothing (Tonne's one piece
        of a turn's three); ``None``: what the move said tells it."""
        return None

    def anytime(self, state: S) -> list[Option]:
        """Actions open outside the turn order (a toilet break, an exchange), for the game menu."""
        return []


# -- helpers for moves ---------------------------------------------------------------------------
def need(condition: object, reason: Text) -> None:
    """Refuse with ``reason`` (a :class:`~games.core.text.Text`) unless ``condition`` holds."""
    if not condition:
        raise Refused(reason)


def get_field(action: Action, name: str, kind: type | tuple[type, ...], default: Any = ...) -> Any:
    """``action[name]`` checked to be of ``kind``; missing gives ``default`` or a refusal."""
    if name not in action:
        if default is ...:
            raise Refused(T("{action} needs {field!r}", action=action["type"], field=name))
        return default
    value = action[name]
    kinds = kind if isinstance(kind, tuple) else (kind,)
    if (isinstance(value, bool) and bool not in kinds) or not isinstance(value, kinds):
        raise Refused(T("{action}: {field!r} has the wrong type", action=action["type"], field=name))
    return value


def get_player(s: BaseState, action: Action, default: str | None = None, turn_of: str | None = None) -> str:
    """The action's ``player`` (an action that names none is ``default``'s), checked to be in the
    game — and, with ``turn_of``, to be that very player (whose turn it is)."""
    named = get_field(action, "player", str, default)
    if named is None:
        raise Refused(T("{action} needs {field!r}", action=action["type"], field="player"))
    need(named in s.players, T("unknown player {player!r}", player=named))
    if turn_of is not None:
        need(named == turn_of, T("it is {turn}'s turn, not {player}'s", turn=turn_of, player=named))
    return named


def top_scorers(scores: Mapping[str, int], players: Iterable[str]) -> list[str]:
    """Players sharing the highest score, in seat order (ties share the win)."""
    players = list(players)
    if not players:
        return []
    best = max(scores[p] for p in players)
    return [p for p in players if scores[p] == best]


def score_places(scores: Mapping[str, float]) -> dict[str, int]:
    """Name → place by score, highest first (1 is best; ties share a place, the next place skips)."""
    ranked = sorted(scores.values(), reverse=True)
    return {name: ranked.index(score) + 1 for name, score in scores.items()}
