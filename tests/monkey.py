"""The UI monkey: seeded random presses, holds, waits and scale steps on a whole simulated device.

It plays the real :class:`~firmware_host.runtime.device.Device` in-process on virtual time (the
buttons are gpiozero mock pins, the scale the simulated HX711 chip), over all five games with 2–6
seats and long and short names, and over every menu a press can reach (History, Settings,
Self-test, the game menu, undo). It fails a run on

- any logged error or exception, and any frame that says "Internal error";
- any text drawn outside its box or cut without intent, a character the font cannot draw, or a
  row that does not fit on the panel (:func:`firmware_host.ui.render.watch`);
- a journal that, opened again as a power cut would leave it, does not replay to the summary of
  the game on screen;
- a game screen that waits for exactly one player (a menu of theirs, an order or answers only
  they give) and does not mark that player alone with ``>`` (:func:`unmarked`);
- a game screen that does not show, whole, a line its game marks as needed by the rules
  (:attr:`games.core.View.needed`: the bets riding, the supply, the order of play, a card drawn),
  its players' names allowed shortened (:func:`missing_needed`).

The suite runs a bounded slice (``tests/runtime/test_monkey.py``), a few runs of it on the bigger panels
and with the longest names the config allows; a longer campaign, over the panels, languages and
namings asked for::

    .venv/bin/python -m tests.monkey --runs 24 --presses 1500 --panel ssd1306 ssd1322 sh1107 \\
        --language en de --names both

and the whole grid of the panels, both languages and 2 to 6 seats with the longest names::

    .venv/bin/python -m tests.monkey --runs 4 --presses 1500 --panel ssd1306 ssd1322 sh1107 \\
        --language en de --names longest --seats 2 3 4 5 6
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import random
import re
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from unittest import mock

from firmware_host.core import config as configuration
from firmware_host.core.config import SEATS
from firmware_host.core.i18n import tr
from firmware_host.core.session import Session
from firmware_host.core.store import Store
from firmware_host.runtime.device import Device
from firmware_host.runtime.vtime import run_virtual
from firmware_host.ui.layout import MIN_NAME
from firmware_host.ui.render import Frame, watch
from games import ENGINES
from games.core import Collect, Menu, Order, Task

GAMES = tuple(sorted(ENGINES))
PINS_SHARE = 0.125
"""The share of presses made on the gpiozero mock pins; the rest go straight to their edge handler."""
NAMES = (
    ("Ann", "Ben", "Cy", "Dan", "Eve", "Fay"),
    ("Annabelle", "Maximilian", "Konstantin", "Wilhelmina", "Bartholomew", "Jo"),
    ("Jürgen", "Ößel", "Zoë", "Çelik", "Mía", "Łukasz"),
    (None, None, None, None, None, None),  # the names the device gives unnamed seats: P1..P6
)
LONGEST = (
    "Maximiliane Wegmülle",
    "Bartholomew Whitwort",
    "Wilhelmina Mönckeber",
    "Konstantin Wohlmuths",
    "Annabelle Montgomery",
    "Ömer Wagenknecht-Mai",
)
"""Six names as long as the config allows (:data:`~firmware_host.core.limits.MAX_NAME_CHARS`), of
wide letters, told apart by their first three letters as the score grid shows them: what a table
of real full names makes of every screen."""
PLAY_BACK = 1
"""The weight of ``back`` in random play (it opens the game menu; held, it asks to undo)."""
PLAYED = ("GameScreen", "GameOver", "Confirm")
"""The screens of a game in random play; from any other (a menu it wandered into) it goes back
at the next press with the chance :data:`PLAY_LEAVES`."""
PLAY_LEAVES = 0.6
HELD_BACK = ("SelfTest",)
"""Screens that a long ``back`` leaves."""
BUTTON_WEIGHTS = {
    "p1": 6, "p2": 6, "p3": 6, "p4": 5, "p5": 4, "p6": 4,
    "ok": 8, "next": 6, "prev": 4, "back": 3,
}  # fmt: skip


@dataclass
class Report:
    """What one monkey run did and found."""

    seed: int
    seats: int = 0
    presses: int = 0
    games: set[str] = field(default_factory=set)
    screens: set[str] = field(default_factory=set)
    problems: list[str] = field(default_factory=list)


class _Errors(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.records: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        if record.levelno >= logging.ERROR or record.exc_info:
            self.records.append(self.format(record))


def _config(
    rng: random.Random,
    seats: int,
    panel: str | None = None,
    language: str = "en",
    longest: bool = False,
    names: Sequence[str | None] | None = None,
) -> configuration.Config:
    config = configuration.defaults().with_sim()
    if panel is not None:  # the simulated panel of that kind, at its size
        config.sections["display"]["sim_panel"] = panel
    config.sections["display"]["language"] = language
    if names is None:
        names = LONGEST if longest else rng.choice(NAMES)
    config.sections["table"]["seats"] = list(SEATS[:seats])
    config.sections["table"]["names"] = {seat: name for seat, name in zip(SEATS, names, strict=True) if name}
    config.sections["display"]["dim_after"] = 20.0  # short waits reach the dimmed screen
    config.sections["voice"]["speaker"] = "print"  # the voice a press turns on speaks on virtual time
    if rng.random() < 0.7:  # the simulated HX711 is bit-banged sample by sample: not every run
        config.sections["scale"]["backend"] = "none"
    return config


def _resume_matches(device: Device, store: Store) -> str | None:
    """Open the journal as a power cut would leave it; a difference from the screen's game."""
    session = device.door.session or device.door.result_on_screen
    journal = store.open_game()
    if session is None or journal is None:
        return None if (session is None) == (journal is None) else "game in play and journal disagree"
    resumed = Session(store, journal)
    if resumed.skipped:
        return f"resume skipped: {resumed.skipped}"
    if resumed.summary != session.summary:
        return f"resumed summary differs: {resumed.summary} != {session.summary}"
    return None


