"""Dim and wake: the panel dims after ``[display] dim_after`` seconds without a press; a press
wakes it (and a panel reset while it sat dim shows again)."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any

from firmware_host.runtime.hub import Hub
from firmware_host.runtime.parts.screens import Screens


class Dimmer:
    """The panel's brightness: the setting's, or the dim one while the table is idle."""

    def __init__(self, display: Mapping[str, Any], settings: Mapping[str, Any]) -> None:
        self.config = display
        """The config file's ``[display]`` section (``dim_after``, ``dim_brightness``)."""
        self.settings = settings
        self.dimmed = False
        """Whether the screen is dimmed for being idle."""
        self._handle: asyncio.TimerHandle | None = None

    def setup(self, hub: Hub) -> None:
        """The screens whose panel it dims."""
        self.screens: Screens = hub.lookup("screens")

    def wake(self) -> None:
        """Bright again (if dimmed), and dim after ``dim_after`` seconds more without a press."""
        if self.dimmed:
            self.dimmed = False
            self.screens.display.set_contrast(self.settings["brightness"])
            self.screens.display.reinit()  # a panel reset while it sat dim shows again
        if self._handle is not None:
            self._handle.cancel()
        self._handle = asyncio.get_running_loop().call_later(self.config["dim_after"], self._dim)

    def _dim(self) -> None:
        self.dimmed = True
        self.screens.display.set_contrast(self.config["dim_brightness"])

    def brightness(self, value: int) -> None:
        """The brightness setting changed: shown at once unless the panel is dimmed."""
        if not self.dimmed:
            self.screens.display.set_contrast(value)

    def close(self) -> None:
        """Bright for the last picture (the stop's); no dimming any more."""
        self.dimmed = False
        self.screens.display.set_contrast(self.settings["brightness"])
        if self._handle is not None:
            self._handle.cancel()
