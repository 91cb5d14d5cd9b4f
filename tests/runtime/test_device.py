"""The device as players meet it: menus, a whole game on the buttons, undo, resume, stop."""

from __future__ import annotations

import asyncio

import pytest

from firmware_host.core import config as configuration
from firmware_host.core.session import Session
from firmware_host.core.store import Store
from games import ENGINES
from tests.devicekit import choose_game, pixels, presses, run_device, screen


@pytest.fixture
def probe_game(monkeypatch):
    monkeypatch.setitem(ENGINES, "probe", "tests.probe_game")


def named_config(**names: str) -> configuration.Config:
    c = configuration.defaults()
    c.sections["table"]["names"] = names
    return c


def test_new_game_from_the_menus_with_chosen_seats_and_start_player(tmp_path):
    async def body(dev):
        assert "New game" in await screen(dev)
        await choose_game(dev, "Arschbombe")
        await presses(dev, "p3", "p4")  # seats p3, p4 out
        assert "2 players" in await screen(dev)
        await presses(dev, "ok", "p2")  # who starts: Ben's own button
        return dev.session.summary

    summary = run_device(tmp_path, body, named_config(p1="Ann", p2="Ben", p3="Cy", p4="Dee"))
    assert summary["players"] == ["Ben", "Ann"] and summary["turn"] == "Ben"


def test_too_many_seats_for_the_game_is_refused_on_screen(tmp_path):
    async def body(dev):
        await choose_game(dev, "Arschbombe")
        await presses(dev, "p5", "p6", "ok")
        text = await screen(dev)
        return text, dev.session

    text, session = run_device(tmp_path, body)
    assert "2-4 players" in text and session is None


def test_a_whole_arschbombe_game_on_the_buttons_ends_in_the_history(tmp_path):
    async def body(dev):
        dev.start_named("arschbombe", ["Ann", "Ben"])
        for _ in range(12):
            await presses(dev, "ok", "ok")  # first jumper and style (rascal normal), first result
        return await screen(dev)

    final = run_device(tmp_path, body)
    assert "Winner" in final or "Shared" in final
    history = Store(tmp_path).history()
    assert len(history) == 1 and history[0]["reason"] == "over"
    assert history[0]["scores"] == {"Ann": 3 * 3 + 3, "Ben": 3 * 3 + 3} or history[0]["winners"]


def test_seat_buttons_walk_and_pick_for_the_acting_player_only(tmp_path):
    async def body(dev):
        dev.start_named("arschbombe", ["Ann", "Ben"])
        await presses(dev, "p2")  # Ben is not acting
        assert "Ann's turn" in await screen(dev)
        await presses(dev, "p1", "p1")  # Ann: past "Rascal special" to "Diver"
        assert "Diver" in await screen(dev)
        await presses(dev, "p1!", "p1!")  # hold: pick diver (normal), clean
        return dev.session.summary

    summary = run_device(tmp_path, body)
    assert summary["scores"]["Ann"] == 1 and summary["left"]["Ann"]["diver"] == 2


def test_back_steps_out_of_a_sub_menu_then_opens_the_game_menu(tmp_path):
    async def body(dev):
        dev.start_named("arschbombe", ["Ann", "Ben"])
        await presses(dev, "next", "next", "ok")  # into Diver
        assert "Ann: dive" in await screen(dev)
        await presses(dev, "back")
        text = await screen(dev)
        assert "Diver" in text and "3/4" in text  # back where we were
        await presses(dev, "back")
        return await screen(dev)

    assert "Game menu" in run_device(tmp_path, body)


def test_long_back_asks_then_undoes_the_last_action(tmp_path):
    async def body(dev):
        dev.start_named("arschbombe", ["Ann", "Ben"])
        await presses(dev, "ok", "ok", "ok")
        assert dev.session.summary["scores"]["Ann"] == 3
        await presses(dev, "back!")
        assert "Take back" in await screen(dev)
        await presses(dev, "ok")
        return dev.session.summary

    summary = run_device(tmp_path, body)
    assert summary["scores"]["Ann"] == 0 and summary["turn"] == "Ann"
    assert Session.resume(Store(tmp_path)).summary == summary


def test_end_game_early_from_the_game_menu(tmp_path):
    async def body(dev):
        dev.start_named("arschbombe", ["Ann", "Ben"])
        await presses(dev, "ok", "ok", "back")  # one jump (two choices), then the game menu
        for _ in range(6):  # Continue, What happened, Undo, Settings, Self-test, Main menu, End game early
            await presses(dev, "next")
        assert "End game early" in await screen(dev)
        await presses(dev, "ok", "ok")
        return await screen(dev)

    text = run_device(tmp_path, body)
    assert "Ended early" in text
    assert Store(tmp_path).history()[0]["reason"] == "abandoned"
    assert Session.resume(Store(tmp_path)) is None


