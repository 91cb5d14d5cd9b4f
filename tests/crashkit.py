"""Crash, power-cut and storage-fault models of the state folder, shared by tests and the soak.

- :func:`whole_game` plays a seeded random game to its end through the engine's own prompts
  (the choices a table could make on the buttons), for each of the five games.
- :class:`Faults` counts every write, fsync, rename, truncate and mkdir the state folder makes
  (they all go through :mod:`firmware_host.core.fsio`) and, at a chosen one, kills the run
  (:class:`Kill`, which nothing catches, as a ``kill -9`` would) or fails it with an errno.
- :func:`play` runs a game as the device does: start with the seats, each action durable before
  the next, confirmed table jobs, the end record and the filing when the rules say it is over.
- :func:`check_recovery` reopens the folder as a boot would and checks what the players would:
  nothing acknowledged lost, the finished game filed once with its real result, replay agrees.
"""

from __future__ import annotations

import contextlib
import errno
import functools
import json
import os
import random
import shutil
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from firmware_host.core import fsio
from firmware_host.core.replay import Script, replay
from firmware_host.core.session import Session
from firmware_host.core.store import Store
from games.core import Collect, Menu, Order, Refused, Task

GAMES = {
    "tonne": ["Ann", "Jürgen", "Cy"],
    "bomb": ["Ann", "Jürgen", "Cy"],
    "arschbombe": ["Ann", "Jürgen"],
    "antartik": ["Ann", "Jürgen"],
    "trottel": ["Ann", "Jürgen", "Zoë"],
}
"""Each game with players whose names need more than one byte in UTF-8 (cuts inside ``ü``)."""

OPS = ("write", "fsync", "truncate", "rename", "mkdir")
WALL0 = 1_700_000_000.0


class Kill(BaseException):
    """The process dies here (``kill -9`` or a power cut): nothing catches it."""


Step = tuple[str, Any]
"""``("action", ACTION)`` or ``("task", KEY)``."""


def _walk(option: Any, rng: random.Random, players: tuple[str, ...]) -> Any:
    while option.action is None:
        sub = option.submenu()
        if isinstance(sub, Order):
            return sub.build(rng.sample(list(sub.players), len(sub.players)))
        option = rng.choice(sub.options)
    return option.action


def _choose(prompt: Any, rng: random.Random) -> Step | None:
    if isinstance(prompt, Task):
        return ("task", prompt.key)
    if isinstance(prompt, Menu):
        side = prompt.side  # answers out of turn (bets) come first, as the buttons hand them over
        if side is not None and side.players and side.each is not None:
            player = side.players[0]
            value = rng.choice(side.values[player]) if rng.random() < 0.3 else side.default
            if value is not None:
                return ("action", side.each(player, value))
        return ("action", _walk(rng.choice(prompt.options), rng, ()))
    if isinstance(prompt, Order):
        return ("action", prompt.build(rng.sample(list(prompt.players), len(prompt.players))))
    if isinstance(prompt, Collect):
        if prompt.each is not None:
            player = rng.choice(prompt.players)
            return ("action", prompt.each(player, rng.choice(prompt.values[player])))
        built = prompt.build({p: rng.choice(prompt.values[p]) for p in prompt.players})
        return _choose(built, rng) if not isinstance(built, dict) else ("action", built)
    return None


@functools.cache
def whole_game(game: str, seed: int = 1, limit: int = 400) -> tuple[Script, list[Step]]:
    """A seeded random game of ``game`` played to its end: its SCRIPT start and its steps."""
    rng = random.Random(seed)
    script = Script(game, list(GAMES[game]), seed)
    engine, state = script.start()
    steps: list[Step] = []
    done: set[tuple[int, str]] = set()
    while not state.over and len(steps) < limit:
        prompt = engine.prompt(state)
        acts = sum(1 for k, _ in steps if k == "action")
        while isinstance(prompt, Task) and (acts, prompt.key) in done:
            prompt = prompt.then
        for _ in range(50):
            step = _choose(prompt, rng)
            if step is None:
                break
            if step[0] == "task":
                done.add((acts, step[1]))
                steps.append(step)
                break
            try:
                state, _ = engine.apply(state, step[1])
            except Refused:
                continue
            steps.append(step)
            break
        else:
            raise AssertionError(f"{game}: no accepted choice at step {len(steps)}")
        if game == "trottel" and len(steps) >= 24 and not state.over:
            state, _ = engine.apply(state, {"type": "end"})
            steps.append(("action", {"type": "end"}))
    assert state.over, f"{game}: not over after {limit} steps"
    return script, steps


