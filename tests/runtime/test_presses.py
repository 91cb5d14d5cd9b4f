"""How many presses a typical turn of each game takes, played from the buttons on the device.

Each test plays one turn the way a table would, on the in-process device (simulated buttons,
virtual time), counts every press (a hold counts once) and checks the game moved as meant. The
docs/measured.md's table of presses quotes these figures.
"""

from __future__ import annotations

import asyncio

from tests.devicekit import pixels, presses, run_device, screen

SEED = 2
"""The device's seed for Antartik: its pile lets three cards be drawn without a belly flop."""


class Counter:
    """Presses made so far, through :func:`devicekit.presses`."""

    def __init__(self, device) -> None:
        self.device = device
        self.count = 0

    async def __call__(self, *buttons: str) -> None:
        self.count += len(buttons)
        await presses(self.device, *buttons)


def test_arschbombe_a_rascal_landing_part_cover_takes_3_presses(tmp_path):
    async def body(dev):
        dev.start_named("arschbombe", ["Ann", "Ben", "Cy"])
        press = Counter(dev)
        await press("ok")  # Rascal (normal), the first line
        await press("next", "ok")  # B part cover
        return press.count, dev.session.actions

    count, actions = run_device(tmp_path, body)
    assert actions == [{"type": "jump", "jumper": "rascal", "special": False, "result": "B"}]
    assert count == 3


def test_antartik_three_draws_and_a_stop_take_5_presses_for_the_whole_table(tmp_path):
    """Nobody bets: the diver's pick passes for the others, so a card is one press."""
    for players in (["Ann", "Ben", "Cy"], ["Ann", "Ben", "Cy", "Dee", "Eve"]):

        async def body(dev, players=players):
            dev.start_named("antartik", players)
            press = Counter(dev)
            await press("ok", "ok", "ok")  # Draw, three times: everyone else passes each time
            await press("next", "ok")  # Stop, the line after Draw
            return press.count, dev.session.actions

        count, actions = run_device(tmp_path / str(len(players)), body, seed=SEED)
        kinds = [a["type"] for a in actions]
        assert kinds == (["pass"] * (len(players) - 1) + ["draw"]) * 3 + ["pass"] * (len(players) - 1) + ["stop"]
        assert count == 5  # three cards: at most 2 a card


def test_trottel_a_turn_is_one_press_and_a_taxi_to_the_spielothek_three(tmp_path):
    async def body(dev):
        dev.start_named("trottel", ["Ann", "Ben", "Cy"])
        press = Counter(dev)
        await press("ok")  # Roll dice
        turn = press.count
        for _ in range(20):  # rolls from the script until someone lands on the Taxi (field 15)
            summary = dev.session.summary
            if summary["pending"] == "taxi":
                break
            d = 15 - summary["positions"][summary["turn"]]
            a = max(1, d - 6)
            dev.apply({"type": "roll", "dice": [a, d - a] if 3 <= d <= 11 and a != d - a else [1, 2]})
        assert dev.session.summary["pending"] == "taxi"
        press.count = 0
        await press("prev", "prev", "ok")  # by kind, nearest ahead first: the Spielothek is second from the end
        return turn, press.count, dev.session.actions

    turn, taxi, actions = run_device(tmp_path, body)
    assert actions[0]["type"] == "roll" and "dice" not in actions[0]
    assert actions[-1] == {"type": "taxi", "to": 12}
    assert turn == 1 and taxi == 3


def held(index: int) -> float:
    """Seconds a seat is held to record the value at ``index`` (the count steps every COUNT_STEP)."""
    from firmware_host.ui.game import COUNT_STEP

    return (index + 0.5) * COUNT_STEP


async def hold(dev, button: str, seconds: float) -> None:
    dev.hw.buttons.press(button)
    await asyncio.sleep(seconds)
    dev.hw.buttons.release(button)
    await asyncio.sleep(0.05)


def test_bomb_a_reveal_is_one_hold_a_player_and_the_defuser_rolls_with_one_press(tmp_path):
    async def body(dev):
        dev.start_named("bomb", ["Ann", "Ben", "Cy"])
        count = 0
        for seat, card in (("p1", 4), ("p2", 2), ("p3", 7)):  # the cards shown on the table
            await hold(dev, seat, held(card))
            count += 1
        await dev.flush()
        shown = dev.session.actions[:]
        await Counter(dev)("ok")  # every card checked against the table's: the table's one press
        count += 1
        assert shown == []  # the last card could still be mended
        reveal = dev.session.actions[-1]
        press = Counter(dev)
        await press("ok")  # Ben, the lowest card, rolls
        return count, press.count, reveal, dev.session.actions[-1]

    reveal_presses, defuse_presses, reveal, roll = run_device(tmp_path, body)
    assert reveal == {"type": "reveal", "cards": {"Ann": "4", "Ben": "2", "Cy": "7"}}
    assert roll == {"type": "roll", "player": "Ben"}
    assert reveal_presses == 4 and defuse_presses == 1  # targets: 2 a player, 1 a defuser


def test_tonne_a_card_of_5_is_one_hold_and_the_scale_counts_the_pieces(tmp_path):
    from firmware_host.core.store import Store
    from firmware_host.sim.scale import sim_calibration
    from firmware_host.ui.calibrate import kind_labels

    Store(tmp_path).write_doc("scale", sim_calibration(list(kind_labels())))

    async def body(dev):
        dev.start_named("tonne", ["Ann", "Ben"])
        await asyncio.sleep(3)
        dev.hw.scale.grams = 60.0  # the table fills the bin: the scale confirms it
        await asyncio.sleep(12)
        await hold(dev, "p1", held(4))  # Ann's 5 (the fifth of the cards 1..10)
        await hold(dev, "p2", held(7))  # Ben's 8
        await hold(dev, "ok", 0.1)  # both cards checked: on
        await asyncio.sleep(3)
        for _ in range(5):  # Ann puts five pieces in, one by one
            dev.hw.scale.grams += 5.0
            await asyncio.sleep(4)
        return dev.session.actions, dev.session.summary

    actions, summary = run_device(tmp_path, body)
    assert actions[0] == {"type": "reveal", "cards": {"Ann": 5, "Ben": 8}}
    assert sum(a.get("count", 0) for a in actions if a["type"] == "place") == 5
    assert summary["turn"] == "Ben"  # Ann's turn took her one press (the hold), the scale the rest


def test_a_held_seat_shows_its_count_going_up_and_letting_go_records_it(tmp_path):
    async def body(dev):
        dev.start_named("bomb", ["Ann", "Ben"])
        dev.hw.buttons.press("p1")
        shown, drawn = [], []
        for _ in range(3):
            await asyncio.sleep(0.5)
            drawn.append(pixels(dev))  # the panel itself redraws while the button is down
            shown.append(await screen(dev))
        dev.hw.buttons.release("p1")
        await asyncio.sleep(0.05)
        return shown, await screen(dev), drawn

    shown, after, drawn = run_device(tmp_path, body)
    assert len(set(drawn)) == 3
    assert ["Ann 1<" in shown[0], "Ann 2<" in shown[1], "Ann 3<" in shown[2]] == [True, True, True]
    assert "Ann [3]" in after  # recorded in the open
