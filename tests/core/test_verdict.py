"""A resumed snapshot is proved once, off the loop's back, and the verdict kept: later starts trust
a sealed snapshot and replay nothing, while anything the seal does not vouch for is proved again."""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys
import zlib
from collections.abc import Iterator
from pathlib import Path

import pytest

from firmware_host.core import proof, verdict
from firmware_host.core import session as sessions
from firmware_host.core.journal import Journal
from firmware_host.core.replay import run_actions
from firmware_host.core.session import Session
from firmware_host.core.snapshot import same_state
from firmware_host.core.store import Store
from games.core.engine import Engine
from games.workloads import LONG_GAMES, long_session
from tests.crashkit import clock
from tests.devicekit import run_device, run_device_in_real_time


@contextlib.contextmanager
def other_code() -> Iterator[None]:
    """While in it, seals are made and read as by other code (before a software update)."""
    real = verdict.code
    verdict.code = lambda: b"the code before an update"  # type: ignore[assignment]
    try:
        yield
    finally:
        verdict.code = real  # type: ignore[assignment]


def _played(store: Store, count: int) -> Session:
    players, fallback = LONG_GAMES["trottel"]
    seats = {f"p{i + 1}": name for i, name in enumerate(players)}
    session = Session.start(store, "trottel", list(players), {}, 1, clock(), meta={"seats": seats})
    for action in long_session("trottel", players, count, 1, fallback).actions:
        session.apply(action)
    session.journal.close()
    return session


def _truth(session: Session) -> object:
    engine, state = session.script().start()
    state, index, _ = run_actions(engine, state, list(session.actions))
    assert index is None
    return state


@contextlib.contextmanager
def counted() -> Iterator[list[int]]:
    """How many actions the engines apply meanwhile (in this process)."""
    real, seen = Engine.apply, [0]

    def apply(engine, state, action):
        seen[0] += 1
        return real(engine, state, action)

    Engine.apply = apply  # type: ignore[method-assign]
    try:
        yield seen
    finally:
        Engine.apply = real  # type: ignore[method-assign]


def _snap_lines(path: Path) -> list[int]:
    return [i for i, line in enumerate(path.read_bytes().split(b"\n")) if b'"snap":{' in line[:64]]


def _vouched_last(store: Store) -> bool:
    journal = Journal.open(store.game_path)
    return journal.vouched(journal.timeline().snaps[-1])


@pytest.fixture
def often(monkeypatch):
    monkeypatch.setattr(sessions, "SNAP_EVERY", 20)


def test_a_game_played_to_its_snapshot_is_trusted_at_the_next_start_without_a_replay(tmp_path, often):
    played = _played(Store(tmp_path), 250)
    assert _vouched_last(Store(tmp_path))
    with counted() as applied:
        again = Session.resume(Store(tmp_path))
    assert again is not None and again.snapshot_used == 240 and again.unchecked is None
    assert applied[0] <= 10 + sessions.SNAP_EVERY  # the actions after it, the checkpoints before it
    assert same_state(again.state, played.state) and again.actions == played.actions


def test_after_an_update_the_snapshot_is_proved_once_and_the_verdict_kept(tmp_path, often):
    with other_code():
        played = _played(Store(tmp_path), 250)
    again = Session.resume(Store(tmp_path))
    assert again is not None and again.unchecked is not None  # a seal of other code vouches for nothing

    async def body(dev):
        await dev.checked.wait()
        return dev.session.unchecked, len(dev.session.actions)

    assert run_device(tmp_path, body) == (None, 250)
    assert _vouched_last(Store(tmp_path))  # the verdict: a sealed snapshot of the game proved
    with counted() as applied:
        third = Session.resume(Store(tmp_path))
    assert third is not None and third.unchecked is None and applied[0] <= sessions.SNAP_EVERY
    assert same_state(third.state, played.state)


def _edit(path: Path, number: int, change) -> None:
    """Line ``number`` (from 0) rewritten through ``change``, its own checksum made right."""
    lines = path.read_bytes().split(b"\n")
    record = json.loads(lines[number])
    record.pop("c")
    change(record)
    body = json.dumps(record, ensure_ascii=False, separators=(",", ":"), sort_keys=True)
    lines[number] = (body[:-1] + f',"c":{zlib.crc32(body.encode())}}}').encode()
    path.write_bytes(b"\n".join(lines))


@pytest.mark.parametrize("and_ac", [False, True], ids=["its line", "its line and the snapshot's ac"])
def test_a_line_edited_before_a_sealed_snapshot_unseals_it(tmp_path, often, and_ac):
    played = _played(Store(tmp_path), 250)
    path = Store(tmp_path).game_path
    _edit(path, 1, lambda r: r["meta"]["seats"].update(p1="Zed"))  # the seats, before every snapshot
    if and_ac:  # the snapshot's CRC of the bytes before it made right too (not its seal)
        last = _snap_lines(path)[-1]
        raw = path.read_bytes()
        start = sum(len(line) + 1 for line in raw.split(b"\n")[:last])
        _edit(path, last, lambda r: r["snap"].update(ac=zlib.crc32(raw[:start])))
    again = Session.resume(Store(tmp_path))
    assert again is not None and again.unchecked is not None  # proved again
    replay = again.replay_whole()
    assert replay is not None and again.agrees(replay) and same_state(again.state, played.state)


