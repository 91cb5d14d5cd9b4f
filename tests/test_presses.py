"""How many presses a typical turn of each game takes, played from the buttons on the device.

Each test plays one turn the way a table would, on the in-process device (simulated buttons,
virtual time), counts every press (a hold counts once) and checks the game moved as meant. The
README's table of presses quotes these figures.
"""

from __future__ import annotations

from devicekit import presses, run_device

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
