"""Checks of each part as the service sees it: one line per part, with the fix when it fails.

``tablemate doctor`` prints them; :func:`selftest_lines` gives the same checks in the short form
the device's Self-test screen can show. Each check is a plain function of the configuration and
a :class:`System` -- the filesystem root (``/dev``, ``/sys``, ``/etc``, ``/boot``) and the few
probes that touch hardware -- so the tests run every check against a fake tree in a temporary
folder, and this machine (no Pi) gets every missing part named with its fix.

A check never raises: what it cannot find is a failure line, what it cannot look at from here
(a pin the running service holds) a ``skip`` line, which does not fail the doctor.

The checks by part, in the order of their lines: :mod:`.service` (user, service, sandbox),
:mod:`.gpio` (gpio, backends, pins), :mod:`.boot` (uart; reboot), :mod:`.display` (display,
i2c speed), :mod:`.tower`, :mod:`.voice`, :mod:`.scale`, :mod:`.storage` (state); what they share in
:mod:`.base` (results, statuses) and :mod:`.system` (what they look at, the probes in
:mod:`.probes`); the sandbox's verdict in :mod:`.sandbox`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from firmware_host.core.config import Config
from firmware_host.core.pi_layout import SERVICE_USER
from firmware_host.ops.doctor.base import FAIL, OK, REINSTALL, SKIP, Line, Result, configured_lines, reason
from firmware_host.ops.doctor.boot import check_reboot, check_uart
from firmware_host.ops.doctor.display import check_display, check_i2c_speed
from firmware_host.ops.doctor.gpio import check_gpio_backends, check_gpiochips, check_lines
from firmware_host.ops.doctor.probes import request_with
from firmware_host.ops.doctor.scale import check_hx711
from firmware_host.ops.doctor.service import check_sandbox, check_unit, check_user
from firmware_host.ops.doctor.storage import check_state
from firmware_host.ops.doctor.system import System
from firmware_host.ops.doctor.tower import check_tower
from firmware_host.ops.doctor.voice import check_voice
from games.core import T, join

__all__ = [
    "CHECKS",
    "FAIL",
    "OK",
    "REINSTALL",
    "SELFTEST_CHECKS",
    "SERVICE_USER",
    "SKIP",
    "Line",
    "Result",
    "System",
    "check_display",
    "check_gpio_backends",
    "check_gpiochips",
    "check_hx711",
    "check_i2c_speed",
    "check_lines",
    "check_reboot",
    "check_sandbox",
    "check_state",
    "check_tower",
    "check_uart",
    "check_unit",
    "check_user",
    "check_voice",
    "configured_lines",
    "request_with",
    "run_checks",
    "selftest_lines",
]


CHECKS: tuple[Callable[[Config, System], Result], ...] = (
    check_user,
    check_unit,
    check_sandbox,
    check_gpiochips,
    check_gpio_backends,
    check_lines,
    check_uart,
    check_display,
    check_i2c_speed,
    check_reboot,
    check_tower,
    check_voice,
    check_hx711,
    check_state,
)


def run_checks(config: Config, system: System | None = None, checks: Iterable[Any] = CHECKS) -> list[Result]:
    """Every check, in order; a check that raises anyway becomes a failure line."""
    system = system or System()
    results = []
    for check in checks:
        try:
            results.append(check(config, system))
        except Exception as exc:
            name = check.__name__.removeprefix("check_")
            results.append(Result(name, FAIL, f"check failed: {reason(exc)}", "report this"))
    return results


SELFTEST_CHECKS: tuple[Callable[[Config, System], Result], ...] = (
    check_user,
    check_unit,
    check_gpiochips,
    check_i2c_speed,
    check_tower,
    check_state,
)
"""The checks the running device can make of itself: none opens a pin or the I2C bus it holds
(the Self-test screen shows the buttons, the scale and the panel live instead)."""


def selftest_lines(config: Config, system: System | None = None, checks: Iterable[Any] = SELFTEST_CHECKS) -> list[str]:
    """Short lines for the Self-test screen: ``part ok`` or ``part FAIL``, failures first."""
    results = run_checks(config, system, checks)
    results.sort(key=lambda r: not r.failed)
    return [join([SELFTEST_PARTS.get(r.part, r.part), SELFTEST_STATUS.get(r.status, r.status)], " ") for r in results]


SELFTEST_PARTS = {
    "user": T("user"),
    "service": T("service"),
    "i2c speed": T("i2c speed"),
    "tower": T("tower"),
    "state": T("state"),
}
"""The parts' names on the Self-test screen, in the players' language (``gpio`` reads the same)."""


SELFTEST_STATUS = {OK: T("ok"), FAIL: T("FAIL"), SKIP: T("skip")}
"""A check's result on the Self-test screen."""
