"""The GPIO: the chips, the back ends gpiozero and Blinka pick, every button and GPIO tower line."""

from __future__ import annotations

from firmware_host.core.config import DEFAULT_PATH, Config
from firmware_host.core.pi_layout import (
    SERVICE_GROUPS,
)
from firmware_host.ops.doctor.base import (
    FAIL,
    NO_REVISION,
    OK,
    REINSTALL,
    SKIP,
    UDEV_FIX,
    Line,
    Result,
    configured_lines,
    reason,
)
from firmware_host.ops.doctor.system import System, device_access


def check_gpiochips(config: Config, system: System) -> Result:
    """``/dev/gpiochip*`` exist and the service's groups may use them."""
    chips = sorted(p for p in system.path("/dev").glob("gpiochip*") if p.name[8:].isdigit())
    if not chips:
        return Result("gpio", FAIL, "no /dev/gpiochip*: not a Raspberry Pi, or no GPIO driver", "run on the Pi")
    groups = set(SERVICE_GROUPS)
    for chip in chips:
        problem = device_access(system, chip, "gpio", groups)
        if problem:
            return Result("gpio", FAIL, problem, f"{UDEV_FIX}; user in gpio: sudo usermod -aG gpio tablemate")
    return Result("gpio", OK, " ".join(p.name for p in chips))


def check_gpio_backends(config: Config, system: System) -> Result:
    """Which back end gpiozero (buttons, GPIO tower) and Blinka (HX711) pick."""
    needs_zero = config["buttons"]["backend"] == "gpio" or config["tower"]["backend"] == "gpio"
    needs_blinka = config["scale"]["backend"] == "hx711"
    found, failed, fixes = [], [], []
    for needed, name, probe in (
        (needs_zero, "gpiozero", system.gpiozero_factory),
        (needs_blinka, "Blinka", system.blinka_pins),
    ):
        if not needed:
            continue
        try:
            found.append(f"{name}: {probe()}")
        except ImportError as exc:
            failed.append(f"{name}: {reason(exc)}")
            fixes.append(f"{REINSTALL} (pi extra: gpiod, Adafruit-Blinka, lgpio)")
        except Exception as exc:
            failed.append(f"{name}: {reason(exc)}")
            fixes.append(
                f"{REINSTALL} (pi extra: gpiod, Adafruit-Blinka, lgpio)"
                if name == "gpiozero"
                else "Blinka knows no Pi here (the HX711 needs a Raspberry Pi's pins): "
                'on another board set [scale] backend = "none"'
            )
    if failed:
        return Result("backends", FAIL, "; ".join(failed + found), "; ".join(dict.fromkeys(fixes)))
    if not found:
        return Result("backends", SKIP, "no GPIO part configured")
    return Result("backends", OK, "; ".join(found))


def check_lines(config: Config, system: System) -> Result:
    """Every button and GPIO tower line opens as the service requests it, and is released."""
    lines = configured_lines(config)
    if not lines:
        return Result("pins", SKIP, "no button or tower on GPIO")
    try:
        problems = system.request_lines(lines, config["buttons"]["debounce"], config["gpio"]["revision"])
    except Exception as exc:
        return Result("pins", FAIL, f"cannot request lines: {reason(exc)}", f"{REINSTALL} (pi extra: gpiod)")
    if not problems:
        return Result("pins", OK, f"{len(lines)} lines open as the service opens them (GPIO {_pins(lines)})")
    roles = {line.pin: line.role for line in lines}
    found = "; ".join(f"GPIO {pin} ({roles[pin]}): {problem}" for pin, problem in sorted(problems.items()))
    if all(problem.endswith("held by tablemate") for problem in problems.values()):
        return Result("pins", SKIP, f"held by the running service (sudo systemctl stop tablemate): {found}")
    if any(NO_REVISION in problem for problem in problems.values()):
        fix = (
            f"this board is not a Pi: set [gpio] revision in {config.path or DEFAULT_PATH} to the Pi revision "
            'its GPIO chip follows (line offset = BCM number), like revision = "a02082" (a Pi 3B)'
        )
    elif any("ermission" in problem for problem in problems.values()):
        fix = f"{UDEV_FIX}; user in gpio: sudo usermod -aG gpio tablemate"
    else:
        fix = (
            "free the pin (`gpioinfo` names its holder: a dtoverlay in config.txt or another program), "
            "or wire the part to a free pin and change the config"
        )
    return Result("pins", FAIL, found, fix)


def _pins(lines: list[Line]) -> str:
    return ", ".join(str(line.pin) for line in lines)
