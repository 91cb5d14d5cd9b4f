"""Wall-clock jumps: durations come from the monotonic clock; dates say whether the clock was set.

A Pi has no real-time clock: it boots with a stale time and jumps when NTP answers, possibly in
the middle of a game. Once a −10 year jump gave a duration of −315,359,724.7 s and a +10 year
jump 87600:04:35.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from firmware_host.core import wallclock
from firmware_host.core.config import defaults
from firmware_host.core.session import Session
from firmware_host.core.store import Store
from firmware_host.runtime.device import Device
from firmware_host.runtime.vtime import run_virtual
from firmware_host.sim.script import ScriptRunner, parse
from tests.conftest import ROOT

JUMP = {"type": "jump", "jumper": "rascal", "result": "B"}
TEN_YEARS = 10 * 365 * 86400.0
NOW = 1_780_000_000.0  # 2026-05-28


class Clocks:
    """A wall clock that can jump and a monotonic one that cannot."""

    def __init__(self, wall: float) -> None:
        self.offset, self.mono = wall, 0.0

    def wall(self) -> float:
        return self.offset + self.mono

    def run(self, seconds: float) -> None:
        self.mono += seconds


@pytest.mark.parametrize("jump", [-TEN_YEARS, TEN_YEARS])
def test_a_wall_clock_jump_mid_game_leaves_the_duration_right(tmp_path, jump):
    clocks = Clocks(NOW)
    session = Session.start(
        Store(tmp_path), "arschbombe", ["Ann", "Ben"], seed=1, wall=clocks.wall, mono=lambda: clocks.mono
    )
    clocks.run(100)
    session.apply(JUMP)
    clocks.offset += jump  # NTP answers
    clocks.run(200)
    entry = session.finish("abandoned")
    assert entry["duration_s"] == 300.0


def test_the_duration_survives_a_restart_and_counts_no_time_switched_off(tmp_path):
    store = Store(tmp_path)
    clocks = Clocks(NOW)
    session = Session.start(store, "arschbombe", ["Ann", "Ben"], seed=1, wall=clocks.wall, mono=lambda: clocks.mono)
    clocks.run(60)
    session.apply(JUMP)
    # power cut; the Pi boots an hour later with its clock ten years back and the monotonic clock at 0
    after = Clocks(NOW - TEN_YEARS)
    after.run(5)
    resumed = Session.resume(Store(tmp_path), wall=after.wall, mono=lambda: after.mono)
    after.run(40)
    assert resumed.finish("abandoned")["duration_s"] == 100.0


def test_a_game_begun_before_the_clock_was_set_is_dated_from_its_end(tmp_path, monkeypatch):
    flag = tmp_path / "synchronized"
    flag.touch()
    monkeypatch.setattr(wallclock, "SYNC_FLAG", flag)
    clocks = Clocks(86_400.0 * 3)  # the Pi booted believing it is 1970
    session = Session.start(
        Store(tmp_path), "arschbombe", ["Ann", "Ben"], seed=1, wall=clocks.wall, mono=lambda: clocks.mono
    )
    assert session.journal.header["clock_synced"] is False
    clocks.run(30)
    clocks.offset = NOW  # NTP answers
    clocks.run(90)
    entry = session.finish("abandoned")
    assert entry["duration_s"] == 120.0 and entry["clock_synced"] is True
    assert entry["started"] == pytest.approx(entry["ended"] - 120.0)


def test_a_game_ended_before_the_clock_is_set_is_marked_in_the_history(cli, tmp_path, monkeypatch):
    monkeypatch.setattr(wallclock, "SYNC_FLAG", tmp_path / "never")
    monkeypatch.setattr(wallclock, "kernel_synced", lambda: False)
    clocks = Clocks(86_400.0 * 3)
    store = Store(tmp_path / "state")
    session = Session.start(store, "arschbombe", ["Ann", "Ben"], seed=1, wall=clocks.wall, mono=lambda: clocks.mono)
    clocks.run(42)
    assert session.finish("abandoned")["clock_synced"] is False
    table = cli("history", "--state-dir", tmp_path / "state").out
    assert "(clock unset)" in table and "0:42" in table


def test_clock_synced_believes_no_date_before_2026_and_the_timesyncd_flag(tmp_path, monkeypatch):
    monkeypatch.setattr(wallclock, "SYNC_FLAG", tmp_path / "synchronized")
    monkeypatch.setattr(wallclock, "kernel_synced", lambda: None)
    assert not wallclock.clock_synced(NOW)  # no flag, no kernel answer
    (tmp_path / "synchronized").touch()
    assert wallclock.clock_synced(NOW)
    assert not wallclock.clock_synced(0.0)
    monkeypatch.setattr(wallclock, "SYNC_FLAG", tmp_path / "gone")
    monkeypatch.setattr(wallclock, "kernel_synced", lambda: True)
    monkeypatch.setattr(wallclock, "sandboxed", lambda: False)
    assert wallclock.clock_synced(NOW)


def test_kernel_synced_answers_without_raising():
    assert wallclock.kernel_synced() in (True, False, None)


def test_inside_a_sandbox_the_kernel_is_never_asked_only_the_timesyncd_flag(tmp_path, monkeypatch):
    """adjtimex is in @clock, which the unit's filter leaves out: asking it killed the service."""

    def adjtimex():
        raise AssertionError("adjtimex asked inside the sandbox")

    monkeypatch.setattr(wallclock, "kernel_synced", adjtimex)
    monkeypatch.setattr(wallclock, "sandboxed", lambda: True)
    monkeypatch.setattr(wallclock, "SYNC_FLAG", tmp_path / "synchronized")
    assert not wallclock.clock_synced(NOW)  # an offline table: dated "clock unset", alive
    (tmp_path / "synchronized").touch()
    assert wallclock.clock_synced(NOW)


