"""The game's life on its own door: start, apply, undo, the result on screen and its filing
(the device builds the parts; every other part is the real one on simulated hardware)."""

from __future__ import annotations

from typing import Any

from firmware_host.ui.menus import GameOver
from games.core import Menu
from tests.devicekit import run_device


def first_action(prompt: Any) -> dict[str, Any] | None:
    """The first action a player could pick from ``prompt`` (walking into sub-menus)."""
    if not isinstance(prompt, Menu):
        return None
    for option in prompt.options:
        if option.action is not None:
            return option.action
        then = option.then() if callable(option.then) else option.then
        found = first_action(then)
        if found is not None:
            return found
    return None


async def play_to_the_end(dev: Any) -> int:
    """Apply the first action offered until the game is over; how many were applied."""
    count = 0
    while dev.game.session is not None and count < 200:
        action = first_action(dev.game.session.prompt())
        assert action is not None
        assert dev.game.apply(action)
        await dev.flush()
        count += 1
    return count


def test_no_game_no_action_and_an_empty_table_is_refused_a_start(tmp_path):
    async def body(dev):
        applied = dev.game.apply({"type": "jump"})
        said = dev.toast_text()
        started = dev.game.start_game("arschbombe", [])
        return applied, said, started, dev.toast_text()

    assert run_device(tmp_path, body) == (False, "No game in play", False, "no seats in play")


def test_the_starting_seat_comes_first_and_the_seats_keep_their_names(tmp_path):
    async def body(dev):
        dev.game.start_game("arschbombe", ["p1", "p2", "p3"], start="p2", names={"p1": "A", "p2": "B", "p3": "C"})
        return list(dev.game.session.base.players), dev.game.player_of("p3"), dev.game.player_of("p4")

    assert run_device(tmp_path, body) == (["B", "C", "A"], "C", None)


def test_while_the_game_is_worked_out_off_the_loop_actions_are_refused_saying_so(tmp_path):
    async def body(dev):
        dev.start_named("arschbombe", ["Ann", "Ben"])
        dev.game.busy = "Undoing…"
        action = first_action(dev.game.session.prompt())
        refused = dev.game.apply(action)
        said = dev.toast_text()
        dev.game.busy = None
        return refused, said, len(dev.game.session.actions)

    assert run_device(tmp_path, body) == (False, "Undoing…", 0)


def test_the_result_stays_unfiled_until_the_table_leaves_it_and_its_last_move_can_be_undone(tmp_path):
    async def body(dev):
        dev.start_named("arschbombe", ["Ann", "Ben"])
        played = await play_to_the_end(dev)
        over = (type(dev.screens[-1]), dev.game.last_result is not None, len(dev.history()))
        dev.game.undo_game_over()
        await dev.flush()
        back = (dev.game.session is not None, len(dev.game.session.actions), dev.game.last_result)
        await play_to_the_end(dev)
        dev.game.home()
        return played, over, back, len(dev.history()), dev.history()[-1]["reason"]

    played, over, back, filed, reason = run_device(tmp_path, body)
    assert over == (GameOver, True, 0)  # on screen, not in the history yet
    assert back == (True, played - 1, None)
    assert filed == 1 and reason == "over"


def test_ending_early_files_the_game_at_once_and_the_history_is_read_again_only_when_it_changed(tmp_path):
    async def body(dev):
        dev.start_named("arschbombe", ["Ann", "Ben"])
        dev.game.end_early()
        first, again = dev.game.history(), dev.game.history()
        dev.start_named("arschbombe", ["Ann", "Ben"])
        dev.game.end_early()
        after = dev.game.history()
        return first is again, len(first), len(after), after[-1]["reason"], dev.game.session

    assert run_device(tmp_path, body) == (True, 1, 2, "abandoned", None)


def test_an_actions_effects_show_only_once_its_write_is_durable(tmp_path):
    async def body(dev):
        dev.start_named("arschbombe", ["Ann", "Ben"])
        await dev.flush()
        sent = dev.display.frames_sent
        assert dev.game.apply(first_action(dev.game.session.prompt()))
        during = (dev.saving.inflight, len(dev.game.events), dev.display.frames_sent == sent)
        await dev.flush()
        return during, dev.saving.inflight, dev.game.events == dev.game.session.outcomes()

    during, inflight, shown = run_device(tmp_path, body)
    assert during == (1, 0, True)  # journaled, not yet durable: nothing of it shows
    assert inflight == 0 and shown
