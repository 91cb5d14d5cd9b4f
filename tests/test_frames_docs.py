"""The README's frames come from committed scripts: they still run, at each panel's size."""

from __future__ import annotations

from pathlib import Path

import pytest
from PIL import Image

ROOT = Path(__file__).resolve().parents[1]
FRAMES = ROOT / "docs" / "frames"


@pytest.mark.parametrize(("size", "pixels"), [("128x64", (128, 64)), ("256x64", (256, 64)), ("128x128", (128, 128))])
def test_the_frame_scripts_run_and_draw_at_the_panels_size(cli, tmp_path, size, pixels):
    for script, first in (("rules.sim", "rules-placing"), ("screens.sim", "game-over")):
        out = tmp_path / size / script
        config = FRAMES / f"de-{size}.toml"
        result = cli(
            "sim",
            "--script",
            FRAMES / script,
            "--frames",
            out,
            "--config",
            config,
            "--seed",
            "1",
            "--state-dir",
            tmp_path / f"state-{script}",
        )
        assert result.status == 0, result.err
        assert Image.open(out / f"{first}.png").size == pixels
        made, committed = {p.name for p in out.iterdir()}, {p.name for p in (FRAMES / size).iterdir()}
        assert made <= committed, made - committed  # every frame the script makes is in the README's folder
