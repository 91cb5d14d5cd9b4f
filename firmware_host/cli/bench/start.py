"""``tablemate bench start``: how long from starting the device to its ``READY=1`` and until the
table is up.

Starts ``tablemate run --sim`` as a real process, the way systemd does (``NOTIFY_SOCKET``), and
times it from the start of the process to the ``READY=1`` datagram (sent once the config file is
good and the state folder held) and to ``STATUS=ready`` (the table up: the menu drawn, the buttons
read). Beside it, in the same run, the baseline: a bare Python that imports the same libraries --
exactly the modules of the standard library and of third parties the device had loaded when it
was up (asyncio, gpiozero, luma, PIL, Blinka...), found by one ``-X importtime`` run first -- and
then says so the same way. The difference is what tablemate itself costs: its own modules,
building the screens and drivers, the first frame. Target: the table up at most 100 ms over the
baseline (medians).

Both sides run with their bytecode compiled: the libraries have theirs from pip, and tablemate's
own modules get theirs from the first (``-X importtime``) start, which runs with
``PYTHONDONTWRITEBYTECODE`` unset -- as on the Pi, where pip compiles the installed package.
Without that, a checkout under ``PYTHONDONTWRITEBYTECODE=1`` recompiles every module at every
start, which no installed device does.
"""

from __future__ import annotations

import importlib.util
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from firmware_host.runtime import sdnotify

TARGET_OVER_BASELINE_S = 0.100
UP_LINE = "the table is up"
"""The device's log line when it is up (:mod:`firmware_host.runtime.device`), on the same stderr."""
OURS = ("firmware_host", "drivers", "games", "bench")

BASELINE = """
import importlib, os, socket
for name in {modules!r}:
    try:  # the device tried these too: optional back ends that are not installed here
        importlib.import_module(name)
    except ImportError:
        pass
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.sendto(b"READY=1\\nSTATUS=ready", os.environ["NOTIFY_SOCKET"])
"""


def _libraries(importtime: str) -> list[str]:
    """Modules not of this project (standard library and third-party), in import order, from the
    output of ``-X importtime``."""
    found = []
    for line in importtime.splitlines():
        if not line.startswith("import time:") or line.count("|") < 2:
            continue
        name = line.rsplit("|", 1)[1].strip()
        top = name.split(".")[0]
        if not name.replace(".", "").replace("_", "").isalnum() or name in found:
            continue  # the header line; a module tried twice
        if top in OURS or top.startswith("__editable__"):  # pip's editable-install finder: ours too
            continue
        found.append(name)
    return found


def _until_ready(cmd: list[str], tmp: Path, capture: bool = False) -> tuple[float, float, str]:
    """Start ``cmd`` with a notify socket; seconds to READY=1 and until it is up (``STATUS=ready``),
    and its stderr when ``capture``."""
    sock_path = tmp / f"notify-{time.monotonic_ns()}"
    env = dict(os.environ, NOTIFY_SOCKET=str(sock_path))
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # compiled once, as pip does on install; see the docstring
    with (
        socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock,
        tempfile.TemporaryFile() as err_file,
    ):
        sock.bind(str(sock_path))
        sock.settimeout(60)
        started = time.monotonic()
        stderr = err_file if capture else subprocess.DEVNULL
        proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=stderr)
        try:
            ready = None
            while True:
                datagram = sock.recv(4096)
                if ready is None and b"READY=1" in datagram:
                    ready = time.monotonic() - started
                if sdnotify.is_up(datagram):
                    break
            up = time.monotonic() - started
        finally:
            proc.terminate()
            proc.wait(30)
            sock_path.unlink(missing_ok=True)
        err_file.seek(0)
        return ready if ready is not None else up, up, err_file.read().decode(errors="replace")


def measure(runs: int = 7) -> dict[str, object]:
    """Medians of ``runs`` starts of the device and of the bare-import baseline, interleaved."""
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)

        def device(extra: tuple[str, ...] = ()) -> list[str]:
            state = tmp / f"state-{time.monotonic_ns()}"
            return [sys.executable, *extra, "-m", "firmware_host", "run", "--sim", "--state-dir", str(state)]

        _, _, importtime = _until_ready(device(("-X", "importtime")), tmp, capture=True)
        # what it had loaded when it said so: the page's modules come after (aiohttp, ...)
        modules = _libraries(importtime.split(UP_LINE, 1)[0])
        baseline = [sys.executable, "-c", BASELINE.format(modules=modules)]
        ready, ours, bare = [], [], []
        for _ in range(runs):
            said, up, _ = _until_ready(device(), tmp)
            ready.append(said)
            ours.append(up)
            bare.append(_until_ready(baseline, tmp)[1])
    return {
        "runs": runs,
        "said_ready_s": statistics.median(ready),
        "ready_s": statistics.median(ours),
        "bare_import_s": statistics.median(bare),
        "libraries": sorted(
            top
            for top in {m.split(".")[0] for m in modules} - set(sys.stdlib_module_names)
            if importlib.util.find_spec(top) is not None
        ),
        "modules": len(modules),
    }


def main(runs: int = 7) -> int:
    """Print start → READY beside the bare import; exit 1 when over the target."""
    r = measure(runs)
    over = r["ready_s"] - r["bare_import_s"]  # type: ignore[operator]
    good = over <= TARGET_OVER_BASELINE_S
    print(f"tablemate run --sim, start to READY=1 and until the table is up, median of {r['runs']} runs")
    print(f"  READY=1       {r['said_ready_s'] * 1000:7.1f} ms  (the config good, the state folder held)")  # type: ignore[operator]
    print(f"  device up     {r['ready_s'] * 1000:7.1f} ms")  # type: ignore[operator]
    print(
        f"  bare import   {r['bare_import_s'] * 1000:7.1f} ms  ({r['modules']} modules: the standard "
        f"library's and {', '.join(r['libraries'])})"  # type: ignore[arg-type]
    )
    print(
        f"  tablemate's own cost {over * 1000:+.1f} ms (target <= +{TARGET_OVER_BASELINE_S * 1000:.0f} ms)  "
        f"{'ok' if good else 'MISSED'}"
    )
    return 0 if good else 1
