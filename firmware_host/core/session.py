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

import logging
import secrets
import time
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any

from firmware_host.core import fsio, rebuild
from firmware_host.core.journal import Journal, JournalError
from firmware_host.core.rebuild import Point, Replay, digest, from_snapshot, played, usable_time
from firmware_host.core.replay import Script, ScriptError
from firmware_host.core.snapshot import SnapshotError, encode_state, fingerprint
from firmware_host.core.store import Store, StoreError
from firmware_host.core.wallclock import clock_synced
from games.core import Action, Effect, Engine, Prompt, T, Task, View

log = logging.getLogger(__name__)

SNAP_EVERY = 100
"""Actions between two snapshots of the state in the journal (and checkpoints kept in memory):
undo and resume replay at most this many actions."""
KEEP_EVERY = 25
"""Actions between two checkpoints kept in memory for the game in play (an undo replays fewer)."""


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
        self._elapsed_at = (played(journal), mono())
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
        self.joined: list[bool] = []
        """Per action in effect: whether it belongs to the move of the action before it."""
        self._state: Any = self._start
        self._points: dict[int, Point] = {0: Point(0, self._start, (), 0)}
        """Checkpoints of the line in play: every :data:`SNAP_EVERY`-th and the last few."""
        self._point = self._points[0]
        self.skipped: str | None = None
        """Why replaying the journal stopped early (an action the engine now refuses), if it did."""
        self.snapshot_used: int | None = None
        """The point (actions in effect) of the journal's snapshot the session was rebuilt from."""
        self.replayed = 0
        """Actions replayed by the last rebuild (resume, undo): what a snapshot saves."""
        self.undone: tuple[Action, ...] = ()
        """The actions the last undo took back (one move)."""
        self.undone_said: tuple[str, ...] = ()
        """What the move the last undo took back had said."""
        self.read_size = journal.size
        """Bytes of the journal when the session was made of it (what a resume read)."""
        line = journal.timeline()
        self._journaled = len(line.actions)
        """Actions in effect by the journal when the session was made (a replay may keep fewer)."""
        self._snaps = line.snaps
        """The journal's snapshots of points of the line in play (used when undo goes back to them)."""
        journal.seed_script(line.snaps)
        self._low = len(line.actions)
        """The fewest actions the line held since the last snapshot (for the SCRIPT's cache)."""
        self._floor = len(line.actions)
        """The fewest actions the line held since the session was made."""
        self._head_snaps = journal.head is None or journal.head.indexed
        """Whether the snapshots before the journal's last are among :attr:`_snaps` (a journal read
        from its last snapshot on names them once its head is searched: see :meth:`_replay`)."""
        self._proved: set[int] = set()
        """The points of the journal's snapshots known to be what their actions lead to: sealed
        (:meth:`Journal.vouched <firmware_host.core.journal.Journal.vouched>`) or proved by the
        replay of a resume (:mod:`firmware_host.core.verdict`)."""
        self._rebuild(line.actions, line.joined)
        self.unchecked: tuple[list[Action], Point] | None = None
        """The line rebuilt from a journal snapshot not proved yet and where it led, until
        :meth:`agrees` or :meth:`accept` has compared it with the replay of its actions from the
        first (``None`` when it was rebuilt from none, or from a snapshot whose seal holds)."""
        if self.snapshot_used is not None and not self._point.sure(self._proved):
            self.unchecked = (self.actions[:], self._point)

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
        defer: bool = True,
    ) -> Session | None:
        """The unfinished game of ``store``, exactly as it was, or ``None``.

        ``defer``: the lines before the journal's last snapshot are searched when first needed
        (see :meth:`Journal.open`); without, at once (a snapshot whose point its lines did not hold).

        A game that ended (an ``end`` record), or whose last action ended it while the power
        went before its ``end`` record, is filed now with its real result and ``None`` returned.
        A damaged journal is moved aside and raises StoreError, as does a folder that cannot take
        the writes a resume needs.
        """
        # the lines before the last snapshot are searched when first needed: on the device, by the
        # replay that checks the resume, off the loop and after READY
        journal = store.open_game(repair=True, defer=defer)
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
                session._file(
                    journal.ended, usable_time(end.get("t"), session._last_time()), extra, end.get("clock_synced")
                )
                return None
            if session.over:  # the last action ended it; the power went before the end record (or the
                # table still had its result on screen, where the move could be taken back)
                final = journal.last_meta("over")
                ok = isinstance(final, dict) and final.get("at") == len(session.actions)
                extra = final.get("extra") if ok and isinstance(final.get("extra"), dict) else None
                session.finish("over", extra, at=session._last_time())
                return None
            # Actions the engine now refuses were dropped from play: take them back in the journal
            # too, so new actions follow what is in play and undo takes back what the table sees.
            dropped = session._journaled - len(session.actions)
            if dropped:
                session._write({"undo": 1, "k": dropped, **session._stamp()})
            elif session.replayed > SNAP_EVERY:  # no snapshot near the end (an older journal): one now
                session._snapshot()
        except OSError as exc:
            raise StoreError(f"{fsio.storage_message(exc)}: cannot resume") from None
        # Rebuilt from a snapshot: the checkpoints just before it, replayed now from the snapshot
        # before it (off the loop, "Resuming…"), so that the first undo past it is quick.
        at = session.snapshot_used
        if at is not None and at > 1 and not any(at - KEEP_EVERY <= k < at for k in session._points):
            try:
                warm = session._replay(session.actions[: at - 1]).keep
            except JournalError as exc:  # a snapshot naming a point its lines do not hold: read them all
                log.warning("%s: the game is read again from every line", exc)
                journal.close()
                return cls.resume(store, wall, mono, synced, defer=False)
            for point in warm:
                if point.n < at:
                    session._keep(point)
        return session

    def _last_time(self) -> float:
        """When the journal last heard of the game (its last record's time, else its start)."""
        for record in self.journal.newest_first():
            if usable_time(record.get("t"), None) is not None:
                return record["t"]
        return usable_time(self.journal.header.get("started"), self.wall())

    def _rebuild(self, actions: list[Action], joined: list[bool]) -> None:
        """Make ``actions`` the line in play, from the nearest checkpoint or snapshot before its end."""
        self._commit(self._replay(actions), joined)

    def _replay(self, actions: list[Action], trust: bool = True) -> Replay:
        """The game after ``actions``, from the nearest checkpoint or snapshot before its end.

        Changes nothing (so it may run off the loop while the session waits): checkpoints in
        memory are of the line in play (or of a longer one ``actions`` begins); the journal's
        snapshots are checked before use (see :func:`~firmware_host.core.rebuild.from_snapshot`).
        A replay from a snapshot that the engine then refuses or fails on is made again from the
        first action (the snapshot lied); ``trust=False`` does that from the start.
        """
        n = len(actions)
        if not trust:
            return rebuild.replay_from(self.engine, actions, self._points[0])
        head = self.journal.head
        if not self._head_snaps and head is not None and head.point is not None and n < head.point:
            self._head_snaps = True  # below the journal's last snapshot: the ones before it wanted
            self._snaps[:0] = self.journal.older_snaps(self._floor)
        snaps = [snap for snap in self._snaps if snap.get("n", 0) <= n]
        start = self._points[max(k for k in self._points if k <= n)]
        if snaps and start.n < n:
            found = from_snapshot(self.engine, self.base.game, type(self._start), actions, snaps, start.n)
            if found is not None:
                snapped, snap = found
                if snapped.n not in self._proved and self.journal.vouched(snap):
                    self._proved.add(snapped.n)
                try:
                    result = rebuild.replay_from(self.engine, actions, snapped, snapped.n)
                except Exception:  # a state no replay leads to: the actions decide
                    result = None
                if result is not None and result.refused is None:
                    return result
                return rebuild.replay_from(self.engine, actions, self._points[0])
        return rebuild.replay_from(self.engine, actions, start)

    def _commit(self, result: Replay, joined: list[bool]) -> None:
        """Make a replay's end the game in play (on the loop)."""
        n = len(result.actions)
        while self._snaps and self._snaps[-1].get("n", 0) > n:  # an undo went below them
            self._proved.discard(self._snaps.pop().get("n", 0))
        for point in result.keep:
            self._keep(point)
        self.snapshot_used = result.snapshot
        self.replayed = result.end.n - result.start.n
        index = None if result.refused is None else result.refused[0]
        self.skipped = (
            None
            if result.refused is None
            else T("action {index} refused on resume: {reason}", index=index, reason=result.refused[1])
        )
        kept = n if index is None else index
        self._low = min(self._low, kept)
        self._floor = min(self._floor, kept)
        self.actions, self.joined = result.actions[:kept], joined[:kept]
        self._point = result.end
        self.state = result.end.state

    def replay_whole(self, stop: Callable[[], bool] | None = None) -> Replay | None:
        """The line this session was rebuilt with from a snapshot not proved yet, replayed from
        its first action (every snapshot ignored); ``None`` when there is none to check or
        ``stop`` said so. On the way, every journal snapshot of that line is compared with the
        replay's point (:attr:`Replay.proved <firmware_host.core.rebuild.Replay.proved>`).

        Changes nothing: it runs off the loop (in a process of its own on the device:
        :mod:`firmware_host.core.proof`), while the game goes on, and :meth:`agrees` then compares.
        A snapshot that names a point its lines do not hold raises JournalError (found when the
        lines before the last snapshot are searched for the others).
        """
        if self.unchecked is None:
            return None
        actions, end = self.unchecked
        older = self.journal.older_snaps(end.n) if not self._head_snaps else []
        snaps = [*older, *list(self._snaps)]
        result = rebuild.replay_proving(self.engine, actions, self._points[0], snaps, stop, 2 * SNAP_EVERY)
        return result if result.end.n == end.n or result.refused is not None else None

    def agrees(self, replay: Replay) -> bool:
        """Whether the snapshot the session was rebuilt from led where the actions lead
        (:meth:`replay_whole`): then :meth:`accept`; when not, the replay's states are taken,
        the game in play is rebuilt from them and the journal gets a fresh snapshot. On the loop."""
        assert self.unchecked is not None
        actions, end = self.unchecked
        if rebuild.leads_to(replay, end):
            # the replay's checkpoints just below the snapshot are true: an undo past it needs no other
            same = len(actions) <= len(self.actions) and self.actions[: len(actions)] == actions
            for point in replay.keep if same else []:
                if point.n >= end.n - 2 * SNAP_EVERY and point.n not in self._points:
                    self._points[point.n] = point
            return self.accept(end.n, replay.proved)
        self.unchecked = None
        self._snaps.clear()
        self._points = {0: self._points[0]}
        for point in replay.keep:
            self._keep(point)
        self._tasks_done += 1  # the prompt is asked afresh
        self._rebuild(self.actions, self.joined)
        dropped = len(self.journal.actions()) - len(self.actions)
        if dropped:
            self._write({"undo": 1, "k": dropped, **self._stamp()})
        self._snapshot()
        return False

    def accept(self, n: int, proved: list[int]) -> bool:
        """Take the verdict of the replay that checked the resume: the line rebuilt up to ``n``
        led where the actions lead, and the snapshots at ``proved`` are true. The verdict is kept:
        when the game in play rests on nothing unproved, a sealed snapshot of it is journaled at
        once (later starts trust it: :mod:`firmware_host.core.verdict`). ``False`` (and nothing
        taken) when ``n`` is not the point the resume reached. On the loop."""
        if self.unchecked is None or self.unchecked[1].n != n:
            return False
        rests = self.unchecked[1].rests
        self.unchecked = None
        self._proved.update(proved)
        if rests is not None:
            self._proved.add(rests)
        if self._point.sure(self._proved):
            self._snapshot()
        return True

    def _keep(self, point: Point) -> None:
        """Keep ``point`` as a checkpoint: every :data:`KEEP_EVERY`-th for good, others a while."""
        every = min(KEEP_EVERY, SNAP_EVERY)
        self._points[point.n] = point
        old = point.n - every - 1
        if old > 0 and old % every and old in self._points:
            del self._points[old]

    def _snapshot(self) -> None:
        """Journal the state in play as a snapshot (when it can be written as one)."""
        point = self._point
        try:
            body = {
                "n": point.n,
                "g": self.base.game,
                "k": fingerprint(type(self.engine)),
                "d": digest(self.actions[-1] if self.actions else None),
                "s": encode_state(point.state),
                "o": encode_state(list(point.said)),
                "os": point.saids,
            }
        except SnapshotError:
            return  # a state the encoding does not know: the actions alone will do
        line = (self.actions[: point.n], min(self._low, point.n))
        self._low = point.n
        record = {"snap": body, **self._stamp()}
        self._track(self.journal.submit(record, optional=True, line=line, seal=point.sure(self._proved)))

    def outcomes(self) -> list[str]:
        """The last outcomes of the game in play, oldest first (what "What happened" lists)."""
        return list(self._point.said)

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
        line = self.journal.timeline()
        self._rebuild(line.actions, line.joined)

    # -- the door -----------------------------------------------------------------------------
    def apply(self, action: Action, joins: bool = False) -> list[Effect]:
        """Check, journal durably, then make ``action`` visible; raises Refused.

        ``joins``: the action belongs to the move of the one before it (an automatic action the
        same press caused), so one undo takes both back. With :attr:`watch` set the record is
        durable when the future handed to it is done, and the caller shows the effects only then.
        """
        state, effects = self.engine.apply(self.state, action)
        joins = joins and bool(self.actions)
        self._write({"a": action, **({"j": 1} if joins else {}), **self._stamp()})
        n = len(self.actions)
        for stale in [k for k in self._points if k > n]:  # checkpoints of a line undone
            del self._points[stale]
        self.state = state
        self.actions.append(action)
        self.joined.append(joins)
        self._point = self._point.then(state, effects)
        self._keep(self._point)
        if self._point.n % SNAP_EVERY == 0:
            self._snapshot()
        return effects

    def _move_size(self) -> int:
        """How many actions the last move has (its action and those joined to it)."""
        k = 1
        while k < len(self.actions) and self.joined[-k]:
            k += 1
        return k

    def undo_cost(self) -> int:
        """About how many actions an undo now replays (from the nearest checkpoint or snapshot)."""
        if not self.actions:
            return 0
        n = len(self.actions) - self._move_size()
        near = max(k for k in self._points if k <= n)
        near = max([near, *(s["n"] for s in self._snaps if type(s.get("n")) is int and s["n"] <= n)])
        return n - near

    def prepare_undo(self) -> Replay | None:
        """The game without its last move, worked out without changing anything: it may run off
        the loop, then :meth:`undo` takes it (while it runs, nothing else may change the game)."""
        if not self.actions:
            return None
        return self._replay(self.actions[: -self._move_size()])

    def undo(self, prepared: Replay | None = None) -> bool:
        """Take the last move back (its action and those joined to it); False when there is none.

        The game goes back to the nearest checkpoint and replays from there (at most
        :data:`SNAP_EVERY` actions), once; :attr:`undone` and :attr:`undone_said` say what went.
        ``prepared``: that replay, made by :meth:`prepare_undo` (used if the game has not changed).
        """
        if not self.actions:
            return False
        k = self._move_size()
        if prepared is None or prepared.actions != self.actions[:-k]:
            prepared = self._replay(self.actions[:-k])
        self._write({"undo": 1, **({"k": k} if k > 1 else {}), **self._stamp()})
        before = self._point
        self.undone = tuple(self.actions[-k:])
        told = self.engine.describe(prepared.end.state, self.undone[0])
        self._commit(prepared, self.joined[:-k])
        fresh = before.saids - self._point.saids
        self.undone_said = before.said[len(before.said) - fresh :] if 0 < fresh <= len(before.said) else ()
        if told:  # the game's own words for what went (one piece, not the turn the news named)
            self.undone_said = (told,)
        return True

    def last_move_said(self) -> tuple[str, ...]:
        """What the last move (the one an undo would take back) did, in words: the game's own
        description of its action where it has one (:meth:`Engine.describe`: Tonne's one piece),
        else what the move said, as far as the checkpoints kept in memory tell (empty when they do
        not reach back to its start)."""
        if not self.actions:
            return ()
        k = self._move_size()
        before = self._points.get(len(self.actions) - k)
        told = self.engine.describe(before.state, self.actions[-k]) if before is not None else None
        if told:
            return (told,)
        fresh = self._point.saids - before.saids if before is not None else 0
        return self._point.said[-fresh:] if 0 < fresh <= len(self._point.said) else ()

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
        for record in self.journal.newest_first():
            task = record.get("task")
            if isinstance(task, dict) and task.get("done") == key and task.get("at") == at:
                return True
        return False

    def finish(
        self,
        reason: str = "over",
        extra: dict[str, Any] | None = None,
        at: float | None = None,
        played: float | None = None,
    ) -> dict[str, Any]:
        """End the game (``"over"`` or ``"abandoned"``), file it in the history, return the entry.

        ``at`` and ``played``: when it ended and the seconds it had been in play then, for a game
        filed later than it ended (found over on resume, or its result left on screen a while).
        """
        stamp = self._stamp()
        if at is not None:  # a game found over on resume: ended when it was last heard of
            stamp["t"] = at
        if played is not None:
            stamp["e"] = round(played, 3)
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
        entry = self.history_entry(reason, now, extra, end_synced)
        journal = self.journal
        self._track(self.store.writer.submit(lambda: self.store.archive(journal, entry)))
        return entry

    def history_entry(
        self, reason: str, now: float, extra: dict[str, Any] | None = None, end_synced: Any = None
    ) -> dict[str, Any]:
        """The history line this game would be filed with, ended ``now`` (nothing is written)."""
        extra = extra or {}
        summary = self.summary
        header = self.journal.header
        duration = played(self.journal)
        started = usable_time(header.get("started"), now)
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
