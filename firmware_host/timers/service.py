"""The turn-timer service: the runtime's clock feeds the game; the game never reads a clock.

The arithmetic lives in :mod:`firmware_host.timers.clocks`; this service owns the time. Like Klipper's
reactor, it keeps one wake-up on the loop — the next moment something a player would notice
happens (the shown second changes, the warning starts, time runs out, the clocks are due to be
saved) — and charges the running clock with the loop's monotonic time whenever it wakes or the
game changes. Nothing sleeps; on the virtual-time loop an hour of play takes milliseconds.

Whose clock runs comes from the engine: the player of the prompt's :class:`~games.core.Menu`,
else the summary's ``turn``. A :class:`~games.core.Collect` prompt is a simultaneous choice: one
shared phase clock runs while someone has not answered (the game screen reports answers through
:meth:`TimerService.answered`). A turn lasts while the same player is asked; it ends when
someone else is (an action, an undo: the clocks are not rewound).

What the tower shows (:data:`firmware_host.runtime.lights.TIMER`), the beeps (``TIMER_BEEPS``), the
engine protocol of hard timeouts and the config keys are in ``docs/timers.md``.

The service reaches the table only through :class:`TimerHost`: the game in play, ``apply``,
``toast``, ``redraw``, the tower's timer light and beeps, and the saved settings (presets, beeps).

Power loss: the preset, every finished turn and the clocks are journaled as ``meta`` records at
turn changes, pause and resume, and every ``[timers] save_every`` seconds (default 5) while a
clock runs, so a resumed game gives every player the time they had at the last save — at most
``save_every`` seconds more than at the cut; time switched off never counts. A game resumed with
a running clock comes back paused, for the table to go on with a long ``ok``.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Mapping
from typing import Any, Protocol

from firmware_host.timers.clocks import LEVELS, RUNNING, TIMEOUT, WARNING, Clocks, Key, Preset, ms
from firmware_host.timers.presets import PresetError, parse_preset, saved_presets, to_table
from firmware_host.timers.stats import TimeStats, clock_text
from games.core import Action, Collect, Engine, Menu, Refused, T, Task

log = logging.getLogger(__name__)

PAUSED = "paused"
RANK = {level: i for i, level in enumerate(LEVELS)}
SOUNDS = {"all": {"warning", "timeout", PAUSED}, "timeout": {"timeout"}, "off": set()}
"""Which timer beeps sound under each ``timer_sound`` setting."""


class TimedGame(Protocol):
    """What the timer reads of the game in play (and its one write: a ``meta`` note)."""

    engine: Engine
    state: Any
    actions: list[Action]
    journal: Any
    base: Any

    def prompt(self) -> Any:
        """The prompt the game waits for."""
        ...

    def note(self, key: str, value: dict[str, Any]) -> None:
        """Journal a note (the clocks, the preset)."""
        ...


class TimerHost(Protocol):
    """What the turn-timer service may do at the table."""

    session: TimedGame | None
    """The game in play, if any."""
    settings: Mapping[str, Any]
    """The settings in force (``timer_sound``)."""
    saved_settings: dict[str, Any]
    """The settings menu's saved document (the ``timers`` presets live in it)."""

    def save_settings(self) -> None:
        """Write :attr:`saved_settings`."""
        ...

    def apply(self, action: Action) -> bool:
        """Hand an action (a hard timeout) to the game; False when refused."""
        ...

    def toast(self, text: str, seconds: float = ..., now: bool = False) -> None:
        """Say ``text`` for a moment on the bottom line."""
        ...

    def redraw(self) -> None:
        """Draw the screen again soon."""
        ...

    def show_timer(self, level: str | None, bar: float | None) -> None:
        """The tower's timer light for ``level`` with ``bar`` left (``None``: no timer)."""
        ...

    def timer_beep(self, level: str, bar: float | None) -> None:
        """The tower's beeps for the timer entering ``level``."""
        ...


Moment = Callable[[str, "str | None", float, bool], None]
"""A listener of the timer's moments (see :meth:`TimerService.listen`)."""


