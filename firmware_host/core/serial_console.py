"""The Pi's serial console on GPIO 14 (TXD) and 15 (RXD), which no button may share.

With the header's UART on (``enable_uart=1``; ``dtparam=uart0=on`` on a Pi 5) the firmware muxes
GPIO 14 and 15 to the UART at boot: TXD is *driven* high while idle, so a button on GPIO 14 shorts
an output to ground at every press until the service claims the line, and the kernel's and the
firmware's boot messages go out on it. With a serial console (``console=serial0`` and friends on
the kernel command line) a getty also listens on RXD: a button on GPIO 15 held down is a break,
and a break followed by a character is a magic SysRq on a serial console.

Raspberry Pi OS's ``cmdline.txt`` carries ``console=serial0,115200`` even when the UART is off;
the firmware drops it then, so the kernel's own command line (``/proc/cmdline``) says whether a
console is really there -- the firmware has by then also put the real device in place of
``serial0`` (``ttyS0`` on a 3B+, 4 or Zero 2 W, ``ttyAMA0`` where the PL011 is on the header).

The fix has to survive a reboot, so it edits the boot files, not the running system (stopping
``serial-getty@ttyS0`` lasts until the next boot, whose generator starts it again from the
command line). It is ``raspi-config nonint do_serial_cons 1`` (the console off) and
``do_serial_hw 1`` (the UART off): Raspberry Pi OS's own tool, which knows where the boot
partition is (``/boot/firmware`` on Bookworm, ``/boot`` before) and keeps ``cmdline.txt`` one
line -- a stray line break there leaves the Pi unbootable. ``do_serial_cons 1`` removes only
``console=serial0,<baud>`` and ``console=ttyAMA0,<baud>`` followed by another argument; any other
form (``console=ttyS0,115200``, no baud rate, the last argument) is named for removal by hand.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from firmware_host.core.boot_config import Board, is_on, params, setting

UART_PINS = {14: "TXD", 15: "RXD"}
"""The header's UART pins (BCM) and what the UART does on them."""
CMDLINES = ("boot/firmware/cmdline.txt", "boot/cmdline.txt")
"""The kernel command line the firmware passes on: Bookworm's place first, then the older one."""
HEADER_CONSOLES = ("serial0", "ttyS0", "ttyAMA0")
"""Console devices on GPIO 14/15 (on a Pi 5 ``serial0`` is the debug connector's UART)."""
_RASPI_CONFIG_REMOVES = re.compile(r"^console=(serial0|ttyAMA0),[0-9]+$")


def header_consoles(cmdline: str, board: Board | None = None) -> list[str]:
    """The ``console=`` arguments of a kernel command line that put a console on GPIO 14/15.

    On a Pi 5 ``serial0`` is the 3-pin debug connector (``ttyAMA10``) unless ``dtparam=uart0_console``
    moved it, so there only ``ttyAMA0`` counts; the firmware passes the real device anyway.
    """
    pi5 = board is not None and "pi5" in board.filters
    devices = ("ttyAMA0",) if pi5 else HEADER_CONSOLES
    return [arg for arg in cmdline.split() if arg.startswith("console=") and arg[8:].split(",")[0] in devices]


def uart_line(config_txt: str, board: Board) -> str | None:
    """The ``config.txt`` setting that puts the UART on GPIO 14/15 on ``board`` as the firmware
    reads it (``enable_uart=1``; ``dtparam=uart0=on`` or ``uart0_console`` on a Pi 5), or ``None``.
    A setting that only a monitor, a GPIO level or a serial number filter decides counts."""
    for undecided in (False, True):
        if "pi5" in board.filters:
            values = params(config_txt, board, undecided)
            for name in ("uart0", "uart0_console"):
                if is_on(values.get(name)):
                    return f"dtparam={name}={values[name]}"
        else:
            value = setting(config_txt, board, "enable_uart", undecided)
            if value is not None and value.strip() == "1":
                return "enable_uart=1"
    return None


@dataclass(frozen=True)
class Fix:
    """What turns the console and the UART off for good: commands, and arguments to remove by hand."""

    commands: tuple[str, ...]
    by_hand: tuple[str, ...]
    cmdline_txt: str

    def text(self) -> str:
        """The fix on one line, ending in the reboot it needs."""
        steps = list(self.commands)
        if self.by_hand:
            steps.append(f"remove {' and '.join(self.by_hand)} from /{self.cmdline_txt} (it stays one line)")
        return "; ".join(steps) + ", then sudo reboot"


def console_fix(cmdline_txt: str | None, where: str, console: bool, uart: bool) -> Fix:
    """The fix for a serial console (``console``) and the UART on the header (``uart``), given
    the boot partition's ``cmdline.txt`` (``None`` when it cannot be read) found at ``where``."""
    commands, by_hand = [], []
    if console:
        args = header_consoles(cmdline_txt or "")
        if cmdline_txt is None or not args:
            commands.append("sudo raspi-config nonint do_serial_cons 1")
        words = (cmdline_txt or "").split()
        for arg in args:
            last = words.index(arg) == len(words) - 1
            if _RASPI_CONFIG_REMOVES.match(arg) and not last:
                if "sudo raspi-config nonint do_serial_cons 1" not in commands:
                    commands.append("sudo raspi-config nonint do_serial_cons 1")
            else:
                by_hand.append(arg)
    if uart:
        commands.append("sudo raspi-config nonint do_serial_hw 1")
    return Fix(tuple(commands), tuple(by_hand), where)
