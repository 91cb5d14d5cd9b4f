"""The table is told exactly what the journal holds: a snapshot that cannot be saved refuses
nothing, a record whose save failed is cut before anything reads it, and a failed filing at the
stop is said in the exit status. On real files: the fsio seam, a real 64 KiB tmpfs (as root)."""

from __future__ import annotations

import asyncio
import contextlib
import errno
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from firmware_host.core import fsio
from firmware_host.core import session as sessions
from firmware_host.core.journal import Journal
from firmware_host.core.replay import Script, run_actions
from firmware_host.core.session import Session
from firmware_host.core.snapshot import same_state
from firmware_host.core.store import Store
from games.workloads import LONG_GAMES, PLAIN, long_session
from tests.conftest import ROOT
from tests.crashkit import clock
from tests.devicekit import run_device
from tests.waits import scaled

PLAYERS, FALLBACK = LONG_GAMES["trottel"]
ACTIONS = long_session("trottel", PLAYERS, 160, 1, FALLBACK).actions


def _journal_actions(root: Path) -> list[Any]:
    return Journal.open(root / "game.jsonl").actions()


def _replayed(actions: list[Any]) -> Any:
    engine, state = Script("trottel", list(PLAYERS), 1).start()
    state, index, _ = run_actions(engine, state, actions)
    assert index is None
    return state


def _started(root: Path, count: int) -> Session:
    session = Session.start(Store(root), "trottel", list(PLAYERS), {}, 1, clock())
    for action in ACTIONS[:count]:
        session.apply(action)
    return session


@contextlib.contextmanager
def failing(op: str, when: Callable[[Any], bool], code: int = errno.ENOSPC) -> Iterator[list[Any]]:
    """``fsio.write`` or ``fsio.fsync`` fails with ``code`` when ``when`` says so of the bytes
    written (for ``fsync``: the bytes of the write before it). The failures are listed."""
    real_write, real_fsync = fsio.write, fsio.fsync
    last: list[bytes] = [b""]
    failures: list[Any] = []

    def write(fd: int, data: bytes, offset: int) -> None:
        last[0] = bytes(data)
        if op == "write" and when(last[0]):
            failures.append(op)
            real_write(fd, data[: len(data) // 2], offset)  # torn: half of it reached the file
            raise OSError(code, os.strerror(code))
        real_write(fd, data, offset)

    def fsync(fd: int) -> None:
        if op == "fsync" and when(last[0]):
            last[0] = b""
            failures.append(op)
            raise OSError(code, os.strerror(code))
        real_fsync(fd)

    fsio.write, fsio.fsync = write, fsync
    try:
        yield failures
    finally:
        fsio.write, fsio.fsync = real_write, real_fsync


def _snapshot(data: bytes) -> bool:
    return b'"snap":{' in data


@pytest.mark.parametrize("op", ["write", "fsync"])
def test_a_snapshot_that_cannot_be_saved_refuses_nothing_and_the_action_is_journaled_once(tmp_path, op):
    root = tmp_path / "state"
    _started(root, sessions.SNAP_EVERY - 1).journal.close()

    async def body(dev):
        with failing(op, _snapshot) as failures:
            assert dev.apply(ACTIONS[sessions.SNAP_EVERY - 1])  # its record is saved, its snapshot is not
            await asyncio.sleep(0.1)
        assert failures == [op]
        shown = (dev.storage_fault, dev.storage_faults, len(dev.session.actions), list(dev.game.said))
        assert dev.apply(ACTIONS[sessions.SNAP_EVERY])  # the next one cuts the torn snapshot first
        await asyncio.sleep(0.1)
        return shown

    fault, faults, in_play, said = run_device(root, body)
    assert (fault, faults, in_play) == (None, 0, sessions.SNAP_EVERY)
    engine, _ = Script("trottel", list(PLAYERS), 1).start()
    _, effects = engine.apply(_replayed(list(ACTIONS[: sessions.SNAP_EVERY - 1])), ACTIONS[sessions.SNAP_EVERY - 1])
    assert said == [e.value for e in effects if e.kind == "say"] != []  # its effects were shown
    on_disk = _journal_actions(root)
    assert on_disk == list(ACTIONS[: sessions.SNAP_EVERY + 1])  # each once, none lost
    again = Session.resume(Store(root))
    assert again is not None and same_state(again.state, _replayed(on_disk))


@pytest.mark.parametrize("op", ["write", "fsync"])
def test_a_resume_whose_new_snapshot_cannot_be_saved_resumes(tmp_path, monkeypatch, op):
    root = tmp_path / "state"
    monkeypatch.setattr(sessions, "SNAP_EVERY", 1000)  # a journal of before snapshots
    _started(root, 150).journal.close()
    monkeypatch.setattr(sessions, "SNAP_EVERY", 100)
    with failing(op, _snapshot) as failures:
        resumed = Session.resume(Store(root))
    assert failures == [op]
    assert resumed is not None and resumed.actions == list(ACTIONS[:150])
    resumed.apply(ACTIONS[150])
    resumed.journal.close()
    assert _journal_actions(root) == list(ACTIONS[:151])


@pytest.fixture
def tiny_disk(tmp_path: Path) -> Iterator[Path]:
    """A real 64 KiB tmpfs (root only)."""
    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root")
    disk = tmp_path / "disk"
    disk.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(disk)], capture_output=True)
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs: {mounted.stderr.decode().strip()}")
    try:
        yield disk
    finally:
        subprocess.run(["umount", "-l", str(disk)], check=False)


