"""systemd's notifications as the device sends them: READY at the start, ``STATUS=ready`` when up."""

from __future__ import annotations

import socket
import sys

import pytest

from firmware_host.runtime import sdnotify


def test_ready_says_the_start_and_only_the_up_message_says_the_table_is_up():
    assert sdnotify.STARTING.startswith("READY=1\n") and sdnotify.UP.startswith("READY=1\n")
    assert not sdnotify.is_up(sdnotify.STARTING.encode()) and sdnotify.is_up(sdnotify.UP.encode())


def test_a_notification_reaches_the_socket_named_in_the_environment(tmp_path, monkeypatch):
    path = tmp_path / "notify"
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
        sock.bind(str(path))
        monkeypatch.setenv("NOTIFY_SOCKET", str(path))
        assert sdnotify.notify(sdnotify.UP)
        assert sock.recv(4096) == sdnotify.UP.encode()
    monkeypatch.delenv("NOTIFY_SOCKET")
    assert not sdnotify.notify("WATCHDOG=1")  # in a terminal: nothing to say it to


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc is Linux's")
def test_the_process_age_is_the_time_since_this_process_started():
    import subprocess
    import time

    code = "from firmware_host.runtime import sdnotify; print(sdnotify.process_age())"
    started = time.monotonic()
    age = float(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout)
    elapsed = time.monotonic() - started
    tick = 0.02  # the kernel keeps a start time in clock ticks (1/100 s)
    assert -tick <= age <= elapsed + tick
