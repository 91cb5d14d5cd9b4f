"""The README's frames come from committed scripts: they still run, at each panel's size, and
every kind of screen fits every panel without a cut, a missing glyph or a lost row."""

from __future__ import annotations

from pathlib import Path

import pytest
from PIL import Image

from firmware_host.cli.main import main
from firmware_host.ui.render import watch
from tests.docframes import FRAMES, PANEL_SCRIPTS, PANELS, make, on_the_day, panel_config, play

KINDS = {
    "main-menu", "settings", "history", "self-test", "game-menu", "game-over", "rules-placing", "rules-next",
    "tonne-bin", "tonne", "bomb", "antartik", "trottel", "arschbombe",
}  # fmt: skip
"""Every kind of screen the panel folders show: the menus, History, Self-test, the Rules screen,
a game in play of each of the five games, a game over."""
SIZES = {"128x64": (128, 64), "256x64": (256, 64), "128x128": (128, 128)}


@pytest.fixture(scope="module")
def readme_panels(tmp_path_factory) -> tuple[Path, dict[str, tuple[list[int], list]]]:
    """Each panel folder made once, by the README's commands (``tablemate sim`` with the folder's
    config file from docs/frames, the scripts in order into one folder, as ``tests.docframes``
    fills it): the folder, and per size the commands' exit statuses and what the layout reported."""
    out = tmp_path_factory.mktemp("panels")
    made = {}
    for size in SIZES:
        with watch() as found, on_the_day():
            statuses = [
                main(
                    [
                        "sim",
                        "--script",
                        str(FRAMES / script),
                        "--frames",
                        str(out / size),
                        "--config",
                        str(FRAMES / f"de-{size}.toml"),
                        "--seed",
                        "1",
                        "--state-dir",
                        str(out / f"state-{size}-{script}"),
                    ]
                )
                for script in PANEL_SCRIPTS
            ]
        made[size] = (statuses, list(found))
    return out, made


@pytest.mark.parametrize("size", list(SIZES))
def test_the_frame_scripts_run_and_draw_at_the_panels_size(readme_panels, size):
    """The README's commands (a config file of docs/frames each) still make the folder's frames."""
    out, made = readme_panels
    statuses, _ = made[size]
    assert statuses == [0] * len(PANEL_SCRIPTS)
    for first in ("rules-placing", "game-over"):  # the first snap of each script
        assert Image.open(out / size / f"{first}.png").size == SIZES[size]
    made_names, committed = {p.name for p in (out / size).iterdir()}, {p.name for p in (FRAMES / size).iterdir()}
    assert made_names <= committed, made_names - committed  # every frame the scripts make is in the README's folder


@pytest.mark.parametrize("language", ["en", "de"])
@pytest.mark.parametrize("size", ["256x64", "128x128"])
def test_every_kind_of_screen_fits_the_bigger_panels(readme_panels, tmp_path, size, language):
    if language == "de":  # the README's own folders, made once for the module
        folder, (_, found) = readme_panels[0] / size, readme_panels[1][size]
    else:
        folder = tmp_path
        with watch() as found:
            for script in PANEL_SCRIPTS:
                play(FRAMES / script, panel_config(size, language), tmp_path)
    assert found == []
    assert {p.stem for p in folder.glob("*.png")} == KINDS
    assert all(Image.open(p).size == SIZES[size] for p in folder.glob("*.png"))
    assert set(PANELS) == set(SIZES)


def _pixels(path) -> tuple[tuple[int, int], bytes]:
    with Image.open(path) as image:
        return image.size, image.convert("1").tobytes()


def test_the_committed_frames_are_the_ones_the_scripts_make_now(readme_panels, tmp_path):
    """docs/frames and the README's pictures are made again and compared pixel by pixel: a
    screen that changed without its pictures made again (python -m tests.docframes) fails."""
    panels, _ = readme_panels
    made = [p.relative_to(tmp_path) for p in make(tmp_path)]
    made += [p.relative_to(panels) for size in SIZES for p in (panels / size).iterdir() if p.suffix in (".png", ".txt")]
    names = {p.as_posix() for p in made}
    committed = {p.relative_to(FRAMES).as_posix() for p in [*FRAMES.rglob("*.png"), *FRAMES.rglob("*.txt")]}
    assert names == committed, (names - committed, committed - names)

    def same(name: str) -> bool:
        path = (panels if "/" in name else tmp_path) / name
        if name.endswith(".txt"):  # the words beside the picture
            return path.read_text(encoding="utf-8") == (FRAMES / name).read_text(encoding="utf-8")
        return _pixels(path) == _pixels(FRAMES / name)

    differ = sorted(n for n in names if not same(n))
    assert differ == [], f"differ from the committed pictures (run python -m tests.docframes): {differ}"