def _fill(disk: Path, leave: int) -> Path:
    """Fill ``disk`` to the brim, then free ``leave`` bytes again."""
    filler = disk / "filler"
    with open(filler, "wb", buffering=0) as out, contextlib.suppress(OSError):
        while True:
            out.write(b"\0" * 4096)
    os.truncate(filler, max(0, filler.stat().st_size - leave))
    return filler


def test_on_a_real_full_disk_the_snapshot_fails_and_the_action_counts_once(tiny_disk):
    root = tiny_disk / "state"
    session = _started(root, sessions.SNAP_EVERY - 1)
    filler = _fill(tiny_disk, 4096)  # room for one more action, not for a 15 KB snapshot
    effects = session.apply(ACTIONS[sessions.SNAP_EVERY - 1])  # no OSError: nothing refused
    assert len(session.actions) == sessions.SNAP_EVERY and effects is not None
    filler.unlink()
    session.apply(ACTIONS[sessions.SNAP_EVERY])  # the table goes on: the torn snapshot is cut first
    session.journal.close()
    assert _journal_actions(root) == list(ACTIONS[: sessions.SNAP_EVERY + 1])  # each once, none lost


@pytest.mark.parametrize("op", ["write", "fsync"])
def test_an_action_whose_save_failed_is_cut_before_a_restart_can_resurrect_it(tmp_path, op):
    root = tmp_path / "state"
    session = _started(root, 5)
    with failing(op, lambda data: b'"a":' in data, errno.EIO) as failures, pytest.raises(OSError):
        session.apply(ACTIONS[5])  # the table is told: not saved
    assert failures == [op]
    # the power goes now, before any other write: the boot must not find the refused action
    assert _journal_actions(root) == list(ACTIONS[:5])
    assert Journal.open(root / "game.jsonl").torn is False


def _over_script(tmp_path: Path) -> Path:
    """A sim script playing a whole game of Arschbombe: its result is on screen when it ends."""
    lines = [f"start {PLAIN.game} {' '.join(PLAIN.players)}"]
    lines += [f"action {json.dumps(a)}" for a in PLAIN.actions]
    path = tmp_path / "over.sim"
    path.write_text("\n".join(lines) + "\n")
    return path


def _patched(monkeypatch: pytest.MonkeyPatch, name: str, fails: Callable[..., bool]) -> None:
    real = getattr(fsio, name)

    def call(*args: Any) -> Any:
        if fails(*args):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real(*args)

    monkeypatch.setattr(fsio, name, call)


FILING_FAULTS = {
    "end record": ("write", lambda fd, data, offset: b'"end":"over"' in bytes(data)),
    "history line": ("write", lambda fd, data, offset: b'"reason": "over"' in bytes(data)),
    "mkdir": ("mkdir", lambda path: path.name == "games"),
    "rename": ("rename", lambda src, dst: dst.parent.name == "games"),
    "folder fsync": ("fsync_dir", lambda path: path.name == "games"),
}


@pytest.mark.parametrize("fault", sorted(FILING_FAULTS))
def test_sim_script_exits_2_with_one_line_when_filing_at_the_stop_fails(tmp_path, cli, monkeypatch, fault):
    name, fails = FILING_FAULTS[fault]
    _patched(monkeypatch, name, fails)
    state = tmp_path / "state"
    result = cli("sim", "--script", _over_script(tmp_path), "--state-dir", state, "--seed", "1")
    assert result.status == 2, fault
    assert result.err.count("\n") == 1 and "disk full" in result.err and "Traceback" not in result.err
    monkeypatch.undo()
    assert Session.resume(Store(state)) is None  # nothing lost: the next boot files it
    assert [e["reason"] for e in Store(state).history()] == ["over"]


def _traced_sim(tmp_path: Path, name: str, *strace: str) -> tuple[subprocess.CompletedProcess, Path]:
    """`tablemate sim` of 101 Trottel actions (a snapshot after the 100th) run under strace."""
    script = tmp_path / "long.sim"
    script.write_text(
        f"start trottel {' '.join(PLAYERS)}\n" + "".join(f"action {json.dumps(a)}\n" for a in ACTIONS[:101])
    )
    state = tmp_path / name
    command = [sys.executable, "-m", "firmware_host", "sim", "--script", str(script), "--state-dir", str(state)]
    done = subprocess.run(
        ["strace", "-f", "-qq", "-e", "signal=none", *strace, *command, "--seed", "1"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=scaled(120),
    )
    return done, state


@pytest.mark.skipif(shutil.which("strace") is None, reason="needs strace")
@pytest.mark.parametrize("call", ["pwrite64", "fsync"])
def test_a_real_process_whose_snapshot_write_fails_refuses_nothing_and_exits_0(tmp_path, call):
    log = tmp_path / "trace"
    first, _ = _traced_sim(tmp_path, "seen", "-e", "trace=pwrite64,fsync", "-s", "24", "-o", str(log))
    assert first.returncode == 0, first.stderr
    seen = log.read_text().splitlines()
    snap = next(i for i, line in enumerate(seen) if '\\"snap\\"' in line)
    when = 1 + sum(1 for line in seen[:snap] if f"{call}(" in line)  # the snapshot's write, or the fsync after it
    done, state = _traced_sim(tmp_path, "failed", "-o", "/dev/null", "-e", f"inject={call}:error=ENOSPC:when={when}")
    assert done.returncode == 0, done.stderr  # nothing refused: the snapshot is only a shortcut
    on_disk = _journal_actions(state)
    assert on_disk == list(ACTIONS[:101])  # each action once
