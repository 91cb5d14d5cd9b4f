"""The README's frames come from committed scripts: they still run, at each panel's size, and
every kind of screen fits every panel without a cut, a missing glyph or a lost row."""

from __future__ import annotations

import pytest
from PIL import Image

from firmware_host.ui.render import watch
from tests.docframes import FRAMES, PANEL_SCRIPTS, PANELS, make, make_panels, panel_config, play

KINDS = {
    "main-menu", "settings", "history", "self-test", "game-menu", "game-over", "rules-placing", "rules-next",
    "tonne-bin", "tonne", "bomb", "antartik", "trottel", "arschbombe",
}  # fmt: skip
"""Every kind of screen the panel folders show: the menus, History, Self-test, the Rules screen,
a game in play of each of the five games, a game over."""
SIZES = {"128x64": (128, 64), "256x64": (256, 64), "128x128": (128, 128)}


@pytest.mark.parametrize("size", list(SIZES))
def test_the_frame_scripts_run_and_draw_at_the_panels_size(cli, tmp_path, size):
    """The README's commands (a config file of docs/frames each) still make the folder's frames."""
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
        assert Image.open(out / f"{first}.png").size == SIZES[size]
        made, committed = {p.name for p in out.iterdir()}, {p.name for p in (FRAMES / size).iterdir()}
        assert made <= committed, made - committed  # every frame the script makes is in the README's folder


@pytest.mark.parametrize("language", ["en", "de"])
@pytest.mark.parametrize("size", ["256x64", "128x128"])
def test_every_kind_of_screen_fits_the_bigger_panels(tmp_path, size, language):
    with watch() as found:
        for script in PANEL_SCRIPTS:
            play(FRAMES / script, panel_config(size, language), tmp_path)
    assert found == []
    assert {p.stem for p in tmp_path.glob("*.png")} == KINDS
    assert all(Image.open(p).size == SIZES[size] for p in tmp_path.glob("*.png"))
    assert set(PANELS) == set(SIZES)


def _pixels(path) -> tuple[tuple[int, int], bytes]:
    with Image.open(path) as image:
        return image.size, image.convert("1").tobytes()


def test_the_committed_frames_are_the_ones_the_scripts_make_now(tmp_path):
    """docs/frames and the README's pictures are made again and compared pixel by pixel: a
    screen that changed without its pictures made again (python -m tests.docframes) fails."""
    made = make(tmp_path) + make_panels(tmp_path)
    names = {p.relative_to(tmp_path).as_posix() for p in made}
    committed = {p.relative_to(FRAMES).as_posix() for p in FRAMES.rglob("*.png")}
    assert names == committed, (names - committed, committed - names)
    differ = sorted(n for n in names if _pixels(tmp_path / n) != _pixels(FRAMES / n))
    assert differ == [], f"differ from the committed pictures (run python -m tests.docframes): {differ}"
