"""The UI monkey's slice in the suite: 20,000 seeded random inputs over every game and screen,
and a German slice (a translated screen that overflows fails it).

See :mod:`tests.monkey` for what a run does and what fails it; ``python -m tests.monkey`` runs
longer campaigns.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from firmware_host.ui.render import Frame, Row, render, watch
from tests.monkey import Report, run_monkey, scratch_dir

RUNS = 8
PRESSES = 2500
OTHER_PRESSES = 1500
"""Presses of each run on a bigger panel and in German (the campaigns of ``python -m tests.monkey``
play them at length)."""
LONG_PRESSES = 1000
REPORTS: dict[int, Report] = {}


@pytest.mark.parametrize("seed", range(RUNS))
def test_random_presses_find_no_error_no_overflow_and_resume_to_the_same_game(seed):
    with scratch_dir() as tmp:
        report = run_monkey(Path(tmp), seed, PRESSES)
    REPORTS[seed] = report
    assert report.presses == PRESSES
    assert report.problems == []


# one run a panel and language (a second seed of the same one was the costliest redundancy of the
# suite; the campaigns of ``python -m tests.monkey`` play many seeds of each)
@pytest.mark.parametrize(("panel", "seed"), [("ssd1322", 100), ("sh1107", 101)])
def test_random_presses_on_a_bigger_panel_find_no_overflow(panel, seed):
    with scratch_dir() as tmp:
        report = run_monkey(Path(tmp), seed, OTHER_PRESSES, panel)
    assert report.presses == OTHER_PRESSES
    assert report.problems == []


@pytest.mark.parametrize(("panel", "seed"), [(None, 110), ("ssd1322", 112), ("sh1107", 113)])
def test_random_presses_in_german_find_no_overflow(panel, seed):
    with scratch_dir() as tmp:
        report = run_monkey(Path(tmp), seed, OTHER_PRESSES, panel, language="de")
    assert report.presses == OTHER_PRESSES
    assert report.problems == []


@pytest.mark.parametrize(
    ("panel", "language", "seed"), [(None, "en", 120), ("ssd1322", "de", 121), ("sh1107", "en", 122), (None, "de", 123)]
)
def test_random_presses_with_the_longest_names_find_no_overflow_and_always_mark_whose_turn(panel, language, seed):
    with scratch_dir() as tmp:
        report = run_monkey(Path(tmp), seed, LONG_PRESSES, panel, language, longest=True)
    assert report.presses == LONG_PRESSES
    assert report.problems == []


def test_the_monkey_would_see_a_screen_that_waits_for_one_player_and_does_not_mark_them(tmp_path):
    from dataclasses import replace

    from devicekit import run_device

    from tests.monkey import unmarked, waiting_for

    async def body(device):
        device.start_named("arschbombe", ["Ann", "Ben", "Cy"])
        await device.flush()
        before = waiting_for(device), unmarked(device)
        view = device.session.view
        device.session.view = lambda: replace(view(), active=())  # a screen that forgot its mark
        after = unmarked(device)
        device.session.view = lambda: replace(view(), active=("Ann", "Ben"))  # or marks two
        return before, after, unmarked(device)

    (player, fine), unmarked_one, two = run_device(tmp_path, body)
    assert player == "Ann" and fine is None
    assert unmarked_one.startswith("waits for Ann but does not mark them")
    assert two.startswith("waits for Ann but marks others too")


def test_the_slice_reaches_every_game_and_every_screen():
    if len(REPORTS) < RUNS:
        pytest.skip("runs after the monkey's runs (alone, it has nothing to look at)")
    screens = set().union(*(r.screens for r in REPORTS.values()))
    games = set().union(*(r.games for r in REPORTS.values()))
    seats = {r.seats for r in REPORTS.values()}
    assert sum(r.presses for r in REPORTS.values()) >= 20_000
    assert games == {"tonne", "bomb", "arschbombe", "antartik", "trottel"}
    assert seats == {2, 3, 4, 5, 6}
    assert {
        "GameScreen", "GameMenu", "EventsScreen", "Confirm", "GameOver", "MainMenu", "SettingsScreen",
        "HistoryScreen", "HistoryEntry", "SelfTest", "CalibrateScreen",
    } <= screens  # fmt: skip


def test_the_monkey_would_see_a_cut_text():
    with watch() as found:
        render(Frame("tablemate", (Row.of("a text far too long for one line of the panel, cut"),)))
        render(Frame("tablemate", (Row.of("a text far too long for one line, cut on purpose", cut=True),)))
    assert [o.kind for o in found] == ["cut"]


def test_a_campaign_on_a_panel_kind_that_does_not_exist_is_refused(capsys):
    # bug: a mistyped --panel ran the whole campaign on the 128x64 it fell back to
    from tests.monkey import main

    with pytest.raises(SystemExit) as stop:
        main(["--runs", "1", "--presses", "1", "--panel", "sh1106x"])
    assert stop.value.code == 2 and "sh1106x" in capsys.readouterr().err