@dataclass
class Faults:
    """Counts the state folder's file-system calls; kills or fails the chosen one."""

    kill_at: int | None = None
    fail_at: int | None = None
    real_fsync: bool = False
    """A kill loses nothing the kernel holds, so fsync is counted but skipped (and fast)."""
    fail_errno: int = errno.ENOSPC
    only: tuple[str, ...] = OPS
    count: int = 0
    seen: list[str] = field(default_factory=list)

    def _hit(self, op: str) -> None:
        if op not in self.only:
            return
        self.count += 1
        self.seen.append(op)
        if self.count == self.kill_at:
            raise Kill(op)
        if self.fail_at is not None and self.count >= self.fail_at:
            raise OSError(self.fail_errno, f"injected {errno.errorcode[self.fail_errno]} at {op}")


@contextmanager
def injected(faults: Faults) -> Iterator[Faults]:
    """Route :mod:`fsio`'s calls through ``faults`` while inside."""
    originals = {op: getattr(fsio, op) for op in OPS}

    def wrap(op: str, real: Callable[..., Any]) -> Callable[..., Any]:
        def call(*args: Any) -> Any:
            faults._hit(op)
            if op == "fsync" and not faults.real_fsync:
                return None
            return real(*args)

        call.injected = True  # type: ignore[attr-defined]
        return call

    for op, real in originals.items():
        setattr(fsio, op, wrap(op, real))
    before = _files_open()
    try:
        yield faults
    except Kill:
        for fd in _files_open() - before:  # the kernel closes a killed process's files
            os.close(fd)
        raise
    finally:
        for op, real in originals.items():
            setattr(fsio, op, real)


def _files_open() -> set[int]:
    """This process's descriptors of files (the journal's and the documents' are plain ``os.open``
    descriptors: after a :class:`Kill` nothing closes them, and a long campaign ran out of them)."""
    found: set[int] = set()
    for name in os.listdir("/proc/self/fd") if os.path.isdir("/proc/self/fd") else ():
        with contextlib.suppress(OSError):
            if os.readlink(f"/proc/self/fd/{name}").startswith("/") and os.path.isfile(f"/proc/self/fd/{name}"):
                found.add(int(name))
    return found


@dataclass
class Run:
    """What the table was told during a run: acknowledged actions and the filed result."""

    game_id: str | None = None
    acked: list[Any] = field(default_factory=list)
    filed: dict[str, Any] | None = None


def clock() -> Callable[[], float]:
    """A wall clock that moves 7 s per reading."""
    t = [WALL0]

    def wall() -> float:
        t[0] += 7.0
        return t[0]

    return wall


def play(
    store: Store, script: Script, steps: list[Step], run: Run, start: int = 0, session: Session | None = None
) -> Session:
    """Play ``steps[start:]`` as the device does; ``run`` records what was acknowledged."""
    if session is None:
        session = Session.start(
            store, script.game, script.players, {}, script.seed, clock(), meta={"seats": {"p1": script.players[0]}}
        )
        run.game_id = session.journal.header["id"]
    for kind, value in steps[start:]:
        if kind == "task":
            session.confirm_task(value)
        else:
            session.apply(value)
            run.acked.append(value)
        if session.over:
            run.filed = session.finish("over")
            break
    return session


_FINAL: dict[int, dict[str, Any]] = {}


def final_result(script: Script, steps: list[Step]) -> dict[str, Any]:
    """The replay summary at the end of the game (worked out once per game)."""
    if id(steps) not in _FINAL:
        actions = [v for k, v in steps if k == "action"]
        _FINAL[id(steps)] = replay(Script(script.game, script.players, script.seed, {}, actions)).summary
    return _FINAL[id(steps)]


def check_recovery(root: Path, script: Script, steps: list[Step], run: Run) -> list[str]:
    """Boot on ``root`` after a crash, finish the game, and list what went wrong (empty: nothing)."""
    if getattr(fsio.fsync, "injected", False):  # already counted (a kill while recovering)
        return _check_recovery(root, script, steps, run)
    with injected(Faults()):
        return _check_recovery(root, script, steps, run)


