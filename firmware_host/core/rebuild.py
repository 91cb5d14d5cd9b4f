"""Rebuilding a game: points of a line of play, replays, and the checks a journal snapshot passes.

A :class:`Point` is the game after its first ``n`` actions (state and last outcomes); a
:class:`Replay` is what replaying a line came to. :func:`from_snapshot` finds the newest journal
snapshot of a line that may be trusted as a start (see ``docs/snapshots.md``); the
:class:`~firmware_host.core.session.Session` replays from it.
"""

from __future__ import annotations

import json
import math
import zlib
from collections.abc import Sequence
from typing import Any

from firmware_host.core.journal import Journal, snap_body
from firmware_host.core.snapshot import SnapshotError, decode_state, fingerprint
from games.core import Action, Effect, Engine

OUTCOMES_KEPT = 40
"""Outcomes ("What happened") a session keeps and writes in its snapshots."""


class Point:
    """The game after the first ``n`` actions: its state, its last outcomes, how many in all."""

    __slots__ = ("n", "said", "saids", "state")

    def __init__(self, n: int, state: Any, said: tuple[str, ...], saids: int) -> None:
        self.n, self.state, self.said, self.saids = n, state, said, saids

    def then(self, state: Any, effects: list[Effect]) -> Point:
        """The point one action later."""
        new = tuple(e.value for e in effects if e.kind == "say")
        said = (self.said + new)[-OUTCOMES_KEPT:] if new else self.said
        return Point(self.n + 1, state, said, self.saids + len(new))


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
) -> Point | None:
    """The newest usable snapshot past ``after`` of the line ``actions``, or ``None``.

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
            return point
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
    return Point(n, state, tuple(said)[-OUTCOMES_KEPT:], saids)


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
