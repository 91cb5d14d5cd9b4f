"""``tablemate bench panels``: the bytes each panel kind's bus carries for a menu step.

For every panel kind the device runs (simulated buttons, scale and tower, virtual time: bytes do
not depend on timing) with the panel's real luma driver — ours for the 1-bit panels
(:mod:`drivers.oled`), luma's own for the greyscale ones — on a bus that only counts, and presses
``next`` in the main menu. Each picture the device sent is also given to luma's stock driver of
the same kind on a counting bus of its own, for comparison. It prints, per kind:

- the bus bytes of one menu step, ours and luma's stock driver (median over the presses);
- a whole picture (the first after opening, and after each re-initialisation);
- one re-initialisation: its set-up writes and ``DISPLAYON`` (:mod:`drivers.panel_setup`), then
  the contrast and a whole picture, as the display service sends it.

I2C bytes count each write as luma's ``i2c`` makes it (address, control byte, payload), with bus
time at 400 kHz (9 bits a byte); SPI bytes are the payload clocked out (DC is a GPIO), at luma's
8 MHz. Measured on luma's drivers over a counting bus, not on a panel.
"""

from __future__ import annotations

import asyncio
import statistics
import tempfile
from pathlib import Path
from typing import Any

PRESSES = 20


class Counter:
    """A luma serial interface that sends nothing and counts writes and payload bytes."""

    def __init__(self) -> None:
        self.writes = 0
        self.payload = 0

    def command(self, *cmd: int) -> None:
        """One command write."""
        self.writes += 1
        self.payload += len(cmd)

    def data(self, data: Any) -> None:
        """One data write."""
        self.writes += 1
        self.payload += len(data)

    def cleanup(self) -> None:
        """Nothing to release."""

    def on(self, bus: str) -> int:
        """Bytes on ``bus`` so far."""
        return self.payload + (2 * self.writes if bus == "i2c" else 0)


def _measure(kind: str, presses: int) -> dict[str, Any]:
    import luma.core.interface.serial as serial
    import luma.oled.device as stock

    from drivers.panels import PANELS
    from firmware_host.core import config as configuration
    from firmware_host.core.store import Store
    from firmware_host.runtime.device import Device
    from firmware_host.runtime.vtime import run_virtual

    panel = PANELS[kind]
    bus_kind = panel.bus("auto")
    ours, theirs = Counter(), Counter()
    saved = serial.i2c, serial.spi
    serial.i2c = serial.spi = lambda *a, **k: ours  # type: ignore[assignment]
    extra = {"mode": "1"} if kind in ("ssd1322", "ssd1327") else {}
    luma = getattr(stock, panel.driver)(theirs, width=panel.width, height=panel.height, **extra)
    config = configuration.defaults().with_sim()
    config.sections["display"]["kind"] = kind

    async def main() -> dict[str, Any]:
        with tempfile.TemporaryDirectory() as tmp:
            device = Device(config, Store(Path(tmp)), seed=1)
            task = asyncio.create_task(device.run())
            await device.ready.wait()
            await device.flush()
            luma.display(device.display.shown)
            steps, stock_steps = [], []
            for _ in range(presses):
                before, stock_before = ours.on(bus_kind), theirs.on(bus_kind)
                device.hw.buttons.press("next")
                await asyncio.sleep(0.1)
                device.hw.buttons.release("next")
                await device.flush()
                steps.append(ours.on(bus_kind) - before)
                luma.display(device.display.shown)
                stock_steps.append(theirs.on(bus_kind) - stock_before)
            before = ours.on(bus_kind)
            device.display.reinit()
            await device.flush()
            after_reinit = ours.on(bus_kind) - before
            writes = [*device.display.device.setup_writes, (True, (0xAF,))]  # the set-up, DISPLAYON
            reinit = sum(len(payload) + (2 if bus_kind == "i2c" else 0) for _, payload in writes)
            device.stop()
            await task
        return {
            "bus": bus_kind,
            "step": statistics.median(steps),
            "stock_step": statistics.median(stock_steps),
            "reinit": reinit,
            "reinit_and_picture": after_reinit,
        }

    try:
        return run_virtual(main)
    finally:
        serial.i2c, serial.spi = saved


def _time_ms(n: float, bus: str) -> float:
    return n * 9 / 400 if bus == "i2c" else n * 8 / 8000


def main(presses: int = PRESSES) -> int:
    """Print the bytes per menu step of every panel kind."""
    from drivers.panels import PANELS

    print(
        f"bus bytes per menu step, median of {presses} presses of next in the main menu "
        "(luma drivers on a counting bus)"
    )
    print(f"  {'kind':8} {'bus':4} {'ours':>14} {'luma stock':>16} {'re-init + whole picture':>26}")
    for kind in PANELS:
        r = _measure(kind, presses)
        bus = r["bus"]
        print(
            f"  {kind:8} {bus:4} {r['step']:6.0f} B {_time_ms(r['step'], bus):5.2f} ms"
            f" {r['stock_step']:7.0f} B {_time_ms(r['stock_step'], bus):5.2f} ms"
            f" {r['reinit_and_picture']:7.0f} B (set-up {r['reinit']} B)"
            f" {_time_ms(r['reinit_and_picture'], bus):5.1f} ms"
        )
    print("I2C: address + control + payload per write, 400 kHz; SPI: payload, 8 MHz. Not measured on a panel.")
    return 0
