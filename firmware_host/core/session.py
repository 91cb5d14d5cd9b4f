"""The game in play: engine, state and journal, and the one function every action goes through.

:meth:`Session.apply` is the single door for actions, whatever brought them (a button, the scale,
a turn timer, a script line): the engine checks the action, the journal makes it durable, and only
then does the new state (and its effects) become visible.

Time: every record carries the wall time ``t`` and ``e``, the seconds the game has been in play by
the monotonic clock (carried over a restart from the last record; the time the device was off
does not count). The history's ``duration_s`` comes from ``e``, so a wall clock that jumps
mid-game (a Pi without a real-time clock syncing over NTP) cannot make it wrong. The header and
the ``end`` record say whether the wall clock was synced (:mod:`firmware_host.core.wallclock`);
a game started before the sync and ended after it gets its start date from its end.
"""

from __future__ import annotations

import math
import secrets
import time
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any

from firmware_host.core import fsio
from firmware_host.core.journal import Journal
from firmware_host.core.replay import Script, ScriptError, run_actions
from firmware_host.core.store import Store, StoreError
from firmware_host.core.wallclock import clock_synced
from games.core import Action, Effect, Engine, Prompt, T, Task, View


def _time(value: Any, default: Any) -> Any:
    """``value`` when it is a usable time (a finite number), else ``default``."""
    ok = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
    return value if ok else default