def test_a_verdict_cut_short_by_a_power_cut_is_only_a_lost_shortcut(tmp_path, often):
    with other_code():
        played = _played(Store(tmp_path), 250)
    again = Session.resume(Store(tmp_path))
    assert again is not None and again.accept(250, again.replay_whole().proved)  # the verdict written
    path = Store(tmp_path).game_path
    whole = path.read_bytes()
    start = whole.rindex(b"\n", 0, len(whole) - 1) + 1
    assert b'"snap":{' in whole[start : start + 64] and _vouched_last(Store(tmp_path))
    for cut in (start + 1, start + 64, (start + len(whole)) // 2, len(whole) - 40, len(whole) - 1):
        path.write_bytes(whole[:cut])
        resumed = Session.resume(Store(tmp_path))
        assert resumed is not None and resumed.unchecked is not None  # the snapshot before: proved again
        assert same_state(resumed.state, played.state) and resumed.actions == played.actions
        assert path.read_bytes() == whole[:start] or path.read_bytes().startswith(whole[:start])


def test_a_game_resumed_from_a_snapshot_not_proved_seals_nothing_until_it_is(tmp_path, often):
    with other_code():
        _played(Store(tmp_path), 250)
    again = Session.resume(Store(tmp_path))
    assert again is not None and again.unchecked is not None
    players, fallback = LONG_GAMES["trottel"]
    for action in long_session("trottel", players, 270, 1, fallback).actions[250:]:
        again.apply(action)  # a snapshot at 260, of a state resting on the one at 240
    assert not _vouched_last(Store(tmp_path))
    replay = again.replay_whole()
    assert again.agrees(replay) and _vouched_last(Store(tmp_path))


def test_the_process_judges_the_journal_as_the_resume_read_it(tmp_path, often):
    with other_code():
        played = _played(Store(tmp_path), 250)
    raw = Store(tmp_path).game_path.read_bytes()
    found = proof.judge(raw)
    assert found["n"] == 250 and found["agrees"] is True
    assert found["proved"] == list(range(20, 250, 20))  # every snapshot of the line
    assert proof.judge(raw + b'{"a":{"type":"ro')["n"] == 250  # (a torn tail is not the process's to read)
    Session.resume(Store(tmp_path)).accept(250, found["proved"])
    assert proof.judge(Store(tmp_path).game_path.read_bytes()) == {"n": None}  # sealed: nothing to prove
    assert len(played.actions) == 250


def _real_check(tmp_path) -> tuple[object, int, object]:
    async def body(dev):
        await dev.checked.wait()
        return dev.session.state, len(dev.session.actions), dev.session.unchecked

    return run_device_in_real_time(tmp_path, body)


def test_on_the_device_the_replay_runs_in_a_process_of_its_own(tmp_path, often, monkeypatch):
    with other_code():
        played = _played(Store(tmp_path), 250)

    def not_here(self, stop=None):
        raise AssertionError("replayed in the device's process")

    monkeypatch.setattr(Session, "replay_whole", not_here)
    state, count, unchecked = _real_check(tmp_path)
    assert unchecked is None and count == 250 and same_state(state, played.state)
    assert _vouched_last(Store(tmp_path))


def test_a_snapshot_the_process_finds_untrue_is_replaced_by_the_replay(tmp_path, often):
    with other_code():
        played = _played(Store(tmp_path), 250)
    truth = _truth(played)
    path = Store(tmp_path).game_path
    last = _snap_lines(path)[-1]
    _edit(
        path, last, lambda r: r["snap"]["s"]["f"]["stehtisch"].update(beer=r["snap"]["s"]["f"]["stehtisch"]["beer"] + 1)
    )
    state, count, unchecked = _real_check(tmp_path)
    assert unchecked is None and count == 250 and same_state(state, truth)
    again = Session.resume(Store(tmp_path))
    assert again.unchecked is None and same_state(again.state, truth)  # the fresh snapshot, sealed


def test_when_no_process_can_start_the_replay_runs_on_a_thread_of_the_device(tmp_path, often, monkeypatch):
    with other_code():
        played = _played(Store(tmp_path), 250)
    monkeypatch.setattr(sys, "executable", str(tmp_path / "no-python-here"))
    state, count, unchecked = _real_check(tmp_path)
    assert unchecked is None and count == 250 and same_state(state, played.state)
    assert _vouched_last(Store(tmp_path))


def test_a_device_stopped_during_the_check_ends_its_process(tmp_path, often, monkeypatch):
    with other_code():
        _played(Store(tmp_path), 250)
    started = []
    real = asyncio.create_subprocess_exec

    async def slow(*args, **kwargs):  # a replay that would take a minute
        proc = await real(sys.executable, "-c", "import time; time.sleep(60)", **{**kwargs, "pass_fds": ()})
        started.append(proc)
        return proc

    monkeypatch.setattr(asyncio, "create_subprocess_exec", slow)

    async def body(dev):
        while not started:
            await asyncio.sleep(0.01)
        return dev.session.unchecked is not None

    assert run_device_in_real_time(tmp_path, body) is True
    assert started[0].returncode is not None  # ended with the device


def test_a_snapshot_naming_a_point_its_lines_do_not_hold_is_found_by_the_process(tmp_path, often, caplog):
    with other_code():
        played = _played(Store(tmp_path), 250)
    path = Store(tmp_path).game_path
    _edit(path, _snap_lines(path)[-1], lambda r: r["snap"].update(n=r["snap"]["n"] + 1))
    with caplog.at_level("WARNING"):
        state, count, _ = _real_check(tmp_path)
    assert count == 250 and same_state(state, _truth(played))
    assert any("read again from every line" in r.getMessage() for r in caplog.records)
