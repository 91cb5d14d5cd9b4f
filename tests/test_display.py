"""The display: a real ssd1306 driver on a capturing bus; I2C errors degrade, never crash."""

from __future__ import annotations

import asyncio
import errno
import itertools

from PIL import Image

from drivers.display import open_display
from firmware_host.runtime.display_service import DEGRADED, OK, DisplayService
from firmware_host.ui.render import Frame, Row, render


class CapturingBus:
    """A luma serial interface (command/data/cleanup) that records what the driver sends and
    can fail as an I2C bus does (errno 121, EREMOTEIO)."""

    def __init__(self) -> None:
        self.commands: list[tuple[int, ...]] = []
        self.frames = 0
        self.fail = False

    def command(self, *cmd: int) -> None:
        if self.fail:
            raise OSError(errno.EREMOTEIO, "Remote I/O error")
        self.commands.append(cmd)

    def data(self, data: list[int]) -> None:
        if self.fail:
            raise OSError(errno.EREMOTEIO, "Remote I/O error")
        self.frames += 1

    def cleanup(self) -> None:
        pass


def opened_on(bus: CapturingBus):
    """An opener of a real ssd1306 on ``bus`` that counts frames from after its own clear()."""

    def opener():
        device = open_display("ssd1306", serial_interface=bus)
        bus.frames = 0
        bus.commands.clear()
        return device

    return opener


def picture(text: str) -> Image.Image:
    return render(Frame("tablemate", (Row.of(text),)))


def test_only_changed_pictures_are_sent_and_contrast_only_when_it_changes(virtual):
    bus = CapturingBus()

    async def main():
        service = DisplayService(opened_on(bus))
        task = asyncio.create_task(service.run())
        service.set_contrast(200)
        service.show(picture("one"))
        await service.flush()
        service.show(picture("one"))
        await service.flush()
        sent_once = bus.frames
        service.set_contrast(200)
        service.show(picture("two"))
        await service.flush()
        task.cancel()
        return sent_once, service

    sent_once, service = virtual(main)
    assert sent_once == 1 and bus.frames == 2
    assert sum(1 for c in bus.commands if c[:1] == (0x81,)) == 1  # SSD1306 set-contrast, once
    assert service.status == OK


def test_i2c_error_degrades_then_reopens_with_backoff_and_shows_the_newest_picture(virtual):
    bus = CapturingBus()
    opened = []

    def opener():
        opened.append(asyncio.get_running_loop().time())
        return open_display("ssd1306", serial_interface=bus)

    async def main():
        loop = asyncio.get_running_loop()
        service = DisplayService(opener, backoff=(1.0, 8.0))
        task = asyncio.create_task(service.run())
        service.show(picture("one"))
        await service.flush()
        bus.fail = True
        service.show(picture("two"))
        await asyncio.sleep(0.5)
        assert service.status == DEGRADED and "Remote I/O" in service.error
        await asyncio.sleep(5)  # still failing: reopen attempts back off 1 s, 2 s, 4 s…
        bus.fail = False
        service.show(picture("three"))
        await asyncio.sleep(10)
        task.cancel()
        return service, loop

    service, _ = virtual(main)
    assert service.status == OK
    assert service.shown.tobytes() == picture("three").tobytes()
    gaps = [round(b - a, 2) for a, b in itertools.pairwise(opened[1:])]
    assert gaps[:2] == sorted(gaps[:2]) and gaps[0] >= 1.0


def test_no_display_configured_never_blocks(virtual):
    async def main():
        service = DisplayService(None)
        task = asyncio.create_task(service.run())
        service.show(picture("x"))
        await service.flush()
        await task
        return service.status

    assert virtual(main) == "absent"
