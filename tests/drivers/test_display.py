"""The display: a real ssd1306 driver on a capturing bus; I2C errors degrade, never crash."""

from __future__ import annotations

import asyncio
import contextlib
import errno
import itertools
import threading

from PIL import Image

from drivers.display import open_display
from firmware_host.runtime.display_service import DEGRADED, OK, DisplayService
from firmware_host.ui.render import Frame, Row, render
from tests.waits import scaled


class CapturingBus:
    """A luma serial interface (command/data/cleanup) that records what the driver sends and
    can fail as an I2C bus does (errno 121, EREMOTEIO)."""

    def __init__(self) -> None:
        self.commands: list[tuple[int, ...]] = []
        self.sent: list[tuple[int, ...] | bytes] = []
        """Commands and data in the order sent."""
        self.frames = 0
        """Pixel data transfers."""
        self.fail = False

    def command(self, *cmd: int) -> None:
        if self.fail:
            raise OSError(errno.EREMOTEIO, "Remote I/O error")
        self.commands.append(cmd)
        self.sent.append(cmd)

    def data(self, data: list[int]) -> None:
        if self.fail:
            raise OSError(errno.EREMOTEIO, "Remote I/O error")
        self.frames += 1
        self.sent.append(bytes(data))

    def cleanup(self) -> None:
        pass


def opened_on(bus: CapturingBus):
    """An opener of a real ssd1306 on ``bus`` that counts frames from after its own clear()."""

    def opener():
        device = open_display("ssd1306", serial_interface=bus)
        bus.frames = 0
        bus.commands.clear()
        bus.sent.clear()
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
        first = bus.frames
        service.show(picture("one"))
        await service.flush()
        sent_once = bus.frames == first > 0
        service.set_contrast(200)
        service.show(picture("two"))
        await service.flush()
        task.cancel()
        return (sent_once, bus.frames > first), service

    sent_once, service = virtual(main)
    assert sent_once == (True, True)  # the same picture again sends nothing; a new one does
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


