"""Crash points and power cuts over whole games of all five games: nothing acknowledged is lost,
every finished game is filed exactly once with its real result, and every boot comes up.

The soak (``python -m tests.soak``) runs the same models over more seeds.
"""

from __future__ import annotations

import shutil

import pytest

from firmware_host.core.store import Store
from tests.crashkit import GAMES, Faults, Kill, Run, check_recovery, injected, play, whole_game

PRIOR = b'{"id": "earlier", "game": "arschbombe", "players": ["Ann", "J\xc3\xbcrgen"], "reason": "over"}\n'
"""A game filed before, which must survive every crash untouched."""


def fresh(root):
    if root.exists():
        shutil.rmtree(root)
    root.mkdir()
    (root / "history.jsonl").write_bytes(PRIOR)
    return root


def kill_every_point(tmp_path, game: str, seed: int = 1) -> tuple[int, dict[int, object]]:
    """Kill a whole game at each of its file-system calls in turn; the failures by call number."""
    script, steps = whole_game(game, seed)
    with injected(Faults()) as counted:
        play(Store(fresh(tmp_path / "clean")), script, steps, Run())
    failures: dict[int, object] = {}
    for k in range(1, counted.count + 1):
        root = fresh(tmp_path / "run")
        run = Run()
        with pytest.raises(Kill), injected(Faults(kill_at=k)):
            play(Store(root), script, steps, run)
        problems = check_recovery(root, script, steps, run)
        if Store(root).history()[0]["id"] != "earlier":
            problems.append("the earlier game was lost")
        if problems:
            failures[k] = (counted.seen[k - 1], problems)
    return counted.count, failures


@pytest.mark.parametrize("game", sorted(GAMES))
def test_a_kill_at_every_write_fsync_rename_and_truncate_of_a_whole_game_loses_nothing(tmp_path, game):
    points, failures = kill_every_point(tmp_path, game)
    assert points > 20
    assert failures == {}


def _finished_journal(tmp_path, game: str, seed: int = 1):
    """A whole game run to its end: the journal just before filing, and its history line."""
    script, steps = whole_game(game, seed)
    root = fresh(tmp_path / "whole")
    run = Run()
    play(Store(root), script, steps, run)
    journal = (root / "games" / f"{run.game_id}.jsonl").read_bytes()
    line = (root / "history.jsonl").read_bytes()[len(PRIOR) :]
    return script, steps, run, journal, line


def _cut_positions(data: bytes, records: int) -> range:
    """Every byte from the start of the last ``records`` lines to the end."""
    lines = data.split(b"\n")[:-1]
    start = len(data) - sum(len(x) + 1 for x in lines[-records:])
    return range(start, len(data) + 1)


def _actions_before(journal: bytes, cut: int) -> int:
    """Actions whose whole line (newline included) lies before ``cut``: those acknowledged."""
    count, end = 0, 0
    for line in journal.split(b"\n")[:-1]:
        end += len(line) + 1
        if end <= cut and line.startswith(b'{"a":'):
            count += 1
    return count


@pytest.mark.parametrize("game", sorted(GAMES))
def test_a_power_cut_at_every_byte_of_the_last_journal_records_files_the_game_once(tmp_path, game):
    script, steps, whole, journal, _ = _finished_journal(tmp_path, game)
    actions = [v for k, v in steps if k == "action"]
    failures = {}
    cuts = 0
    for cut in _cut_positions(journal, 2):  # the last action and the end record
        for pad in (False, True):  # cut short, or the rest of the block left as zeros (ext4)
            root = fresh(tmp_path / "cut")
            data = journal[:cut] + (b"\0" * (len(journal) - cut) if pad else b"")
            (root / "game.jsonl").write_bytes(data)
            run = Run(game_id=whole.game_id, acked=actions[: _actions_before(journal, cut)])
            problems = check_recovery(root, script, steps, run)
            cuts += 1
            if problems:
                failures[(cut, pad)] = problems
    assert cuts > 50 and failures == {}


@pytest.mark.parametrize("game", sorted(GAMES))
def test_a_power_cut_at_every_byte_of_the_history_line_files_the_game_once(tmp_path, game):
    script, steps, whole, journal, line = _finished_journal(tmp_path, game)
    actions = [v for k, v in steps if k == "action"]
    failures = {}
    for cut in range(len(line) + 1):
        for pad in (False, True) if cut % 8 == 0 else (False,):  # zero-filled tails: a sample
            root = fresh(tmp_path / "cut")
            (root / "game.jsonl").write_bytes(journal)
            tail = line[:cut] + (b"\0" * (len(line) - cut) if pad else b"")
            (root / "history.jsonl").write_bytes(PRIOR + tail)
            run = Run(game_id=whole.game_id, acked=actions)
            problems = check_recovery(root, script, steps, run)
            if [e["id"] for e in Store(root).history()] != ["earlier", whole.game_id]:
                problems.append("history lost a game")
            if problems:
                failures[(cut, pad)] = problems
    assert failures == {}
