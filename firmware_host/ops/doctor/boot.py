"""The boot config: no serial console or UART on a configured pin, and nothing waiting for a reboot."""

from __future__ import annotations

import contextlib
from collections.abc import Iterable
from pathlib import Path

from firmware_host.core import serial_console
from firmware_host.core.boot_config import is_on, overlay_name, overlays, params, running_board
from firmware_host.core.config import Config, panel_bus
from firmware_host.core.pi_layout import (
    BOOT_CONFIGS,
    REBOOT_MARKER,
)
from firmware_host.ops.doctor.base import (
    FAIL,
    OK,
    REINSTALL,
    SKIP,
    Line,
    Result,
    configured_lines,
)
from firmware_host.ops.doctor.display import i2c_hz
from firmware_host.ops.doctor.system import System


def _uart_pin_lines(config: Config) -> list[Line]:
    """The configured lines on GPIO 14 or 15: buttons, GPIO tower lines, an SPI panel's DC and RES."""
    lines = configured_lines(config)
    if panel_bus(config) == "spi":
        d = config["display"]
        lines += [Line(d["dc"], "panel DC", True), Line(d["reset"], "panel RES", True)]
    return [line for line in lines if line.pin in serial_console.UART_PINS]


def first_existing(system: System, candidates: Iterable[str]) -> Path | None:
    """The first of ``candidates`` (paths under the root, no leading ``/``) that exists."""
    return next((system.path(f"/{c}") for c in candidates if system.path(f"/{c}").exists()), None)


def check_uart(config: Config, system: System) -> Result:
    """No configured line shares GPIO 14 (TXD) or 15 (RXD) with a serial console (``console=``
    on the kernel's command line, ``/proc/cmdline``) or the UART (``enable_uart=1`` in
    ``config.txt`` as the firmware reads it; ``dtparam=uart0`` on a Pi 5): the UART drives TXD,
    which a pressed button shorts to ground, and a getty reads RXD
    (:mod:`firmware_host.core.serial_console`). The fix edits the boot files: it survives a reboot."""
    lines = _uart_pin_lines(config)
    if not lines:
        return Result("uart", SKIP, "nothing configured on GPIO 14 or 15")
    board = running_board(system.root)
    if board is None:
        return Result("uart", SKIP, "no Raspberry Pi board here")
    on = ", ".join(f"{line.role} on GPIO {line.pin} ({serial_console.UART_PINS[line.pin]})" for line in lines)
    try:
        cmdline = system.path("/proc/cmdline").read_text(encoding="utf-8", errors="replace")
    except OSError:
        cmdline = ""
    consoles = serial_console.header_consoles(cmdline, board)
    boot = first_existing(system, BOOT_CONFIGS)
    uart = serial_console.uart_line(boot.read_text(encoding="utf-8", errors="replace"), board) if boot else None
    if not consoles and not uart:
        return Result("uart", OK, f"no serial console or UART on the header ({on})")
    cmdline_txt = first_existing(system, serial_console.CMDLINES)
    where = str(cmdline_txt.relative_to(system.root)) if cmdline_txt else serial_console.CMDLINES[0]
    text = cmdline_txt.read_text(encoding="utf-8", errors="replace") if cmdline_txt else None
    fix = serial_console.console_fix(text, where, bool(consoles), uart is not None).text()
    found = [f"serial console {' '.join(consoles)} on the kernel's command line"] if consoles else []
    found += [f"{uart} in config.txt for this {board.name}"] if uart else []
    return Result(
        "uart",
        FAIL,
        f"{'; '.join(found)}: {on} shares the UART's pin",
        f"{fix} (or wire it to a free pin and change the config)",
    )


def _overlay_nodes(line: str) -> tuple[str, ...]:
    """Where the running kernel shows the device a scale's boot line gives (``/dev/spidev1.0``)."""
    from drivers.scale.hx711_open import SPI1_OVERLAY
    from drivers.scale.hx711_spi import SPI_BUS, SPI_DEVICE

    node = f"spidev{SPI_BUS}.{SPI_DEVICE}"
    return (f"/dev/{node}", f"/sys/class/spidev/{node}") if line == SPI1_OVERLAY else ()


def check_reboot(config: Config, system: System) -> Result:
    """The boot config is in force: no change of the installer waits for a reboot, what
    ``config.txt`` turns on for this board (I2C, its speed, SPI) the running kernel has, and the
    boot lines the ``[scale]`` path needs (``dtoverlay=spi1-1cs`` for an HX711 on SPI1) are there
    -- in force, or missing, which the installer adds."""
    from drivers.scale.hx711_open import boot_config_lines

    marker = system.path(f"/{REBOOT_MARKER}")
    with contextlib.suppress(OSError):
        reasons = [line for line in marker.read_text(encoding="utf-8").splitlines() if line.strip()]
        return Result(
            "reboot",
            FAIL,
            f"the installer changed the boot config ({'; '.join(reasons)}): not in force until a reboot",
            "sudo reboot",
        )
    boot = first_existing(system, BOOT_CONFIGS)
    board = running_board(system.root)
    if boot is None or board is None:
        return Result("reboot", SKIP, "no Raspberry Pi boot config or board here")
    text = boot.read_text(encoding="utf-8", errors="replace")
    wanted, loaded = params(text, board), overlays(text, board)
    scale_lines = boot_config_lines(config["scale"])
    missing = [line for line in scale_lines if overlay_name(line) not in loaded]
    if missing:
        return Result(
            "reboot",
            FAIL,
            f"the [scale] path needs {', '.join(missing)}, which config.txt does not load on this {board.name}",
            f"{REINSTALL} (adds {', '.join(missing)} to config.txt for every board), then sudo reboot",
        )
    pending = []
    if is_on(wanted.get("i2c_arm")) and not any(
        system.path(p).exists() for p in ("/sys/class/i2c-adapter/i2c-1", "/sys/class/i2c-dev/i2c-1", "/dev/i2c-1")
    ):
        pending.append("I2C on")
    baud, hz = wanted.get("i2c_arm_baudrate", ""), i2c_hz(system, 1)
    if baud.isdigit() and hz is not None and int(baud) != hz:
        pending.append(f"I2C at {int(baud) // 1000} kHz (runs at {hz // 1000} kHz)")
    if is_on(wanted.get("spi")) and not any(
        system.path(p).exists() for p in ("/dev/spidev0.0", "/sys/class/spidev/spidev0.0")
    ):
        pending.append("SPI on")
    for line in scale_lines:
        nodes = _overlay_nodes(line)
        if nodes and not any(system.path(p).exists() for p in nodes):
            pending.append(f"{line} (no {nodes[0]} for the HX711)")
    if pending:
        return Result(
            "reboot",
            FAIL,
            f"config.txt has {', '.join(pending)} for this {board.name}, the running kernel not yet",
            "sudo reboot",
        )
    return Result("reboot", OK, f"the boot config is in force on this {board.name}")