class Session:
    """One game on the device, journaled in a :class:`~firmware_host.core.store.Store`."""

    def __init__(
        self,
        store: Store,
        journal: Journal,
        wall: Callable[[], float] = time.time,
        started: tuple[Engine, Any] | None = None,
        mono: Callable[[], float] = time.monotonic,
        synced: Callable[[], bool] | None = None,
    ) -> None:
        self.store = store
        self.journal = journal
        self.wall = wall
        self.watch: Callable[[Future], None] | None = None
        """Takes the future of every write (the device); without it each write is waited for."""
        self.mono = mono
        self.synced = synced or (lambda: clock_synced(self.wall()))
        """Whether the wall clock shows the real time now (default: judged on ``wall``)."""
        self._elapsed_at = (_elapsed(journal), mono())
        """Seconds in play by the last record, and the monotonic time this session began."""
        header = journal.header
        self.base = Script(header["game"], list(header["players"]), header["seed"], dict(header.get("options", {})))
        self.engine: Engine
        self.engine, self._start = started or self.base.start()
        self._asked: tuple[tuple[int, int], Prompt | None] | None = None
        """The last prompt asked, and for which (state version, jobs confirmed)."""
        self._seen: tuple[int, View] | None = None
        self._version = 0
        """Counts changes of ``state``: what the prompt and view caches are keyed on."""
        self._tasks_done = 0
        """Counts table jobs confirmed (they change the prompt, not the state)."""
        self.actions: list[Action] = []
        self._state: Any = self._start
        self.skipped: str | None = None
        """Why replaying the journal stopped early (an action the engine now refuses), if it did."""
        self._rebuild(journal.actions())

    # -- making one ---------------------------------------------------------------------------
    @classmethod
    def start(
        cls,
        store: Store,
        game: str,
        players: list[str],
        options: dict[str, Any] | None = None,
        seed: int | None = None,
        wall: Callable[[], float] = time.time,
        meta: dict[str, Any] | None = None,
        watch: Callable[[Future], None] | None = None,
        settle: bool = True,
        mono: Callable[[], float] = time.monotonic,
        synced: Callable[[], bool] | None = None,
    ) -> Session:
        """Start and journal a new game; raises ScriptError for a game it cannot start.

        ``meta`` (the seats) is written with the header, in the same fsync. With ``watch`` the
        creation is handed to it as a future (the device waits for it without blocking);
        without, this returns once the journal is durable and raises OSError if it is not.
        ``settle`` first files a game left in the folder (see :meth:`settle`); the device skips
        it right after ending its own game, whose filing is still on the writer.
        """
        seed = secrets.randbits(31) if seed is None else seed
        script = Script(game, list(players), seed, dict(options or {}))
        started = script.start()  # validate before anything is written
        if settle:
            store.writer.drain()  # nothing in flight when the device starts from the menu
            if store.game_path.exists():
                cls.settle(store, wall)
        now = wall()
        header = {
            "id": time.strftime("%Y%m%dT%H%M%S", time.gmtime(now)) + f"-{secrets.token_hex(3)}",
            "game": game,
            "players": list(players),
            "seed": seed,
            "options": dict(options or {}),
            "started": now,
            "clock_synced": synced() if synced else clock_synced(now),
        }
        records = [{"meta": meta, "t": now}] if meta else []
        session = cls(store, store.new_game(header, records), wall, started, mono, synced)
        session.watch = watch
        assert session.journal.created is not None
        session._track(session.journal.created)
        return session

    @classmethod
    def settle(cls, store: Store, wall: Callable[[], float] = time.time) -> None:
        """File a game left in the state folder (after a failure to file it), before a new one.

        A finished game is filed with its result, an unfinished one as ended early; a damaged
        one is moved aside. Raises OSError when the folder cannot be written.
        """
        try:
            left = cls.resume(store, wall)
        except StoreError:
            return  # damaged: moved aside, or the next step keeps it aside
        if left is not None:
            left.finish("abandoned")

    @classmethod
    def resume(
        cls,
        store: Store,
        wall: Callable[[], float] = time.time,
        mono: Callable[[], float] = time.monotonic,
        synced: Callable[[], bool] | None = None,
    ) -> Session | None:
        """The unfinished game of ``store``, exactly as it was, or ``None``.

        A game that ended (an ``end`` record), or whose last action ended it while the power
        went before its ``end`` record, is filed now with its real result and ``None`` returned.
        A damaged journal is moved aside and raises StoreError, as does a folder that cannot take
        the writes a resume needs.
        """
        journal = store.open_game(repair=True)
        if journal is None:
            return None
        try:
            session = cls(store, journal, wall, None, mono, synced)
        except ScriptError as exc:
            raise StoreError(store.damaged(journal.path, f"{journal.path.name}: {exc}", True)) from None
        try:
            if journal.ended:  # ended, but the power went before it was filed
                end = journal.last("end") or {}
                extra = end.get("extra") if isinstance(end.get("extra"), dict) else {}
                session._file(journal.ended, _time(end.get("t"), session._last_time()), extra, end.get("clock_synced"))
                return None
            if session.over:  # the last action ended it; the power went before the end record
                session.finish("over", at=session._last_time())
                return None
            # Actions the engine now refuses were dropped from play: take them back in the journal
            # too, so new actions follow what is in play and undo takes back what the table sees.
            for _ in range(len(journal.actions()) - len(session.actions)):
                session._write({"undo": 1, **session._stamp()})
        except OSError as exc:
            raise StoreError(f"{fsio.storage_message(exc)}: cannot resume") from None
        return session

    def _last_time(self) -> float:
        """When the journal last heard of the game (its last record's time, else its start)."""
        for record in reversed(self.journal.records):
            if _time(record.get("t"), None) is not None:
                return record["t"]
        return _time(self.journal.header.get("started"), self.wall())

    def _rebuild(self, actions: list[Action]) -> None:
        state, index, reason = run_actions(self.engine, self._start, actions)
        self.skipped = (
            None if index is None else T("action {index} refused on resume: {reason}", index=index, reason=reason)
        )
        self.state, self.actions = state, actions[: len(actions) if index is None else index]

    # -- writing --------------------------------------------------------------------------------
    def _track(self, future: Future) -> Future:
        if self.watch is not None:
            self.watch(future)
        else:
            future.result()  # raises the OSError of a failed write
        return future

    def _write(self, record: dict[str, Any]) -> Future:
        return self._track(self.journal.submit(record))

    def rollback(self) -> None:
        """A write failed: go back to what is on disk (the last durable action in effect)."""
        self.journal.rollback()
        self._tasks_done += 1  # the prompt is asked afresh
        self._rebuild(self.journal.actions())

    # -- the door -----------------------------------------------------------------------------
    def apply(self, action: Action) -> list[Effect]:
        """Check, journal durably, then make ``action`` visible; raises Refused.

        With :attr:`watch` set the record is durable when the future handed to it is done,
        and the caller shows the effects only then.
        """
        state, effects = self.engine.apply(self.state, action)
        self._write({"a": action, **self._stamp()})
        self.state = state
        self.actions.append(action)
        return effects

    def undo(self) -> bool:
        """Take the last action back (replaying one action fewer); False when there is none."""
        if not self.actions:
            return False
        self._write({"undo": 1, **self._stamp()})
        self._rebuild(self.actions[:-1])
        return True

    def note(self, key: str, value: dict[str, Any]) -> None:
        """Journal runtime bookkeeping the engine never sees (``draft``, ``meta``, ``task``)."""
        self._write({key: value, **self._stamp()})

    def save_draft(self, answers: dict[str, str], locked: list[str]) -> None:
        """Journal the answers given so far to a simultaneous prompt (a power cut loses none)."""
        self.note("draft", {"answers": answers, "locked": locked})

    def draft(self) -> dict[str, Any] | None:
        """The answers of an unfinished simultaneous prompt, as :meth:`save_draft` left them."""
        return self.journal.draft()

    def confirm_task(self, key: str) -> None:
        """Journal that the table did the job of the :class:`Task` ``key`` (a note, not an action).

        The note holds the number of actions in effect, so it counts for this very point of the
        game: an undo back to it keeps the job done, a later job with the same key is new.
        """
        self.note("task", {"done": key, "at": len(self.actions)})
        self._tasks_done += 1

    def _confirmed(self, key: str) -> bool:
        at = len(self.actions)
        for record in reversed(self.journal.records):
            task = record.get("task")
            if isinstance(task, dict) and task.get("done") == key and task.get("at") == at:
                return True
        return False

    def finish(
        self, reason: str = "over", extra: dict[str, Any] | None = None, at: float | None = None
    ) -> dict[str, Any]:
        """End the game (``"over"`` or ``"abandoned"``), file it in the history, return the entry."""
        stamp = self._stamp()
        if at is not None:  # a game found over on resume: ended when it was last heard of
            stamp["t"] = at
        synced = self.synced()
        self._write({"end": reason, **stamp, "clock_synced": synced, "extra": extra or {}})
        return self._file(reason, stamp["t"], extra or {}, synced)

    def elapsed(self) -> float:
        """Seconds the game has been in play, by the monotonic clock."""
        before, since = self._elapsed_at
        return before + max(0.0, self.mono() - since)

    def _stamp(self) -> dict[str, float]:
        """The times a record carries: wall ``t`` and seconds in play ``e``."""
        return {"t": self.wall(), "e": round(self.elapsed(), 3)}

    def _file(self, reason: str, now: float, extra: dict[str, Any], end_synced: Any = None) -> dict[str, Any]:
        summary = self.summary
        header = self.journal.header
        duration = _elapsed(self.journal)
        started = _time(header.get("started"), now)
        start_synced = header.get("clock_synced")
        if start_synced is False and end_synced is True:
            started = now - duration  # begun before the clock was set: dated from its end
        entry = {
            "id": self.journal.header.get("id"),
            "game": self.base.game,
            "started": started,
            "ended": now,
            "duration_s": round(duration, 1),
            "players": list(summary["players"]),
            "scores": summary["scores"],
            "winners": summary["winners"] if reason == "over" else [],
            "reason": reason,
        }
        if self.engine.ranks:  # the game's own ranking (Bomb: the order the players went out)
            entry["places"] = self.engine.places(self.state)
        if end_synced is not None or start_synced is not None:  # (journals before this say nothing)
            entry["clock_synced"] = bool(end_synced if end_synced is not None else start_synced)
        entry.update(extra)
        journal = self.journal
        self._track(self.store.writer.submit(lambda: self.store.archive(journal, entry)))
        return entry

    # -- reading ------------------------------------------------------------------------------
    @property
    def state(self) -> Any:
        """The game state in play."""
        return self._state

    @state.setter
    def state(self, state: Any) -> None:
        self._state = state
        self._version += 1

    @property
    def over(self) -> bool:
        """Whether the rules say the game is finished."""
        return bool(self.state.over)

    @property
    def summary(self) -> dict[str, Any]:
        """The replay summary of the current state."""
        return self.engine.summary(self.state)

    def script(self) -> Script:
        """The replay SCRIPT that rebuilds this game."""
        return Script(self.base.game, self.base.players, self.base.seed, self.base.options, list(self.actions))

    def prompt(self) -> Prompt | None:
        """What the game waits for: the engine's prompt, past table jobs already confirmed.

        Asked once per state and journal length (the screen, the timer and the scale all ask).
        """
        key = (self._version, self._tasks_done)
        if self._asked is None or self._asked[0] != key:
            prompt = self.engine.prompt(self.state)
            while isinstance(prompt, Task) and self._confirmed(prompt.key):
                prompt = prompt.then
            self._asked = (key, prompt)
        return self._asked[1]

    def view(self) -> View:
        """What the screen shows of the game (made once per state)."""
        if self._seen is None or self._seen[0] != self._version:
            self._seen = (self._version, self.engine.view(self.state))
        return self._seen[1]


def _elapsed(journal: Journal) -> float:
    """Seconds in play by the journal's last record: the newest ``e``, plus the wall time from that
    record to the last one when later records carry none (journals written before ``e`` existed:
    the wall time since the start); never below zero."""

    def number(value: Any) -> float | None:
        ok = isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)
        return float(value) if ok else None

    last_t = next((t for r in reversed(journal.records) if (t := number(r.get("t"))) is not None), None)
    base, since = 0.0, number(journal.header.get("started"))
    for record in reversed(journal.records):
        e = number(record.get("e"))
        if e is not None and e >= 0:
            base, since = e, number(record.get("t"))
            break
    tail = last_t - since if last_t is not None and since is not None else 0.0
    return base + min(max(0.0, tail), 1e9)
