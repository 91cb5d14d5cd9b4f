"""Checks of each part as the service sees it: one line per part, with the fix when it fails.

``tablemate doctor`` prints them; :func:`selftest_lines` gives the same checks in the short form
the device's Self-test screen can show. Each check is a plain function of the configuration and
a :class:`System` -- the filesystem root (``/dev``, ``/sys``, ``/etc``, ``/boot``) and the few
probes that touch hardware -- so the tests run every check against a fake tree in a temporary
folder, and this machine (no Pi) gets every missing part named with its fix.

A check never raises: what it cannot find is a failure line, what it cannot look at from here
(a pin the running service holds) a ``skip`` line, which does not fail the doctor.
"""

from __future__ import annotations

import atexit
import contextlib
import errno
import grp
import io
import os
import pwd
import shutil
import stat
import statistics
import sys
import tempfile
import time
import warnings
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from firmware_host.core import serial_console
from firmware_host.core.boot_config import is_on, overlay_name, overlays, params, running_board
from firmware_host.core.config import BUTTONS, DEFAULT_PATH, Config, panel_bus
from firmware_host.core.pi_layout import (
    BOOT_CONFIGS,
    I2C_BAUDRATE,
    OLD_TOWER_PORT,
    REBOOT_MARKER,
    SERVICE_GROUPS,
    SERVICE_USER,
    SPI_DROP_IN,
    SPI_GROUP,
    TOWER_LINK,
    UDEV_RULES,
    UNIT,
)
from firmware_host.runtime.doctor_sandbox import sandbox_verdict
from games.core import T, join

MIN_FREE_MB = 50
SLOW_FSYNC_MS = 100.0
REINSTALL = "sudo systemd/install.sh"
NO_REVISION = "Pi revision"
"""In gpiozero's words when a board has no Pi revision: "unable to locate Pi revision in ..."."""
UDEV_FIX = f"{REINSTALL} (its udev rule /{UDEV_RULES} sets the group at every boot)"

OK, FAIL, SKIP = "ok", "FAIL", "skip"


@dataclass(frozen=True)
class Result:
    """One part: its name, ``ok``/``FAIL``/``skip``, what was found, and the fix when it failed."""

    part: str
    status: str
    found: str
    fix: str = ""

    @property
    def failed(self) -> bool:
        """True when this part stops the device working as configured."""
        return self.status == FAIL

    def line(self) -> str:
        """``part: status: found -- fix: ...``, on one line."""
        text = f"{self.part:<9} {self.status:<4}  {self.found}"
        return f"{text} -- fix: {self.fix}" if self.fix else text


def _user_groups(user: str) -> set[str] | None:
    """The groups of ``user`` from the system's databases, or ``None`` when there is no such user."""
    try:
        entry = pwd.getpwnam(user)
    except KeyError:
        return None
    names = {g.gr_name for g in grp.getgrall() if user in g.gr_mem}
    with contextlib.suppress(KeyError):
        names.add(grp.getgrgid(entry.pw_gid).gr_name)
    return names


def _group_name(gid: int) -> str:
    try:
        return grp.getgrgid(gid).gr_name
    except KeyError:
        return str(gid)


def _i2c_answers(port: int, address: int) -> bool:
    """An SMBus quick write to ``address`` (what ``i2cdetect`` does): True when a device ACKs."""
    from smbus2 import SMBus

    with SMBus(port) as bus:
        try:
            bus.write_quick(address)
        except OSError:
            return False
    return True


@dataclass(frozen=True)
class Line:
    """A GPIO line the service requests: its BCM number, what it is for, and its direction."""

    pin: int
    role: str
    output: bool = False


def configured_lines(config: Config) -> list[Line]:
    """The lines the service requests through its pin factory: every button, and the GPIO
    tower's LEDs, buzzer and bar (the HX711's lines are the scale check's, an SPI panel's DC and
    RES are luma's, opened by the display check)."""
    lines = []
    if config["buttons"]["backend"] == "gpio":
        lines += [Line(config["buttons"][b], f"button {b}") for b in BUTTONS]
    t = config["tower"]
    if t["backend"] == "gpio":
        lines += [Line(t[part], f"tower {part}", True) for part in ("red", "yellow", "green", "buzzer")]
        lines += [Line(pin, f"tower bar {n}", True) for n, pin in enumerate(t["bar"], 1)]
    return lines


