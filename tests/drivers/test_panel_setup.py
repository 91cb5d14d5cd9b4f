"""Every 1-bit panel gets partial updates; every panel is re-initialised every few minutes and on
waking from dim, so one reset by a brown-out without an I2C error does not stay dark. Real luma
drivers on a capturing bus, fake time."""

from __future__ import annotations

import asyncio
import contextlib

import pytest
from PIL import Image

from drivers.panel_setup import ADDRESSING, DISPLAYOFF, reinit
from drivers.panels import PANELS, open_panel
from firmware_host.runtime.display_service import REINIT_EVERY, DisplayService
from firmware_host.ui.panel import to_panel
from firmware_host.ui.render import Frame, Row, render
from tests.devicekit import presses, run_device
from tests.drivers.test_display import CapturingBus, PanelMemory

ONE_BIT = {"ssd1306": (128, 8, 0), "sh1106": (128, 8, 2), "ssd1309": (128, 8, 0), "sh1107": (128, 16, 0)}
"""1-bit kind → panel memory (columns, pages, column offset of the glass)."""


def menu(selected: int, size: tuple[int, int]) -> Image.Image:
    rows = tuple(Row.of(text, invert=i == selected) for i, text in enumerate(("New game", "History", "Settings")))
    return to_panel(render(Frame("Menu", rows)), size)


def data_bytes(bus: CapturingBus) -> int:
    return sum(len(x) for x in bus.sent if isinstance(x, bytes))


def luma_picture(kind: str, image: Image.Image) -> bytes:
    """The panel bytes luma's own driver of ``kind`` sends for ``image`` (the reference packing)."""
    import luma.oled.device as stock

    bus = CapturingBus()
    panel = PANELS[kind]
    device = getattr(stock, panel.driver)(bus, width=panel.width, height=panel.height)
    bus.sent.clear()
    device.display(image)
    return b"".join(x for x in bus.sent if isinstance(x, bytes))


@pytest.mark.parametrize("kind", sorted(ONE_BIT))
def test_each_one_bit_panel_gets_only_the_changed_bytes_and_shows_lumas_picture(kind):
    width, pages, offset = ONE_BIT[kind]
    bus = CapturingBus()
    device = open_panel(PANELS[kind], serial_interface=bus)
    panel = PanelMemory(width, pages, offset)  # blank, as luma's set-up leaves it
    sizes = []
    for selected in (0, 1, 1, 2):
        bus.sent.clear()
        image = menu(selected, device.size)
        device.display(image)
        panel.feed(bus.sent)
        assert panel.picture() == luma_picture(kind, image)
        sizes.append(data_bytes(bus))
    whole = width * pages  # what luma's own driver sends for every picture
    assert sizes[0] < whole and sizes[2] == 0 and 0 < sizes[3] <= whole // 4 + 20, sizes


@pytest.mark.parametrize("kind", sorted(PANELS))
def test_a_reinit_is_the_drivers_own_set_up_less_display_off_in_a_few_dozen_bytes(kind):
    bus = CapturingBus()
    device = open_panel(PANELS[kind], serial_interface=bus)
    setup = device.setup_writes
    first = bus.sent[0]
    assert setup[0] in ((True, first), (True, first[1:]))  # luma's own sequence, as it came
    assert all(not command or payload[0] != DISPLAYOFF for command, payload in setup)  # no blink
    commands = [payload for command, payload in setup if command]
    assert commands[-1][0] not in ADDRESSING  # the first picture's address commands are not set-up
    assert sum(len(payload) for _, payload in setup) <= 48  # a few dozen bytes
    image = to_panel(render(Frame("tablemate", (Row.of("Scores"),))), device.size)
    device.display(image)
    bus.sent.clear()
    reinit(device)
    assert bus.sent == [*(p if command else bytes(p) for command, p in setup), (0xAF,)]  # then DISPLAYON
    bus.sent.clear()
    device.display(image)  # the same picture goes whole: the panel's memory may be lost
    assert data_bytes(bus) >= device.width * device.height // 8


