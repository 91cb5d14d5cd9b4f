"""Showing a fatal start-up error (a broken config) on the OLED, best effort.

When the configuration cannot be used, the service exits with status 2 (the unit's
``RestartPreventExitStatus=2`` keeps systemd from restarting it into a crash loop) and leaves the
message on the panel, which keeps its last frame, so the table can read what to fix.
"""

from __future__ import annotations

import contextlib
import tomllib
from pathlib import Path

from firmware_host.core import config as configuration
from firmware_host.core.i18n import _, set_language
from firmware_host.ui.panel import to_panel
from firmware_host.ui.render import Frame, Row, render, wrap


def _display_settings(path: str | None) -> dict:
    settings = dict(configuration.defaults()["display"])
    with contextlib.suppress(Exception):
        data = tomllib.loads(Path(path or configuration.DEFAULT_PATH).read_text(encoding="utf-8"))
        for key, value in data.get("display", {}).items():
            if key in settings:
                settings[key] = value
    return settings


def show_on_display(config_path: str | None, message: str) -> bool:
    """Draw ``message`` on the configured (or default) display; ``False`` if that failed too."""
    from drivers.panels import PANELS, Wiring, open_panel

    d = _display_settings(config_path)
    if d.get("kind") in ("none", "sim"):
        return False
    try:
        numbers = (int(d[k]) for k in ("i2c_port", "address", "spi_device", "dc", "reset"))
        wiring = Wiring(str(d["interface"]), *numbers)
        device = open_panel(PANELS[d["kind"]], wiring, int(d["rotation"]))
        with contextlib.suppress(ValueError):  # the title in the file's language, when it names one
            set_language(str(d.get("language", "en")))
        rows = tuple(Row.of(line) for line in wrap(message)[:6])
        device.display(to_panel(render(Frame(_("Config error"), rows)), device.size).convert(device.mode))
    except Exception:
        return False
    return True
