"""Crash points and power cuts over whole games of all five games: nothing acknowledged is lost,
every finished game is filed exactly once with its real result, and every boot comes up.

``python -m tests.soak`` runs the same models over more seeds, and prints the figures.
"""

from __future__ import annotations

import pytest

from tests.crashkit import GAMES, history_cuts, journal_cuts, kill_points, recovery_kills


@pytest.mark.parametrize("game", sorted(GAMES))
def test_a_kill_at_every_write_fsync_rename_and_truncate_of_a_whole_game_loses_nothing(tmp_path, game):
    points, failures = kill_points(tmp_path, game)
    assert points > 20
    assert failures == {}


@pytest.mark.parametrize("game", sorted(GAMES))
def test_a_power_cut_at_every_byte_of_the_last_journal_records_files_the_game_once(tmp_path, game):
    cuts, failures = journal_cuts(tmp_path, game)
    assert cuts > 50 and failures == {}


@pytest.mark.parametrize("game", sorted(GAMES))
def test_a_power_cut_at_every_byte_of_the_history_line_files_the_game_once(tmp_path, game):
    cuts, failures = history_cuts(tmp_path, game, pad_every=8)  # zero-filled tails: every 8th byte
    assert cuts > 100 and failures == {}


@pytest.mark.parametrize("game", sorted(GAMES))
def test_a_kill_at_every_call_of_a_recovery_that_cuts_a_torn_tail_loses_nothing(tmp_path, game):
    points, failures = recovery_kills(tmp_path, game)
    assert points > 10 and failures == {}