SSD1306_ARGS = {0x20: 1, 0x21: 2, 0x22: 2, 0x81: 1, 0x8D: 1, 0xA8: 1, 0xD3: 1, 0xD5: 1, 0xD9: 1, 0xDA: 1, 0xDB: 1}
"""Argument bytes of the SSD1306 commands luma's set-up and our driver send."""


class ResettablePanel(PanelMemory):
    """An SSD1306 that can be reset by a brown-out: off, charge pump off, memory lost, while every
    write is still acknowledged. It lights only when it was told so after the reset."""

    def __init__(self) -> None:
        super().__init__()
        self.on = self.pump = False

    def feed(self, sent: list) -> None:
        for item in sent:
            i = 0
            while not isinstance(item, bytes) and i < len(item):
                c = item[i]
                if c in (0xAE, 0xAF):
                    self.on = c == 0xAF
                elif c == 0x8D:
                    self.pump = item[i + 1] == 0x14
                i += 1 + SSD1306_ARGS.get(c, 0)
        super().feed(sent)

    def brown_out(self) -> None:
        self.ram = [bytearray(self.width) for _ in range(self.pages)]
        self.on = self.pump = False

    @property
    def lit(self) -> bool:
        return self.on and self.pump


class FeedingBus(CapturingBus):
    def __init__(self, panel: ResettablePanel) -> None:
        super().__init__()
        self.panel = panel

    def command(self, *cmd: int) -> None:
        super().command(*cmd)
        self.panel.feed([cmd])

    def data(self, data: list[int]) -> None:
        super().data(data)
        self.panel.feed([bytes(data)])


def test_a_panel_reset_without_an_i2c_error_shows_again_within_five_minutes_and_on_waking(virtual):
    panel = ResettablePanel()
    bus = FeedingBus(panel)
    image = menu(1, (128, 64))

    async def main() -> list[tuple[str, bool, bool]]:
        from drivers.panels import PANELS

        service = DisplayService(lambda: open_panel(PANELS["ssd1306"], serial_interface=bus), min_interval=0)
        task = asyncio.create_task(service.run())
        seen = []

        def look(when: str) -> None:
            seen.append((when, panel.lit, panel.picture() == luma_picture("ssd1306", image)))

        service.show(image)
        await service.flush()
        look("shown")
        panel.brown_out()  # a static discharge: the controller resets, no write fails
        await asyncio.sleep(REINIT_EVERY - 10)
        look("dark meanwhile")
        sent = len(bus.sent)
        await asyncio.sleep(20)
        await service.flush()
        look("after the periodic re-init")
        assert service.reinits == 1 and sum(len(x) for x in bus.sent[sent:]) < 1024 + 80
        panel.brown_out()
        await asyncio.sleep(30)
        service.reinit()  # the device wakes from dim
        await service.flush()
        look("on waking")
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        return seen

    assert virtual(main) == [
        ("shown", True, True),
        ("dark meanwhile", False, False),
        ("after the periodic re-init", True, True),
        ("on waking", True, True),
    ]


def test_waking_from_dim_re_initialises_the_panel(tmp_path):
    async def body(device):
        await device.flush()
        before = device.display.reinits
        await asyncio.sleep(device.config["display"]["dim_after"] + 1)
        assert device.dimmed
        await presses(device, "next")
        await device.flush()
        return device.dimmed, device.display.reinits - before

    assert run_device(tmp_path, body) == (False, 1)


@pytest.mark.parametrize("kind", ["ssd1309", "sh1107"])
def test_the_panels_bench_counts_a_menu_step_at_a_third_of_lumas_own_driver_or_less(kind):
    from bench.panels import _measure

    r = _measure(kind, presses=3)
    assert r["bus"] == "i2c" and 0 < r["step"] <= r["stock_step"] / 3
    assert 0 < r["reinit"] <= 64 and r["reinit_and_picture"] > r["stock_step"] - 100  # then the picture whole