def waiting_for(device: Device) -> str | None:
    """The one player the game screen on top waits for (a menu of theirs, an order or answers
    only they give), else ``None`` (several players, the table's hands, another screen)."""
    screen = device.door.screens[-1] if device.door.screens else None
    if type(screen).__name__ != "GameScreen" or device.door.session is None or device.door.session.over:
        return None
    prompt = screen.prompt
    if isinstance(prompt, Menu):
        return prompt.player if screen.path else None
    if isinstance(prompt, Collect) and screen.locked >= set(prompt.players):
        return None  # every answer given: the table's ok
    if isinstance(prompt, Collect | Order) and len(prompt.players) == 1:
        return prompt.players[0]
    return None


def marked(frame: Frame) -> list[str]:
    """The texts marked as whose turn it is on ``frame`` (cells beginning with ``>``), marker off."""
    return [cell[1:] for row in frame.rows for cell in row.cells if cell.startswith(">")]


def unmarked(device: Device, frame: Frame | None = None) -> str | None:
    """What is wrong when a screen waits for one player and does not mark that player (alone);
    ``frame``: the device's frame showing now, when the caller has it already."""
    player = waiting_for(device)
    if player is None or (device.hub.lookup("message").showing() and not device.hub.lookup("message").message_lasts()):
        return None  # (a passing message may take the grid's place for its few seconds)
    frame = frame or device.door.frame()
    shown = marked(frame)
    least = min(len(player), MIN_NAME)
    mine = [text for text in shown if text[:least] == player[:least]]
    rows = " / ".join(" | ".join(r.cells) for r in frame.rows)
    if not mine:
        return f"waits for {player} but does not mark them: {rows}"
    if len(mine) < len(shown):
        return f"waits for {player} but marks others too: {rows}"
    return None


def _pattern(text: str, names: tuple[str, ...]) -> re.Pattern[str]:
    """``text`` as a pattern in which each of ``names`` may stand shortened to its start."""
    pattern = re.escape(" ".join(text.split()))
    for name in sorted(names, key=len, reverse=True):
        starts = "|".join(re.escape(name[:k]) for k in range(len(name), 0, -1))
        pattern = pattern.replace(re.escape(name), f"(?:{starts})")
    return re.compile(pattern)


def missing_needed(device: Device, frame: Frame | None = None) -> str | None:
    """What is wrong when the game screen on top does not show a line its game marks as needed
    (:attr:`games.core.View.needed`), whole, on its rows (wrapped, names shortened allowed).
    The title bar, which no message covers, is checked too (Tonne keeps its supply there);
    ``frame``: the device's frame showing now, when the caller has it already."""
    screen = device.door.screens[-1] if device.door.screens else None
    session = device.door.session
    if type(screen).__name__ != "GameScreen" or session is None or session.over or isinstance(screen.prompt, Task):
        return None
    view = session.view()
    if not view.needed:
        return None
    frame = frame or device.door.frame()
    shown = " ".join([*frame.title.split(), *(" ".join(" ".join(r.cells).split()) for r in frame.rows)])
    for i in view.needed:
        text = tr(view.lines[i])
        if not _pattern(text, tuple(session.base.players)).search(shown):
            return f"needed line not shown: {text!r} on {' / '.join(' | '.join(r.cells) for r in frame.rows)}"
    return None


