"""A panel's set-up, kept from when its driver was made and sent again to bring it back.

A brown-out or a static discharge can reset an OLED controller without any I2C error: its
settings return to the chip's defaults — display off, charge pump off — and its memory is lost,
so the panel stays dark while every write still succeeds. The display service therefore sends the
set-up again every few minutes and on waking from dim (:func:`reinit`), then a whole picture.

The set-up is whatever luma's driver wrote while it was made, recorded on the way
(:class:`SetupRecorder`, a serial interface in front of the real one): the writes before its
first picture (luma clears the panel), less the address commands that picture began with and
less the ``DISPLAYOFF`` the sequence starts with (sent again to a lit panel it would blink).
Most drivers send a command and its arguments as one command write; the SSD1322's sends the
arguments as a data write after it, so the writes are kept as they came. What remains are
settings sent to a panel that already holds them — nothing on it changes — a few dozen bytes:
a re-init is those, the contrast and ``DISPLAYON``.
"""

from __future__ import annotations

from typing import Any

DISPLAYOFF = 0xAE
"""The SSD13xx/SH110x command that turns the panel off (its charge pump too)."""
ADDRESSING = {0x21, 0x22, 0x15, 0x75, 0x5C, *range(0xB0, 0xC0), *range(0x00, 0x20)}
"""First bytes of the commands that only point at panel memory before a write: the SSD1306
family's column and page windows, the greyscale panels' column, row and write-RAM commands,
the SH110x page and column addresses."""
PICTURE = 32
"""A data write longer than this is pixels, not a command's arguments (the smallest picture
write of these panels is a 128-column page)."""

Write = tuple[bool, tuple[int, ...]]
"""(``True`` for a command write, ``False`` for a data write; its bytes)."""


class SetupRecorder:
    """A luma serial interface in front of ``serial`` that passes every write on and keeps those
    made until :meth:`stop` (while the driver is made)."""

    def __init__(self, serial: Any) -> None:
        self.serial = serial
        self.writes: list[Write] = []
        self._recording = True

    def command(self, *cmd: int) -> None:
        """A command write."""
        if self._recording:
            self.writes.append((True, tuple(cmd)))
        self.serial.command(*cmd)

    def data(self, data: Any) -> None:
        """A data write."""
        if self._recording:
            self.writes.append((False, tuple(data)))
        self.serial.data(data)

    def cleanup(self) -> None:
        """Release the bus."""
        self.serial.cleanup()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.serial, name)

    def stop(self) -> None:
        """The driver is made: record no more (pictures are not set-up)."""
        self._recording = False

    def setup(self) -> list[Write]:
        """The set-up to send again (see the module's docstring)."""
        units: list[list[Write]] = []  # a command write and the data writes of its arguments
        for write in self.writes:
            command, payload = write
            if not command and len(payload) > PICTURE:
                break  # the first picture
            if command or not units:
                units.append([write])
            else:
                units[-1].append(write)
        while units and units[-1][0][0] and units[-1][0][1][0] in ADDRESSING:
            units.pop()  # the first picture's address commands
        out: list[Write] = []
        for unit in units:
            command, payload = unit[0]
            if command and payload[0] == DISPLAYOFF:
                unit = [(True, payload[1:]), *unit[1:]] if len(payload) > 1 else unit[1:]
            out.extend(unit)
        return out

    def send(self, writes: list[Write]) -> None:
        """Put ``writes`` on the bus, in order."""
        for command, payload in writes:
            if command:
                self.serial.command(*payload)
            else:
                self.serial.data(list(payload))


def made_with_setup(make: Any, serial: Any) -> Any:
    """``make(serial)`` (a luma device) with its set-up kept for :func:`reinit`."""
    recorder = SetupRecorder(serial)
    device = make(recorder)
    recorder.stop()
    device.setup_recorder = recorder
    device.setup_writes = recorder.setup()
    return device


def reinit(device: Any) -> None:
    """Send ``device``'s set-up again and turn it on; its next picture goes whole. The caller
    sends the contrast in force next (the set-up holds luma's default)."""
    recorder = getattr(device, "setup_recorder", None)
    if recorder is not None:
        recorder.send(device.setup_writes)
    device.show()
    if hasattr(device, "forget"):
        device.forget()  # our drivers: the panel's memory is unknown
    framebuffer = getattr(device, "framebuffer", None)
    if framebuffer is not None and hasattr(framebuffer, "prev_image"):
        framebuffer.prev_image = None  # luma's greyscale drivers: the next frame whole
