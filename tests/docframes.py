"""The README's pictures of the panel: frames of the committed game scripts, scaled up ×3.

Each picture is one ``snap`` of a script in ``tests/data/``, played as ``tablemate sim --script
FILE --frames DIR --seed SEED`` plays it, then scaled with nearest-neighbour (each pixel a 3×3
block) so it stays sharp::

    .venv/bin/python -m tests.docframes        # writes docs/frames/*.png
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from PIL import Image

from firmware_host.core import config as configuration
from firmware_host.core.store import Store
from firmware_host.sim.script import load, run_script

ROOT = Path(__file__).resolve().parents[1]
SCALE = 3
PICTURES = (  # script, seed, snap, picture
    ("bomb_game.sim", 4, "05-ben-rolled", "bomb-roll"),
    ("bomb_game.sim", 4, "11-game-over", "bomb-over"),
    ("tonne_game.sim", 5, "002-menu", "tonne-place"),
    ("antartik_game.sim", 3, "043-menu", "antartik-bets"),
    ("trottel_game.sim", 3, "038-asked", "trottel-end-asks"),
)


def make(out: Path = ROOT / "docs" / "frames") -> list[Path]:
    """Play each script once and write its chosen frames, scaled, to ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for script in dict.fromkeys(p[0] for p in PICTURES):
        seed = next(p[1] for p in PICTURES if p[0] == script)
        with tempfile.TemporaryDirectory() as tmp:
            frames = Path(tmp) / "frames"
            config = configuration.defaults()
            run_script(config, Store(Path(tmp) / "state"), load(ROOT / "tests" / "data" / script), frames, seed)
            for _, _, snap, name in (p for p in PICTURES if p[0] == script):
                image = Image.open(frames / f"{snap}.png").convert("1")
                big = image.resize((image.width * SCALE, image.height * SCALE), Image.NEAREST)
                big.save(out / f"{name}.png", optimize=True)
                written.append(out / f"{name}.png")
    return written


if __name__ == "__main__":
    for path in make():
        print(path.relative_to(ROOT))
    sys.exit(0)