def test_an_unfinished_game_resumes_at_boot(tmp_path):
    async def first(dev):
        dev.start_named("arschbombe", ["Ann", "Ben"])
        await presses(dev, "ok", "ok", "ok")
        return dev.session.summary

    async def second(dev):
        return dev.session.summary if dev.session else None, await screen(dev)

    before = run_device(tmp_path, first)
    after, text = run_device(tmp_path, second)
    assert after == before and "Ben: jump 1/6" in text


def test_a_refused_action_shows_the_reason_and_changes_nothing(tmp_path):
    async def body(dev):
        dev.start_named("arschbombe", ["Ann", "Ben"])
        ok = dev.apply({"type": "jump", "jumper": "diver", "result": "A"})
        return ok, await screen(dev), dev.lights.showing, dev.session.actions

    ok, text, light, actions = run_device(tmp_path, body)
    assert not ok and "cannot land 'A'" in text and actions == []
    assert light.yellow == "blink"  # the refusal signal


def test_the_screen_dims_when_idle_and_wakes_on_a_button(tmp_path):
    async def body(dev):
        await asyncio.sleep(179)
        assert not dev.dimmed
        await asyncio.sleep(2)
        assert dev.dimmed
        await presses(dev, "next")
        return dev.dimmed

    assert run_device(tmp_path, body) is False


def test_the_picture_moves_against_burn_in_but_only_redraws_on_change(tmp_path):
    async def body(dev):
        await dev.flush()
        first = dev.display.shown.tobytes()
        sent = dev.display.frames_sent
        await asyncio.sleep(30)
        assert dev.display.frames_sent == sent  # nothing changed: nothing sent
        await asyncio.sleep(31)
        await dev.flush()
        return first, dev.display.shown.tobytes()

    first, later = run_device(tmp_path, body)
    assert first != later


def test_stop_leaves_a_stopped_frame_on_the_panel(tmp_path):
    devices = []

    async def body(dev):
        devices.append(dev)
        dev.start_named("arschbombe", ["Ann", "Ben"])

    run_device(tmp_path, body)
    dev = devices[0]
    assert dev.screens[-1].text == "Stopped"
    assert dev.display.shown is not None and dev.display.device.persist
    assert dev.hw.tower.state.describe() == "R- Y- G- B-"


def test_a_dead_display_degrades_and_the_game_goes_on(tmp_path):
    async def body(dev):
        dev.start_named("arschbombe", ["Ann", "Ben"])
        await dev.flush()

        def broken(*_):
            raise OSError(121, "Remote I/O error")

        dev.display.device.display = broken
        await presses(dev, "ok", "ok", "ok")
        await asyncio.sleep(0.5)
        return dev.display.status, dev.session.summary["scores"]["Ann"]

    status, score = run_device(tmp_path, body)
    assert status == "degraded" and score == 3


def test_self_test_shows_presses_and_runs_the_tower(tmp_path):
    async def body(dev):
        await presses(dev, "next", "next", "next", "ok")
        assert "Self-test" in await screen(dev)
        await presses(dev, "p3", "p5!", "ok")
        text = await screen(dev)
        await asyncio.sleep(0.7)
        light = dev.lights.showing
        await presses(dev, "back!")
        return text, light, await screen(dev)

    text, light, after = run_device(tmp_path, body)
    assert "p3." in text and "p5!" in text and "Scale:" in text  # . short, ! long
    assert light.yellow == "on"  # second step of the tower test
    assert "New game" in after


def test_settings_change_sound_and_brightness_and_are_kept(tmp_path):
    async def body(dev):
        await presses(dev, "next", "next", "ok", "ok", "next", "ok")
        return dict(dev.settings)

    settings = run_device(tmp_path, body)
    assert settings["sound"] is False and settings["brightness"] == 255
    assert Store(tmp_path).read_doc("settings") == {"brightness": 255, "sound": False}


def test_cards_turned_up_are_entered_openly_and_kept_across_a_power_cut(tmp_path, probe_game):
    # the honest model: the table turns its cards face up first; the device records them in the open
    async def first(dev):
        dev.start_named("probe", ["Ann", "Ben", "Cy"])
        await presses(dev, "p1", "p1", "p1!")  # Ann: 2, locked
        await presses(dev, "p2")  # Ben: 1, not locked
        text = await screen(dev)
        assert "Ann [2]" in text and "Ben 1?" in text and "Cy ..." in text
        return dev.session.actions

    assert run_device(tmp_path, first) == []

    async def second(dev):
        text = await screen(dev)
        assert "Ann [2]" in text and "Ben 1?" in text  # the picks so far survived
        await presses(dev, "p2", "p2!", "p3", "p3", "p3", "p3!")  # Ben 2 — a tie with Ann —, Cy 3
        assert "Tie" in await screen(dev)
        await presses(dev, "p2", "back", "p2", "p1", "p3")  # back takes a press back
        return dev.session.actions

    actions = run_device(tmp_path, second)
    assert actions[0] == {"type": "reveal", "cards": {"Ann": 2, "Ben": 2, "Cy": 3}}
    assert actions[1] == {"type": "order", "players": ["Ben", "Ann", "Cy"]}


