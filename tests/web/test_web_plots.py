"""The history's plots: a play is labelled by its date when the clock was synced, else by its
number (never "?"); a plot with nothing to draw is left out so the page can say why."""

from __future__ import annotations

import re
import time
from pathlib import Path

from firmware_host.web import plays, plots

WORDS = Path(__file__).parents[2] / "firmware_host" / "web" / "static" / "words.js"
STARTED = 1_767_297_600.0  # 2026-01-01 20:00 UTC
TIMED = {"timer": {"players": {"Ann": {"average_s": 12.0}, "Ben": {"average_s": 20.5}}}}


def _entry(n: int, **changes) -> dict:
    entry = {
        "id": f"g{n}",
        "game": "bomb",
        "started": STARTED + n * 3600,
        "players": ["Ann", "Ben"],
        "scores": {"Ann": n, "Ben": 1},
        "winners": ["Ann"],
        "reason": "over",
        "clock_synced": True,
    }
    entry.update(changes)
    return entry


def test_a_play_is_labelled_by_its_date_when_the_clock_was_synced_else_by_its_number():
    synced, unsynced, undated = plays.plays(
        [_entry(1), _entry(2, clock_synced=False), _entry(3, started=None, clock_synced=False)]
    )
    assert plots.x_label(synced, 1) == time.strftime("%m-%d", time.localtime(STARTED + 3600))
    assert plots.x_label(unsynced, 2) == "#2"
    assert plots.x_label(undated, 3) == "#3"


def test_the_scores_plot_of_games_played_before_the_clock_was_set_shows_no_question_marks():
    svg = plots.draw("scores", plays.plays([_entry(n, clock_synced=False) for n in (1, 2, 3)]), "Scores")
    labels = re.findall(r">([^<>]*)</text>", svg)
    assert {"#1", "#2", "#3"} <= set(labels) and "?" not in labels


def test_only_plots_with_something_to_draw_are_offered():
    assert plots.drawable([]) == []
    untimed = plays.plays([_entry(1), _entry(2)])
    assert plots.drawable(untimed) == ["scores", "wins"]  # no turn timer ran: no empty turn chart
    timed = plays.plays([_entry(1), _entry(2, **TIMED)])
    assert plots.drawable(timed) == ["scores", "wins", "turns"]
    assert plots.turn_averages(timed) == {"Ann": 12.0, "Ben": 20.5}
    ended_early = plays.plays([_entry(1, reason="abandoned")])
    assert plots.drawable(ended_early) == []


def test_the_missing_turn_times_sentence_is_in_both_languages():
    text = WORDS.read_text(encoding="utf-8")
    english, german = text.split("\n  de: ", 1)
    assert 'noTurns: "No turn times yet: they are kept when a turn timer runs"' in english
    assert 'noTurns: "Noch keine Zugzeiten' in german
    assert 'noPlays: "' in english and 'noPlays: "' in german


def _luminance(color: str) -> float:
    def channel(c: float) -> float:
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (int(color[i : i + 2], 16) / 255 for i in (1, 3, 5))
    return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b)


def test_each_of_eight_players_has_one_colour_in_every_plot_and_each_is_clear_on_the_dark_background():
    names = [f"Player{i}" for i in range(8)]
    history = [
        _entry(
            n, players=names, scores={p: (n * 7 + i) % 11 for i, p in enumerate(names)}, winners=[names[n % 8]], **TIMED
        )
        for n in range(10)
    ]
    chosen = plays.plays(history)
    colors = plots.player_colors(chosen)
    assert len(set(colors.values())) == 8
    background = _luminance("#111111")
    assert all((_luminance(c) + 0.05) / (background + 0.05) >= 4.5 for c in plots.PALETTE)
    for kind in ("scores", "wins"):
        svg = plots.draw(kind, chosen, kind)
        for name in names:  # every player drawn is drawn in their own colour
            assert name in svg and colors[name] in svg


def test_the_all_games_plot_shows_places_not_five_games_scales_on_one_axis():
    history = [_entry(1), _entry(2, game="tonne", scores={"Ann": 350, "Ben": 120})]
    svg = plots.draw("scores", plays.plays(history), "Scores", "Places (all games)")
    assert "Places (all games)" in svg and ">350<" not in svg
    one_game = plots.draw("scores", plays.plays([_entry(1), _entry(2)]), "Scores", "Places (all games)")
    assert "Places" not in one_game
