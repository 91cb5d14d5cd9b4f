"""The service inside its own sandbox: the unit's SystemCallFilter= with the kill action.

Every path a table takes -- ``tablemate run --sim`` up to the watchdog and a SIGTERM, a whole game
of each of the five games with the clock synced and not, a kill -9 mid-game and the resume after
it -- runs as a real process inside the seccomp filter built from the unit's own lines
(:mod:`tests.sandboxkit`). A call outside the filter kills the process by SIGSYS, and the tests of
the harness show that it does and that it is reported.
"""

from __future__ import annotations

import json
import shutil
import signal
import subprocess
import sys

import pytest

from drivers.voice import wav
from tests import sandboxkit
from tests.sandboxkit import GAMES, NotifySocket, Sandbox, SandboxViolation, journal_actions, scaled, wait_for

pytestmark = pytest.mark.skipif(sandboxkit.unavailable() is not None, reason=str(sandboxkit.unavailable()))

ADJTIMEX = (
    "import ctypes, ctypes.util\n"
    "libc = ctypes.CDLL(ctypes.util.find_library('c'), use_errno=True)\n"
    "buf = ctypes.create_string_buffer(512)  # struct timex, modes 0: read only\n"
    "print('state', libc.adjtimex(buf), flush=True)\n"
)
"""A child that asks the kernel's NTP status as the service once did (glibc 2.36's adjtimex() is the
``clock_adjtime`` call; both are in ``@clock``)."""


def history(state) -> list[dict]:
    return [json.loads(line) for line in (state / "history.jsonl").read_text().splitlines()]


@pytest.mark.parametrize("synced", [False, True], ids=["clock-unsynced", "clock-synced"])
@pytest.mark.parametrize("game", sorted(GAMES))
def test_a_whole_game_runs_inside_the_units_filter(tmp_path, game, synced):
    box = Sandbox(tmp_path, synced=synced)
    state = tmp_path / "state"
    ran = box.run("sim", "--script", sandboxkit.script(game), "--state-dir", state, *sandboxkit.seed_args(game))
    ran.check()
    assert ran.returncode == 0, ran.stderr
    assert "Traceback" not in ran.stderr
    [entry] = history(state)  # the end record written, the game filed: started and ended inside the filter
    assert entry["game"] == game and entry["reason"] in ("over", "ended")
    assert entry["clock_synced"] is synced


def _served(box: Sandbox, state, notify: NotifySocket, meanwhile) -> sandboxkit.Ran:
    """``run --sim`` on ``state`` inside the filter: up, ``meanwhile(proc)``, stopped by SIGTERM."""
    proc = box.popen("run", "--sim", "--state-dir", state, env=notify.env(), stderr=subprocess.PIPE)
    try:
        notify.wait_for("STATUS=ready")  # READY=1 comes first, at the start
        meanwhile(proc)
        proc.send_signal(signal.SIGTERM)
        status = proc.wait(scaled(30))
        notify.wait_for("STOPPING=1", timeout=1)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(scaled(10))
        notify.close()
    ran = box.ran(("tablemate", "run", "--sim"), status, "", proc.stderr.read()).check()
    assert ran.returncode == 0 and "Traceback" not in ran.stderr
    return ran


def test_run_sim_comes_up_feeds_the_watchdog_and_stops_on_sigterm_inside_the_filter(tmp_path):
    notify = NotifySocket(tmp_path / "notify.sock")
    _served(Sandbox(tmp_path, synced=False), tmp_path / "state", notify, lambda proc: notify.wait_for("WATCHDOG=1"))


def test_a_game_killed_9_inside_the_filter_resumes_inside_it_and_ends_as_if_never_stopped(tmp_path, cli):
    lines = sandboxkit.script("arschbombe").read_text().splitlines()
    cut = lines.index("snap 02-after-ben") + 1  # two jumps made
    first = tmp_path / "first.sim"
    first.write_text("\n".join([*lines[:cut], "wait 60", ""]))
    rest = tmp_path / "rest.sim"
    rest.write_text("\n".join(line for line in lines[cut:] if not line.startswith("start ")) + "\n")
    whole = cli("sim", "--script", sandboxkit.script("arschbombe"), "--state-dir", tmp_path / "whole")
    assert whole.status == 0
    [expected] = history(tmp_path / "whole")

    box = Sandbox(tmp_path / "box", synced=False)  # offline: the clock never syncs
    state = tmp_path / "state"
    proc = box.popen("sim", "--realtime", "--script", first, "--state-dir", state, stderr=subprocess.PIPE)
    try:
        wait_for(lambda: journal_actions(state) == 2, proc=proc)
    finally:
        proc.send_signal(signal.SIGKILL)
        status = proc.wait(scaled(10))
    box.ran(("tablemate", "sim", "--realtime"), status, "", proc.stderr.read()).check()
    assert status == -signal.SIGKILL

    shown = box.run("state", "--state-dir", state).check()
    assert json.loads(shown.stdout)["summary"]["jumps"] == {"Ann": 1, "Ben": 1}
    resumed = box.run("sim", "--script", rest, "--state-dir", state).check()
    assert resumed.returncode == 0, resumed.stderr
    [entry] = history(state)
    assert entry["reason"] == "over" and entry["clock_synced"] is False
    assert (entry["scores"], entry["winners"]) == (expected["scores"], expected["winners"])
    listed = box.run("history", "--state-dir", state).check()
    assert listed.returncode == 0 and "(clock unset)" in listed.stdout


