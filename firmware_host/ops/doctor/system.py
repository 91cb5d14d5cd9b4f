"""What the checks look at: a filesystem root and the probes (:class:`System`), and whether the
service may use a device node there (:func:`device_access`)."""

from __future__ import annotations

import shutil
import stat
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import firmware_host.ops.doctor.probes as probes
from firmware_host.core.config import Config
from firmware_host.core.pi_layout import SERVICE_USER
from firmware_host.ops.doctor.base import Line


@dataclass
class System:
    """What the checks look at. Defaults are this machine; tests give a fake tree and probes."""

    root: Path = Path("/")
    state_dir: Path = Path("/var/lib/tablemate")
    user: str = SERVICE_USER
    user_groups: Callable[[str], set[str] | None] = probes.user_groups
    group_name: Callable[[int], str] = probes.group_name
    i2c_answers: Callable[[int, int], bool] = probes.i2c_answers
    hx711_words: Callable[[dict[str, Any], float], Any] = field(default=lambda s, t: probes.hx711_words(s, t))
    gpiozero_factory: Callable[[], str] = probes.gpiozero_factory
    blinka_pins: Callable[[], str] = probes.blinka_pins
    request_lines: Callable[[list[Line], float, str], dict[int, str]] = probes.request_lines
    open_spi: Callable[[Config], None] = probes.open_spi
    fsync_ms: Callable[[Path], float] = probes.fsync_ms
    disk_free: Callable[[Path], int] = field(default=lambda p: shutil.disk_usage(p).free)

    def path(self, absolute: str) -> Path:
        """``absolute`` (``/dev/i2c-1``) under :attr:`root`."""
        return self.root / absolute.lstrip("/")


def device_access(system: System, path: Path, group: str, groups: set[str]) -> str | None:
    """Why the service cannot read and write the device node ``path``, or ``None`` when it can."""
    st = path.stat()
    owner_group = system.group_name(st.st_gid)
    if st.st_mode & stat.S_IROTH and st.st_mode & stat.S_IWOTH:
        return None
    if owner_group in groups and st.st_mode & stat.S_IRGRP and st.st_mode & stat.S_IWGRP:
        return None
    return f"{path.name} belongs to group {owner_group} (mode {stat.S_IMODE(st.st_mode):o}); the service has {group}"
