"""The device's lower parts built by the composition root itself (a device built, not run): for
testing one part on its own with the parts below it real (a luma dummy panel, a real store)."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from drivers.display import open_display
from firmware_host.core import config as configuration
from firmware_host.core.store import Store
from firmware_host.runtime.device import Device
from firmware_host.runtime.hub import Hub
from firmware_host.runtime.parts.dimmer import Dimmer
from firmware_host.runtime.parts.message import MessageLine
from firmware_host.runtime.parts.phones import Phones
from firmware_host.runtime.parts.saving import Saving
from firmware_host.runtime.parts.screens import Screens
from firmware_host.runtime.parts.settings import TableSettings
from firmware_host.runtime.parts.signals import Signals


@dataclass
class Lower:
    """The parts below the game's life, wired as the device wires them."""

    config: configuration.Config
    store: Store
    prefs: TableSettings
    signals: Signals
    message: MessageLine
    screens: Screens
    saving: Saving
    phones: Phones
    dimmer: Dimmer
    wants: list[tuple[str, bool]]
    """What the screens asked of the scale."""
    hub: Hub
    """Every part of the device, by name."""


def lower(state: Path, config: configuration.Config | None = None, wall: Any = lambda: 1_700_000_000.0) -> Lower:
    """Build the lower parts on the running loop (call it inside ``run_virtual``); the panel is
    luma's dummy device, as ``display = "sim"`` opens it."""
    config = (config or configuration.defaults()).with_sim()
    store = Store(state)
    hub = Device(config, store, wall=wall).hub  # built as the device builds them, not run
    screens = hub.lookup("screens")
    wants: list[tuple[str, bool]] = []
    screens.want_scale = lambda reason, on: wants.append((reason, on))
    screens.attach(lambda: open_display("sim"))
    names = ("prefs", "signals", "message", "screens", "saving", "phones", "dimmer")
    return Lower(config, store, *(hub.lookup(name) for name in names), wants, hub)


async def turn() -> None:
    """Let the loop run what is due now (a redraw, a posted callback)."""
    for _ in range(3):
        await asyncio.sleep(0)
