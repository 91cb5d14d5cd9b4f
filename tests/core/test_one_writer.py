"""One writer per state folder: a second `sim`/`run`/`calibrate` on a folder in use is refused with
one line naming the holder, the readers take no lock, and temporary names are never shared.
Two real processes each time."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import ROOT, tablemate_process
from tests.conftest import tablemate_run as tablemate
from tests.waits import scaled


def _holding(tmp_path: Path) -> tuple[subprocess.Popen, Path]:
    """A `sim` holding a fresh state folder with a game in play (real time: it waits a minute)."""
    state = tmp_path / "state"
    script = tmp_path / "hold.sim"
    script.write_text("start arschbombe Ann Ben\npress ok\npress ok\npress ok\nwait 60\n")
    proc = tablemate_process("sim", "--realtime", "--script", script, "--state-dir", state, "--seed", "4")
    end = time.monotonic() + scaled(30)
    lock = state / "lock"
    journal = state / "game.jsonl"
    while not journal.exists() or b'"a":' not in journal.read_bytes() or lock.read_text().strip() != str(proc.pid):
        assert proc.poll() is None and time.monotonic() < end, "the first writer never took the folder"
        time.sleep(0.05)
    return proc, state


def test_a_second_writer_is_refused_naming_the_holder_and_the_readers_still_read(tmp_path):
    proc, state = _holding(tmp_path)
    try:
        other = tmp_path / "other.sim"
        other.write_text('action {"type":"jump","jumper":"rascal","special":false,"result":"B"}\n')
        for args in (["sim", "--script", other], ["calibrate", "--sim", "--weight", "100"]):
            second = tablemate(*args, "--state-dir", state)
            assert second.returncode == 2, second.stderr
            assert second.stderr.count("\n") == 1 and f"in use by process {proc.pid}" in second.stderr
        shown = tablemate("state", "--state-dir", state)  # a reader: no lock, no write
        assert shown.returncode == 0 and json.loads(shown.stdout)["summary"]["game"] == "arschbombe"
        assert tablemate("history", "--state-dir", state).returncode == 0
    finally:
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(scaled(30)) == 0
    held = json.loads(tablemate("state", "--state-dir", state).stdout)["summary"]
    assert held["jumps"] == {"Ann": 1, "Ben": 0}  # the refused writer's action never landed
    again = tablemate("sim", "--script", other, "--state-dir", state)  # the folder is free again
    assert again.returncode == 0, again.stderr
    assert json.loads(tablemate("state", "--state-dir", state).stdout)["summary"]["jumps"] == {"Ann": 1, "Ben": 1}


def test_a_kill_9_leaves_no_stale_lock(tmp_path):
    proc, state = _holding(tmp_path)
    proc.send_signal(signal.SIGKILL)
    proc.wait(scaled(10))
    script = tmp_path / "empty.sim"
    script.write_text("# nothing\n")
    assert tablemate("sim", "--script", script, "--state-dir", state).returncode == 0


def test_the_readers_write_nothing_in_the_folder(tmp_path):
    state = tmp_path / "state"
    state.mkdir()
    for args in (["state"], ["history"], ["history", "--json"]):
        assert tablemate(*args, "--state-dir", state).returncode == 0
    assert list(state.iterdir()) == []


@pytest.mark.parametrize("name", ["scale", "settings"])
def test_two_processes_replacing_one_document_never_share_a_temporary_file(tmp_path, name):
    code = (
        "import sys; from pathlib import Path; from firmware_host.core import fsio\n"
        f"p = Path(sys.argv[1]) / '{name}.json'\n"
        "for i in range(300): fsio.write_atomic(p, b'{\"n\": %d}' % i)\n"
    )
    procs = [
        subprocess.Popen([sys.executable, "-c", code, str(tmp_path)], cwd=ROOT, stderr=subprocess.PIPE)
        for _ in range(2)
    ]
    errors = [p.communicate(timeout=scaled(60))[1].decode() for p in procs]
    assert [p.returncode for p in procs] == [0, 0], errors
    assert sorted(os.listdir(tmp_path)) == [f"{name}.json"]


def test_a_purge_does_not_remove_a_state_folder_another_process_writes(tmp_path):
    from firmware_host.cli.install import Installer
    from firmware_host.core.folder_lock import FolderBusy
    from tests.cli.test_install import FakeSystem, pi_root

    root, system = pi_root(tmp_path), FakeSystem()
    Installer(ROOT, root, system).install()
    proc, state = _holding(tmp_path)
    (root / "var/lib").mkdir(parents=True)
    (root / "var/lib/tablemate").symlink_to(state, target_is_directory=True)
    try:
        with pytest.raises(FolderBusy, match=f"in use by process {proc.pid}"):
            Installer(ROOT, root, system).uninstall(purge=True)
        assert (state / "game.jsonl").exists()
    finally:
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(scaled(30)) == 0


def test_a_sigterm_in_the_middle_of_a_scripted_press_stops_cleanly(tmp_path):
    """Fixed bug: a stop from outside while a script held a button closed the pins under it and the
    release ended in a KeyError traceback and exit 1."""
    state = tmp_path / "state"
    script = tmp_path / "held.sim"
    script.write_text("start arschbombe Ann Ben\nhold ok 60\n")
    proc = tablemate_process(
        "sim", "--realtime", "--script", script, "--state-dir", state, stderr=subprocess.PIPE, text=True
    )
    end = time.monotonic() + scaled(30)
    # the game's journal: the device is up (its SIGTERM handler in place) and the script has
    # started the game, so the hold comes next (a lock alone was too early on a loaded machine:
    # the signal came before the handler and killed the process, status -15)
    while not (state / "game.jsonl").exists():
        assert proc.poll() is None and time.monotonic() < end, "the sim never started the game"
        time.sleep(0.05)
    time.sleep(0.5)  # well inside the 60 s hold
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=scaled(30))
    assert proc.returncode == 0 and "Traceback" not in err, err


def test_a_writer_removes_the_temporaries_a_killed_writer_left_and_no_others(tmp_path):
    from firmware_host.core.folder_lock import writing

    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait(30)  # a writer that is no more
    state = tmp_path / "state"
    (state / "history").mkdir(parents=True)
    stale = [state / f"game.jsonl.tmp-{gone.pid}-3", state / "history" / f"h.json.tmp-{gone.pid}-0"]
    alive = state / f"settings.json.tmp-{os.getpid()}-1"  # a process still running: maybe mid-write
    kept = [alive, state / "game.jsonl", state / "notes.tmp-x-1"]
    for path in stale + kept:
        path.write_bytes(b"{}")
    with writing(state):
        assert not any(p.exists() for p in stale) and all(p.exists() for p in kept)
