"""Writes a whole game as a ``.sim`` script: a seeded player at the buttons of a simulated device.

The writer plays the real device in-process on virtual time and notes each press it makes, as a
person at the table would make it (``next``/``prev`` then ``ok``, seat taps and holds, ``ok`` on a
question), with a ``snap`` after every change of the game. The script it writes then plays the
same game through ``tablemate sim --script FILE --frames DIR --seed SEED``. The committed scripts
in ``tests/data/`` were written by it::

    .venv/bin/python -m tests.scriptwriter tonne 5 Ann Ben Cy > tests/data/tonne_game.sim
"""

from __future__ import annotations

import asyncio
import random
import sys
import tempfile
from pathlib import Path

from firmware_host.core import config as configuration
from firmware_host.core.store import Store
from firmware_host.runtime.device import Device
from firmware_host.runtime.vtime import run_virtual
from firmware_host.sim.script import ScriptRunner
from firmware_host.ui.base import Confirm
from firmware_host.ui.game import COUNT_STEP, GameScreen
from games.core import Collect, Menu, Order, Task

MAX_STEPS = 400
SESSION_STEPS = 60
"""A drinking-game session does not end by itself: after this many steps the table ends it."""


def write_game(game: str, seed: int, names: list[str]) -> str:
    """The script of one whole game of ``game`` played by a player seeded with ``seed``."""
    rng = random.Random(seed)
    lines = [
        f"# A whole game of {game}, written by tests/scriptwriter.py (seed {seed}) from the buttons only.",
        f"# Run: tablemate sim --script tests/data/{game}_game.sim --frames FRAMES --state-dir STATE --seed {seed}",
        f"start {game} {' '.join(names)}",
        "snap 000-start",
    ]

    async def main() -> None:
        loop = asyncio.get_running_loop()
        with tempfile.TemporaryDirectory() as state:
            config = configuration.defaults().with_sim()
            device = Device(config, Store(Path(state)), seed=seed, wall=lambda: 1_700_000_000 + loop.time())
            task = asyncio.create_task(device.run())
            await device.ready.wait()
            run = ScriptRunner(device, None)
            await run.start(game, tuple(names))
            seat_of = {p: s for s, p in device.door.seats.items()}

            async def emit(*steps: str) -> None:
                for step in steps:
                    lines.append(step)
                    verb, *args = step.split()
                    if verb == "press":
                        await run.press(args[0])
                    elif verb == "hold":
                        await run.hold(args[0], float(args[1]))
                    else:
                        await run.wait(float(args[0]))

            snaps = 0
            try:
                for step in range(MAX_STEPS):
                    if device.door.session is not None and step == SESSION_STEPS and "end" in _confirms(device):
                        lines.append("# the table ends the session from the game menu, and says yes when asked")
                        await emit("press back")
                        labels = [item.label for item in device.door.screens[-1].items()]
                        end = next(i for i, label in enumerate(labels) if label.startswith("End session"))
                        await emit(*["press next"] * end, "press ok")
                        lines.append(f"snap {snaps + 1:03d}-asked")
                        await device.door.flush()
                        await emit("press ok")
                    before = _mark(device)
                    top = device.door.screens[-1]
                    if device.door.session is None:
                        break
                    if isinstance(top, Confirm):
                        await emit("press ok")
                    elif not isinstance(top, GameScreen):
                        await emit("press back")
                    else:
                        await _play(top, rng, seat_of, emit)
                    await device.door.flush()
                    if _mark(device) != before:
                        snaps += 1
                        lines.append(f"snap {snaps:03d}-{_label(device)}")
                lines.append("wait 2")
                lines.append("snap zzz-game-over")
            finally:
                device.stop()
                await task

    run_virtual(main)
    return "\n".join(lines) + "\n"


def _mark(device: Device) -> tuple | None:
    """What changes when the game does: its actions and its journal's last record."""
    session = device.door.session
    return (len(session.actions), session.journal.records[-1:]) if session is not None else None


def _confirms(device: Device) -> set[str]:
    session = device.door.session
    return set(session.engine.confirm) if session is not None else set()


def _label(device: Device) -> str:
    if device.door.session is None:
        return "over"
    top = device.door.screens[-1]
    prompt = top.prompt if isinstance(top, GameScreen) else None
    return type(prompt).__name__.lower() if prompt is not None else type(top).__name__.lower()


async def _play(screen: GameScreen, rng: random.Random, seat_of: dict[str, str], emit) -> None:
    prompt = screen.prompt
    if isinstance(prompt, Task):
        await emit("press ok")
    elif isinstance(prompt, Collect) and prompt.counting:  # cards on the table: one hold each
        for player in prompt.players:
            if player in screen.locked:
                continue
            index = rng.randrange(min(6, len(prompt.values[player])))
            seat = seat_of[player]
            await emit(f"press {seat}" if index == 0 else f"hold {seat} {(index + 0.5) * COUNT_STEP:g}")
        if screen.locked >= set(prompt.players):
            await emit("press ok")  # every card checked against the table's: on
    elif isinstance(prompt, Collect):
        for player in prompt.players:
            if player in screen.locked:
                continue
            await _answer(prompt, player, rng, seat_of, emit)
            if screen.prompt is not prompt:  # each answer its own action: the prompt moved on
                return
    elif isinstance(prompt, Order):
        for player in rng.sample(list(prompt.players), len(prompt.players)):
            await emit(f"press {seat_of[player]}")
    elif isinstance(prompt, Menu):
        side = screen.path[0].side
        if side is not None and side.players and rng.random() < 0.25:  # a bet out of turn
            await _answer(side, rng.choice(side.players), rng, seat_of, emit)
            return
        menu = screen.path[-1]
        options = menu.options
        target = 0 if rng.random() < 0.6 else rng.randrange(len(options))
        seat = seat_of.get(menu.player) if menu.player else None
        if seat and rng.random() < 0.3:  # the acting player's own button: taps move, a hold picks
            taps = (target - screen.index) % len(options)
            await emit(*[f"press {seat}"] * taps, f"hold {seat} 1")
        else:
            step = "next" if target >= screen.index else "prev"
            await emit(*[f"press {step}"] * abs(target - screen.index), "press ok")
    else:
        await emit("wait 1")


async def _answer(prompt: Collect, player: str, rng: random.Random, seat_of: dict[str, str], emit) -> None:
    """``player`` taps to an answer on their own button and holds to lock it."""
    seat = seat_of[player]
    values = prompt.values[player]
    taps = 1 + (0 if rng.random() < 0.5 else rng.randrange(min(4, len(values))))
    if prompt.default is not None and values[(taps - 1) % len(values)] == prompt.default and len(values) > 1:
        taps += 1  # an answer out of turn is a real one (the default comes with the chooser's pick)
    await emit(*[f"press {seat}"] * taps, f"hold {seat} 1")


def main(argv: list[str] | None = None) -> int:
    """``python -m tests.scriptwriter GAME SEED NAME...``: the script on stdout."""
    args = argv if argv is not None else sys.argv[1:]
    if len(args) < 4:
        print(__doc__, file=sys.stderr)
        return 2
    sys.stdout.write(write_game(args[0], int(args[1]), args[2:]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
