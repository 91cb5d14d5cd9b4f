"""How many presses a typical turn of each game takes, played from the buttons on the device.

Each test plays one turn the way a table would, on the in-process device (simulated buttons,
virtual time), counts every press (a hold counts once) and checks the game moved as meant. The
README's table of presses quotes these figures.
"""

from __future__ import annotations

from devicekit import presses, run_device


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
