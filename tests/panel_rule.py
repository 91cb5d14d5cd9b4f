"""The panel rule, checked over every frame of random play: what the table must read is on the
panel, whole.

Each screen names what the table must be able to read on it now (``Screen.must_read``): the game
screen the facts its game names for the state (:meth:`games.core.View.must_read`: Antartik's dive
and the bets riding, Bomb's every revealed card, Tonne's supply and order of play…), the question
being asked and the option highlighted; the game-over screen how the game ended; a question its
question. The message showing is read too (an outcome's verb and number; of several outcomes of
one moment, the newest: the older may give way to room, and *What happened* lists them). A frame keeps the
rule when each of those texts is on its lines as drawn (:func:`firmware_host.ui.render.drawn_lines`:
after the names are shortened and the texts too long are cut), whole, wrapped over rows or not,
a player's name in it shortened to no fewer than :data:`~firmware_host.ui.render.MIN_NAME` letters.

The play is the UI monkey's (:func:`tests.monkey.run_monkey` with ``play``: a game is started
at once, at random, whenever none is in play), every frame the panel draws is checked as it is
drawn. The suite runs a bounded slice (``tests/ui/test_panel_rule.py``); the campaign plays the grid
of panels, languages, seats and namings at length::

    .venv/bin/python -m tests.panel_rule --frames 50000
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from firmware_host.core import config as configuration
from firmware_host.core.i18n import tr
from firmware_host.runtime.device import Device
from firmware_host.ui.font import _spell
from firmware_host.ui.render import MIN_NAME, TRIM, Frame, drawn_lines, on_panel
from tests.monkey import GAMES, LONGEST, run_monkey, scratch_dir

GERMAN = (
    "Maximiliane Öztürk",
    "Hans-Jürgen Weißbach",
    "Bartholomäus Großer",
    "Anneliese Schröder",
    "Jörg-Peter Überall",
    "Hans-Peter Großmann",
)
"""Six German names of 18–20 letters (the longest the config allows is 20): umlauts, ``ß``,
hyphens, two that begin alike for 6 letters (``Hans-J…``, ``Hans-P…``)."""
NAMINGS = {"longest": LONGEST, "german": GERMAN}
"""The seats' names of the runs: the monkey's 20-letter ones, and German ones."""
PANELS = ("ssd1306", "ssd1322", "sh1107")
"""Every kind of panel size: 128×64, 256×64, 128×128."""
SEATS = (2, 3, 4, 5, 6)


def _name_forms(name: str) -> str:
    """A pattern of ``name`` as the panel may show it: whole, or a start of it of at least
    :data:`MIN_NAME` letters (all of a shorter one), without a hyphen or a space at its end."""
    least = min(MIN_NAME, len(name))
    forms = dict.fromkeys([name, *(name[:k].rstrip(TRIM) for k in range(len(name) - 1, least - 1, -1))])
    return "(?:" + "|".join(re.escape(f) for f in forms if len(f) >= least) + ")"


def fact_pattern(fact: str, names: Sequence[str]) -> re.Pattern[str]:
    """``fact`` (translated, its spaces as one) as a pattern in which each of ``names`` may show
    shortened (:func:`_name_forms`)."""
    text = " ".join(_spell(tr(fact)).split())
    spelled = sorted({_spell(n) for n in names if n}, key=len, reverse=True)
    if not spelled:
        return re.compile(re.escape(text))
    finder = re.compile("|".join(re.escape(n) for n in spelled))
    parts, at = [], 0
    for found in finder.finditer(text):
        parts += [re.escape(text[at : found.start()]), _name_forms(found.group())]
        at = found.end()
    parts.append(re.escape(text[at:]))
    # a word longer than a row is split after its slash or hyphen (``Ann/Ben/`` / ``Cy B``)
    return re.compile("".join(parts).replace("/", "/ ?").replace("\\-", "\\- ?"))


def readable(fact: str, lines: Sequence[str], names: Sequence[str] = ()) -> bool:
    """Whether ``fact`` can be read whole on ``lines`` (a frame's, as drawn), wrapped over rows
    or not, the players' ``names`` in it shortened or not."""
    shown = " ".join(" ".join(line.split()) for line in lines)
    return bool(fact_pattern(fact, names).search(shown))


def players(device: Device) -> tuple[str, ...]:
    """The names the panel may show shortened: the table's (the game's players, the seats'), and
    those of the result on screen."""
    top = device.screens[-1] if device.screens else None
    entry = getattr(top, "entry", None)
    ended = tuple(entry.get("players", ())) if isinstance(entry, dict) else ()
    return tuple(dict.fromkeys([*device.drawing.players(), *ended]))


def must_read(device: Device) -> list[str]:
    """What the table must read on the device's panel now: what the screen on top names, and the
    message showing (of several outcomes of one moment, the newest: the older may give way)."""
    top = device.screens[-1] if device.screens else None
    facts = list(top.must_read()) if top is not None else []
    facts += device.message.showing()[-1:]
    return [fact for fact in facts if str(fact).strip()]


def unread(device: Device, frame: Frame) -> list[str]:
    """The texts the table must read that ``frame`` (the device's, as it is drawn) loses."""
    with on_panel(device.drawing.panel) as panel:
        lines = drawn_lines(frame, panel)
    names = players(device)
    return [tr(fact) for fact in must_read(device) if not readable(fact, lines, names)]


@dataclass
class Checked:
    """What a run of the panel rule checked and found."""

    frames: int = 0
    problems: list[str] = field(default_factory=list)
    """One line a frame that lost a text: what it lost, then the frame's lines as drawn."""
    other: list[str] = field(default_factory=list)
    """What the monkey found besides (errors, overflows, a journal that does not resume)."""


def run(
    state_dir: Path,
    seed: int,
    presses: int,
    panel: str = "ssd1306",
    language: str = "en",
    names: Sequence[str] = LONGEST,
    seats: int | None = None,
    games: Sequence[str] = GAMES,
) -> Checked:
    """One seeded run of random play (of ``games``), every frame checked against the panel rule."""
    checked = Checked()

    def check(device: Device, frame: Frame) -> None:
        checked.frames += 1
        lost = unread(device, frame)
        if lost:
            with on_panel(device.drawing.panel) as on:
                lines = drawn_lines(frame, on)
            checked.problems.append(f"lost {lost!r} on {' / '.join(lines)}")

    report = run_monkey(
        state_dir, seed, presses, panel, language, seats=seats, names=names, play=True, on_frame=check, games=games
    )
    checked.other = report.problems
    return checked


def main(argv: list[str] | None = None) -> int:
    """The campaign: random play over every panel, language, count of seats and naming asked
    for, until ``--frames`` frames are checked; exit status 1 when a frame broke the rule."""
    parser = argparse.ArgumentParser(prog="python -m tests.panel_rule", description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=50_000, help="frames to check in all (default 50000)")
    parser.add_argument("--presses", type=int, default=300, help="presses a run (default 300)")
    parser.add_argument("--first-seed", type=int, default=5000)
    parser.add_argument("--panel", nargs="+", choices=configuration.PANEL_KINDS, default=list(PANELS))
    parser.add_argument("--language", nargs="+", choices=("en", "de"), default=["en", "de"])
    parser.add_argument("--seats", nargs="+", type=int, choices=SEATS, default=list(SEATS))
    parser.add_argument("--names", nargs="+", choices=NAMINGS, default=list(NAMINGS))
    parser.add_argument("--show", type=int, default=3, help="frames shown a run that broke the rule")
    args = parser.parse_args(argv)
    grid = [(p, lang, n, s) for p in args.panel for lang in args.language for s in args.seats for n in args.names]
    began = time.perf_counter()
    frames = runs = bad = 0
    seed = args.first_seed
    while frames < args.frames:
        panel, language, naming, seats = grid[runs % len(grid)]
        with scratch_dir() as tmp:
            checked = run(Path(tmp), seed, args.presses, panel, language, NAMINGS[naming], seats)
        frames += checked.frames
        runs += 1
        where = f"{panel} {language} {naming} {seats} seats seed {seed}"
        for line in [*checked.problems[: args.show], *checked.other[: args.show]]:
            print(f"{where}: {line}", flush=True)
        bad += bool(checked.problems or checked.other)
        seed += 1
    took = time.perf_counter() - began
    print(f"{frames} frames in {runs} runs ({len(grid)} kinds of table), {bad} runs broke the rule, {took:.0f} s")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