def request_with(factory: Any, lines: Iterable[Line], debounce: float) -> dict[int, str]:
    """Request each line on ``factory`` as the service does -- a button as an input with its
    pull-up (and the kernel's debounce where the factory has one), an output at its idle low --
    then release them all. The problem of each line that failed, by pin (empty: all opened)."""
    from gpiozero import DigitalInputDevice, DigitalOutputDevice

    bounce = debounce if getattr(factory, "kernel_debounce", False) else None
    opened, problems = [], {}
    try:
        for line in lines:
            try:
                if line.output:
                    opened.append(DigitalOutputDevice(line.pin, initial_value=False, pin_factory=factory))
                else:
                    opened.append(DigitalInputDevice(line.pin, pull_up=True, bounce_time=bounce, pin_factory=factory))
            except Exception as exc:
                problems[line.pin] = _line_problem(factory, line.pin, exc)
    finally:
        for device in opened:
            with contextlib.suppress(Exception):
                device.close()
    return problems


def _line_problem(factory: Any, pin: int, exc: BaseException) -> str:
    """Why a line did not open, with who holds it when the kernel says busy."""
    reason = _reason(exc)
    busy = getattr(exc, "errno", None) == errno.EBUSY or "busy" in reason.lower()
    holder = None
    with contextlib.suppress(Exception):
        holder = factory.chip.get_line_info(pin).consumer
    if busy:
        return f"busy, held by {holder}" if holder else "busy"
    return reason


def _request_lines(lines: list[Line], debounce: float, revision: str = "auto") -> dict[int, str]:
    """:func:`request_with` on the pin factory the device picks (:func:`drivers.gpio.pin_factory`,
    with ``[gpio] revision``)."""
    from drivers.gpio import pin_factory

    factory, name = pin_factory(revision=revision)
    if factory is None:
        raise RuntimeError(f"no pin factory for the Pi's pins ({name})")
    try:
        return request_with(factory, lines, debounce)
    finally:
        with contextlib.suppress(Exception):
            factory.close()


def _open_spi(config: Config) -> None:
    """Open the panel's SPI bus as the service does (luma's ``spi`` interface: ``spidev`` on
    ``/dev/spidev0.N`` and its DC and RES lines through ``RPi.GPIO``), then close it again. No
    command is sent: the panel is not disturbed."""
    from drivers.panels import _serial  # the very interface the service opens
    from firmware_host.runtime.hardware import display_wiring

    serial = _serial("spi", display_wiring(config))
    with contextlib.suppress(Exception):
        serial.cleanup()


def _probe_words(s: dict[str, Any], seconds: float) -> Any:
    """Clock HX711 words through the configured path (:func:`firmware_host.runtime.scale_check.probe_words`)."""
    from firmware_host.runtime.scale_check import probe_words

    return probe_words(s, seconds)


def _gpiozero_factory() -> str:
    """The pin factory the device picks (:func:`drivers.gpio.pin_factory`: libgpiod, then lgpio),
    else the one gpiozero picks by itself, tried as a script would.

    lgpio makes its notification pipes in the working directory when imported; the service runs
    in a folder it may write (its unit's ``WorkingDirectory``, checked by :func:`check_unit`), a
    person running the doctor may not (``sudo -u tablemate`` from a home folder), so lgpio is
    imported from a temporary folder here, as the service imports it from its own.
    """
    from gpiozero import Device

    if "lgpio" not in sys.modules and "LG_WD" not in os.environ:
        folder = tempfile.mkdtemp(prefix="tablemate-doctor-")
        atexit.register(shutil.rmtree, folder, ignore_errors=True)
        os.environ["LG_WD"], here = folder, os.getcwd()
        os.chdir(folder)
        try:
            with contextlib.suppress(Exception):
                import lgpio  # noqa: F401 - makes its pipe now, in ``folder``
        finally:
            os.chdir(here)
            del os.environ["LG_WD"]  # read by lgpio's C side at import; nobody else needs it
    from drivers.gpio import pin_factory

    chosen, name = pin_factory()  # the device's own choice: libgpiod first, then lgpio
    if chosen is not None:
        with contextlib.suppress(Exception):
            chosen.close()
        return name
    with warnings.catch_warnings(record=True) as fallbacks:
        warnings.simplefilter("always")
        factory = Device._default_pin_factory()
    try:
        name = type(factory).__name__
    finally:
        with contextlib.suppress(Exception):
            factory.close()
    tried = [str(w.message) for w in fallbacks]
    return name + (f" (after: {'; '.join(tried)})" if tried else "")


def _blinka_pins() -> str:
    """The board Blinka detected and the module that drives its pins."""
    with contextlib.redirect_stdout(io.StringIO()):
        import board
    board_id = getattr(board, "board_id", None)
    pin = getattr(board, "D4", None)
    if pin is None:
        raise RuntimeError(f"no Raspberry Pi pins (board {board_id or 'not detected'})")
    return f"{board_id} via {type(pin).__module__}"


