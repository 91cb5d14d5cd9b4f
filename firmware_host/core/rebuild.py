"""Rebuilding a game: points of a line of play, replays, and the checks a journal snapshot passes.

A :class:`Point` is the game after its first ``n`` actions (state and last outcomes); a
:class:`Replay` is what replaying a line came to. :func:`from_snapshot` finds the newest journal
snapshot of a line that may be trusted as a start (see ``docs/snapshots.md``); the
:class:`~firmware_host.core.session.Session` replays from it.
"""

from __future__ import annotations

import json
import math
import time
import zlib
from collections.abc import Callable, Sequence
from typing import Any

from firmware_host.core.journal import Journal, snap_body
from firmware_host.core.snapshot import SnapshotError, decode_state, fingerprint, same_state
from games.core import Action, Effect, Engine, Refused

OUTCOMES_KEPT = 40
"""Outcomes ("What happened") a session keeps and writes in its snapshots."""


class Point:
    """The game after the first ``n`` actions: its state, its last outcomes, how many in all."""

    __slots__ = ("n", "rests", "said", "saids", "state")

    def __init__(self, n: int, state: Any, said: tuple[str, ...], saids: int, rests: int | None = None) -> None:
        self.n, self.state, self.said, self.saids = n, state, said, saids
        self.rests = rests
        """The point of the journal snapshot this point was worked out from (``None``: from the
        game's first action): it is what its actions lead to as far as that snapshot is."""

    def sure(self, proved: set[int]) -> bool:
        """Whether the point is what its actions lead to, the points of the journal snapshots known
        true being ``proved``: worked out from the first action, or from one of them."""
        return self.rests is None or self.rests in proved

    def then(self, state: Any, effects: list[Effect]) -> Point:
        """The point one action later."""
        new = tuple(e.value for e in effects if e.kind == "say")
        said = (self.said + new)[-OUTCOMES_KEPT:] if new else self.said
        return Point(self.n + 1, state, said, self.saids + len(new), self.rests)


class Replay:
    """What replaying a line of actions came to (:meth:`Session.prepare_undo`)."""

    def __init__(self, actions: Sequence[Action], start: Point) -> None:
        self.actions = actions
        self.start = self.end = start
        self.snapshot: int | None = None
        """The point of the journal's snapshot it started from, if one."""
        self.refused: tuple[int, str] | None = None
        """The index of an action the engine refused (the replay stopped there), and why."""
        self.keep: list[Point] = []
        """Points worked out on the way, kept as checkpoints when the replay is taken."""
        self.proved: list[int] = []
        """The points of the journal's snapshots it passed and found true (:meth:`Session.replay_whole`)."""


def digest(action: Action | None) -> int:
    """A checksum of one action, by which a snapshot names the last action it follows."""
    if action is None:
        return 0
    body = json.dumps(action, ensure_ascii=False, separators=(",", ":"), sort_keys=True)
    return zlib.crc32(body.encode("utf-8"))


def usable_time(value: Any, default: Any) -> Any:
    """``value`` when it is a usable time (a finite number), else ``default``."""
    ok = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
    return value if ok else default


def from_snapshot(
    engine: Engine, game: str, kind: type, actions: Sequence[Action], snaps: list[dict[str, Any]], after: int
) -> tuple[Point, dict[str, Any]] | None:
    """The newest usable snapshot past ``after`` of the line ``actions`` (its point, and the
    snapshot record's body), or ``None``.

    A snapshot is used only when it names this game and the very code of its engine, follows
    the same last action, and decodes into a state of the engine's own class; any other is
    ignored (the actions are the truth: replaying them is always right, only slower).
    """
    code = fingerprint(type(engine))
    for snap in reversed(snaps):
        try:
            point = snapshot_point(engine, game, kind, snap, actions, after, code)
        except Exception:  # whatever a snapshot holds, a bad one is only ignored
            point = None
        if point is not None:
            return point, snap
    return None


def snapshot_point(
    engine: Engine, game: str, kind: type, snap: dict[str, Any], actions: Sequence[Action], after: int, code: str
) -> Point | None:
    """The point one journal snapshot describes, when it passes every check; else ``None``."""
    n = snap.get("n")
    if type(n) is not int or not after < n <= len(actions):
        return None
    snap = snap_body(snap)
    if snap.get("n") != n or snap.get("g") != game or snap.get("k") != code:
        return None
    if snap.get("d") != digest(actions[n - 1]):
        return None
    try:
        state = decode_state(snap.get("s"))
        said = decode_state(snap.get("o", []))
    except SnapshotError:
        return None
    saids = snap.get("os")
    if type(state) is not kind or type(said) is not list or type(saids) is not int:
        return None
    if not all(isinstance(line, str) for line in said):
        return None
    # the questions every screen asks of a state must have answers (else it is no state of play)
    engine.summary(state), engine.prompt(state), engine.view(state)
    return Point(n, state, tuple(said)[-OUTCOMES_KEPT:], saids, n)


