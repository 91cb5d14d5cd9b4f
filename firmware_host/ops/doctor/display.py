"""The panel: its bus (I2C or SPI), that it answers or opens, and the I2C bus's speed."""

from __future__ import annotations

import contextlib

from firmware_host.core.config import Config, panel_bus
from firmware_host.core.pi_layout import (
    I2C_BAUDRATE,
    SERVICE_GROUPS,
    SPI_DROP_IN,
    SPI_GROUP,
)
from firmware_host.ops.doctor.base import (
    FAIL,
    OK,
    REINSTALL,
    SKIP,
    UDEV_FIX,
    Result,
    reason,
)
from firmware_host.ops.doctor.system import System, device_access


def i2c_hz(system: System, port: int) -> int | None:
    """The bus speed the kernel's device tree gives ``/dev/i2c-<port>``, or ``None``."""
    for base in (f"/sys/class/i2c-dev/i2c-{port}/device/of_node", f"/sys/class/i2c-adapter/i2c-{port}/of_node"):
        with contextlib.suppress(OSError):
            raw = system.path(base + "/clock-frequency").read_bytes()
            if len(raw) == 4:
                return int.from_bytes(raw, "big")
    return None


def check_display(config: Config, system: System) -> Result:
    """The panel's bus: on I2C, ``/dev/i2c-<port>`` exists, the service may use it and the panel
    answers; on SPI, ``/dev/spidev0.<spi_device>`` exists and the service may use it (an SPI
    panel answers nothing: whether it shows the picture is for the eye)."""
    d = config["display"]
    bus = panel_bus(config)
    if bus is None:
        return Result("display", SKIP, f"display kind {d['kind']}: no panel")
    if bus == "spi":
        return _check_spi(config, system)
    port, address = d["i2c_port"], d["address"]
    dev = system.path(f"/dev/i2c-{port}")
    if not dev.exists():
        return Result("display", FAIL, f"no /dev/i2c-{port}", f"{REINSTALL} (I2C on, i2c-dev), then reboot")
    problem = device_access(system, dev, "i2c", set(SERVICE_GROUPS))
    if problem:
        return Result("display", FAIL, problem, f"{UDEV_FIX}; user in i2c: sudo usermod -aG i2c tablemate")
    try:
        answers = system.i2c_answers(port, address)
    except Exception as exc:
        return Result("display", FAIL, f"/dev/i2c-{port}: {reason(exc)}", "sudo -u tablemate tablemate doctor")
    if not answers:
        return Result(
            "display",
            FAIL,
            f"nothing answers at 0x{address:02X} on /dev/i2c-{port}",
            f"check the panel's wiring (SDA GPIO 2, SCL GPIO 3, 3.3 V); `i2cdetect -y {port}` shows its address",
        )
    return Result("display", OK, f"{d['kind']} answers at 0x{address:02X} on /dev/i2c-{port}")


def _check_spi(config: Config, system: System) -> Result:
    d = config["display"]
    dev = system.path(f"/dev/spidev0.{d['spi_device']}")
    if not dev.exists():
        return Result("display", FAIL, f"no /dev/{dev.name}", f"{REINSTALL} (turns SPI on), then reboot")
    groups = system.user_groups(system.user) or set()
    service_groups = set(SERVICE_GROUPS) | ({SPI_GROUP} if SPI_GROUP in groups and _spi_drop_in(system) else set())
    problem = device_access(system, dev, SPI_GROUP, service_groups)
    if problem:
        return Result("display", FAIL, problem, f"{REINSTALL} (gives the service the spi group)")
    try:
        system.open_spi(config)
    except Exception as exc:
        busy = "busy" in reason(exc).lower()
        if busy:
            return Result("display", SKIP, f"DC/RES lines held by the running service ({reason(exc)})")
        return Result(
            "display",
            FAIL,
            f"{d['kind']} on /dev/{dev.name} does not open: {type(exc).__name__}: {reason(exc)}",
            f"{REINSTALL} (the SPI panel's libraries: spidev; rpi-lgpio for DC/RES on Bookworm and the Pi 5)",
        )
    return Result("display", OK, f"{d['kind']} opens on /dev/{dev.name} (DC GPIO {d['dc']}, RES GPIO {d['reset']})")


def _spi_drop_in(system: System) -> bool:
    """Whether the unit's drop-in gives the service the spi group (the installer writes it)."""
    drop_in = system.path(f"/{SPI_DROP_IN}")
    return drop_in.exists() and f"SupplementaryGroups={SPI_GROUP}" in drop_in.read_text(encoding="utf-8")


def check_i2c_speed(config: Config, system: System) -> Result:
    """The I2C bus runs at 400 kHz (a full frame: ~23 ms, against ~93 ms at 100 kHz)."""
    if panel_bus(config) != "i2c":
        return Result("i2c speed", SKIP, "no I2C panel")
    port = config["display"]["i2c_port"]
    hz = i2c_hz(system, port)
    fix = f"{REINSTALL} (sets dtparam=i2c_arm_baudrate=400000), then reboot"
    if hz is None:
        return Result("i2c speed", FAIL, f"bus speed of i2c-{port} unknown (no device tree node)", fix)
    if hz < I2C_BAUDRATE:
        return Result("i2c speed", FAIL, f"i2c-{port} at {hz // 1000} kHz", fix)
    return Result("i2c speed", OK, f"i2c-{port} at {hz // 1000} kHz")
