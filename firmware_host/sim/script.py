"""``tablemate sim --script FILE``: the device on simulated hardware, fed by a script.

One command a line (``docs/commands.md``)::

    start GAME NAME...      start a game with these players (seats p1, p2… in order)
    press BUTTON            a short press (p1..p6, prev, next, ok, back)
    hold BUTTON SECONDS     a long press
    wait SECONDS            let the device run that long
    grams DELTA             change the simulated scale's load by DELTA grams
    action JSON             hand the game one replay action, as if entered on the buttons
    snap LABEL              write the display's frame to DIR/LABEL.png, and its lines to DIR/LABEL.txt

The whole script is checked before anything runs; a bad line stops it with exit status 2 and one
line naming it. Bounds (:mod:`firmware_host.core.limits`): names of 1 to 20 printable characters,
lines of 4,096 characters, a file of 1 MB, ``action`` JSON nested 32 deep; ``wait`` and ``hold``
at most a day (:data:`MAX_SECONDS`), ``grams`` at most ±100 kg (:data:`MAX_GRAMS`).

The session runs on virtual time: ``wait 600`` takes no real time, and every
timer due in those ten minutes fires in order (``--realtime`` plays it at the speed of the clock).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from firmware_host.core.config import BUTTONS, Config
from firmware_host.core.limits import MAX_LINE_CHARS, InputError, check_name, parse_json, quote, read_text
from firmware_host.core.store import Store
from firmware_host.runtime.device import Device
from firmware_host.runtime.vtime import run_virtual
from firmware_host.sim.scale import calibrate_sim_scale
from games import ENGINES
from games.core import T

PRESS_SECONDS = 0.1
"""How long a scripted short press holds the button down."""
SETTLE_SECONDS = 0.05
"""Pause after each scripted press, as a person's finger would."""

MAX_SECONDS = 86400.0
"""The longest ``wait`` or ``hold``: a day of play (longer ones only spin the virtual clock)."""
MAX_GRAMS = 100_000.0
"""The largest ``grams`` change: far past any load cell under a bin."""

_LABEL = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")


class SimScriptError(ValueError):
    """A script line that cannot run: says which line and why."""


@dataclass
class Command:
    """One parsed script line."""

    line: int
    verb: str
    args: tuple[Any, ...]


def _seconds(text: str) -> float:
    value = float(text)
    if not 0 <= value <= MAX_SECONDS:
        raise ValueError
    return value


def parse_line(number: int, text: str) -> Command | None:
    """One line of a script, checked; ``None`` for blanks and comments."""
    if len(text) > MAX_LINE_CHARS:
        raise SimScriptError(f"line {number}: longer than {MAX_LINE_CHARS} characters")
    stripped = text.strip()
    if not stripped or stripped.startswith("#"):
        return None
    verb, _, rest = stripped.partition(" ")
    rest = rest.strip()
    args = rest.split()
    try:
        if verb == "start":
            if len(args) < 2:
                raise SimScriptError("start needs a game and at least one player name")
            if args[0] not in ENGINES:
                raise SimScriptError(f"unknown game {quote(args[0])} (known: {', '.join(ENGINES)})")
            for name in args[1:]:
                try:
                    check_name(name)
                except InputError as exc:
                    raise SimScriptError(f"start: {exc}") from None
            return Command(number, verb, (args[0], tuple(args[1:])))
        if verb == "press":
            if len(args) != 1 or args[0] not in BUTTONS:
                raise SimScriptError(f"press needs one button of {', '.join(BUTTONS)}")
            return Command(number, verb, (args[0],))
        if verb == "hold":
            if len(args) != 2 or args[0] not in BUTTONS:
                raise SimScriptError("hold needs a button and seconds, like: hold back 1.5")
            return Command(number, verb, (args[0], _seconds(args[1])))
        if verb == "wait":
            if len(args) != 1:
                raise SimScriptError("wait needs seconds, like: wait 2.5")
            return Command(number, verb, (_seconds(args[0]),))
        if verb == "grams":
            if len(args) != 1:
                raise SimScriptError("grams needs a change in grams, like: grams 5 or grams -12.5")
            delta = float(args[0])
            if not abs(delta) <= MAX_GRAMS:
                raise ValueError
            return Command(number, verb, (delta,))
        if verb == "action":
            try:
                action = parse_json(rest)
            except json.JSONDecodeError as exc:
                raise SimScriptError(f"action needs a JSON object: {exc.msg}") from None
            except InputError as exc:
                raise SimScriptError(f"action: {exc}") from None
            if not isinstance(action, dict):
                raise SimScriptError("action needs a JSON object")
            return Command(number, verb, (action,))
        if verb == "snap":
            if len(args) != 1 or not _LABEL.match(args[0]):
                raise SimScriptError("snap needs one label of letters, digits, '.', '_' or '-'")
            return Command(number, verb, (args[0],))
    except ValueError as exc:
        if isinstance(exc, SimScriptError):
            raise SimScriptError(f"line {number}: {exc}") from None
        seconds = f"seconds from 0 to {MAX_SECONDS:g}"
        expected = f"grams from {-MAX_GRAMS:g} to {MAX_GRAMS:g}" if verb == "grams" else seconds
        raise SimScriptError(f"line {number}: {verb}: bad number {quote(rest)} ({expected})") from None
    raise SimScriptError(f"line {number}: unknown command {quote(verb)}")