# -- the harness catches a call outside the filter ---------------------------------------------------
def test_a_child_making_a_forbidden_call_dies_by_sigsys_and_the_harness_says_so(tmp_path):
    box = Sandbox(tmp_path, synced=False)
    fine = box.run_argv([sys.executable, "-c", "print('alive')"]).check()  # the interpreter itself passes
    assert fine.returncode == 0 and fine.stdout.strip() == "alive"
    killed = box.run_argv([sys.executable, "-c", ADJTIMEX])
    assert killed.killed_by_filter and "state" not in killed.stdout
    with pytest.raises(SandboxViolation, match=r"killed by SIGSYS.*SystemCallFilter=@system-service") as raised:
        killed.check()
    if shutil.which("strace"):  # the harness names the call
        assert killed.refused == ["clock_adjtime"] and "(clock_adjtime, seen by a rerun" in str(raised.value)


def test_the_same_call_passes_when_the_filter_lists_it(tmp_path):
    box = Sandbox(tmp_path, synced=False, allowed=sandboxkit.unit_filter().names | {"adjtimex", "clock_adjtime"})
    ran = box.run_argv([sys.executable, "-c", ADJTIMEX]).check()
    assert ran.returncode == 0 and ran.stdout.startswith("state ")


def test_the_old_clock_check_is_killed_inside_the_filter_on_an_offline_table(tmp_path):
    """The bug this guards: adjtimex at the start of every game while the clock reads unsynced."""
    box = Sandbox(tmp_path, synced=False, ask_kernel=True)
    ran = box.run("sim", "--script", sandboxkit.script("arschbombe"), "--state-dir", tmp_path / "state")
    with pytest.raises(SandboxViolation, match="killed by SIGSYS"):
        ran.check()
    assert not (tmp_path / "state" / "history.jsonl").exists()  # the end record was never written
    if shutil.which("strace"):
        assert ran.refused == ["clock_adjtime"]


def test_a_resume_proved_by_its_own_process_runs_inside_the_filter(tmp_path):
    from bench.resume import build_void

    state = tmp_path / "state"
    build_void(state, 150)  # sealed by other code: the start proves its snapshot
    notify = NotifySocket(tmp_path / "notify.sock")

    def proved(proc) -> None:  # the last line: the verdict, a snapshot sealed by this code
        wait_for(lambda: b'"v":"' in (state / "game.jsonl").read_bytes().rsplit(b"\n", 2)[-2], proc=proc)

    ran = _served(Sandbox(tmp_path / "box", synced=False), state, notify, proved)
    assert "resume checked" in ran.stderr and "nothing readable" not in ran.stderr  # (not on a thread)


SPEAK = (
    "import asyncio, sys\n"
    "from drivers.voice import Voice\n"
    "from drivers.voice.alsa import AplayPlayer\n"
    "from drivers.voice.espeak import Espeak\n"
    "from drivers.voice.speaker import Speaker\n"
    "async def main():\n"
    "    speaker = Speaker(AplayPlayer(sys.argv[1]), Espeak(), Voice(language='de'))\n"
    "    said = await speaker.say('Ben verliert zwei Leben. Anna ist dran.').wait()\n"
    "    speaker.close(); await speaker.wait_closed()\n"
    "    print(said, flush=True)\n"
    "asyncio.run(main())\n"
)
"""The voice as the service runs it: eSpeak NG and aplay as its child processes, streamed through
the loop (the children inherit the service's filter, as under systemd)."""


@pytest.mark.skipif(
    shutil.which("espeak-ng") is None or shutil.which("aplay") is None, reason="needs espeak-ng and aplay"
)
def test_the_voice_engine_and_player_run_as_children_inside_the_units_filter(tmp_path):
    out = tmp_path / "said.wav"
    ran = Sandbox(tmp_path / "box", synced=False).run_argv([sys.executable, "-c", SPEAK, f"file:'{out}',wav"])
    ran.check()  # SIGSYS in eSpeak NG or aplay kills the parent's wait: named here with the call
    assert ran.returncode == 0 and ran.stdout.split() == ["said"], ran.stderr
    samples = wav.samples(out.read_bytes())
    loud = max(abs(int.from_bytes(samples[i : i + 2], "little", signed=True)) for i in range(0, len(samples), 2))
    assert wav.duration(out.read_bytes()) > 1.0 and loud > 1000  # a phrase, not silence