def replay_from(
    engine: Engine,
    actions: Sequence[Action],
    start: Point,
    snapshot: int | None = None,
    stop: Callable[[], bool] | None = None,
    visit: Callable[[Point], None] | None = None,
    last: int | None = None,
) -> Replay:
    """The game after ``actions``, replayed from ``start`` (the journal's snapshot ``snapshot``,
    if one). ``stop``: asked now and then (the replay runs off the loop); when it says so the
    replay ends where it is. ``visit`` sees every point on the way. ``last``: only the points of
    the last ``last`` actions are kept (a replay of a whole long line keeps a few states, not
    thousands, so that the collector has little to walk while it runs); all when ``None``."""
    keep_from = len(actions) - last if last is not None else 0
    result = Replay(actions, start)
    result.snapshot = snapshot
    if snapshot is not None:
        result.keep.append(start)
    point = start
    for i, action in enumerate(actions[start.n :], start.n):  # (the journal's decoded at once)
        if stop is not None and i % 50 == 0:
            time.sleep(0)  # off the loop: let the loop's thread have the interpreter
            if stop():
                break
        try:
            state, effects = engine.apply(point.state, action)
        except Refused as exc:
            result.refused = (i, str(exc))
            break
        point = point.then(state, effects)
        if point.n > keep_from:
            result.keep.append(point)
        if visit is not None:
            visit(point)
    result.end = point
    return result


def replay_proving(
    engine: Engine,
    actions: Sequence[Action],
    start: Point,
    snaps: list[dict[str, Any]],
    stop: Callable[[], bool] | None,
    last: int,
) -> Replay:
    """:func:`replay_from` of a whole line (the points of its last ``last`` actions kept) that
    compares every journal snapshot of ``snaps`` with the replay's point there: the points of
    those that hold it exactly are :attr:`Replay.proved` (two snapshots of one point: both must)."""
    at: dict[int, list[dict[str, Any]]] = {}
    for snap in snaps:
        if type(snap.get("n")) is int and snap["n"] <= len(actions):
            at.setdefault(snap["n"], []).append(snap)
    true: set[int] = set()
    false: set[int] = set()

    def visit(point: Point) -> None:
        for snap in at.get(point.n, ()):
            (true if describes(snap, point) else false).add(point.n)

    result = replay_from(engine, actions, start, None, stop or (lambda: False), visit, last)
    result.proved = sorted(true - false)
    return result


def leads_to(replay: Replay, end: Point) -> bool:
    """Whether a replay from the first action came where ``end`` (rebuilt from a snapshot) is:
    the same state, as :func:`~firmware_host.core.snapshot.same_state` compares, and outcomes."""
    return replay.refused is None and same_state(replay.end.state, end.state) and replay.end.said == end.said


def describes(snap: dict[str, Any], point: Point) -> bool:
    """Whether a journal snapshot holds exactly ``point``'s state and outcomes (as a resume would
    read them: decoded, then compared as :func:`~firmware_host.core.snapshot.same_state` does)."""
    body = snap_body(snap)
    try:
        state = decode_state(body.get("s"))
        said = decode_state(body.get("o", []))
    except SnapshotError:
        return False
    if body.get("os") != point.saids or type(said) is not list or tuple(said)[-OUTCOMES_KEPT:] != point.said:
        return False
    return same_state(state, point.state)


def played(journal: Journal) -> float:
    """Seconds in play by the journal's last record: the newest ``e``, plus the wall time from that
    record to the last one when later records carry none (journals written before ``e`` existed:
    the wall time since the start); never below zero."""

    def number(value: Any) -> float | None:
        ok = isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)
        return float(value) if ok else None

    last_t = next((t for r in journal.newest_first() if (t := number(r.get("t"))) is not None), None)
    base, since = 0.0, number(journal.header.get("started"))
    for record in journal.newest_first():
        e = number(record.get("e"))
        if e is not None and e >= 0:
            base, since = e, number(record.get("t"))
            break
    tail = last_t - since if last_t is not None and since is not None else 0.0
    return base + min(max(0.0, tail), 1e9)