def test_drawing_starts_no_luma_thread():
    """luma.core.virtual starts four pool threads at import; they wait for a first task now."""
    import subprocess
    import sys

    code = (
        "import threading, firmware_host.ui.render, drivers.display\n"
        "import luma.oled.device, luma.core.virtual as v\n"
        "n = threading.active_count()\n"
        "v.pool.add_task(print, 'used')\n"
        "v.pool.wait_completion()\n"
        "print(n, threading.active_count())\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["used", "1", "5"]  # no thread until luma's pool is used; then luma's four


COMMAND_ARGS = {0x81: 1, 0x21: 2, 0x22: 2}
"""Argument bytes of the commands the drivers send after set-up (contrast, column and page window)."""


class PanelMemory:
    """The display RAM of an SSD1306 (horizontal addressing in a window) or an SH1106 (page
    addressing), written by the commands and data a driver sent, as the datasheets describe."""

    def __init__(self, width: int = 128, pages: int = 8, column_offset: int = 0) -> None:
        self.ram = [bytearray(width) for _ in range(pages)]
        self.width, self.pages, self.offset = width, pages, column_offset
        self.window = (0, width - 1, 0, pages - 1)
        self.col, self.page = 0, 0

    def feed(self, sent: list) -> None:
        for item in sent:
            if isinstance(item, bytes):
                for byte in item:
                    self._write(byte)
                continue
            i = 0
            while i < len(item):
                c = item[i]
                if c == 0x21:
                    self.window = (item[i + 1], item[i + 2], self.window[2], self.window[3])
                    self.col = item[i + 1]
                elif c == 0x22:
                    self.window = (self.window[0], self.window[1], item[i + 1], item[i + 2])
                    self.page = item[i + 1]
                elif 0xB0 <= c <= 0xB7:
                    self.page, self.window = c - 0xB0, None
                elif c <= 0x0F:
                    self.col = (self.col & 0xF0) | c
                elif c <= 0x1F:
                    self.col = (self.col & 0x0F) | ((c & 0x0F) << 4)
                i += 1 + COMMAND_ARGS.get(c, 0)

    def _write(self, byte: int) -> None:
        if self.window is None:  # SH1106: page addressing, the column counts up
            self.ram[self.page][self.col - self.offset] = byte
            self.col += 1
            return
        c0, c1, p0, p1 = self.window
        self.ram[self.page][self.col] = byte
        self.col += 1
        if self.col > c1:
            self.col = c0
            self.page = p0 if self.page >= p1 else self.page + 1

    def picture(self) -> bytes:
        return b"".join(bytes(p) for p in self.ram)


def luma_pages(image: Image.Image) -> bytes:
    """The panel bytes luma's own ssd1306 driver sends for ``image`` (the reference packing)."""
    from luma.oled.device import ssd1306

    bus = CapturingBus()
    ssd1306(bus).display(image)
    return bus.sent[-1]


def test_only_the_changed_window_is_sent_and_the_panel_shows_the_picture():
    import pytest

    for kind, offset in (("ssd1306", 0), ("sh1106", 2)):
        bus = CapturingBus()
        device = open_display(kind, serial_interface=bus)
        panel = PanelMemory(column_offset=offset)  # blank, as luma's set-up leaves it (clear())
        sizes = []
        for text in ("New game", "History", "History", "Settings"):
            bus.sent.clear()
            image = render(Frame("Menu", (Row.of("New game"), Row.of(text, invert=True), Row.of("x"))))
            device.display(image)
            panel.feed(bus.sent)
            assert panel.picture() == luma_pages(image), kind
            sizes.append(sum(len(x) for x in bus.sent if isinstance(x, bytes)))
        assert 0 < sizes[0] < 1024 and sizes[2] == 0 and 0 < sizes[3] <= 300, (kind, sizes)
        bus.fail = True
        with pytest.raises(OSError):
            device.display(render(Frame("Menu", (Row.of("boom"),))))
        bus.fail = False
        bus.sent.clear()
        device.display(image)  # after an I2C error the whole frame goes again
        assert sum(len(x) for x in bus.sent if isinstance(x, bytes)) == 1024
        panel.feed(bus.sent)
        assert panel.picture() == luma_pages(image)


class GatedBus(CapturingBus):
    """A capturing bus whose data writes wait until the test opens its gate: a slow I2C transfer."""

    def __init__(self) -> None:
        super().__init__()
        self.gate = threading.Event()
        self.gate.set()
        self.writing = threading.Event()
        self.threads: set[int] = set()

    def data(self, data: list[int]) -> None:
        self.threads.add(threading.get_ident())
        self.writing.set()
        assert self.gate.wait(scaled(5)), "the test never opened the gate"
        super().data(data)


def test_a_slow_bus_never_holds_the_loop_and_only_the_newest_picture_follows():
    bus = GatedBus()

    async def main():
        loop = asyncio.get_running_loop()
        service = DisplayService(opened_on(bus), min_interval=0)
        task = asyncio.create_task(service.run())
        service.show(picture("one"))
        await service.flush()
        bus.gate.clear()
        bus.writing.clear()
        service.show(picture("two"))
        # "two" is on the (stuck) bus while the loop goes on serving: this coroutine runs
        assert await loop.run_in_executor(None, bus.writing.wait, 5)
        for text in ("three", "four", "five"):  # presses meanwhile: only the newest goes next
            service.show(picture(text))
        bus.gate.set()
        await service.flush()
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        return service, threading.get_ident()

    service, loop_thread = asyncio.run(main())
    assert loop_thread not in bus.threads  # every bus write ran off the loop
    assert service.frames_sent == 3  # one, two, five
    panel = PanelMemory()
    panel.feed(bus.sent)
    assert panel.picture() == luma_pages(picture("five"))
    writer = [t for t in threading.enumerate() if t.name == "display"]
    for thread in writer:
        thread.join(5)
    assert not any(t.is_alive() for t in writer)  # the writer thread ends with the service


def test_working_out_a_frame_touches_no_bus_only_sending_does():
    for kind in ("ssd1306", "sh1106"):
        bus = CapturingBus()
        device = open_display(kind, serial_interface=bus)
        bus.sent.clear()
        bus.fail = True  # a dead bus: only I/O can notice
        update = device.prepare(picture("one"))
        assert bus.sent == [] and update.writes
        bus.fail = False
        device.send(update)
        panel = PanelMemory(column_offset=2 if kind == "sh1106" else 0)
        panel.feed(bus.sent)
        assert panel.picture() == luma_pages(picture("one")), kind
