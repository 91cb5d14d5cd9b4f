"""Dim and wake on their own (the screens part and a luma dummy panel real): the brightness the
panel is asked for, idle and after a press."""

from __future__ import annotations

import asyncio

from firmware_host.runtime.vtime import run_virtual
from tests.partkit import lower


def test_the_panel_dims_when_idle_and_a_wake_brings_the_setting_back(tmp_path):
    async def main():
        parts = lower(tmp_path)
        dimmer, display, section = parts.dimmer, parts.screens.display, parts.config["display"]
        dimmer.wake()
        await asyncio.sleep(section["dim_after"] - 1)
        awake = dimmer.dimmed
        await asyncio.sleep(2)
        dimmed = (dimmer.dimmed, display._wanted_contrast)
        parts.prefs.settings["brightness"] = 200
        dimmer.brightness(200)  # changed while dim: shown at the wake, not now
        still = display._wanted_contrast
        dimmer.wake()
        return awake, dimmed, still, (dimmer.dimmed, display._wanted_contrast), section["dim_brightness"]

    awake, dimmed, still, woken, dim = run_virtual(main)
    assert awake is False
    assert dimmed == (True, dim)
    assert still == dim
    assert woken == (False, 200)


def test_the_stop_leaves_the_panel_bright_and_never_dims_after(tmp_path):
    async def main():
        parts = lower(tmp_path)
        dimmer = parts.dimmer
        dimmer.wake()
        dimmer.close()
        await asyncio.sleep(parts.config["display"]["dim_after"] * 2)
        return dimmer.dimmed, parts.screens.display._wanted_contrast, parts.prefs.settings["brightness"]

    dimmed, contrast, brightness = run_virtual(main)
    assert dimmed is False and contrast == brightness
