"""The resume part: the game left in the state folder comes back as it was at the stop."""

from __future__ import annotations

from tests.devicekit import run_device
from tests.runtime.test_part_game import first_action


def test_a_game_in_play_at_the_stop_is_resumed_with_its_actions_and_seats(tmp_path):
    async def first(dev):
        dev.start_named("arschbombe", ["Ann", "Ben"])
        for _ in range(3):
            dev.apply(first_action(dev.session.prompt()))
            await dev.flush()
        return list(dev.session.actions), dict(dev.seats)

    actions, seats = run_device(tmp_path, first)

    async def second(dev):
        await dev.resumer.checked.wait()
        return list(dev.session.actions), dict(dev.seats), type(dev.screens[-1]).__name__

    assert run_device(tmp_path, second) == (actions, seats, "GameScreen")


def test_nothing_to_resume_leaves_the_main_menu_and_nothing_to_check(tmp_path):
    async def body(dev):
        return dev.session, dev.resumer.checked.is_set(), type(dev.screens[-1]).__name__

    assert run_device(tmp_path, body) == (None, True, "MainMenu")
