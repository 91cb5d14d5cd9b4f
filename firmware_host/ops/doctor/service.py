"""The service itself: its user and groups, its unit, its sandbox's system call filter."""

from __future__ import annotations

from firmware_host.core.config import Config
from firmware_host.core.pi_layout import (
    SERVICE_GROUPS,
    UNIT,
)
from firmware_host.ops.doctor.base import (
    FAIL,
    OK,
    REINSTALL,
    Result,
)
from firmware_host.ops.doctor.sandbox import sandbox_verdict
from firmware_host.ops.doctor.system import System


def check_user(config: Config, system: System) -> Result:
    """The service's user exists and is in the gpio, i2c and dialout groups."""
    groups = system.user_groups(system.user)
    if groups is None:
        return Result("user", FAIL, f"no user {system.user}", f"{REINSTALL} (creates the user and its groups)")
    missing = [g for g in SERVICE_GROUPS if g not in groups]
    if missing:
        return Result(
            "user",
            FAIL,
            f"{system.user} is not in {', '.join(missing)}",
            f"sudo usermod -aG {','.join(missing)} {system.user}",
        )
    return Result("user", OK, f"{system.user} in {', '.join(SERVICE_GROUPS)}")


def check_unit(config: Config, system: System) -> Result:
    """The installed unit runs in a folder it may write, with lgpio's LG_WD pointing there."""
    unit = system.path(UNIT)
    try:
        text = unit.read_text(encoding="utf-8")
    except OSError:
        return Result("service", FAIL, f"no unit /{UNIT}", REINSTALL)
    settings = {}
    for line in text.splitlines():
        key, sep, value = line.partition("=")
        if sep and not line.lstrip().startswith("#"):
            settings.setdefault(key.strip(), value.strip())
    cwd = settings.get("WorkingDirectory")
    if not cwd or f"LG_WD={cwd}" not in text:
        return Result(
            "service",
            FAIL,
            "unit sets no writable WorkingDirectory with LG_WD: lgpio cannot make its pipes",
            f"{REINSTALL} (installs the current unit)",
        )
    return Result("service", OK, f"unit runs in {cwd} (LG_WD too)")


def check_sandbox(config: Config, system: System) -> Result:
    """The unit's system call filter lets every call the service makes through and refuses the
    rest with an error, not a kill (:mod:`firmware_host.ops.doctor.sandbox`)."""
    return Result(*sandbox_verdict(system.root, REINSTALL))