def test_a_locked_pick_can_be_unlocked_and_changed(tmp_path, probe_game):
    async def body(dev):
        dev.start_named("probe", ["Ann", "Ben"])
        await presses(dev, "p1", "p1!", "p1")
        assert "hold to unlock" in await screen(dev)
        await presses(dev, "p1!", "p1", "p1!", "p2", "p2", "p2", "p2!")
        return dev.session.actions

    assert run_device(tmp_path, body)[0]["cards"] == {"Ann": 2, "Ben": 3}


def test_a_bug_in_a_screen_does_not_stop_the_device(tmp_path):
    async def body(dev):
        dev.start_named("arschbombe", ["Ann", "Ben"])

        def broken(press):
            raise RuntimeError("bug")

        dev.screens[-1].press = broken
        await presses(dev, "ok")
        text = await screen(dev)
        await presses(dev, "ok", "ok", "ok")
        return text, dev.session.summary["scores"]["Ann"]

    text, score = run_device(tmp_path, body)
    assert "Internal error" in text and score == 3


def test_games_whose_rules_pick_the_starter_skip_who_starts(tmp_path):
    async def body(dev):
        await choose_game(dev, "Ab in die Tonne")
        await presses(dev, "ok")  # seats p1..p4: the cards decide who begins
        return dev.session.summary["players"] if dev.session else await screen(dev)

    assert run_device(tmp_path, body) == ["P1", "P2", "P3", "P4"]


def test_a_new_message_replaces_a_stale_one_and_one_moment_shows_together(tmp_path):
    async def body(dev):
        dev.toast("first")
        dev.toast("second")  # the same moment: shown together, not queued behind
        dev.toast("first")  # a repeat is not added again
        seen = [dev.toast_text()]
        await asyncio.sleep(1.0)
        dev.toast("third")  # later: replaces, no waiting for the first to finish
        seen.append(dev.toast_text())
        dev.refuse("not now")
        seen.append(dev.toast_text())
        await asyncio.sleep(2.6)
        seen.append(dev.toast_text())
        return seen

    assert run_device(tmp_path, body) == ["first · second", "third", "not now", None]


def test_the_self_test_follows_the_scale_without_a_press(tmp_path):
    async def body(dev):
        await presses(dev, "next", "next", "next", "ok")
        await asyncio.sleep(2)
        before = pixels(dev)
        dev.hw.scale.grams += 500
        await asyncio.sleep(2)
        return before, pixels(dev)

    before, after = run_device(tmp_path, body)
    assert before != after


def test_a_game_that_cannot_start_leaves_the_game_in_play_alone(tmp_path):
    async def body(dev):
        dev.start_named("arschbombe", ["Ann", "Ben"])
        await presses(dev, "ok", "ok", "ok")
        started = dev.start_named("arschbombe", ["Solo"])
        return started, dev.session.summary["scores"]["Ann"], await screen(dev)

    started, score, text = run_device(tmp_path, body)
    assert not started and score == 3 and "not 1" in text
    assert Store(tmp_path).history() == []


def test_driver_threads_reach_the_device_through_post(tmp_path):
    import threading

    async def body(dev):
        seen = []
        thread = threading.Thread(target=dev.post, args=(lambda: seen.append(threading.get_ident()),))
        thread.start()
        thread.join()
        dev.post(lambda: seen.append(threading.get_ident()))  # from the loop's own thread too
        for _ in range(100):
            if len(seen) == 2:
                break
            await asyncio.sleep(0.01)
        return seen, threading.get_ident()

    seen, loop_thread = run_device(tmp_path, body)
    assert seen == [loop_thread, loop_thread]  # both ran on the loop


def test_the_scale_is_read_only_while_a_screen_or_a_weighing_game_wants_it(tmp_path):
    async def body(dev):
        seen = [dev.scale.reading]  # main menu: powered down
        await presses(dev, "next", "next", "next", "ok")  # Self-test shows the reading
        await asyncio.sleep(1)
        seen.append(dev.scale.reading)
        await presses(dev, "back!")  # leave it
        seen.append(dev.scale.reading)
        dev.start_named("tonne", ["Ann", "Ben"])
        seen.append(dev.scale.reading)
        dev.end_early()
        seen.append(dev.scale.reading)
        return seen

    assert run_device(tmp_path, body) == [False, True, False, True, False]
