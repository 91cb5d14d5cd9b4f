"""Builds the drivers the configuration names, real or simulated, and notes what is missing.

The one place where configuration meets hardware. A part that fails to open is left out and
reported; the device runs on without it (a game needs only the buttons and a screen, and even a
missing screen leaves the tower and the journal working).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from drivers.buttons import ButtonPanel, EdgeHandler
from drivers.panels import PANELS, SIM, Panel, display_size, open_panel
from drivers.scale import Scale
from drivers.tower import StatusHandler, Tower
from firmware_host.core.config import BUTTONS, Config, display_wiring
from games.core import T

log = logging.getLogger(__name__)


@dataclass
class Hardware:
    """The device's drivers; any of them may be ``None`` when absent or broken."""

    buttons: ButtonPanel | None
    display_opener: Callable[[], Any] | None
    tower: Tower | None
    scale: Scale | None
    problems: list[str] = field(default_factory=list)
    pin_factory: Any = None
    """The gpiozero pin factory of the real pins (``None``: simulated, or gpiozero's choice)."""
    gpio_backend: str = "sim"
    """Which GPIO back end drives the pins (``gpiod``, ``lgpio``, …)."""

    def close(self) -> None:
        """Release every driver (the tower is closed by the lights service)."""
        if self.buttons is not None:
            self.buttons.close()
        if self.scale is not None:
            self.scale.close()
        if self.pin_factory is not None:
            self.pin_factory.close()


def build(
    config: Config,
    on_edge: EdgeHandler,
    on_tower_status: StatusHandler,
    clock: Callable[[], float],
    call_later: Callable[[float, Callable[[], None]], Any],
    loop: Any = None,
) -> Hardware:
    """Open every part the configuration names. Callbacks may come from driver threads (or, with
    ``loop``, button edges are read on that event loop)."""
    problems: list[str] = []
    pins = {b: config["buttons"][b] for b in BUTTONS}
    factory, backend = None, "sim"
    if config["buttons"]["backend"] == "gpio" or config["tower"]["backend"] == "gpio":
        from drivers.gpio import pin_factory

        factory, backend = pin_factory(loop, config["gpio"]["revision"])
        log.info("GPIO back end: %s", backend)
    buttons: ButtonPanel | None
    try:
        if config["buttons"]["backend"] == "sim":
            buttons = ButtonPanel.simulated(pins, on_edge, clock)
        else:
            buttons = ButtonPanel(pins, on_edge, clock, factory, config["buttons"]["debounce"], call_later)
            for name, reason in buttons.missing.items():  # retried with backoff meanwhile
                problems.append(T("buttons: {problem}", problem=f"{name} (GPIO {pins[name]}) {reason}"))
    except Exception as exc:  # gpiozero raises many kinds: no pin factory, pin in use…
        log.error("buttons unavailable: %s", exc)
        problems.append(T("buttons: {problem}", problem=str(exc)))
        buttons = None

    d = config["display"]
    opener = None
    if d["kind"] != "none":
        panel, wiring = display_panel(config), display_wiring(config)

        def opener() -> Any:
            return open_panel(panel, wiring, d["rotation"], simulate=d["kind"] == "sim")

    tower = _tower(config, on_tower_status, problems, factory)
    scale = _scale(config, clock, call_later, problems, retry=True)
    return Hardware(buttons, opener, tower, scale, problems, factory, backend)


DRIVER_MODULES = {
    ("tower", "serial"): ("drivers.tower.usb",),
    ("tower", "gpio"): ("drivers.tower.gpio",),
    ("tower", "sim"): ("drivers.tower.sim",),
    ("scale", "sim"): ("drivers.scale.sim",),
    ("scale", "hx711"): ("drivers.scale.hx711_open", "drivers.scale.reopen"),
}
"""The modules :func:`build` imports for a part's back end (a part's libraries load only when it is used)."""


def preload(config: Config) -> None:
    """Import the driver modules :func:`build` will open for ``config``, before the event loop runs:
    imported by ``build`` on the loop, the scale's libraries alone held it 10–15 ms on a PC (more on
    a Pi) at every start. A module that does not import is left to ``build``, which reports it."""
    import importlib

    names = [
        name for (part, backend), mods in DRIVER_MODULES.items() if config[part]["backend"] == backend for name in mods
    ]
    if config["buttons"]["backend"] == "gpio" or config["tower"]["backend"] == "gpio":
        names.append("drivers.gpio")
    if config["scale"]["backend"] == "sim" and config["scale"]["interface"] == "spi":
        names.append("drivers.scale.hx711_spi")  # (the simulated chip behind the real SPI reader)
    for name in names:
        try:
            importlib.import_module(name)
        except Exception:  # (a missing library: build says so, with the part it leaves out)
            log.debug("%s not preloaded", name, exc_info=True)


def display_panel(config: Config) -> Panel:
    """The panel ``[display]`` names (``kind = "sim"``: the one ``sim_panel`` names)."""
    d = config["display"]
    if d["kind"] in PANELS:
        return PANELS[d["kind"]]
    return PANELS.get(d.get("sim_panel", ""), SIM)


def panel_size(config: Config) -> tuple[int, int]:
    """The size of the picture the configured panel shows (rotation applied): the frame size."""
    return display_size(display_panel(config), config["display"]["rotation"])


def _tower(config: Config, on_status: StatusHandler, problems: list[str], factory: Any = None) -> Tower | None:
    t = config["tower"]
    try:
        if t["backend"] == "serial":
            from drivers.tower.usb import UsbTower

            return UsbTower(t["port"], on_status)
        if t["backend"] == "gpio":
            from drivers.tower.gpio import GpioTower

            return GpioTower(t["red"], t["yellow"], t["green"], t["buzzer"], t["bar"], pin_factory=factory)
        if t["backend"] == "sim":
            from drivers.tower.sim import SimTower

            return SimTower()
    except Exception as exc:
        log.error("tower unavailable: %s", exc)
        problems.append(T("tower: {problem}", problem=str(exc)))
    return None


def _scale(
    config: Config,
    clock: Callable[[], float],
    call_later: Callable[[float, Callable[[], None]], Any],
    problems: list[str],
    retry: bool = False,
) -> Scale | None:
    """The configured scale; with ``retry``, a chip that fails to open is opened again with
    backoff on ``call_later`` (the service's scale), else the failure is the answer (calibration)."""
    s = config["scale"]
    try:
        if s["backend"] == "sim":
            from drivers.scale.sim import SimScale

            return SimScale(call_later, clock, s["sps"], gain=s["gain"], interface=s["interface"])
        if s["backend"] == "hx711":
            from drivers.scale.hx711_open import open_configured
            from drivers.scale.reopen import ReopeningScale

            if not retry:
                return open_configured(s, clock)

            def opener() -> Scale:
                return open_configured(s, clock)

            scale = ReopeningScale(opener, s["sps"], call_later)
            if scale.error is not None:
                problems.append(T("scale: {problem}", problem=scale.error))
            return scale
    except Exception as exc:  # no Blinka board, pins in use… the device runs on without the scale
        log.error("scale unavailable: %s", exc)
        problems.append(T("scale: {problem}", problem=str(exc)))
    return None


def open_scale(
    config: Config,
    clock: Callable[[], float],
    call_later: Callable[[float, Callable[[], None]], Any],
) -> tuple[Scale | None, list[str]]:
    """Only the scale the configuration names (``tablemate calibrate``), with any problem found."""
    problems: list[str] = []
    return _scale(config, clock, call_later, problems), problems