def _fsync_ms(folder: Path, count: int = 5) -> float:
    """Median time to write and fsync a small file in ``folder``, in milliseconds."""
    times = []
    fd, name = tempfile.mkstemp(prefix=".doctor-", dir=folder)
    try:
        for _ in range(count):
            t0 = time.perf_counter()
            os.write(fd, b'{"probe": 1}\n')
            os.fsync(fd)
            times.append((time.perf_counter() - t0) * 1000)
    finally:
        os.close(fd)
        os.unlink(name)
    return statistics.median(times)


@dataclass
class System:
    """What the checks look at. Defaults are this machine; tests give a fake tree and probes."""

    root: Path = Path("/")
    state_dir: Path = Path("/var/lib/tablemate")
    user: str = SERVICE_USER
    user_groups: Callable[[str], set[str] | None] = _user_groups
    group_name: Callable[[int], str] = _group_name
    i2c_answers: Callable[[int, int], bool] = _i2c_answers
    hx711_words: Callable[[dict[str, Any], float], Any] = field(default=lambda s, seconds: _probe_words(s, seconds))
    gpiozero_factory: Callable[[], str] = _gpiozero_factory
    blinka_pins: Callable[[], str] = _blinka_pins
    request_lines: Callable[[list[Line], float, str], dict[int, str]] = _request_lines
    open_spi: Callable[[Config], None] = _open_spi
    fsync_ms: Callable[[Path], float] = _fsync_ms
    disk_free: Callable[[Path], int] = field(default=lambda p: shutil.disk_usage(p).free)

    def path(self, absolute: str) -> Path:
        """``absolute`` (``/dev/i2c-1``) under :attr:`root`."""
        return self.root / absolute.lstrip("/")


def _reason(exc: BaseException) -> str:
    """The first line of what ``exc`` says that has words in it (Blinka's start with a blank
    line), else its class name: never an empty reason."""
    text = getattr(exc, "strerror", None) or str(exc) or ""
    return next((line.strip() for line in text.splitlines() if line.strip()), type(exc).__name__)


def _device_access(system: System, path: Path, group: str, groups: set[str]) -> str | None:
    """Why the service cannot read and write the device node ``path``, or ``None`` when it can."""
    st = path.stat()
    owner_group = system.group_name(st.st_gid)
    if st.st_mode & stat.S_IROTH and st.st_mode & stat.S_IWOTH:
        return None
    if owner_group in groups and st.st_mode & stat.S_IRGRP and st.st_mode & stat.S_IWGRP:
        return None
    return f"{path.name} belongs to group {owner_group} (mode {stat.S_IMODE(st.st_mode):o}); the service has {group}"


# -- the checks ------------------------------------------------------------------------------------
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
    rest with an error, not a kill (:mod:`firmware_host.runtime.doctor_sandbox`)."""
    return Result(*sandbox_verdict(system.root, REINSTALL))


def check_gpiochips(config: Config, system: System) -> Result:
    """``/dev/gpiochip*`` exist and the service's groups may use them."""
    chips = sorted(p for p in system.path("/dev").glob("gpiochip*") if p.name[8:].isdigit())
    if not chips:
        return Result("gpio", FAIL, "no /dev/gpiochip*: not a Raspberry Pi, or no GPIO driver", "run on the Pi")
    groups = set(SERVICE_GROUPS)
    for chip in chips:
        problem = _device_access(system, chip, "gpio", groups)
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
            failed.append(f"{name}: {_reason(exc)}")
            fixes.append(f"{REINSTALL} (pi extra: gpiod, Adafruit-Blinka, lgpio)")
        except Exception as exc:
            failed.append(f"{name}: {_reason(exc)}")
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


