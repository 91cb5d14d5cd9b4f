"""Screenshots of the companion page for the README (not a test): ``.venv/bin/python tests/web_shots.py docs``.

Plays the scripted games of ``tests/data`` into a fresh state folder (real finished games for
the history), starts a game of Arschbombe and plays a few jumps from the buttons, then takes a
phone-sized and a TV-sized scoreboard, the history with its plots in Chromium, and the OLED's
Phone screen (its QR code) from the simulated panel.

The clock reads as synced (timesyncd's flag file, in a temporary folder), so the history shows
dates, as on a table with network time; the Arschbombe games run a turn timer and their players
think a few seconds before each press, so the history has turn times to plot.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

from browserkit import LiveTable, browser
from PIL import Image

from firmware_host.core import config as configuration
from firmware_host.core import wallclock
from firmware_host.core.store import Store
from firmware_host.sim.script import load, parse, run_script

DATA = Path(__file__).parent / "data"
TIMED = "arschbombe_game.sim"
"""The game played with a turn timer (both of its plays)."""


def _thinking(path: Path, seed: int) -> list:
    """The script with a few seconds' thought (1 to 7 s, varied by ``seed``) before each press."""
    lines = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines()):
        if line.startswith(("press ", "hold ")):
            lines.append(f"wait {1 + (n * 5 + seed) % 13 * 0.5}")
        lines.append(line)
    return parse("\n".join(lines) + "\n")


def main(out: Path) -> None:
    """Write ``web-*.png`` into ``out``."""
    from playwright.sync_api import sync_playwright

    work = Path(tempfile.mkdtemp())
    wallclock.SYNC_FLAG = work / "synchronized"  # the clock reads as synced by timesyncd
    wallclock.SYNC_FLAG.touch()
    (work / "config.toml").write_text('[timers.arschbombe]\nmode = "turn"\nseconds = 60\n', encoding="utf-8")
    timed = configuration.load(work / "config.toml")
    state = work / "state"
    for seed, name in enumerate(("arschbombe_game.sim", "bomb_game.sim", "arschbombe_game.sim", "tonne_game.sim")):
        if name == TIMED:
            run_script(timed, Store(state), _thinking(DATA / name, seed), None, seed=len(name))
        else:
            run_script(configuration.defaults(), Store(state), load(DATA / name), None, seed=len(name))
    out.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as p, LiveTable(state) as table:
        chromium = browser(p)
        table.call(lambda: table.device.door.start_named("arschbombe", ["Ann", "Ben", "Cy", "Dee"]))
        for buttons in (("ok", "ok"), ("ok", "next", "ok"), ("ok", "ok")):
            for b in buttons:
                table.press(b)
            time.sleep(0.2)
        for name, size in (("web-scoreboard-phone", (390, 844)), ("web-scoreboard-tv", (1920, 1080))):
            page = chromium.new_page(viewport={"width": size[0], "height": size[1]})
            page.goto(table.url + "/")
            page.wait_for_selector(".player.turn")
            page.screenshot(path=str(out / f"{name}.png"))
            page.close()
        page = chromium.new_page(viewport={"width": 1280, "height": 900}, bypass_csp=True)
        page.goto(table.url + "/history")
        page.wait_for_selector("#plots img")
        page.wait_for_function("[...document.querySelectorAll('#plots img')].every(i => i.complete && i.naturalWidth)")
        page.screenshot(path=str(out / "web-history.png"), full_page=True)
        page.close()
        chromium.close()
        table.call(lambda: table.device.door.home())
        image = table.call(_phone_picture(table))
        image.convert("L").resize((512, 256), Image.NEAREST).save(out / "web-oled-phone.png")


def _phone_picture(table: LiveTable):
    async def shot() -> Image.Image:
        from firmware_host.ui.phone import PhoneScreen

        table.device.door.push(PhoneScreen(table.device))
        await table.device.door.flush()
        return table.device.door.display.shown.copy()

    return shot


if __name__ == "__main__":
    main(Path(sys.argv[1] if len(sys.argv) > 1 else "docs"))
