"""Waits in tests as long as the machine needs: a fixed time-out scaled by how slow this machine
runs (emulated, loaded by other work), so a slow machine waits longer instead of failing and a
fast one is not slowed down. Every wall-clock wait of the suite (a subprocess, a thread, a socket)
goes through :func:`scaled`; waits on the device's own clock use virtual time instead.
"""

from __future__ import annotations

import functools
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SLOWNESS_ENV = "TABLEMATE_TEST_SLOWNESS"
"""A factor for every wait of the harness (``4``: an emulated arm64 board); unset, it is measured."""
REFERENCE_START = 0.6
"""Seconds a fresh interpreter takes to import the command line here on a development machine:
the measure of :func:`slowness` (an emulated Cortex-A72 takes ~15 times as long)."""


@functools.cache
def slowness() -> float:
    """How much slower than a development machine this one runs the service: ``TABLEMATE_TEST_SLOWNESS``
    when set, else the time a fresh interpreter takes to import the command line over
    :data:`REFERENCE_START` (never under 1). Every wait of the harness is scaled by it, so a slow machine
    (emulated, loaded) waits longer instead of failing, and a fast one is not slowed down."""
    if os.environ.get(SLOWNESS_ENV):
        return max(1.0, float(os.environ[SLOWNESS_ENV]))
    t0 = time.monotonic()
    subprocess.run([sys.executable, "-c", "import firmware_host.cli.main"], cwd=ROOT, capture_output=True, check=False)
    return max(1.0, (time.monotonic() - t0) / REFERENCE_START)


def scaled(seconds: float) -> float:
    """``seconds`` of waiting on a development machine, on this one (:func:`slowness`)."""
    return seconds * slowness()
