r"""The USB-serial tri-colour tower light with buzzer.

Wire protocol (9600 baud, 8N1, no replies): one byte per command.

====== ============================ ====== ==============================
nibble meaning                      value  element
====== ============================ ====== ==============================
high   ``0x10`` on                  low    ``0x01`` red
high   ``0x20`` off                 low    ``0x02`` yellow
high   ``0x40`` blink               low    ``0x04`` green
\                                   low    ``0x08`` buzzer
====== ============================ ====== ==============================

So ``0x11`` is red on, ``0x24`` green off, ``0x48`` the buzzer beeping. We send one byte per
element that changed (never combined bit masks, which not every firmware accepts), and the whole
state after every (re)connection, since the tower may have been power-cycled with its USB plug.

A writer thread owns the port: :meth:`UsbTower.show` only hands it the newest state. When the
port fails (unplugged), the thread reports ``lost``, and reopens it with exponential backoff
(:class:`drivers.backoff.Backoff`, as the display, buttons and scale reopen).
An unplug between ``write`` and the drain in ``flush`` raises ``termios.error`` from
``tcdrain``, which is neither ``OSError`` nor ``SerialException`` (pyserial does not wrap it):
it is a port failure like the others, and nothing else may end the thread either.
"""

from __future__ import annotations

import contextlib
import os
import termios
import threading
from collections.abc import Callable
from typing import Any

import serial

from drivers.backoff import Backoff
from drivers.tower import DARK, ELEMENTS, OLD_PORT, STABLE_PORT, StatusHandler, TowerState

BAUD = 9600

MODE_BITS = {"on": 0x10, "off": 0x20, "blink": 0x40}
ELEMENT_BITS = {"red": 0x01, "yellow": 0x02, "green": 0x04, "buzzer": 0x08}


PORT_ERRORS: tuple[type[BaseException], ...] = (serial.SerialException, OSError, termios.error)
"""What a failing port raises: pyserial's errors, the OS's, and ``tcdrain``'s ``termios.error``."""


def command(element: str, mode: str) -> int:
    """The byte that sets one element to one mode."""
    return MODE_BITS[mode] | ELEMENT_BITS[element]


def commands(old: TowerState | None, new: TowerState) -> bytes:
    """The bytes that take the tower from ``old`` (``None``: unknown) to ``new``."""
    return bytes(command(e, getattr(new, e)) for e in ELEMENTS if old is None or getattr(old, e) != getattr(new, e))


Opener = Callable[[str], Any]


def open_port(port: str) -> serial.Serial:
    """Open the tower's port (a device path or any pyserial URL such as ``loop://``).

    The default port, ``/dev/tablemate-tower``, is the name the installer's udev rule gives a
    CH340 or CP210x tower; where it is missing (no rule: a laptop, another chip) the tower is
    looked for where it used to be, ``/dev/ttyUSB0``."""
    if port == STABLE_PORT and not os.path.exists(port):
        port = OLD_PORT
    return serial.serial_for_url(port, baudrate=BAUD, timeout=0.5, write_timeout=1.0)


class UsbTower:
    """The tower on a serial port, written from its own thread, reconnecting on failure."""

    def __init__(
        self,
        port: str,
        on_status: StatusHandler | None = None,
        opener: Opener = open_port,
        backoff: tuple[float, float] = (0.5, 30.0),
    ) -> None:
        self.port = port
        self._on_status = on_status or (lambda status, detail: None)
        self._opener = opener
        self._backoff = Backoff(*backoff)
        self._wanted: TowerState = DARK
        self._shown: TowerState | None = None  # what the tower shows, None when unknown
        self._serial: Any = None
        self._changed = threading.Condition()
        self._stop = False
        self.connected = False
        self._status: str | None = None
        self._thread = threading.Thread(target=self._run, name="tower-usb", daemon=True)
        self._thread.start()

    def show(self, state: TowerState) -> None:
        """Hand the writer thread the newest state."""
        with self._changed:
            self._wanted = state
            self._changed.notify()

    def close(self) -> None:
        """Send all-off, stop the thread and close the port."""
        self.show(DARK)
        with self._changed:
            self._stop = True
            self._changed.notify()
        self._thread.join(timeout=3)

    # -- the writer thread ------------------------------------------------------------------------
    def _run(self) -> None:
        while True:
            with self._changed:
                while not self._stop and self.connected and self._wanted == self._shown:
                    self._changed.wait()
                stopping, wanted = self._stop, self._wanted
            if not self.connected:
                if stopping:
                    break
                if not self._connect():
                    self._pause()
                    continue
            try:
                data = commands(self._shown, wanted)
                if data:
                    self._serial.write(data)
                    self._serial.flush()
                self._shown = wanted
                self._backoff.reset()
            except PORT_ERRORS as exc:
                self._drop(str(exc) or type(exc).__name__)
                self._pause()  # a port that opens but fails at once is not hammered
                continue
            except Exception as exc:  # the writer thread must outlive any port bug
                self._drop(f"{type(exc).__name__}: {exc}")
                self._pause()
                continue
            if stopping:
                break
        self._close_port()

    def _pause(self) -> None:
        """Wait the backoff's next delay (a stop ends it early)."""
        delay = self._backoff.next()
        with self._changed:
            if not self._stop:
                self._changed.wait(delay)

    def _connect(self) -> bool:
        try:
            self._serial = self._opener(self.port)
        except (*PORT_ERRORS, ValueError) as exc:
            self._serial = None
            self._report("lost", str(exc))
            return False
        self.connected = True
        self._shown = None  # unknown after a reconnection: send everything
        self._report("ok", self.port)
        return True

    def _drop(self, detail: str) -> None:
        self._close_port()
        self.connected = False
        self._report("lost", detail)

    def _close_port(self) -> None:
        if self._serial is not None:
            with contextlib.suppress(Exception):  # closing a dead port may raise anything
                self._serial.close()
            self._serial = None

    def _report(self, status: str, detail: str | None) -> None:
        if status == self._status:
            return
        self._status = status
        with contextlib.suppress(Exception):  # a status hook must never kill the writer
            self._on_status(status, detail)
