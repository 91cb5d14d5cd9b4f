"""Blinka's chip detection, done once a process.

``adafruit_platformdetect.chip.Chip.id`` keeps the chip it found only when it found one: on a board
it does not know (QEMU's ``virt``, any generic arm64 board with its own GPIO chip) it returns
``None`` and runs the whole detection again at the next question. Blinka's ``microcontroller`` and
``digitalio`` ask about 220 times while they import (``detector.chip.BCM2XXX``, ``chip.id ==``…),
and each detection reads ``/proc/device-tree/compatible`` and ``/proc/cpuinfo`` some 55 times:
12,800 file reads, 28 s of the service's start on the emulated arm64 board, before the scale's
first line. On a Raspberry Pi the chip is found and kept at once, so this changes nothing there.

:func:`remember` makes ``Chip.id`` keep its first answer, ``None`` included, for the life of the
instance. ``BLINKA_FORCECHIP`` still decides that first answer, as it did.
"""

from __future__ import annotations

from typing import Any

_MARK = "_tablemate_remembers"


def remember() -> None:
    """Make ``adafruit_platformdetect``'s chip detection answer once per detector (idempotent)."""
    from adafruit_platformdetect import chip as chip_module

    cls = chip_module.Chip
    detect = cls.__dict__["id"]
    if getattr(detect.fget, _MARK, False):
        return

    def chip_id(self: Any) -> Any:
        """The chip's id, detected at the first question and kept (``None`` too)."""
        found = self.__dict__.get("_tablemate_chip", _MARK)
        if found is _MARK:
            found = self.__dict__["_tablemate_chip"] = detect.fget(self)
        return found

    setattr(chip_id, _MARK, True)
    chip_id.__wrapped__ = detect  # type: ignore[attr-defined]  (Blinka's own, for a test to compare)
    cls.id = property(chip_id, doc=detect.__doc__)
