"""The game's life: start, apply, undo, game over, filing, and the game's word to the screens.

Every action, whatever brought it (a press, the scale, the turn timer, a script), goes through
:meth:`GameLife.apply`: the session checks it with the engine and journals it; its effects show
once the write is durable (:meth:`~firmware_host.runtime.parts.saving.Saving.when_durable`). A
game that ends keeps its result on screen, not filed, so its last move can still be undone; it
is filed when the table leaves the result or a new game starts.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any

from firmware_host.core.config import SEATS, Config
from firmware_host.core.i18n import language
from firmware_host.core.replay import Script, ScriptError
from firmware_host.core.session import Session
from firmware_host.core.store import Store
from firmware_host.runtime.events import (
    ActionAccepted,
    ActionDurable,
    ActionUndone,
    Event,
    GameChanged,
    GameOver,
    SaveFailed,
    TurnPassed,
)
from firmware_host.runtime.hub import Hub
from firmware_host.runtime.parts.message import MessageLine
from firmware_host.runtime.parts.phones import Phones
from firmware_host.runtime.parts.saving import Saving
from firmware_host.runtime.parts.screens import Screens
from firmware_host.runtime.parts.signals import Signals
from firmware_host.ui.base import Confirm, Message
from firmware_host.ui.game import GameScreen
from firmware_host.ui.menus import GameMenu, MainMenu, final_words
from firmware_host.ui.menus import GameOver as GameOverScreen
from firmware_host.ui.table import MenuTable
from games.core import Action, Effect, Option, Refused, T, join

log = logging.getLogger(__name__)

UNDO_ON_LOOP = 20
"""Actions an undo may replay on the loop (a few milliseconds); a longer replay runs off it."""
EVENTS_KEPT = 40
"""Outcomes of the game in play kept for the game menu's "What happened" screen."""


def _mono() -> float:
    """The loop's monotonic clock (virtual in the simulator): what game durations are measured on."""
    return asyncio.get_running_loop().time()


