"""What the last move brought stays on screen, and whoever must act is marked (issue 22).

Each test plays on the simulated device from its buttons (or hands it the very actions they make)
and reads the frame as a player would: every panel size, English and German.
"""

from __future__ import annotations

import pytest

from firmware_host.core import config as configuration
from firmware_host.core.i18n import set_language, tr
from firmware_host.ui.render import watch
from tests.devicekit import presses, run_device, screen

PANELS = ("ssd1306", "ssd1322", "sh1107")
"""128×64, 256×64 and 128×128."""
LANGUAGES = ("en", "de")
FOUR = {"p1": "Ann", "p2": "Ben", "p3": "Cy", "p4": "Dora"}


def config(kind: str, language: str) -> configuration.Config:
    return configuration.parse({"display": {"kind": kind, "language": language}}, "config.toml")


@pytest.fixture(autouse=True)
def english_after():
    yield
    set_language("en")


def rows(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines()]


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("kind", PANELS)
def test_bomb_shows_the_dice_of_the_roll_that_ends_the_round_beside_every_life(tmp_path, kind, language):
    """4 seats, the cards recorded, one defuser rolls on ``ok``: the next reveal still shows that
    roll's totals, its outcome and its dice, and the message hides no row of lives."""

    async def body(device):
        device.start_game("bomb", list(FOUR), "p1", names=FOUR)
        device.apply({"type": "reveal", "cards": {"Ann": "1", "Ben": "5", "Cy": "5", "Dora": "5"}})
        await presses(device, "ok")  # Ann rolls the two dice in the centre (seeded)
        state = device.session.state
        shown = await screen(device)
        return shown, [tr(line) for line in device.session.engine._roll_lines(state)], dict(state.lives)

    with watch() as overflows:
        shown, roll, lives = run_device(tmp_path, body, config(kind, language))
    assert not overflows, overflows
    assert "Ann" in roll[0] and ("B" in roll[0] and ("F" in roll[0] or "Z" in roll[0]))
    text = rows(shown)
    assert roll[0] in text and roll[1] in text, shown  # the totals and outcome, and each die
    scores = " | ".join(text)
    for name, left in lives.items():
        assert f"{name} {left}" in scores, shown  # every row of lives
