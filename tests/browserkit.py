"""Debian's Chromium driven by Playwright (never a downloaded browser), and the live table the
browser tests talk to (:class:`bench.webtable.LiveTable`)."""

from __future__ import annotations

import shutil
from typing import Any

from bench.webtable import LiveTable

__all__ = ["CHROMIUM", "LiveTable", "browser", "playwright_ready"]

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


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