@pytest.mark.parametrize(
    ("status", "inside"),
    [
        ("Name:\tpython3\nSeccomp:\t2\nSeccomp_filters:\t1\n", True),  # systemd's SystemCallFilter=
        ("Name:\tpython3\nSeccomp:\t1\n", True),  # strict mode
        ("Name:\tpython3\nSeccomp:\t0\nSeccomp_filters:\t0\n", False),
        ("Name:\tpython3\n", False),  # a kernel built without seccomp
        (None, True),  # no /proc to read: do not risk the call
    ],
)
def test_sandboxed_reads_the_seccomp_mode_of_the_process(tmp_path, status, inside):
    path = tmp_path / "status"
    if status is not None:
        path.write_text(status)
    assert wallclock.sandboxed(path) is inside


def test_this_test_process_reads_its_own_seccomp_mode():
    status = Path("/proc/self/status").read_text()
    mode = next(line for line in status.splitlines() if line.startswith("Seccomp:")).split()[1]
    assert wallclock.sandboxed() is (mode != "0")


@pytest.mark.parametrize("jump", [-TEN_YEARS, TEN_YEARS])
def test_a_whole_game_on_the_device_with_a_clock_jump_files_the_right_duration(cli, tmp_path, jump):
    """Arschbombe played to its end on the simulator; the wall clock jumps 10 years
    after the first minute. The history's duration is the virtual time the game took."""
    state = tmp_path / "state"
    lines = ["start arschbombe Ann Ben", "wait 60"]
    for jump_no in range(12):  # turns alternate: three rascals each, then three divers each
        kind, result = ("rascal", "A") if jump_no < 6 else ("diver", "clean")
        lines += [f'action {{"type":"jump","jumper":"{kind}","special":false,"result":"{result}"}}', "wait 10"]

    async def main() -> float:
        loop = asyncio.get_running_loop()
        begun = loop.time()

        def wall() -> float:
            return NOW + loop.time() + (jump if loop.time() - begun > 30 else 0.0)

        device = Device(defaults().with_sim(), Store(state), seed=1, wall=wall)
        task = asyncio.create_task(device.run())
        await device.ready.wait()
        start = loop.time()
        await ScriptRunner(device, None).run(parse("\n".join(lines[:1])))
        started = loop.time()
        await ScriptRunner(device, None).run(parse("\n".join(lines[1:])))
        assert device.session is None  # the game is over and filed
        device.stop()
        await task
        return started - start

    run_virtual(main)
    entry = cli("history", "--json", "--state-dir", state).json()[-1]
    assert entry["reason"] == "over"
    # 60 s, then 12 jumps 10 s apart; the last wait comes after the end
    assert entry["duration_s"] == pytest.approx(60 + 11 * 10, abs=0.3)


def test_the_history_table_never_shows_a_negative_or_absurd_duration(cli, tmp_path):
    state = tmp_path / "state"
    state.mkdir()
    line = '{"game": "bomb", "started": %s, "duration_s": %s, "players": ["Ann"], "scores": {}, "reason": "over"}'
    (state / "history.jsonl").write_text(
        "\n".join([line % (NOW, -315359724.7), line % (NOW, TEN_YEARS * 1.1)]) + "\n", encoding="utf-8"
    )
    rows = cli("history", "--csv", "--state-dir", state).out.splitlines()[1:]
    assert [r.split(",")[2] for r in rows] == ["?", "?"]


def test_the_clock_module_leaves_ctypes_unloaded_until_the_kernel_is_asked():
    """Start-up does not pay for ctypes (and ctypes.util's shutil, bz2, lzma): only a question does."""
    import subprocess
    import sys

    code = (
        "import sys; from firmware_host.core import wallclock; before = 'ctypes' in sys.modules; "
        "wallclock.kernel_synced(); print(before, 'ctypes' in sys.modules, 'ctypes.util' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert out.stdout.split() == ["False", "True", "False"]