def parse(text: str) -> list[Command]:
    """Every command of a script; raises :class:`SimScriptError` at the first bad line."""
    commands = []
    for number, line in enumerate(text.splitlines(), start=1):
        command = parse_line(number, line)
        if command is not None:
            commands.append(command)
    return commands


def load(path: Path) -> list[Command]:
    """Read and parse a script file; errors name the file and line."""
    try:
        text = read_text(path, "the script")
    except (OSError, UnicodeDecodeError, InputError) as exc:
        raise SimScriptError(f"{path}: cannot read: {getattr(exc, 'strerror', None) or exc}") from None
    try:
        return parse(text)
    except SimScriptError as exc:
        raise SimScriptError(f"{path}: {exc}") from None


class ScriptRunner:
    """Plays parsed commands into a running :class:`Device` on simulated hardware."""

    def __init__(self, device: Device, frames: Path | None) -> None:
        self.device = device
        self.frames = frames
        self.handlers: dict[str, Callable[..., Awaitable[None]]] = {
            "start": self.start,
            "press": self.press,
            "hold": self.hold,
            "wait": self.wait,
            "grams": self.grams,
            "action": self.action,
            "snap": self.snap,
        }

    async def run(self, commands: list[Command]) -> None:
        """Run every command in order."""
        for command in commands:
            if self.device.stop_reason is not None:  # stopped from outside (SIGTERM)
                return
            await self.handlers[command.verb](*command.args)
            await asyncio.sleep(0)

    async def start(self, game: str, names: tuple[str, ...]) -> None:
        """``start GAME NAME...``: a new game, as the menu would start it."""
        self.device.door.start_named(game, list(names))

    async def hold(self, button: str, seconds: float) -> None:
        """``hold BUTTON SECONDS``: press, keep down, release."""
        buttons = self.device.hw.buttons if self.device.hw else None
        if buttons is None:
            return
        buttons.press(button)
        await self._run_for(seconds)
        if self.device.stop_reason is not None:  # stopped from outside mid-press: the pins are closed
            return
        buttons.release(button)
        await asyncio.sleep(SETTLE_SECONDS)

    async def press(self, button: str) -> None:
        """``press BUTTON``: a short press."""
        await self.hold(button, PRESS_SECONDS)

    async def wait(self, seconds: float) -> None:
        """``wait SECONDS``: let the device run (a stop from outside ends the wait)."""
        await self._run_for(seconds)

    async def _run_for(self, seconds: float) -> None:
        """Let the device run for ``seconds``, or until it is stopped from outside."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.device.stopped(), seconds)

    async def grams(self, delta: float) -> None:
        """``grams DELTA``: change the simulated load."""
        scale = self.device.hw.scale if self.device.hw else None
        if scale is not None and hasattr(scale, "grams"):
            scale.grams += delta

    async def action(self, action: dict[str, Any]) -> None:
        """``action JSON``: one replay action, as from the buttons."""
        self.device.door.apply(action)

    async def snap(self, label: str) -> None:
        """``snap LABEL``: save the frame on the display (``LABEL.png``) and the words a player
        reads on it (``LABEL.txt``: one line a row, as drawn)."""
        await self.device.door.flush()
        if self.frames is None:
            return
        image = self.device.door.display.shown
        if image is not None:
            self.frames.mkdir(parents=True, exist_ok=True)
            image.save(self.frames / f"{label}.png")
            lines = self.device.door.lines()
            (self.frames / f"{label}.txt").write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")


def run_script(
    config: Config,
    store: Store,
    commands: list[Command],
    frames: Path | None,
    seed: int | None = None,
    realtime: bool = False,
) -> Device:
    """Run a parsed script (on virtual time unless ``realtime``), then stop as SIGTERM would.

    The simulated scale comes calibrated, as in the interactive simulator, so ``grams`` counts."""
    base = time.time()
    calibrate_sim_scale(store)

    async def main() -> Device:
        loop = asyncio.get_running_loop()
        wall = time.time if realtime else (lambda: base + loop.time())
        simulated = config.with_sim()
        simulated["voice"]["speaker"] = "sim"  # each phrase recorded (on virtual time), written beside the frames
        device = Device(simulated, store, seed=seed, wall=wall, signals_on=realtime)
        if frames is not None:
            from drivers.voice.sim import write_files

            device.door.voice.on_said = lambda recorded: write_files(frames, recorded)
        task = asyncio.create_task(device.run())
        ready = asyncio.create_task(device.ready.wait())
        await asyncio.wait([task, ready], return_when=asyncio.FIRST_COMPLETED)
        if task.done():
            ready.cancel()
            task.result()  # raises what stopped the device
            return device
        try:
            await ScriptRunner(device, frames).run(commands)
        finally:
            device.stop(T("Stopped"))
            await task
        return device

    return asyncio.run(main()) if realtime else run_virtual(main)