class GameLife:
    """The game in play, or the result on screen (the game screen's :class:`~firmware_host.ui.table.GameTable`
    door, and the menus' game members)."""

    def __init__(
        self,
        config: Config,
        store: Store,
        table: MenuTable,
        seed: int | None,
        wall: Callable[[], float],
    ) -> None:
        self.config = config
        self.store = store
        self.table = table
        """The screens' door: what the game's screens are built with."""
        self.seed = seed
        self.wall = wall
        self.session: Session | None = None
        self.seats: dict[str, str] = {}
        """Seat button → player name of the game in play."""
        self.events: list[str] = []
        """The game in play's outcomes, oldest first (what its engine said), for "What happened"."""
        self.said: list[str] = []
        """What the last action's engine said (the game-over screen shows it under the result)."""
        self.last_result: dict[str, Any] | None = None
        """The history entry of the game that ended last while running (its result on the page)."""
        self._busy: str | None = None
        self._idle = asyncio.Event()
        self._idle.set()
        self.move: int | None = None
        """Actions applied by the press being handled (``None`` outside a press): the second and
        later are automatic ones of the same move, taken back with it by one undo."""
        self._over: tuple[Session, dict[str, Any], float, float] | None = None
        """The game whose result is on screen, not filed yet (its last move can be undone), with
        the timer's figures, when it ended and the seconds it had been in play."""
        self._history: tuple[tuple[int, int, int], list[dict[str, Any]]] | None = None
        """The history as last read, keyed on its file's inode, mtime and size."""
        self.publish: Callable[[Event], None] = lambda event: None
        """Tells the other parts (the hub's, from :meth:`setup`)."""
        self._turn: str | None = None
        """Whose turn the last :class:`TurnPassed` named."""
        self._why = "changed"

    def setup(self, hub: Hub) -> None:
        """Find the parts the game's life reaches by name; publish on ``hub`` from now on."""
        self.message: MessageLine = hub.lookup("message")
        self.signals: Signals = hub.lookup("signals")
        self.screens: Screens = hub.lookup("screens")
        self.saving: Saving = hub.lookup("saving")
        self.phones: Phones = hub.lookup("phones")
        self.timers: Any = hub.lookup("timers")
        self.scale: Any = hub.lookup("scale")
        self.publish = hub.publish

    # -- starting -------------------------------------------------------------------------------------

    @property
    def busy(self) -> str | None:
        """What the device is working out off the loop ("Resuming…", "Undoing…"), if anything:
        presses are answered with it, actions refused until it is done."""
        return self._busy

    @busy.setter
    def busy(self, what: str | None) -> None:
        self._busy = what
        if what is None:
            self._idle.set()
        else:
            self._idle.clear()

    async def idle(self) -> None:
        """Wait until nothing is being worked out off the loop."""
        await self._idle.wait()

    def start_game(
        self,
        game: str,
        seats: list[str],
        start: str | None = None,
        options: dict[str, Any] | None = None,
        names: dict[str, str] | None = None,
    ) -> bool:
        """Start a game with the players of ``seats`` (``start``: the seat that begins, else random).

        An unfinished game is ended early first. Seat order is the clockwise order; the list of
        players is turned so the starting seat comes first.
        """
        if not seats:
            self.message.refuse(T("no seats in play"))
            return False
        names = names or {s: self.config.seat_name(s) for s in seats}
        order = list(seats)
        if start is None:
            start = order[(self.seed if self.seed is not None else int(self.wall() * 1000)) % len(order)]
        if start in order:
            i = order.index(start)
            order = order[i:] + order[:i]
        options = {**self.config.games.get(game, {}), **(options or {})}
        players = [names[s] for s in order]
        try:
            Script(game, players, 0, options).start()  # a game that cannot start ends nothing
        except ScriptError as exc:
            self._cannot_start(game, exc)
            return False
        ended = self.session is not None or self._over is not None
        self.file_over()
        if self.session is not None:
            self.end_early()
        try:
            session = Session.start(
                self.store,
                game,
                players,
                options,
                self.seed,
                self.wall,
                meta={"seats": {s: names[s] for s in seats}},
                watch=self.saving.watch,
                settle=not ended,
                mono=_mono,
            )
        except ScriptError as exc:
            self.message.refuse(str(exc))
            return False
        except OSError as exc:  # the journal could not be made (or a game left unfiled be filed)
            self.saving.storage_error(exc)
            self.saving.storage_fault = self.saving.last_storage_fault  # shown until a save works again
            self.store.writer.reset()  # nothing of it is in memory: the next start tries afresh
            return False
        self.enter(session)
        self.changed("started")
        return True

    def _cannot_start(self, game: str, error: ScriptError) -> None:
        """A game's options refused: the reason whole, on a screen of its own, naming the config
        file and its section when the options came from there (a toast would cut it)."""
        path = self.config.path
        text = str(error)
        if path is not None and self.config.games.get(game):
            text = T("{file} [games.{game}]: {error}", file=path.name, game=game, error=text)
        self.signals.signal("refused")
        self.screens.push(Message(self.table, T("Cannot start"), text, on_ok=self.screens.pop))

    def start_named(self, game: str, names: list[str]) -> bool:
        """Start ``game`` with these players on seats p1, p2… in order (the script's ``start``)."""
        if len(names) > 6:
            self.message.refuse(T("at most 6 seats"))
            return False
        seats = [f"p{i + 1}" for i in range(len(names))]
        return self.start_game(game, seats, seats[0] if seats else None, None, dict(zip(seats, names, strict=True)))

    def enter(self, session: Session) -> None:
        """Play ``session`` (started or resumed): its seats, its outcomes, the game screen."""
        self.session = session
        self.events = self.past_events(session)
        session.watch = self.saving.watch
        seats = session.journal.last_meta("seats")
        if not seats:
            seats = {f"p{i + 1}": p for i, p in enumerate(session.base.players)}
        self.seats = dict(seats)
        self.screens.replace([MainMenu(self.table), GameScreen(self.table)])
        self.screens.redraw()

    # -- the game screen's questions ------------------------------------------------------------------
    def player_of(self, button: str) -> str | None:
        """The player at a seat button, in the game in play."""
        return self.seats.get(button)

    def in_play(self) -> tuple[str | None, tuple[str, ...]]:
        """The game in play, or whose result is on screen, and its players (the voice's door)."""
        session = self.session or self.result_on_screen
        return (session.base.game, tuple(session.base.players)) if session is not None else (None, ())

    def players(self) -> tuple[str, ...]:
        """The players of the game in play (none between games)."""
        return tuple(self.session.base.players) if self.session is not None else ()

    def names_at_table(self) -> tuple[str, ...]:
        """The names a frame may shorten (a text too long for its rows shortens them first): the
        game's players, and the other seats' (a press from a seat not in the game names it);
        those of the game whose result is on screen between games."""
        over = self.result_on_screen
        players = self.players() or (tuple(over.base.players) if over is not None else ())
        return tuple(dict.fromkeys([*players, *(self.table.seat_name(seat) for seat in SEATS)]))

    def confirm_question(self, action: Action) -> str | None:
        """The game's question before ``action``, when it cannot be taken back at a glance."""
        session = self.session
        return session.engine.confirm.get(action.get("type", "")) if session is not None else None

    def anytime(self) -> list[Option]:
        """The options the game in play offers at any time."""
        session = self.session
        return session.engine.anytime(session.state) if session is not None else []

    def has_timer(self) -> bool:
        """Whether a turn timer runs for the game in play."""
        return self.timers.clocks is not None

    # -- playing --------------------------------------------------------------------------------------
    def apply(self, action: Action) -> bool:
        """Hand one action to the game: checked, journaled, then shown. False when refused."""
        if self.session is None:
            self.message.toast(T("No game in play"))
            return False
        if self.busy is not None:  # the game is being worked out off the loop
            self.message.refuse(self.busy)
            return False
        try:
            effects = self.session.apply(action, joins=bool(self.move))
        except Refused as exc:
            self.message.refuse(str(exc))
            return False
        if self.move is not None:
            self.move += 1
        if self.message.at != _mono():
            self.message.clear_message()  # the state changed: what an earlier message said may no longer hold
        self.publish(ActionAccepted(action, tuple(effects), self.session.base.game))  # nothing shows yet
        self.saving.when_durable(lambda: self._applied(action, effects))
        return True

    def _applied(self, action: Action, effects: list[Effect]) -> None:
        """An action is durable: now its effects show (the parts that show them hear it)."""
        session = self.session
        if session is None:
            return
        self.said = [e.value for e in effects if e.kind == "say"]
        self.events.extend(self.said)
        del self.events[:-EVENTS_KEPT]
        view = session.view()
        self.publish(ActionDurable(action, tuple(effects), view, session.base.game, language(), session.over))
        self.after_change()
        if self.session is not None:
            self._tell_turn(self.session)

    def _tell_turn(self, session: Session) -> None:
        """Publish :class:`TurnPassed` when the player whose turn it is changed."""
        active = session.view().active  # the player the view lights up, when it is one
        player = active[0] if len(active) == 1 else None
        if player == self._turn:
            return
        self._turn = player
        seat = next((s for s, name in self.seats.items() if name == player), None) if player else None
        self.publish(TurnPassed(player, seat, session.base.game))

    @staticmethod
    def past_events(session: Session) -> list[str]:
        """The outcomes of the game in play so far (the session keeps them from its own replay)."""
        return session.outcomes()[-EVENTS_KEPT:]

    def after_change(self) -> None:
        """The game in play changed: its result on screen when it is over, else its screen anew."""
        session = self.session
        assert session is not None
        if session.over:  # filed when the table leaves its result (the last move can still be undone)
            final = session.view()
            extra = self._history_extra()
            session.note("meta", {"over": {"at": len(session.actions), "extra": extra}})
            self._over = (session, extra, self.wall(), session.elapsed())
            self.session = None
            entry = session.history_entry("over", self._over[2], extra)
            self.last_result = entry
            words = final_words(final, self.said)
            menu = MainMenu(self.table)
            self.screens.replace([menu, GameOverScreen(self.table, entry, words, self.ask_undo, final.must_read())])
            self.message.clear_message()  # what the last move brought is on the game-over screen now
            self._turn = None
            self.publish(GameOver(final, tuple(session.engine.winners(session.state)), entry, language()))
            self._why = "over"
        else:
            top = self.screens.game_screen()
            if top is not None:
                top.reset()
        self.changed()
        self.screens.redraw()

    def _history_extra(self) -> dict[str, Any]:
        """What the history keeps beside the session's own: the turn timers' figures, and the
        game's dates by a phone's clock when the table's never synced (see :meth:`Phones.set_phone_time`)."""
        extra = dict(self.timers.history_extra())
        session, now = self.session, self.phones.clock.now(_mono())
        if session is not None and now is not None and not session.synced():
            extra.update({"started": round(now - session.elapsed(), 3), "ended": round(now, 3), "date_source": "phone"})
        return extra

    def changed(self, why: str = "changed") -> None:
        """The game (or its absence) changed: the turn timer, the scale and the tower follow;
        ``why``: ``started``, ``resumed``, ``ended`` or ``changed`` (``over`` when the last
        action ended the game)."""
        why, self._why = (self._why if why == "changed" else why), "changed"
        self.timers.changed()
        self.scale.changed(self.session)
        self.screens.update_mood()
        self.publish(GameChanged(self.session, why))
        if why in ("started", "resumed") and self.session is not None:
            self._turn = None
            self._tell_turn(self.session)  # whose turn it is as the game (re)starts

    def confirm_task(self, key: str) -> None:
        """The table did the job a :class:`~games.core.Task` prompt asked for: journal it, go on.

        Confirming changes no game state; the prompt that follows the job shows next.
        """
        if self.session is None:
            return
        self.session.confirm_task(key)
        self.saving.when_durable(self._after_change_if_playing)

    def _after_change_if_playing(self) -> None:
        if self.session is not None:
            self.after_change()

    # -- undo -----------------------------------------------------------------------------------------
    def ask_undo(self) -> None:
        """Ask the table to confirm undoing the last action, saying what it will take back (at
        game over too: its result stays on screen until the table says yes)."""
        session = self.session or self.result_on_screen
        if session is None or not session.actions:
            self.message.toast(T("Nothing to undo"))
            return
        said = session.last_move_said()
        question = T("Take back the last action?")
        if said:
            question = T("Take back the last action? {what}", what=join(list(said), " · "))
        then: Callable[[], object] = self.undo if self.session is not None else self.undo_game_over
        self.screens.push(Confirm(self.table, T("Undo"), question, then))

    def undo(self, why: str | None = None) -> bool:
        """Take back the last move (an action and the automatic ones it caused), computed once;
        ``why``: the table is told the reason instead of what was undone (the scale took a place
        back).

        A long replay (far from a checkpoint) is worked out off the loop while the panel says
        "Undoing…" and presses are answered; then the undo is journaled and shown.
        """
        session = self.session
        if session is None or self.busy is not None or not session.actions:
            return False
        if session.undo_cost() <= UNDO_ON_LOOP:
            return self._undo(session, None, why)
        self.busy = T("Undoing…")
        self.message.toast(self.busy, until_input=True)
        future = asyncio.get_running_loop().run_in_executor(None, session.prepare_undo)
        future.add_done_callback(lambda f: self._undo_prepared(session, f, why))
        return True

    def _undo_prepared(self, session: Session, future: asyncio.Future, why: str | None = None) -> None:
        self.busy = None
        self.message.clear_message()
        if self.session is not session:
            return
        if future.cancelled():  # the worker went away (a stop): the game stays as it is
            return
        error = future.exception()
        if error is not None:  # not tried again on the loop: it would fail the same way, there
            log.error("undo failed: %r", error)
            self.message.refuse(T("Cannot undo: {reason}", reason=f"{type(error).__name__}: {error}"[:120]))
            return
        self._undo(session, future.result(), why)

    def _undo(self, session: Session, prepared: Any, why: str | None = None) -> bool:
        if not session.undo(prepared):
            return False
        self.events = self.past_events(session)
        self.message.clear_message()
        said = session.undone_said
        self.saving.when_durable(lambda: self._undone(said, why))
        return True

    def _undone(self, said: tuple[str, ...] = (), why: str | None = None) -> None:
        if why is not None:
            description = why
        else:
            description = T("Undone: {what}", what=join(list(said), " · ")) if said else T("Undone")
        self.message.toast(description)
        session = self.session
        self.publish(ActionUndone(tuple(said), description, session.view() if session is not None else None))
        if session is not None:
            self._tell_turn(session)
        screen = self.screens.game_screen()
        if screen is not None:
            screen.reset()
        self.changed()
        self.screens.redraw()

    def undo_game_over(self) -> None:
        """At game over (the result still on screen, not yet filed): take the last move back."""
        if self._over is None:
            return
        session, self._over = self._over[0], None
        self.session = session
        self.last_result = None  # in play again: no longer a result
        self.screens.replace([MainMenu(self.table), GameScreen(self.table)])
        if not self.undo():
            self.changed()
            self.screens.redraw()

    # -- ending and filing ----------------------------------------------------------------------------
    @property
    def result_on_screen(self) -> Session | None:
        """The game over whose result is on screen, not filed yet (its last move can be undone)."""
        return self._over[0] if self._over is not None else None

    def file_over(self) -> None:
        """File the game whose result is on screen (the table left it, or a new game starts)."""
        if self._over is not None:
            session, extra, ended, played = self._over
            self._over = None
            session.finish("over", extra, at=ended, played=played)

    def end_early(self) -> None:
        """End the game in play now; it goes to the history as ended early."""
        if self.session is None:
            return
        entry = self.session.finish("abandoned", self._history_extra())
        self.last_result = entry
        self.session = None
        self.screens.replace([MainMenu(self.table), GameOverScreen(self.table, entry)])
        self._turn = None
        self.changed("ended")
        self.screens.redraw()

    def home(self) -> None:
        """Back to the game in play, or the main menu (a game over left is filed now)."""
        self.file_over()
        in_play = [GameScreen(self.table)] if self.session is not None else []
        self.screens.replace([MainMenu(self.table), *in_play])
        self.screens.changed()

    def open_game_menu(self) -> None:
        """The in-game menu."""
        self.screens.push(GameMenu(self.table))

    def history(self) -> list[dict[str, Any]]:
        """Finished games, oldest first (read again only when the file changed: the page asks
        on every request, on the loop). Shared: callers must not change the list."""
        try:
            st = self.store.history_path.stat()
        except OSError:  # no history yet, or unreadable: the store says which
            return self.store.history()
        key = (st.st_ino, st.st_mtime_ns, st.st_size)
        if self._history is None or self._history[0] != key:
            self._history = (key, self.store.history())
        return self._history[1]

    def on_save_failed(self, message: str) -> None:
        """A journal write failed: back to what is on disk, pause the turn timer, refuse play
        until saving works (the next action tries again)."""
        session = self.session
        if session is not None:  # back to what is on disk (a game that ended keeps its result shown)
            session.rollback()
            created = session.journal.created
            if created is not None and created.done() and created.exception() is not None:
                self.session = None  # the game never started on disk
            self.home()
        self.store.writer.reset()
        self.changed()
        if self.timers.clocks is not None and not self.timers.paused:
            self.timers.toggle_pause()  # the game is paused: nobody's clock runs while play is refused
        self.message.refuse(message)
        self.publish(SaveFailed(message))
