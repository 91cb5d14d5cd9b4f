"""`tablemate sim` in a real terminal (a pty of 60×20): it draws a 128×128 panel whole with a way
to quit, every key struck is a press, and `x` quits after the keys before it."""

from __future__ import annotations

import fcntl
import os
import select
import struct
import termios
import time

from tests.conftest import tablemate_process

DEADLINE = 60.0
"""Seconds the simulator may take to start, play the keys and stop on a loaded machine (it
stops far sooner; the test waits for its output, it does not sleep)."""


def _read_until(fd: int, needle: bytes, proc) -> bytes:
    """What the terminal showed up to ``needle`` (or until the process ended)."""
    seen = b""
    end = time.monotonic() + DEADLINE
    while needle not in seen and time.monotonic() < end:
        ready, _, _ = select.select([fd], [], [], 0.5)
        if ready:
            try:
                seen += os.read(fd, 65536)
            except OSError:  # the process ended and closed its side
                break
        elif proc.poll() is not None:
            break
    return seen


def test_in_a_60x20_terminal_every_enter_is_a_press_and_x_quits_after_them(cli, tmp_path):
    # bug: two Enters in one read rolled once, and a 128x128 panel lost its rows and keys
    state = tmp_path / "state"
    script = tmp_path / "start.sim"
    script.write_text("start trottel Ann Ben Cy\n")
    assert cli("sim", "--script", script, "--state-dir", state, "--seed", "7").status == 0
    config = tmp_path / "config.toml"
    config.write_text('[display]\nkind = "sh1107"\n')

    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 20, 60, 0, 0))
    env = {**os.environ, "COLUMNS": "60", "LINES": "20"}
    proc = tablemate_process(
        "sim", "--config", config, "--state-dir", state, stdin=slave, stdout=slave, stderr=slave, env=env
    )
    os.close(slave)
    try:
        shown = _read_until(master, b"x quit", proc)
        assert b"x quit" in shown, shown[-400:]
        os.write(master, b"\r\r\rx")  # three rolls in one read, then quit
        _read_until(master, b"game is kept", proc)
        assert proc.wait(timeout=DEADLINE) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        os.close(master)
    actions = cli("state", "--state-dir", state).json()["script"]["actions"]
    assert actions == [{"type": "roll"}] * 3
