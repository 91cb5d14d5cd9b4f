"""The USB tower light's serial port."""

from __future__ import annotations

from firmware_host.core.config import Config
from firmware_host.core.pi_layout import (
    OLD_TOWER_PORT,
    SERVICE_GROUPS,
    TOWER_LINK,
    UDEV_RULES,
)
from firmware_host.ops.doctor.base import (
    FAIL,
    OK,
    REINSTALL,
    SKIP,
    Result,
)
from firmware_host.ops.doctor.system import System, device_access


def check_tower(config: Config, system: System) -> Result:
    """The USB tower's serial port is there and the dialout group may use it. The default port,
    ``/dev/tablemate-tower``, is the udev rule's name for a CH340 or CP210x tower; without it
    the service looks at ``/dev/ttyUSB0``, and so does this check."""
    t = config["tower"]
    if t["backend"] != "serial":
        return Result("tower", SKIP, f"tower backend {t['backend']}")
    name, note = t["port"], ""
    if name == TOWER_LINK and not system.path(name).exists() and system.path(OLD_TOWER_PORT).exists():
        if not system.path(f"/{UDEV_RULES}").exists():
            return Result(
                "tower",
                FAIL,
                f"no {TOWER_LINK} (the tower is {OLD_TOWER_PORT}: a replug while it is open renames it)",
                f"{REINSTALL} (its udev rule names the tower {TOWER_LINK} by its USB ids)",
            )
        name, note = OLD_TOWER_PORT, " (not a CH340/CP210x: set [tower] port to its /dev/serial/by-id/ path)"
    port = system.path(name)
    if not port.exists():
        return Result(
            "tower",
            FAIL,
            f"no {name}",
            f"plug the tower in (a CH340 or CP210x tower is {TOWER_LINK} by the installer's udev rule); "
            "another chip: `ls /dev/serial/by-id/` names it, set [tower] port to that path",
        )
    problem = device_access(system, port, "dialout", set(SERVICE_GROUPS))
    if problem:
        return Result("tower", FAIL, problem, f"sudo usermod -aG {system.group_name(port.stat().st_gid)} tablemate")
    if name.startswith("/dev/ttyUSB") and system.path(TOWER_LINK).exists():
        note = f' (set [tower] port = "{TOWER_LINK}": a replug keeps that name)'
    return Result("tower", OK, f"{name} ({port.resolve().name}){note}")
