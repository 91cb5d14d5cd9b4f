"""The device as a process: kill -9 mid-game loses nothing; SIGTERM stops cleanly under systemd."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time

import pytest

from tests.conftest import ROOT, tablemate_process
from tests.conftest import tablemate_run as tablemate
from tests.waits import scaled


def wait_for(condition, timeout: float = 30.0) -> None:
    end = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < end, "timed out"
        time.sleep(0.02)


def notify_socket(folder, timeout: float | None = 30) -> tuple[socket.socket, dict[str, str]]:
    """A bound systemd notify socket in ``folder`` and the environment that names it."""
    path = folder / "notify.sock"
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(str(path))
    sock.settimeout(timeout)
    return sock, dict(os.environ, NOTIFY_SOCKET=str(path))


def journal_actions(state_dir) -> int:
    try:
        return sum(1 for line in (state_dir / "game.jsonl").read_text().splitlines() if line.startswith('{"a"'))
    except FileNotFoundError:
        return 0


def test_kill_9_mid_game_then_state_shows_the_same_game_and_its_script_replays(tmp_path):
    state = tmp_path / "state"
    script = tmp_path / "play.txt"
    script.write_text("start arschbombe Ann Ben\n" + "press ok\npress ok\npress ok\n" * 3 + "wait 60\n")
    proc = tablemate_process("sim", "--realtime", "--script", script, "--state-dir", state, "--seed", "4")
    try:
        wait_for(lambda: journal_actions(state) == 3)
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(scaled(10))
    shown = tablemate("state", "--state-dir", state)
    assert shown.returncode == 0, shown.stderr
    data = json.loads(shown.stdout)
    assert data["summary"]["jumps"] == {"Ann": 2, "Ben": 1}
    replay_file = tmp_path / "again.json"
    replay_file.write_text(json.dumps(data["script"]))
    replayed = tablemate("replay", replay_file)
    assert replayed.returncode == 0 and json.loads(replayed.stdout) == data["summary"]
    # the restarted device resumes that very game, and carries on from it
    more = tmp_path / "more.txt"
    more.write_text("press ok\npress ok\npress ok\n")
    assert tablemate("sim", "--script", more, "--state-dir", state).returncode == 0
    after = json.loads(tablemate("state", "--state-dir", state).stdout)["summary"]
    assert after["jumps"] == {"Ann": 2, "Ben": 2}


def test_sigterm_stops_cleanly_after_ready_and_watchdog_under_systemd(tmp_path):
    sock, env = notify_socket(tmp_path)
    env["WATCHDOG_USEC"] = "200000"
    proc = tablemate_process("run", "--sim", "--state-dir", tmp_path / "state", env=env, stderr=subprocess.PIPE)
    messages = []
    try:
        while not any("READY=1" in m for m in messages):
            messages.append(sock.recv(4096).decode())
        while not any("WATCHDOG=1" in m for m in messages):
            messages.append(sock.recv(4096).decode())
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(scaled(30)) == 0
        sock.settimeout(1)
        while not any("STOPPING=1" in m for m in messages):
            messages.append(sock.recv(4096).decode())
    finally:
        if proc.poll() is None:
            proc.kill()
        sock.close()
    assert "Traceback" not in proc.stderr.read().decode()


def test_starting_loads_no_game_and_no_benchmark():
    code = (
        "import sys, firmware_host.cli.main as c, firmware_host.runtime.device\n"
        "c.build_parser()\n"
        "print(sorted(m for m in sys.modules if m.startswith(('games.tonne', 'games.bomb', 'bench.'))))"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=scaled(60))
    assert out.stdout.strip() == "[]"


def test_ready_comes_once_the_start_cannot_fail_and_the_table_says_when_it_is_up(tmp_path):
    """READY=1 is sent when the config file is good and the state folder held (what follows only
    degrades a part), before the device's modules load; STATUS=ready and one log line say when the
    table is up, and the watchdog is fed in between."""
    sock, env = notify_socket(tmp_path)
    env["WATCHDOG_USEC"] = "30000000"
    proc = tablemate_process("run", "--sim", "--state-dir", tmp_path / "state", env=env, stderr=subprocess.PIPE)
    messages: list[str] = []
    try:
        while not any("STATUS=ready" in m for m in messages):
            messages.append(sock.recv(4096).decode())
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(scaled(30)) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
        sock.close()
    assert messages[0].startswith("READY=1\nSTATUS=starting"), messages
    up = next(i for i, m in enumerate(messages) if "STATUS=ready" in m)
    assert any("WATCHDOG=1" in m for m in messages[1:up]), messages
    assert "the table is up" in proc.stderr.read().decode()


def test_a_bad_config_fails_the_start_before_ready(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text('[display]\nkind = "crt"\n')
    sock, env = notify_socket(tmp_path, timeout=0)
    proc = tablemate_process("run", "--config", bad, "--state-dir", tmp_path / "state", env=env, stderr=subprocess.PIPE)
    try:
        assert proc.wait(scaled(30)) != 0
        assert "kind" in proc.stderr.read().decode()
        try:
            said = sock.recv(4096).decode()
        except BlockingIOError:
            said = ""
        assert "READY=1" not in said
    finally:
        if proc.poll() is None:
            proc.kill()
        sock.close()


def test_a_stop_asked_while_starting_is_kept_and_a_second_one_ends_the_start(monkeypatch):
    """Between READY and the device's own handlers a SIGTERM (systemctl stop) must not kill the
    device mid-start: it is kept, and the device stops cleanly once up; a second one (a start stuck
    in a driver, Ctrl-C twice) ends it there and then."""
    from firmware_host.cli import cmd_play

    monkeypatch.setattr(cmd_play, "_stop_requests", [])
    saved = {sig: signal.getsignal(sig) for sig in (signal.SIGTERM, signal.SIGINT)}
    try:
        cmd_play._keep_stop_requests()
        signal.raise_signal(signal.SIGTERM)
        assert cmd_play._stop_requests == [signal.SIGTERM]
        with pytest.raises(KeyboardInterrupt):
            signal.raise_signal(signal.SIGINT)
    finally:
        for sig, handler in saved.items():
            signal.signal(sig, handler)
