"""The README's pictures of the panel, made again with one command::

    .venv/bin/python -m tests.docframes                 # German panel folders, English ×3 pictures
    .venv/bin/python -m tests.docframes --language en   # every picture in English

Two kinds of picture, both played as ``tablemate sim --script FILE --frames DIR --seed N`` plays
them:

- ``docs/frames/*.png``: one ``snap`` each of the committed game scripts in ``tests/data/`` on the
  128×64 panel, scaled ×3 with nearest-neighbour (each pixel a 3×3 block) so they stay sharp;
  English unless ``--language`` says otherwise;
- ``docs/frames/128x64/``, ``256x64/``, ``128x128/``: every kind of screen
  (``docs/frames/screens.sim``: the menus, History, Self-test, a game in play of each game, a
  game over) and the Rules screen (``docs/frames/rules.sim``) at each panel's own size, in
  ``--language`` (German unless told: the README shows the device in German on a 256×64 panel).

Beside each picture, ``.txt``: its words as a player reads them (what ``snap`` writes beside its
``.png``). ``tests/docs/test_frames_docs.py`` makes them all again and fails when one differs from the
committed picture or words: after a change of any screen, run the command above and commit them.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from unittest import mock

from PIL import Image

from firmware_host.core import config as configuration
from firmware_host.core.store import Store
from firmware_host.sim import script as sim_script
from firmware_host.sim.script import load, run_script

ROOT = Path(__file__).resolve().parents[1]
FRAMES = ROOT / "docs" / "frames"
SCALE = 3
PICTURES = (  # script, seed, snap, picture
    ("bomb_game.sim", 4, "05-ben-rolled", "bomb-roll"),
    ("bomb_game.sim", 4, "11-game-over", "bomb-over"),
    ("tonne_game.sim", 5, "002-menu", "tonne-place"),
    ("antartik_game.sim", 3, "053-menu", "antartik-bets"),
    ("trottel_game.sim", 3, "038-asked", "trottel-end-asks"),
)
PANELS = {"128x64": "ssd1306", "256x64": "ssd1322", "128x128": "sh1107"}
"""Each folder of ``docs/frames`` and the panel kind drawn into it."""
PANEL_SCRIPTS = ("rules.sim", "screens.sim")
"""The scripts whose snaps fill the panel folders (seed 1; a snap both take is the later one's)."""


DAY = 1_796_126_400
"""2026-12-01 12:00 UTC: the day the simulator's clock starts on for the pictures (History shows
the day; noon, so every time zone within eleven hours of UTC reads the same one)."""


@contextlib.contextmanager
def on_the_day() -> Iterator[None]:
    """Run the scripts in the block with the simulator's wall clock starting on :data:`DAY`
    (the pictures were made again by the test every day otherwise: History shows the date)."""
    with mock.patch.object(sim_script, "time", SimpleNamespace(time=lambda: float(DAY))):
        yield


def panel_config(size: str, language: str) -> configuration.Config:
    """The configuration of the simulated panel of ``size`` (a folder name), in ``language``."""
    return configuration.parse({"display": {"kind": PANELS[size], "language": language}}, f"{size}-{language}")


def play(script: Path, config: configuration.Config, frames: Path, seed: int = 1) -> None:
    """Play ``script`` on a fresh state folder, saving its snaps to ``frames``."""
    with tempfile.TemporaryDirectory() as tmp, on_the_day():
        run_script(config, Store(Path(tmp) / "state"), load(script), frames, seed)


def make(out: Path = FRAMES, language: str = "en") -> list[Path]:
    """Play each game script once and write its chosen frames, scaled, to ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    config = configuration.parse({"display": {"language": language}}, f"pictures-{language}")
    written = []
    for script in dict.fromkeys(p[0] for p in PICTURES):
        seed = next(p[1] for p in PICTURES if p[0] == script)
        with tempfile.TemporaryDirectory() as tmp:
            frames = Path(tmp) / "frames"
            play(ROOT / "tests" / "data" / script, config, frames, seed)
            for _, _, snap, name in (p for p in PICTURES if p[0] == script):
                image = Image.open(frames / f"{snap}.png").convert("1")
                big = image.resize((image.width * SCALE, image.height * SCALE), Image.Resampling.NEAREST)
                big.save(out / f"{name}.png", optimize=True)
                (out / f"{name}.txt").write_bytes((frames / f"{snap}.txt").read_bytes())  # its words
                written += [out / f"{name}.png", out / f"{name}.txt"]
    return written


def make_panels(out: Path = FRAMES, language: str = "de") -> list[Path]:
    """Every screen kind and the Rules screen at each panel's size, in ``language``, into
    ``out/<size>/`` (each folder emptied first, so no stale frame stays)."""
    written = []
    for size in PANELS:
        folder = out / size
        folder.mkdir(parents=True, exist_ok=True)
        for old in [*folder.glob("*.png"), *folder.glob("*.txt")]:
            old.unlink()
        for script in PANEL_SCRIPTS:
            play(FRAMES / script, panel_config(size, language), folder)
        written += sorted([*folder.glob("*.png"), *folder.glob("*.txt")])
    return written


def main(argv: list[str] | None = None) -> int:
    """Write every picture; print the paths written."""
    parser = argparse.ArgumentParser(prog="python -m tests.docframes", description=__doc__.splitlines()[0])
    parser.add_argument("--language", choices=("en", "de"), help="of every picture (default: de panels, en ×3)")
    args = parser.parse_args(argv)
    paths = make(language=args.language or "en") + make_panels(language=args.language or "de")
    for path in paths:
        print(path.relative_to(ROOT))
    return 0


if __name__ == "__main__":
    sys.exit(main())
