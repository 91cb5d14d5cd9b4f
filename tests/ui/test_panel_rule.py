"""The panel rule over every frame: the suite's bounded slice of random play, a frame the check
catches on the layout before it, and the check itself (:mod:`tests.panel_rule`).

The slice plays each game at 5 and 6 seats with names of 18–20 letters, in English and German,
on the 128×64 and the bigger panels, and checks every frame it draws; ``python -m
tests.panel_rule`` plays the campaign (50,000 frames).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from firmware_host.core import config as configuration
from firmware_host.ui.render import drawn_lines
from tests.devicekit import presses, run_device
from tests.monkey import scratch_dir
from tests.panel_rule import GERMAN, LONGEST, readable, run, unread

SLICE = (  # game, panel, language, names, seats, seed
    ("tonne", "ssd1306", "de", GERMAN, 5, 7001),
    ("bomb", "ssd1306", "en", LONGEST, 5, 7002),
    ("bomb", "ssd1306", "de", GERMAN, 6, 7003),
    ("antartik", "ssd1306", "de", GERMAN, 5, 7004),
    ("antartik", "ssd1322", "en", LONGEST, 6, 7005),
    ("arschbombe", "sh1107", "de", GERMAN, 5, 7006),
    ("trottel", "ssd1306", "de", GERMAN, 6, 7007),
    ("trottel", "sh1107", "en", LONGEST, 6, 7008),
    ("tonne", "ssd1322", "de", GERMAN, 6, 7009),
)
FRAMES = 2_000
"""Frames the slice checks at least, in all (each run its share)."""
PRESSES = 300


@pytest.mark.parametrize(("game", "panel", "language", "names", "seats", "seed"), SLICE)
def test_every_frame_of_random_play_shows_whole_what_the_table_must_read(game, panel, language, names, seats, seed):
    with scratch_dir() as tmp:
        checked = run(Path(tmp), seed, PRESSES, panel, language, names, seats, games=(game,))
    assert checked.frames >= FRAMES // len(SLICE), checked.frames
    assert checked.problems == [], checked.problems[:3]
    assert checked.other == [], checked.other[:3]


# -- a frame the check catches on the layout before it ------------------------------------------------------
FIVE = ["Maximiliane Öztürk", "Hans-Jürgen Weiß", "Bartholomäus Groß", "Ann", "Jörg"]
BEFORE = [
    "Antartik  Stapel 47",
    ">Maxi 1 | Hans 0 | Bart 0",
    "Ann 0 | Jörg 1",
    "Wetten Han:5 Bar:5",
    "Ann:5",
    "Ann wettet 5",
    "Aufdecken  1/3",
]
"""The frame the layout before the check drew after three draws and three bets (``--seed 5``,
German, the five names of the report): the dive ``9 10S 1`` nowhere. ``python -m tests.panel_rule``
run on that layout broke the rule in every one of its first seven runs."""


def _dive_and_bets(dev):
    async def body():
        dev.start_named("antartik", FIVE)
        await presses(dev, "ok", "ok", "ok")  # three draws: 9 10S 1
        await presses(dev, "p2", "p2", "p2!", "p3", "p3", "p3!", "p4", "p4", "p4!")  # three bets
        await dev.flush()
        frame = dev.drawing.frame()
        return dev.screens[-1].must_read(), drawn_lines(frame), unread(dev, frame), list(dev.session.state.dive)

    return body()


def test_the_check_catches_the_dive_lost_behind_the_bets_and_the_layout_keeps_it_now(tmp_path):
    config = configuration.parse({"display": {"language": "de"}}, "config.toml")
    facts, lines, lost, dive = run_device(tmp_path, _dive_and_bets, config, seed=5)
    question = facts[-2]  # the diver's menu: whose dive, and its cards
    assert dive == ["9", "10S", "1"] and "9 10S 1" in str(question)
    assert not readable(question, BEFORE, FIVE)  # caught: the frame before lost it
    assert lost == [] and readable(question, lines, FIVE)  # kept now, the bets beside it
    assert any(line.startswith("Wetten Han:5 Bar:5") for line in lines), lines


# -- the check itself ------------------------------------------------------------------------------------
def test_a_fact_reads_whole_across_rows_with_its_names_shortened_to_three_letters_or_more():
    names = ["Maximiliane Öztürk", "Hans-Jürgen Weiß"]
    fact = "Maximiliane Öztürk: Sturz, -3"
    assert readable(fact, ["Maximiliane Öztürk:", "Sturz, -3"], names)  # wrapped over two rows
    assert readable(fact, ["Max: Sturz, -3"], names) and readable(fact, ["Maximili: Sturz, -3"], names)
    assert not readable(fact, ["Maximiliane Öztürk:"], names)  # the verb and the number lost
    assert not readable(fact, ["Maximiliane Öztürk: Sturz, …"], names)  # cut
    assert not readable(fact, ["Ma: Sturz, -3"], names)  # a name below three letters tells nobody
    assert readable("Hans-Jürgen Weiß -4", ["Hans -4"], names)  # shortened at its hyphen, the hyphen off
    assert readable("Ann/Hans-Jürgen Weiß B", ["Ann/", "Hans-J B"], names)  # a long word split after a slash