def _check_recovery(root: Path, script: Script, steps: list[Step], run: Run) -> list[str]:
    problems: list[str] = []
    store = Store(root)
    try:
        session = Session.resume(store, clock())
    except Exception as exc:  # a boot crash
        return [f"boot failed: {type(exc).__name__}: {exc}"]
    if session is not None:
        run.game_id = run.game_id or session.journal.header["id"]
        have = session.actions
        if have[: len(run.acked)] != run.acked or len(have) > len(run.acked) + 1:
            problems.append(f"resumed {len(have)} actions, {len(run.acked)} acknowledged")
        if replay(session.script()).summary != session.summary:
            problems.append("replay of the resumed game disagrees")
        done_steps = _steps_done(steps, len(have))
        play(store, script, steps, run, done_steps, session)
    elif run.game_id is None or not any(e.get("id") == run.game_id for e in store.history()):
        if run.acked or run.filed:
            problems.append("the game vanished: no journal, no history line")
        return problems
    expected = final_result(script, steps)
    entries = [e for e in store.history() if e.get("id") == run.game_id]
    if len(entries) != 1:
        problems.append(f"filed {len(entries)} times")
    elif entries[0]["reason"] != "over" or entries[0]["winners"] != expected["winners"]:
        problems.append(f"misfiled: {entries[0]['reason']} {entries[0]['winners']} != {expected['winners']}")
    elif entries[0]["scores"] != expected["scores"]:
        problems.append("misfiled scores")
    if store.game_path.exists():
        problems.append("game.jsonl left behind")
    if store.problems:
        problems.append(f"damage reported: {store.problems}")
    return problems


def _steps_done(steps: list[Step], actions: int) -> int:
    """The step after the ``actions``-th action (table jobs confirmed after it are confirmed again)."""
    if actions == 0:
        return 0
    seen = 0
    for i, (kind, _) in enumerate(steps):
        if kind == "action":
            seen += 1
            if seen == actions:
                return i + 1
    return len(steps)


PRIOR = b'{"id": "earlier", "game": "arschbombe", "players": ["Ann", "J\xc3\xbcrgen"], "reason": "over"}\n'
"""A game filed before, which must survive every crash untouched."""


def fresh(root: Path) -> Path:
    """An empty state folder holding only :data:`PRIOR` in its history."""
    if root.exists():
        shutil.rmtree(root)
    root.mkdir(parents=True)
    (root / "history.jsonl").write_bytes(PRIOR)
    return root


Failures = dict[Any, list[str]]


def kill_points(tmp: Path, game: str, seed: int = 1, ends: int | None = None) -> tuple[int, Failures]:
    """Kill a whole game at each of its file-system calls in turn: the calls, and what failed where.

    ``ends``: only at each of the first and the last ``ends`` calls (a long game's start, its
    first snapshots and its filing; the calls between repeat the same cycle)."""
    script, steps = whole_game(game, seed)
    with injected(Faults()) as counted:
        play(Store(fresh(tmp / "clean")), script, steps, Run())
    failures: Failures = {}
    every = range(1, counted.count + 1)
    for k in every if ends is None else [k for k in every if k <= ends or k > counted.count - ends]:
        root = fresh(tmp / "run")
        run = Run()
        try:
            with injected(Faults(kill_at=k)):
                play(Store(root), script, steps, run)
        except Kill:
            pass
        else:
            failures[k] = ["the kill never came"]
            continue
        problems = check_recovery(root, script, steps, run)
        if Store(root).history()[:1] != [json.loads(PRIOR)]:
            problems.append("the earlier game was lost")
        if problems:
            failures[(k, counted.seen[k - 1])] = problems
    return counted.count, failures


def finished_journal(tmp: Path, game: str, seed: int = 1) -> tuple[Script, list[Step], Run, bytes, bytes]:
    """A whole game run to its end: its journal as it was just before filing, and its history line."""
    script, steps = whole_game(game, seed)
    root = fresh(tmp / "whole")
    run = Run()
    play(Store(root), script, steps, run)
    journal = (root / "games" / f"{run.game_id}.jsonl").read_bytes()
    line = (root / "history.jsonl").read_bytes()[len(PRIOR) :]
    return script, steps, run, journal, line


def _actions_before(journal: bytes, cut: int) -> int:
    """Actions whose whole line (newline included) lies before ``cut``: those acknowledged."""
    count, end = 0, 0
    for line in journal.split(b"\n")[:-1]:
        end += len(line) + 1
        if end <= cut and line.startswith(b'{"a":'):
            count += 1
    return count


def journal_cuts(tmp: Path, game: str, seed: int = 1, records: int = 2) -> tuple[int, Failures]:
    """A power cut at every byte of the journal's last ``records`` lines, cut short or zero-filled."""
    script, steps, whole, journal, _ = finished_journal(tmp, game, seed)
    lines = journal.split(b"\n")[:-1]
    start = len(journal) - sum(len(x) + 1 for x in lines[-records:])
    return _power_cuts(tmp, journal, range(start, len(journal) + 1), len(journal), script, steps, whole)