def run_monkey(
    state_dir: Path,
    seed: int,
    presses: int,
    panel: str | None = None,
    language: str = "en",
    longest: bool = False,
    seats: int | None = None,
    names: Sequence[str | None] | None = None,
    play: bool = False,
    on_frame: Callable[[Device, Frame], None] | None = None,
    games: Sequence[str] = GAMES,
) -> Report:
    """One seeded run of ``presses`` random inputs on a fresh device (``panel``: a kind of
    :data:`drivers.panels.PANELS` to draw on, else the 128×64) that starts in ``language`` (the
    monkey may switch it in Settings, as a player may); ``longest``: every seat named as long as
    the config allows (:data:`LONGEST`); ``names``: the seats' names (else seeded, or those);
    ``seats``: that many at the table (else 2 to 6, seeded). ``play``: a game is started at once
    whenever none is in play, and ``back`` is pressed less (random play rather than wandering
    the menus); ``on_frame``: called with every frame the device lays out for its panel, as it
    is drawn; ``games``: those a started game is chosen from."""
    rng = random.Random(seed)
    drawn = rng.randint(2, 6)
    seats = drawn if seats is None else seats
    config = _config(rng, seats, panel, language, longest, names)
    report = Report(seed, seats)
    errors = _Errors()
    root = logging.getLogger()
    root.addHandler(errors)
    store = Store(state_dir)
    buttons = list(BUTTON_WEIGHTS)
    weights = [PLAY_BACK if play and b == "back" else w for b, w in BUTTON_WEIGHTS.items()]
    wander = 0 if play else 40

    async def main() -> None:
        loop = asyncio.get_running_loop()
        device = Device(config, store, seed=seed, wall=lambda: 1_700_000_000 + loop.time())
        task = asyncio.create_task(device.run())
        await device.ready.wait()
        pins = device.hw.buttons
        drawn: list[Frame] = []  # the frames the device laid out (the last: what the panel shows)
        lay_out = device.door.frame

        def recorded() -> Frame:
            frame = lay_out()
            drawn[:] = [frame]
            return frame

        device.door.frame = recorded  # type: ignore[method-assign]
        if on_frame is not None:  # every frame the panel draws, as it is drawn
            draw = device.hub.lookup("screens").frame

            def drawing() -> Frame:
                frame = draw()
                on_frame(device, frame)
                return frame

            device.hub.lookup("screens").frame = drawing  # type: ignore[method-assign]

        def edge(button: str, pressed: bool):
            return lambda _b: device.hub.lookup("inputs").edge_from_thread(button, pressed, loop.time())

        idle = 0
        try:
            while report.presses < presses:
                if device.door.session is None:
                    idle += 1
                    if idle > wander:  # wandered the menus long enough: start a game as a script would
                        game = rng.choice(games)
                        names = [config.seat_name(s) for s in SEATS[:seats]]
                        engine_top = {"arschbombe": 4, "tonne": 5, "bomb": 5, "antartik": 5}.get(game, 6)
                        device.door.start_named(game, names[: max(2, min(seats, engine_top))])
                        idle = 0
                else:
                    idle = 0
                    report.games.add(device.door.session.base.game)
                drawn.clear()
                roll = rng.random()
                if roll < 0.04:
                    await asyncio.sleep(rng.choice((0.5, 3.0, 8.0, 25.0)))  # 25 s: the screen dims
                elif roll < 0.08 and device.hw.scale is not None:
                    scale = device.hw.scale
                    scale.grams = max(0.0, scale.grams + rng.choice((-40.0, -6.0, 6.0, 12.0, 40.0)))
                    await asyncio.sleep(rng.choice((0.2, 2.0)))
                else:
                    button = rng.choices(buttons, weights)[0]
                    long = rng.random() < 0.25
                    top = type(device.door.screens[-1]).__name__ if device.door.screens else ""
                    if play and top not in PLAYED and rng.random() < PLAY_LEAVES:  # back to the game
                        button, long = "back", top in HELD_BACK
                    # one press in eight on the gpiozero mock pins, the rest straight to the edge
                    # handler those pins call (the pins' own threads would cost the suite time)
                    via_pins = rng.random() < PINS_SHARE
                    down, up = (pins.press, pins.release) if via_pins else (edge(button, True), edge(button, False))
                    down(button)
                    # a long press is a hold of 1 s, or one that counts a card up to 4 or 9
                    await asyncio.sleep(rng.choice((1.0, 1.0, 2.3, 4.8)) if long else 0.1)
                    up(button)
                    await asyncio.sleep(0.05)
                    report.presses += 1
                await device.door.flush()
                top = device.door.screens[-1] if device.door.screens else None
                report.screens.add(type(top).__name__)
                # the frame the panel shows: the device's own, laid out once (when nothing changed
                # since the last turn, or the screen draws its own picture, laid out here)
                shown = drawn[-1] if drawn else device.door.frame()
                text = " ".join([shown.title, *(" ".join(r.cells) for r in shown.rows)])
                if "Internal error" in text:
                    report.problems.append(f"press {report.presses}: {text}")
                for problem in (unmarked(device, shown), missing_needed(device, shown)):
                    if problem:
                        report.problems.append(f"press {report.presses}: {problem}")
                if report.presses % 97 == 0:
                    problem = _resume_matches(device, store)
                    if problem:
                        report.problems.append(f"press {report.presses}: {problem}")
            problem = _resume_matches(device, store)
            if problem:
                report.problems.append(f"end: {problem}")
        finally:
            device.stop()
            await task

    try:
        # durability is the journal tests' job: here a disk's fsync would only cost time
        with watch() as overflows, mock.patch("os.fsync"):
            run_virtual(main)
    finally:
        root.removeHandler(errors)
    report.problems += [f"logged: {r}" for r in errors.records]
    seen = set()
    for o in overflows:
        key = (o.kind, o.text)
        if key not in seen:
            seen.add(key)
            report.problems.append(f"{o.kind}: {o.text!r} in {o.width} px")
    return report


