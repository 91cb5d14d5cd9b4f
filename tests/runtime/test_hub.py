"""The hub: a part is added to the device by one line of its parts list, hears the events it
subscribes to, and may bring presses in through the one input seam."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from firmware_host.core import config as configuration
from firmware_host.core.store import Store
from firmware_host.runtime.device import Device
from firmware_host.runtime.events import (
    EVENTS,
    ActionDurable,
    ActionRefused,
    ActionUndone,
    Event,
    GameChanged,
    GameOver,
    PageServing,
    TableReady,
    TableStop,
    TimerCountdown,
    TimerExpired,
    TimerWarning,
    TurnPassed,
)
from firmware_host.runtime.hub import Hub
from tests.devicekit import presses, run_device, screen

JUMP = {"type": "jump", "jumper": "rascal", "special": False, "result": "B"}
"""One legal Arschbombe action (a jump worth 2)."""
GAME = [JUMP] * 6 + [{"type": "jump", "jumper": "diver", "special": False, "result": "touch"}] * 6
"""A whole game of two players: three rascals, then three divers each."""


class Heard:
    """A test part: records every event of the kinds it subscribes to."""

    def __init__(self, *kinds: type[Event]) -> None:
        self.kinds = kinds or tuple(EVENTS.values())
        self.heard: list[Event] = []

    def setup(self, hub: Hub) -> None:
        for kind in self.kinds:
            hub.subscribe(kind, self.heard.append)

    def of(self, kind: type[Event]) -> list[Any]:
        return [e for e in self.heard if isinstance(e, kind)]


class Presser:
    """A test input part: once the table is up, it presses through the one input seam."""

    def __init__(self, *buttons: str) -> None:
        self.buttons = buttons
        self.taken: list[bool] = []

    def setup(self, hub: Hub) -> None:
        self.inputs = hub.lookup("inputs")

    async def task(self) -> None:
        for button in self.buttons:
            await asyncio.sleep(0.5)
            self.taken.append(self.inputs.press(button, "short", "test"))
        await asyncio.Event().wait()  # a long task runs until the device stops


def test_a_part_added_by_one_line_hears_each_durable_action_with_its_effects(tmp_path):
    heard = Heard(ActionDurable)

    async def body(device):
        device.door.start_named("arschbombe", ["Ann", "Ben"])
        await asyncio.sleep(0.1)
        before = len(heard.heard)
        assert device.door.apply(JUMP)
        await asyncio.sleep(0.1)
        return before

    before = run_device(tmp_path, body, parts=[("heard", heard)])
    assert before == 0
    events = heard.of(ActionDurable)
    assert events, "no durable action heard"
    event = events[-1]
    assert len(events) == 1
    assert event.name == "action:durable" and event.game == "arschbombe" and event.language == "en"
    assert event.action == JUMP and event.effects and not event.over
    assert all(e.kind in ("say", "signal") for e in event.effects)
    assert ("Ben", "2") in [(name, str(score)) for name, score in event.view.scores] or event.view.scores


def test_the_events_of_a_game_from_start_to_stop(tmp_path):
    heard = Heard()

    async def body(device):
        device.door.start_named("arschbombe", ["Ann", "Ben"])
        await asyncio.sleep(0.1)
        device.door.apply({"type": "nonsense"})  # refused: the reason is heard
        await asyncio.sleep(0.1)
        return await screen(device)

    run_device(tmp_path, body, parts=[("heard", heard)])
    names = [e.name for e in heard.heard]
    assert names[0] == "game:changed" and names[1] == "table:ready"
    assert heard.of(GameChanged)[1].why == "started" and heard.of(GameChanged)[1].session is not None
    assert heard.of(ActionRefused) and "nonsense" in str(heard.of(ActionRefused)[0].reason)
    assert names[-1] == "table:stop"
    assert isinstance(heard.heard[-1], TableStop) and isinstance(heard.heard[1], TableReady)


def test_a_refusal_heard_by_the_tower_plays_its_signal(tmp_path):
    async def body(device):
        device.door.start_named("arschbombe", ["Ann", "Ben"])
        await asyncio.sleep(0.1)
        seen = len(device.hw.tower.history)
        device.door.apply({"type": "nonsense"})
        await asyncio.sleep(0.05)
        return device.hw.tower.history[seen:]

    states = run_device(tmp_path, body)
    assert any(s.yellow == "blink" for s in states)  # the refusal pattern


def test_an_input_part_added_by_one_line_presses_through_the_one_seam(tmp_path):
    presser = Presser("ok")  # on the main menu: New game

    async def body(device):
        top = type(device.door.screens[-1]).__name__
        await asyncio.sleep(1.0)
        return top, type(device.door.screens[-1]).__name__, device.hub.lookup("inputs").last_source

    before, after, source = run_device(tmp_path, body, parts=[("presser", presser)])
    assert presser.taken == [True]
    assert before == "MainMenu" and after != before and source == "test"


def test_the_simulators_presses_enter_through_the_same_seam_named_for_their_source(tmp_path):
    async def body(device):
        await presses(device, "next")
        return device.hub.lookup("inputs").last_source

    assert run_device(tmp_path, body) == "sim"


def test_an_input_of_no_button_or_kind_is_refused_not_raised(tmp_path):
    async def body(device):
        return device.hub.lookup("inputs").press("p9"), device.hub.lookup("inputs").press("ok", "twice")

    assert run_device(tmp_path, body) == (False, False)


def test_an_undo_and_a_game_over_are_heard(tmp_path):
    heard = Heard(ActionUndone, GameOver, TurnPassed)

    async def body(device):
        device.door.start_named("arschbombe", ["Ann", "Ben"])
        await asyncio.sleep(0.1)
        device.door.apply(JUMP)
        await asyncio.sleep(0.1)
        device.door.undo()
        await asyncio.sleep(0.1)
        for action in GAME:
            assert device.door.apply(action)
            await asyncio.sleep(0.1)
        return device.door.last_result

    result = run_device(tmp_path, body, parts=[("heard", heard)])
    undone = heard.of(ActionUndone)
    assert undone and undone[0].description.startswith("Undone")
    turns = [(t.player, t.seat) for t in heard.of(TurnPassed)]
    # the start names Ann; her jump passes to Ben; the undo gives Ann her turn back; she jumps again
    assert turns[:4] == [("Ann", "p1"), ("Ben", "p2"), ("Ann", "p1"), ("Ben", "p2")]
    over = heard.of(GameOver)
    assert result is not None and len(over) == 1
    assert over[0].entry == result and over[0].view.mood == "over" and over[0].winners == ("Ann", "Ben")


def test_the_turn_timer_warns_counts_down_and_runs_out(tmp_path):
    config = configuration.defaults()
    config.sections["timers"]["sound"] = "off"
    heard = Heard(TimerWarning, TimerCountdown, TimerExpired)
    text = '[timers.arschbombe]\nmode = "turn"\nseconds = 20\n'
    path = tmp_path / "c.toml"
    path.write_text(text, encoding="utf-8")
    config = configuration.load(path)

    async def body(device):
        device.door.start_named("arschbombe", ["Ann", "Ben"])
        await asyncio.sleep(25)

    run_device(tmp_path / "s", body, config=config, parts=[("heard", heard)])
    warning, expired = heard.of(TimerWarning), heard.of(TimerExpired)
    assert len(warning) == 1 and warning[0].player == "Ann" and warning[0].seat == "p1"
    assert 0 < warning[0].seconds_left <= 10
    counted = [e.seconds_left for e in heard.of(TimerCountdown)]
    assert counted and counted == sorted(counted, reverse=True) and counted[-1] == 1.0
    assert len(expired) == 1 and expired[0].player == "Ann" and not expired[0].hard


def test_a_name_is_added_once_and_a_name_not_added_fails_loudly():
    hub = Hub()
    hub.add("a", object())
    with pytest.raises(ValueError):
        hub.add("a", object())
    with pytest.raises(KeyError, match="no part named 'b'"):
        hub.lookup("b")


def test_a_listener_that_fails_does_not_stop_the_others():
    hub = Hub()
    heard: list[Event] = []

    def broken(event: Event) -> None:
        raise RuntimeError("a bug in a listener")

    hub.subscribe(TableReady, broken)
    hub.subscribe(TableReady, heard.append)
    hub.publish(TableReady())
    assert heard == [TableReady()]


def test_the_page_is_a_part_the_device_starts_once_up_and_closes_at_its_stop(tmp_path):
    import aiohttp

    config = configuration.defaults().with_sim()
    config.sections["web"].update(enabled=True, bind="127.0.0.1", port=0)
    heard = Heard(PageServing, TableReady, TableStop)

    async def main() -> tuple[int, bool]:
        device = Device(config, Store(tmp_path), seed=1, served=True, extra=[("heard", heard)])
        task = asyncio.create_task(device.run())
        await asyncio.wait_for(device.ready.wait(), 60)
        for _ in range(600):
            if heard.of(PageServing):
                break
            await asyncio.sleep(0.05)
        url = f"http://127.0.0.1:{heard.of(PageServing)[0].port}/"
        async with aiohttp.ClientSession() as session, session.get(url) as r:
            status = r.status
        device.stop()
        await task
        try:
            async with aiohttp.ClientSession() as session, session.get(url) as r:
                still = True
        except aiohttp.ClientConnectionError:
            still = False
        return status, still

    status, still = asyncio.run(main())
    assert status == 200 and not still
    assert [type(e) for e in heard.heard] == [TableReady, PageServing, TableStop]


def test_a_resumed_game_is_heard_with_whose_turn_it_is(tmp_path):
    async def play(device):
        device.door.start_named("arschbombe", ["Ann", "Ben"])
        await asyncio.sleep(0.1)
        device.door.apply(JUMP)
        await asyncio.sleep(0.1)

    run_device(tmp_path, play)
    heard = Heard(GameChanged, TurnPassed)

    async def nothing(device):
        await asyncio.sleep(0.1)

    run_device(tmp_path, nothing, parts=[("heard", heard)])
    assert [e.name for e in heard.heard[:2]] == ["game:changed", "turn:passed"]
    assert heard.heard[0].why == "resumed" and (heard.heard[1].player, heard.heard[1].seat) == ("Ben", "p2")