def _i2c_hz(system: System, port: int) -> int | None:
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
    problem = _device_access(system, dev, "i2c", set(SERVICE_GROUPS))
    if problem:
        return Result("display", FAIL, problem, f"{UDEV_FIX}; user in i2c: sudo usermod -aG i2c tablemate")
    try:
        answers = system.i2c_answers(port, address)
    except Exception as exc:
        return Result("display", FAIL, f"/dev/i2c-{port}: {_reason(exc)}", "sudo -u tablemate tablemate doctor")
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
    problem = _device_access(system, dev, SPI_GROUP, service_groups)
    if problem:
        return Result("display", FAIL, problem, f"{REINSTALL} (gives the service the spi group)")
    try:
        system.open_spi(config)
    except Exception as exc:
        busy = "busy" in _reason(exc).lower()
        if busy:
            return Result("display", SKIP, f"DC/RES lines held by the running service ({_reason(exc)})")
        return Result(
            "display",
            FAIL,
            f"{d['kind']} on /dev/{dev.name} does not open: {type(exc).__name__}: {_reason(exc)}",
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
    hz = _i2c_hz(system, port)
    fix = f"{REINSTALL} (sets dtparam=i2c_arm_baudrate=400000), then reboot"
    if hz is None:
        return Result("i2c speed", FAIL, f"bus speed of i2c-{port} unknown (no device tree node)", fix)
    if hz < I2C_BAUDRATE:
        return Result("i2c speed", FAIL, f"i2c-{port} at {hz // 1000} kHz", fix)
    return Result("i2c speed", OK, f"i2c-{port} at {hz // 1000} kHz")


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
    problem = _device_access(system, port, "dialout", set(SERVICE_GROUPS))
    if problem:
        return Result("tower", FAIL, problem, f"sudo usermod -aG {system.group_name(port.stat().st_gid)} tablemate")
    if name.startswith("/dev/ttyUSB") and system.path(TOWER_LINK).exists():
        note = f' (set [tower] port = "{TOWER_LINK}": a replug keeps that name)'
    return Result("tower", OK, f"{name} ({port.resolve().name}){note}")


def check_lines(config: Config, system: System) -> Result:
    """Every button and GPIO tower line opens as the service requests it, and is released."""
    lines = configured_lines(config)
    if not lines:
        return Result("pins", SKIP, "no button or tower on GPIO")
    try:
        problems = system.request_lines(lines, config["buttons"]["debounce"], config["gpio"]["revision"])
    except Exception as exc:
        return Result("pins", FAIL, f"cannot request lines: {_reason(exc)}", f"{REINSTALL} (pi extra: gpiod)")
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


def _uart_pin_lines(config: Config) -> list[Line]:
    """The configured lines on GPIO 14 or 15: buttons, GPIO tower lines, an SPI panel's DC and RES."""
    lines = configured_lines(config)
    if panel_bus(config) == "spi":
        d = config["display"]
        lines += [Line(d["dc"], "panel DC", True), Line(d["reset"], "panel RES", True)]
    return [line for line in lines if line.pin in serial_console.UART_PINS]


def _first(system: System, candidates: Iterable[str]) -> Path | None:
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
    boot = _first(system, BOOT_CONFIGS)
    uart = serial_console.uart_line(boot.read_text(encoding="utf-8", errors="replace"), board) if boot else None
    if not consoles and not uart:
        return Result("uart", OK, f"no serial console or UART on the header ({on})")
    cmdline_txt = _first(system, serial_console.CMDLINES)
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
    boot = _first(system, BOOT_CONFIGS)
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
    baud, hz = wanted.get("i2c_arm_baudrate", ""), _i2c_hz(system, 1)
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


def check_hx711(config: Config, system: System) -> Result:
    """HX711 words clocked through the configured path: dropped and corrupt reads per minute
    (:mod:`firmware_host.runtime.scale_check`; a low DOUT alone is no answer)."""
    from drivers.scale.hx711_open import describe
    from firmware_host.runtime.scale_check import check_seconds, judge

    s = config["scale"]
    if s["backend"] != "hx711":
        return Result("scale", SKIP, f"scale backend {s['backend']}")
    path = describe(s)
    try:
        report = system.hx711_words(s, check_seconds(s["sps"]))
    except Exception as exc:
        fix = {
            "spi": f"{REINSTALL} (dtoverlay=spi1-1cs in config.txt, the spi group, pi extra: spidev), then sudo reboot",
            "iio": "the overlay in docs/hx711-timing.md (the iio path)",
        }.get(s["interface"], f"{REINSTALL} (pi extra: gpiod) and run on the Pi")
        return Result("scale", FAIL, f"{path}: {_reason(exc)}", fix)
    status, found, fix = judge(s, report, path)
    return Result("scale", status, found, fix)


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
            f"{folder}: {_reason(exc)}",
            "run as the service: sudo -u tablemate /opt/tablemate/venv/bin/tablemate doctor",
        )
    found = f"{folder}: {free_mb:,.0f} MB free, fsync {ms:.1f} ms"
    if free_mb < MIN_FREE_MB:
        return Result("state", FAIL, found, "free space on the SD card (`sudo apt clean`, old logs)")
    if ms > SLOW_FSYNC_MS:
        return Result("state", FAIL, found, "a faster SD card (A1/A2 class); every action waits for one fsync")
    return Result("state", OK, found)


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
            results.append(Result(name, FAIL, f"check failed: {_reason(exc)}", "report this"))
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
