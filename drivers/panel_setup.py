"""A panel's set-up, kept from when its driver was made and sent again to bring it back.

A brown-out or a static discharge can reset an OLED controller without any I2C error: its
settings return to the chip's defaults — display off, charge pump off — and its memory is lost,
so the panel stays dark while every write still succeeds. The display service therefore sends the
set-up again every few minutes and on waking from dim (:func:`reinit`), then a whole picture.

The set-up is whatever luma's driver sent when it was made, recorded on the way
(:class:`SetupRecorder`, a serial interface in front of the real one): the commands up to its
first picture, less the address commands that picture began with and less the ``DISPLAYOFF``
the sequence starts with (sent again to a lit panel it would blink). What remains are settings
sent to a panel already holding them — nothing on it changes — and they are a few dozen bytes:
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


class SetupRecorder:
    """A luma serial interface in front of ``serial`` that keeps the commands a driver sends
    before its first data write; everything is passed on as it comes."""

    def __init__(self, serial: Any) -> None:
        self.serial = serial
        self.sent: list[tuple[int, ...]] = []
        self._recording = True

    def command(self, *cmd: int) -> None:
        """A command write (recorded until the first data write)."""
        if self._recording:
            self.sent.append(tuple(cmd))
        self.serial.command(*cmd)

    def data(self, data: Any) -> None:
        """A data write: the set-up is over."""
        self._recording = False
        self.serial.data(data)

    def cleanup(self) -> None:
        """Release the bus."""
        self.serial.cleanup()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.serial, name)

    def setup(self) -> list[tuple[int, ...]]:
        """The set-up to send again: without the first picture's address commands at the end and
        without a ``DISPLAYOFF``."""
        calls = list(self.sent)
        while calls and calls[-1][0] in ADDRESSING:
            calls.pop()
        out = []
        for call in calls:
            if call[0] == DISPLAYOFF:
                call = call[1:]
            if call:
                out.append(call)
        return out


def made_with_setup(make: Any, serial: Any) -> Any:
    """``make(serial)`` (a luma device) with its set-up kept as ``device.setup_commands``."""
    recorder = SetupRecorder(serial)
    device = make(recorder)
    device.setup_commands = recorder.setup()
    return device


def setup_bytes(device: Any) -> int:
    """Command bytes of one :func:`reinit` (the contrast that follows it included)."""
    return sum(len(c) for c in getattr(device, "setup_commands", ())) + 2 + 1


def reinit(device: Any) -> None:
    """Send ``device``'s set-up again and turn it on; its next picture goes whole. The caller
    sends the contrast in force next (the set-up holds luma's default)."""
    for call in getattr(device, "setup_commands", ()):
        device.command(*call)
    device.show()
    if hasattr(device, "forget"):
        device.forget()  # our drivers: the panel's memory is unknown
    framebuffer = getattr(device, "framebuffer", None)
    if framebuffer is not None and hasattr(framebuffer, "prev_image"):
        framebuffer.prev_image = None  # luma's greyscale drivers: the next frame whole
