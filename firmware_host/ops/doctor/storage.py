"""The state folder: writable, with room, and fsync quick enough for one per action."""

from __future__ import annotations

from firmware_host.core.config import Config
from firmware_host.ops.doctor.base import (
    FAIL,
    MIN_FREE_MB,
    OK,
    REINSTALL,
    SLOW_FSYNC_MS,
    Result,
    reason,
)
from firmware_host.ops.doctor.system import System


def check_state(config: Config, system: System) -> Result:
    """The state folder is writable, has room, and fsync is quick enough for one per action."""
    folder = system.state_dir
    if not folder.is_dir():
        return Result("state", FAIL, f"no state folder {folder}", f"{REINSTALL} (StateDirectory= makes it)")
    try:
        free_mb = system.disk_free(folder) / 1e6
        ms = system.fsync_ms(folder)
    except OSError as exc:
        return Result(
            "state",
            FAIL,
            f"{folder}: {reason(exc)}",
            "run as the service: sudo -u tablemate /opt/tablemate/venv/bin/tablemate doctor",
        )
    found = f"{folder}: {free_mb:,.0f} MB free, fsync {ms:.1f} ms"
    if free_mb < MIN_FREE_MB:
        return Result("state", FAIL, found, "free space on the SD card (`sudo apt clean`, old logs)")
    if ms > SLOW_FSYNC_MS:
        return Result("state", FAIL, found, "a faster SD card (A1/A2 class); every action waits for one fsync")
    return Result("state", OK, found)