def scratch_dir() -> tempfile.TemporaryDirectory:
    """A scratch state folder, in memory where Linux offers one (a disk's truncate and fsync
    would only cost time: durability is the journal tests' job)."""
    shm = Path("/dev/shm")
    return tempfile.TemporaryDirectory(dir=shm if shm.is_dir() else None)


NAMINGS = {"mixed": (False,), "longest": (True,), "both": (False, True)}
"""``--names``: the seats' names of a campaign's runs (``mixed``: each run picks a set of
:data:`NAMES`; ``longest``: :data:`LONGEST`; ``both``: every run once each way)."""


def main(argv: list[str] | None = None) -> int:
    """A longer monkey campaign than the suite's slice, over every panel, language and naming
    asked for (each run of each); exit status 1 when anything was found."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--presses", type=int, default=1000)
    parser.add_argument("--first-seed", type=int, default=1000)
    parser.add_argument(
        "--panel",
        nargs="+",
        choices=configuration.PANEL_KINDS,
        default=["ssd1306"],
        help="panel kinds to draw on (ssd1306: 128x64, ssd1322: 256x64, sh1107: 128x128)",
    )
    parser.add_argument("--language", nargs="+", choices=("en", "de"), default=["en"])
    parser.add_argument("--names", choices=NAMINGS, default="mixed", help="the seats' names (longest: 20 letters)")
    parser.add_argument(
        "--seats", nargs="+", type=int, choices=range(2, 7), help="seats at the table (default: seeded)"
    )
    args = parser.parse_args(argv)
    began = time.perf_counter()
    total, runs, bad = 0, 0, 0
    for panel in args.panel:
        for language in args.language:
            for longest in NAMINGS[args.names]:
                for seats in args.seats or [None]:
                    part_began, part_bad = time.perf_counter(), 0
                    naming = "longest" if longest else "mixed"
                    at = f"{seats} seats" if seats else "2-6 seats"
                    for seed in range(args.first_seed, args.first_seed + args.runs):
                        with scratch_dir() as tmp:
                            report = run_monkey(Path(tmp), seed, args.presses, panel, language, longest, seats)
                        total += report.presses
                        runs += 1
                        for problem in report.problems[:5]:
                            print(f"{panel} {language} {naming} {at} seed {seed}: {problem}")
                        part_bad += bool(report.problems)
                    bad += part_bad
                    print(
                        f"{panel} {language} {naming} names, {at}: {args.runs} runs, "
                        f"{part_bad} with problems, {time.perf_counter() - part_began:.1f} s",
                        flush=True,
                    )
    print(f"{total} presses in {runs} runs, {bad} with problems, {time.perf_counter() - began:.1f} s")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
