"""The doctor's probes of this machine: the system's user and group databases, the I2C bus, the
GPIO lines and pin factories, the SPI panel's interface, the HX711 and the state folder's fsync.
Each is a default of :class:`~firmware_host.ops.doctor.system.System`, which the tests replace by their own."""

from __future__ import annotations

import atexit
import contextlib
import errno
import grp
import io
import os
import pwd
import shutil
import statistics
import sys
import tempfile
import time
import warnings
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from firmware_host.core.config import Config
from firmware_host.ops.doctor.base import Line, reason


def user_groups(user: str) -> set[str] | None:
    """The groups of ``user`` from the system's databases, or ``None`` when there is no such user."""
    try:
        entry = pwd.getpwnam(user)
    except KeyError:
        return None
    names = {g.gr_name for g in grp.getgrall() if user in g.gr_mem}
    with contextlib.suppress(KeyError):
        names.add(grp.getgrgid(entry.pw_gid).gr_name)
    return names


def group_name(gid: int) -> str:
    """The name of group ``gid`` (its number when it has none)."""
    try:
        return grp.getgrgid(gid).gr_name
    except KeyError:
        return str(gid)


def i2c_answers(port: int, address: int) -> bool:
    """An SMBus quick write to ``address`` (what ``i2cdetect`` does): True when a device ACKs."""
    from smbus2 import SMBus

    with SMBus(port) as bus:
        try:
            bus.write_quick(address)
        except OSError:
            return False
    return True


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
                problems[line.pin] = line_problem(factory, line.pin, exc)
    finally:
        for device in opened:
            with contextlib.suppress(Exception):
                device.close()
    return problems


def line_problem(factory: Any, pin: int, exc: BaseException) -> str:
    """Why a line did not open, with who holds it when the kernel says busy."""
    why = reason(exc)
    busy = getattr(exc, "errno", None) == errno.EBUSY or "busy" in why.lower()
    holder = None
    with contextlib.suppress(Exception):
        holder = factory.chip.get_line_info(pin).consumer
    if busy:
        return f"busy, held by {holder}" if holder else "busy"
    return why


def request_lines(lines: list[Line], debounce: float, revision: str = "auto") -> dict[int, str]:
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


def open_spi(config: Config) -> None:
    """Open the panel's SPI bus as the service does (luma's ``spi`` interface: ``spidev`` on
    ``/dev/spidev0.N`` and its DC and RES lines through ``RPi.GPIO``), then close it again. No
    command is sent: the panel is not disturbed."""
    from drivers.panels import _serial  # the very interface the service opens
    from firmware_host.core.config import display_wiring

    serial = _serial("spi", display_wiring(config))
    with contextlib.suppress(Exception):
        serial.cleanup()


def hx711_words(s: dict[str, Any], seconds: float) -> Any:
    """Clock HX711 words through the configured path (:func:`firmware_host.ops.scale_check.probe_words`)."""
    from firmware_host.ops.scale_check import probe_words

    return probe_words(s, seconds)


def gpiozero_factory() -> str:
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


def blinka_pins() -> str:
    """The board Blinka detected and the module that drives its pins."""
    from drivers import blinka_chip

    with contextlib.redirect_stdout(io.StringIO()):
        blinka_chip.remember()
        import board
    board_id = getattr(board, "board_id", None)
    pin = getattr(board, "D4", None)
    if pin is None:
        raise RuntimeError(f"no Raspberry Pi pins (board {board_id or 'not detected'})")
    return f"{board_id} via {type(pin).__module__}"


def fsync_ms(folder: Path, count: int = 5) -> float:
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
