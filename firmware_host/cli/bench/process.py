"""The device as a real process for the benchmarks: ``tablemate run --sim`` started the way
systemd starts the service (with a ``NOTIFY_SOCKET``), served until the benchmark is done."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

from firmware_host.runtime import sdnotify


@contextlib.contextmanager
def running_device(state: Path, folder: Path, config: Path | None = None) -> Iterator[tuple[subprocess.Popen, float]]:
    """Start ``run --sim`` on ``state``; yield the process and its seconds until the table is up
    (``STATUS=ready``), stop it after.

    ``folder`` holds the notify socket; ``config`` is a config file (default: none, all defaults).
    The process is terminated however the block ends.
    """
    sock_path = folder / f"notify-{time.monotonic_ns()}"
    env = dict(os.environ, NOTIFY_SOCKET=str(sock_path))
    cmd = [sys.executable, "-m", "firmware_host", "run", "--sim", "--state-dir", str(state)]
    if config is not None:
        cmd += ["--config", str(config)]
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
        sock.bind(str(sock_path))
        sock.settimeout(60)
        started = time.monotonic()
        proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            while not sdnotify.is_up(sock.recv(4096)):  # READY=1 comes first, at the start
                pass
            yield proc, time.monotonic() - started
        finally:
            proc.terminate()
            proc.wait(30)
            sock_path.unlink(missing_ok=True)
