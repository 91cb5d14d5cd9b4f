"""The resume part: the game left in the state folder comes back as it was at the stop."""

from __future__ import annotations

from tests.devicekit import run_device
from tests.runtime.test_part_game import first_action


def test_a_game_in_play_at_the_stop_is_resumed_with_its_actions_and_seats(tmp_path):
    async def first(dev):
        dev.door.start_named("arschbombe", ["Ann", "Ben"])
        for _ in range(3):
            dev.door.apply(first_action(dev.door.session.prompt()))
            await dev.door.flush()
        return list(dev.door.session.actions), dict(dev.door.seats)

    actions, seats = run_device(tmp_path, first)

    async def second(dev):
        await dev.hub.lookup("resume").checked.wait()
        return list(dev.door.session.actions), dict(dev.door.seats), type(dev.door.screens[-1]).__name__

    assert run_device(tmp_path, second) == (actions, seats, "GameScreen")


def test_nothing_to_resume_leaves_the_main_menu_and_nothing_to_check(tmp_path):
    async def body(dev):
        return dev.door.session, dev.hub.lookup("resume").checked.is_set(), type(dev.door.screens[-1]).__name__

    assert run_device(tmp_path, body) == (None, True, "MainMenu")