def _power_cuts(
    tmp: Path, journal: bytes, cuts: Iterable[int], zeros_to: int, script: Any, steps: Any, whole: Run
) -> tuple[int, Failures]:
    """A power cut of ``journal`` at each of ``cuts``: cut short, or the rest up to ``zeros_to``
    left as zeros (ext4's unwritten block); each recovered and checked. The cuts made, the failures."""
    actions = [v for k, v in steps if k == "action"]
    failures: Failures = {}
    made = 0
    for cut in cuts:
        for pad in (False, True):
            root = fresh(tmp / "cut")
            (root / "game.jsonl").write_bytes(journal[:cut] + (b"\0" * (zeros_to - cut) if pad else b""))
            run = Run(game_id=whole.game_id, acked=actions[: _actions_before(journal, cut)])
            problems = check_recovery(root, script, steps, run)
            made += 1
            if problems:
                failures[(cut, pad)] = problems
    return made, failures


def history_cuts(tmp: Path, game: str, seed: int = 1, pad_every: int = 1) -> tuple[int, Failures]:
    """A power cut at every byte of the finished game's history line (its journal not yet moved)."""
    script, steps, whole, journal, line = finished_journal(tmp, game, seed)
    actions = [v for k, v in steps if k == "action"]
    failures: Failures = {}
    cuts = 0
    for cut in range(len(line) + 1):
        for pad in (False, True) if cut % pad_every == 0 else (False,):
            root = fresh(tmp / "cut")
            (root / "game.jsonl").write_bytes(journal)
            tail = line[:cut] + (b"\0" * (len(line) - cut) if pad else b"")
            (root / "history.jsonl").write_bytes(PRIOR + tail)
            run = Run(game_id=whole.game_id, acked=actions)
            problems = check_recovery(root, script, steps, run)
            if [e["id"] for e in Store(root).history()] != ["earlier", whole.game_id]:
                problems.append("history lost a game")
            cuts += 1
            if problems:
                failures[(cut, pad)] = problems
    return cuts, failures


def recovery_kills(tmp: Path, game: str, seed: int = 1) -> tuple[int, Failures]:
    """A second crash while booting from a first: torn journal and torn history tails are cut
    (``truncate``) and the game finished and filed; a kill at each of those calls, then a boot."""
    script, steps, whole, journal, line = finished_journal(tmp, game, seed)
    actions = [v for k, v in steps if k == "action"]
    lines = journal.split(b"\n")[:-1]
    last_action = max(i for i, x in enumerate(lines) if x.startswith(b'{"a":'))
    torn_at = sum(len(x) + 1 for x in lines[:last_action]) + len(lines[last_action]) // 2

    def torn_journal(root: Path) -> Run:
        (root / "game.jsonl").write_bytes(journal[:torn_at])
        return Run(game_id=whole.game_id, acked=actions[: _actions_before(journal, torn_at)])

    def torn_history(root: Path) -> Run:
        (root / "game.jsonl").write_bytes(journal)
        (root / "history.jsonl").write_bytes(PRIOR + line[: len(line) // 2])
        return Run(game_id=whole.game_id, acked=list(actions))

    failures: Failures = {}
    total = 0
    for name, setup in (("torn journal", torn_journal), ("torn history", torn_history)):
        root = fresh(tmp / "count")
        run = setup(root)
        with injected(Faults()) as counted:
            check_recovery(root, script, steps, run)
        total += counted.count
        for k in range(1, counted.count + 1):
            root = fresh(tmp / "run")
            run = setup(root)
            try:
                with injected(Faults(kill_at=k)):
                    check_recovery(root, script, steps, run)
            except Kill:
                pass
            problems = check_recovery(root, script, steps, run)
            if problems:
                failures[(name, k, counted.seen[k - 1])] = problems
        if "truncate" not in counted.seen:
            failures[(name, "truncate")] = ["recovery never cut the torn tail"]
    return total, failures


def snapshot_cuts(tmp: Path, game: str, seed: int = 1, stride: int = 1) -> tuple[int, Failures]:
    """A power cut inside the last snapshot record of a whole game (cut short or zero-filled, at
    every ``stride``-th byte and at each of its first and last bytes): nothing acknowledged lost."""
    script, steps, whole, journal, _ = finished_journal(tmp, game, seed)
    lines = journal.split(b"\n")[:-1]
    last = max(i for i, x in enumerate(lines) if b'"snap":{' in x[:40])
    start = sum(len(x) + 1 for x in lines[:last])
    end = start + len(lines[last]) + 1
    cuts = [cut for cut in range(start, end + 1) if not (cut - start) % stride or not start + 8 < cut < end - 8]
    return _power_cuts(tmp, journal, cuts, end, script, steps, whole)
