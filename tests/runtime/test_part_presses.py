"""The presses part on its own door (the device builds the parts; the buttons' edges come in at
:meth:`Presses.edge` as the GPIO thread posts them): waking, holding, a broken screen."""

from __future__ import annotations

import asyncio

from drivers.buttons import Press
from firmware_host.ui.base import Message
from tests.devicekit import run_device


def now() -> float:
    return asyncio.get_running_loop().time()


async def tap(dev, button: str, seconds: float = 0.1) -> None:
    dev.presses.edge(button, True, now())
    await asyncio.sleep(seconds)
    dev.presses.edge(button, False, now())
    await asyncio.sleep(0.1)  # past the debounce before the next edge
    await dev.flush()


def test_the_press_that_wakes_the_dimmed_panel_only_wakes_it(tmp_path):
    async def body(dev):
        await asyncio.sleep(dev.config["display"]["dim_after"] + 1)
        dimmed = dev.dimmer.dimmed
        top = dev.screens[-1]
        await tap(dev, "ok")
        woken = (dev.dimmer.dimmed, dev.screens[-1] is top)
        await tap(dev, "ok")
        return dimmed, woken, dev.screens[-1] is top

    assert run_device(tmp_path, body) == (True, (False, True), False)  # the second press acts


def test_a_button_held_down_counts_up_and_none_when_it_is_up(tmp_path):
    async def body(dev):
        dev.presses.edge("p1", True, now())
        await asyncio.sleep(0.5)
        held = dev.presses.held_for("p1")
        dev.presses.edge("p1", False, now())
        return held, dev.presses.held_for("p1")

    held, up = run_device(tmp_path, body)
    assert abs(held - 0.5) < 0.01 and up is None


def test_a_press_while_a_write_is_in_flight_waits_its_turn(tmp_path):
    async def body(dev):
        dev.start_named("arschbombe", ["Ann", "Ben"])
        await dev.flush()
        dev.saving.watch(dev.store.writer.submit(lambda: None))  # a write not yet back on the loop
        dev.presses.handle(Press("back", True, now(), now()))  # long back: ask to undo
        during = (len(dev.saving.held), type(dev.screens[-1]).__name__)
        await dev.flush()
        return during, len(dev.saving.held)

    during, after = run_device(tmp_path, body)
    assert during == (1, "GameScreen") and after == 0


class Broken(Message):
    """A screen with a bug in its press."""

    def press(self, press: Press) -> None:
        raise RuntimeError("a bug")


def test_a_bug_in_a_screen_goes_back_to_the_start_and_says_so(tmp_path):
    async def body(dev):
        dev.push(Broken(dev, "Broken", "press me"))
        dev.presses.handle(Press("ok", False, now(), now()))
        await dev.flush()
        return type(dev.screens[-1]).__name__, dev.toast_text()

    assert run_device(tmp_path, body) == ("MainMenu", "Internal error: back to the start")