class TimerService:
    """Turn timers for the game in play."""

    def __init__(self, host: TimerHost, presets: Mapping[str, Preset], save_every: float) -> None:
        """``presets``: the config file's per-game presets; ``save_every``: seconds between saves."""
        self.host = host
        self.config_presets = presets
        self.save_every = save_every
        self.session: TimedGame | None = None
        self.preset = Preset()
        self.clocks: Clocks | None = None
        self.stats: TimeStats | None = None
        self.paused = False
        self._each = False
        """Whether the phase being timed takes each answer as its own action."""
        self._seen_actions = 0
        self._hint: tuple[tuple[str, ...], frozenset[str]] | None = None
        self._seg_start: float | None = None
        self._seg_charged = 0
        self._armed = False
        self._peak = RUNNING
        self._handle: asyncio.Handle | None = None
        self._saved_at = 0.0
        self._done: list[dict[str, Any]] = []
        """Turns ended since the last save: journaled with the next one, not with every action."""
        self._save_handle: asyncio.TimerHandle | None = None
        self._last_saved: dict[str, Any] | None = None
        self._force_turn = False
        self._listeners: list[Moment] = []
        self._counted: int | None = None
        """The whole second told last in the warning."""

    def listen(self, fn: Moment) -> None:
        """Call ``fn(moment, player, seconds_left, hard)`` at the timer's moments: ``warning``
        (the warning starts), ``countdown`` (each whole second shown in it), ``expired`` (time
        ran out; ``hard``: the game took a timeout action). ``player``: whose clock, ``None``
        for a shared phase clock."""
        self._listeners.append(fn)

    def _tell(self, moment: str, seconds_left: float | None = None, hard: bool = False) -> None:
        """Tell the listeners of a moment (``seconds_left``: the clock's, unless given)."""
        c = self.clocks
        player = c.active if c is not None and not c.phase else None
        if seconds_left is None:
            seconds_left = max(0, (c.remaining() if c is not None else None) or 0) / 1000
        for fn in list(self._listeners):
            fn(moment, player, seconds_left, hard)

    # -- presets ------------------------------------------------------------------------------------
    def preset_for(self, game: str) -> Preset:
        """The preset a new game of ``game`` gets: the settings menu's, else the config file's, else off."""
        saved = saved_presets(self.host.saved_settings)
        return saved.get(game) or self.config_presets.get(game) or Preset()

    def set_preset(self, game: str, preset: Preset) -> None:
        """Save ``game``'s preset (settings menu); the game in play, if it is ``game``, restarts its clocks."""
        settings = self.host.saved_settings
        timers = settings.get("timers") if isinstance(settings.get("timers"), dict) else {}
        timers[game] = to_table(preset)
        settings["timers"] = timers
        self.host.save_settings()
        self._in_play(game, preset)

    def forget_preset(self, game: str) -> Preset:
        """Drop the settings menu's preset of ``game``: the config file's applies again."""
        timers = self.host.saved_settings.get("timers")
        if isinstance(timers, dict) and game in timers:
            del timers[game]
            self.host.save_settings()
        preset = self.preset_for(game)
        self._in_play(game, preset)
        return preset

    def _in_play(self, game: str, preset: Preset) -> None:
        """The game in play, if it is ``game`` and its preset changes, restarts its clocks with it."""
        if self.session is not None and self.session.base.game == game and preset != self.preset:
            self._switch(preset)

    # -- what the device calls ------------------------------------------------------------------------
    def changed(self) -> None:
        """The game in play changed (an action, undo, a new or resumed game)."""
        session = self.host.session
        if session is not self.session:
            self._attach(session)
        if self.session is None or self.clocks is None:
            self._show()
            return
        self._charge()
        acted = len(self.session.actions) != self._seen_actions
        undone = len(self.session.actions) < self._seen_actions
        self._seen_actions = len(self.session.actions)
        key, each = self._key_now()
        old = self.clocks.key
        narrower = old is not None and key is not None and old[0] == key[0] == "phase" and set(key[1:]) < set(old[1:])
        turned = True
        if key != old and narrower and self._each and not self._force_turn:
            self.clocks.narrow(key[1:])
        elif self._force_turn or key != old or (acted and key is not None and key[0] == "phase" and not self._each):
            # a new player, a timeout the game took, or a phase whose answers were taken (the same
            # players answer afresh); a turn an undo cut short earns no bonus time
            self._next_turn(key, bonus=not undone)
        else:
            turned = False
        if undone:  # the bonus time of the turns undone goes back with them
            self.clocks.revoke(len(self.session.actions))
        self._force_turn = False
        self._each = each
        self._apply_hint()
        self._resegment()
        if turned:
            self._save_soon()
        self._show()
        self._schedule()
        self._check_timeout()

    def answered(self, players: tuple[str, ...], locked: frozenset[str]) -> None:
        """Of a simultaneous choice's ``players``, ``locked`` have answered (the game screen's hook)."""
        self._hint = (tuple(players), frozenset(locked))
        if self.clocks is None or not self.clocks.phase or self._stale():
            return  # changed() applies it when it catches up
        self._charge()
        was = self.clocks.running
        self._apply_hint()
        self._resegment()
        if was != self.clocks.running:
            self._save_soon()
        self._show()
        self._schedule()

    def toggle_pause(self) -> None:
        """Pause or resume the timer of the game in play (a long ``ok``)."""
        if self.session is None:
            return
        if self.clocks is None:
            self.host.toast(T("Timer off: Settings"))
            return
        self._charge()
        self.paused = not self.paused
        self._resegment()
        self._save()
        self._show()
        self._schedule()
        if self.paused:
            self._beep(PAUSED, self.time_bar())
            self.host.toast(T("Paused: hold ok"))
        else:
            self.host.toast(T("Timer runs"))

    def time_bar(self) -> float | None:
        """Remaining fraction of the running clock, for the bar beside the scores."""
        if self.clocks is None or self.clocks.key is None:
            return None
        fraction = self.clocks.fraction()
        return None if fraction is None else round(fraction, 2)

    def title_text(self) -> str:
        """The clock for the title bar: ``0:42`` left, ``+0:05`` over, count-up elapsed; ``||`` paused."""
        c = self.clocks
        if c is None:
            return ""
        mark = "||" if self.paused else ""
        if c.key is None:
            return mark
        left = c.remaining()
        if self.preset.mode == "countup" or left is None:
            text = clock_text(c.used)
        elif left > 0:
            text = clock_text(left + 999)  # a countdown shows 0:01 until the very end
        elif self.preset.mode == "hourglass":
            text = "0:00"  # an empty glass: no overtime to count (it never goes below zero)
        else:
            text = "+" + clock_text(-left)
        return mark + text

    def history_extra(self) -> dict[str, Any]:
        """What the timer adds to a finished game's history entry: time per player and per turn."""
        if self.clocks is None or self.stats is None:
            return {}
        self._charge()
        record = self._close_turn()
        if record is not None:
            self.stats.add(record)
        self._resegment()
        return {
            "timer": {
                "preset": to_table(self.preset),
                "players": self.stats.per_player(),
                "turns": self.stats.turns(),
            }
        }

    def close(self) -> None:
        """The device stops cleanly: save the clocks as they are now."""
        if self.clocks is not None and self.session is not None and not self.session.journal.ended:
            self._charge()
            self._save(grace=False)  # a clean stop: the clocks are exact, nothing runs on
        self._cancel()

    # -- the game in play ------------------------------------------------------------------------------
    def _attach(self, session: TimedGame | None) -> None:
        self._cancel()
        self._unsave()
        self.session, self.clocks, self.stats = session, None, None
        self.paused, self._force_turn, self._done, self._each = False, False, [], False
        self._last_saved = None
        self._seg_start = None
        if session is None:
            self.preset = Preset()
            return
        self._seen_actions = len(session.actions)
        journal = session.journal
        saved = journal.last_meta("timer")
        preset = None
        if isinstance(saved, dict):
            try:
                preset = parse_preset(session.base.game, saved)
            except PresetError as exc:
                log.warning("journal: the game's timer cannot be used (%s); using the current preset", exc)
        if preset is None:
            preset = self.preset_for(session.base.game)
            if preset.on:
                session.note("meta", {"timer": to_table(preset)})
        self.preset = preset
        if not preset.on:
            return
        if preset.timeout == "hard" and not session.engine.timeout_action:
            self.host.toast(T("Timeout soft: no rule"))
        players = session.base.players
        self.clocks = Clocks(preset, players)
        self.stats = TimeStats(players, journal.metas("turn_done"))
        snap = journal.last_meta("clock")
        if isinstance(snap, dict):
            self.clocks.restore(snap)
            self.paused = bool(snap.get("paused"))
            if self.clocks.running and not self.paused:
                self.paused = True  # back from a power cut: the table goes on when ready
                self.host.toast(T("Timer paused: hold ok"))
            self._each = bool(snap.get("each"))
        self._armed = (self.clocks.remaining() or 0) > 0
        self._peak = self.clocks.level() or RUNNING
        self._saved_at = self._now()

    def _switch(self, preset: Preset) -> None:
        """A new preset for the game in play: the current turn is filed, the clocks start afresh."""
        session = self.session
        assert session is not None
        self._charge()
        done = self._close_turn()
        self._cancel()
        self._unsave()  # its turns go into the record below
        self.preset = preset
        record: dict[str, Any] = {"timer": to_table(preset)}
        if done is not None and self.stats is not None:
            self.stats.add(done)
            self._done.append(done)
        if self._done:
            record["turn_done"], self._done = self._done, []
        if preset.on:
            players = session.base.players
            if self.stats is None:
                self.stats = TimeStats(players, session.journal.metas("turn_done"))
            self.clocks = Clocks(preset, players)
            key, self._each = self._key_now()
            self._begin(key)
            self._apply_hint()
            record["clock"] = self._snapshot()
        else:
            self.clocks, self.stats, self.paused = None, None, False
        session.note("meta", record)
        self._last_saved = None
        self._saved_at = self._now()
        self._resegment()
        self._show()
        self._schedule()

    def _key_now(self) -> tuple[Key, bool]:
        """Whose clock should run for the prompt of the game in play, and whether it is an ``each`` phase."""
        session = self.session
        assert session is not None
        prompt = session.prompt()
        if isinstance(prompt, Menu) and prompt.side is not None:
            prompt = prompt.side  # answers out of turn still owed: their phase clock runs first
        if isinstance(prompt, Collect):
            return ("phase", *prompt.players), prompt.each is not None
        if isinstance(prompt, Menu) and prompt.player is not None:
            return ("turn", prompt.player), False
        if prompt is None or isinstance(prompt, Task):  # a job for the whole table: nobody's time
            return None, False
        turn = session.engine.turn(session.state)
        return (("turn", turn) if turn else None), False

    def _stale(self) -> bool:
        """Whether the game changed in a way :meth:`changed` has not seen yet."""
        return self.session is not self.host.session or (
            self.session is not None and len(self.session.actions) != self._seen_actions
        )

    def _apply_hint(self) -> None:
        c = self.clocks
        if self._hint is None or c is None or not c.phase:
            return
        players, locked = self._hint
        if set(players) == set(c.key[1:]):  # type: ignore[index]
            c.lock(players, locked)

    def _close_turn(self, bonus: bool = True) -> dict[str, Any] | None:
        """End the running turn or phase in the clocks; the record of it, if it took any time.

        ``bonus``: whether a bank's bonus time is earned (not by a turn an undo cut short)."""
        c = self.clocks
        if c is None or c.key is None:
            return None
        if c.phase:
            taking_part = set(c.key[1:]) | set(c.answers)
            phase = [p for p in c.players if p in taking_part]
            record: dict[str, Any] = {"phase": phase, "ms": c.used, "answers": dict(c.answers)}
        else:
            record = {"player": c.active, "ms": c.used}
        c.end(len(self.session.actions) if self.session is not None else None, bonus)
        return record if record["ms"] > 0 else None

    def _next_turn(self, key: Key, bonus: bool = True) -> None:
        done = self._close_turn(bonus)
        if done is not None:
            assert self.stats is not None
            self.stats.add(done)
            self._done.append(done)
        self._begin(key)

    def _begin(self, key: Key) -> None:
        c = self.clocks
        assert c is not None
        locked: frozenset[str] = frozenset()
        if key is not None and key[0] == "phase" and self._hint and set(self._hint[0]) == set(key[1:]):
            locked = self._hint[1]
        c.begin(key, locked)
        self._armed = (c.remaining() or 0) > 0
        self._peak = RUNNING

    # -- time ------------------------------------------------------------------------------------------
    @staticmethod
    def _now() -> float:
        return asyncio.get_running_loop().time()

    def _charge(self) -> None:
        """Give the running clock the time since it was last charged."""
        if self._seg_start is None or self.clocks is None:
            return
        total = round((self._now() - self._seg_start) * 1000)
        delta, self._seg_charged = total - self._seg_charged, total
        self.clocks.run(delta)

    def _resegment(self) -> None:
        """Start measuring afresh from now (after the running state may have changed)."""
        running = self.clocks is not None and not self.paused and self.clocks.running
        self._seg_start = self._now() if running else None
        self._seg_charged = 0

    def _schedule(self) -> None:
        """One wake-up, at the next moment something shows, sounds or is saved."""
        self._cancel()
        c = self.clocks
        if c is None or self._seg_start is None:
            return
        waits: list[float] = []
        left = c.remaining()
        if left is not None:
            if left > 0:
                waits.append(left)
                warn = left - self.preset.warn_ms(c.full() or 0)
                if warn > 0:
                    waits.append(warn)
            waits.append(left % 1000 or 1000)
        else:
            waits.append(1000 - c.used % 1000)
        save_in = ms(self.save_every) - (self._now() - self._saved_at) * 1000
        waits.append(max(1.0, save_in))
        self._handle = asyncio.get_running_loop().call_later(min(waits) / 1000, self._tick)

    def _cancel(self) -> None:
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None

    def _unsave(self) -> None:
        """Forget a pending save (its record is written otherwise, or belongs to a game gone)."""
        if self._save_handle is not None:
            self._save_handle.cancel()
            self._save_handle = None

    def _tick(self) -> None:
        self._handle = None
        if self.clocks is None:
            return
        self._charge()
        if self._fire_timeout():
            return
        if self._now() - self._saved_at >= self.save_every - 1e-6:
            self._save()
        self._show()
        self._schedule()

    def _check_timeout(self) -> None:
        """Time ran out outside a wake-up (a change came at that moment): handle it on the next turn of the loop."""
        c = self.clocks
        if c is not None and self._armed and c.level() == TIMEOUT and self._seg_start is not None:
            self._cancel()
            self._handle = asyncio.get_running_loop().call_soon(self._tick)

    def _fire_timeout(self) -> bool:
        """When time has just run out: a hard timeout goes to the game. True when the game took it."""
        c = self.clocks
        session = self.session
        if c is None or session is None or not self._armed or c.level() != TIMEOUT:
            return False
        self._armed = False
        if self.preset.timeout != "hard" or not session.engine.timeout_action:
            return False
        if c.phase:
            action: dict[str, Any] = {"type": "timeout", "players": [p for p in c.players if p in c.pending]}
        else:
            action = {"type": "timeout", "player": c.active}
        try:  # engines are pure: ask first, so a timeout the game does not take stays soft, quietly
            session.engine.apply(session.state, action)
        except Refused:
            return False
        self._force_turn = True
        if not self.host.apply(action):
            self._force_turn = False
            return False
        self._beep(TIMEOUT, 0.0)  # before the game's own signal, which follows
        self._tell("expired", 0.0, True)
        return True

    # -- showing and saving ----------------------------------------------------------------------------
    def level(self) -> str | None:
        """What the tower shows of the timer: ``running``, ``warning``, ``timeout``, ``paused`` or ``None``."""
        c = self.clocks
        if c is None:
            return None
        if self.paused:
            return PAUSED
        return c.level()

    def _show(self) -> None:
        level = self.level()
        if level is None:
            self.host.show_timer(None, None)
        else:
            bar = self.time_bar()
            self.host.show_timer(level, bar)
            if level in RANK and RANK[level] > RANK[self._peak]:
                self._peak_beep(level, bar)
            left = self.clocks.remaining() if self.clocks is not None and level == WARNING else None
            if left is not None and left > 0 and -(-left // 1000) != self._counted:
                self._counted = -(-left // 1000)  # each whole second shown in the warning (rounded up), told once
                self._tell("countdown", float(self._counted))
        self.host.redraw()

    def _peak_beep(self, level: str, bar: float | None) -> None:
        self._peak = level
        self._beep(level, bar)
        if level == WARNING:
            self._counted = None
            self._tell("warning")
        elif level == TIMEOUT:
            self._tell("expired", 0.0)

    def _beep(self, level: str, bar: float | None) -> None:
        if level not in SOUNDS.get(self.host.settings.get("timer_sound", "all"), set()):
            return
        self.host.timer_beep(level, bar)

    def _snapshot(self, grace: bool = True) -> dict[str, Any]:
        """The clocks to journal; with ``grace``, how long a running clock may go on unsaved."""
        assert self.clocks is not None
        running = grace and not self.paused and self.clocks.running
        snap = self.clocks.snapshot(ms(self.save_every) if running else 0)
        if self.paused:
            snap["paused"] = True
        if self._each:
            snap["each"] = True
        return snap

    def _save_soon(self) -> None:
        """Save within ``save_every`` seconds, running clock or not (a turn change, an answer):
        one fsync an action is the journal's own, the timer's waits for its next save."""
        if self._save_handle is not None or self.session is None:
            return
        every = self.save_every
        wait = max(0.0, every - (self._now() - self._saved_at))
        self._save_handle = asyncio.get_running_loop().call_later(wait, self._flush)

    def _flush(self) -> None:
        self._save_handle = None
        self._charge()
        self._save()

    def _save(self, grace: bool = True) -> None:
        """Journal the clocks (and the turns ended since the last save) as one ``meta`` record."""
        self._unsave()
        if self.session is None or self.clocks is None:
            return
        record: dict[str, Any] = {"clock": self._snapshot(grace)}
        if self._done:
            record["turn_done"], self._done = self._done, []
        elif record == self._last_saved:
            return  # nothing moved since (a stop right after a save)
        self.session.note("meta", record)
        self._last_saved = record
        self._saved_at = self._now()
