"""Debian's Chromium driven by Playwright (never a downloaded browser), and the live table the
browser tests talk to (:class:`bench.webtable.LiveTable`)."""

from __future__ import annotations

import shutil
from typing import Any

from bench.webtable import LiveTable as _LiveTable
from firmware_host.core import config as configuration

__all__ = ["CHROMIUM", "LiveTable", "browser", "playwright_ready"]

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


class LiveTable(_LiveTable):
    """The bench's live table, its voice printed: a test never depends on the machine's sound card."""

    def __init__(self, state: Any, config: configuration.Config | None = None, **kwargs: Any) -> None:
        config = config or configuration.defaults()
        config.sections["voice"]["speaker"] = "print"
        super().__init__(state, config, **kwargs)


def playwright_ready() -> bool:
    """Whether Playwright (pip) and Debian's Chromium are both here."""
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return False
    return CHROMIUM is not None


def browser(playwright: Any) -> Any:
    """Debian's Chromium, headless, by path (``playwright install`` is never needed)."""
    return playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=["--no-sandbox"])
