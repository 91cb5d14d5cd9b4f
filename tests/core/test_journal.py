"""The journal: durable, torn tails survive, damage is named, undo replays one action fewer."""

from __future__ import annotations

import json

import pytest

from firmware_host.core.journal import Journal, JournalError
from firmware_host.core.replay import replay
from firmware_host.core.session import Session
from firmware_host.core.store import Store

JUMP = {"type": "jump", "jumper": "rascal", "special": False, "result": "A"}


def test_records_read_back_in_order(tmp_path):
    path = tmp_path / "j.jsonl"
    journal = Journal.create(path, {"game": "x"})
    journal.append({"a": {"type": "one"}})
    journal.append({"a": {"type": "two"}})
    journal.append({"undo": 1})
    again = Journal.open(path)
    assert again.header == {"game": "x"}
    assert again.actions() == [{"type": "one"}]
    assert not again.torn


@pytest.mark.parametrize("tail", [b'{"a":{"type":"thr', b"\x00\x00\x00\x00", b'{"a":1,"c":5}\n'])
def test_a_torn_last_line_is_dropped_and_cut_before_the_next_write(tmp_path, tail):
    path = tmp_path / "j.jsonl"
    journal = Journal.create(path, {"game": "x"})
    journal.append({"a": {"type": "one"}})
    with open(path, "ab") as fh:
        fh.write(tail)
    again = Journal.open(path)
    assert again.torn
    assert again.actions() == [{"type": "one"}]
    again.append({"a": {"type": "two"}})
    assert Journal.open(path).actions() == [{"type": "one"}, {"type": "two"}]
    assert not Journal.open(path).torn


def test_damage_before_the_last_line_is_an_error_naming_the_line(tmp_path):
    path = tmp_path / "j.jsonl"
    journal = Journal.create(path, {"game": "x"})
    journal.append({"a": {"type": "one"}})
    journal.append({"a": {"type": "two"}})
    lines = path.read_bytes().split(b"\n")
    lines[1] = lines[1].replace(b"one", b"eno")
    path.write_bytes(b"\n".join(lines))
    with pytest.raises(JournalError, match="line 2"):
        Journal.open(path)


def test_session_journals_before_state_changes_and_resumes_exactly(tmp_path):
    store = Store(tmp_path)
    session = Session.start(store, "arschbombe", ["Ann", "Ben"], seed=5)
    session.apply(JUMP)
    session.apply({"type": "jump", "jumper": "diver", "result": "clean"})
    resumed = Session.resume(Store(tmp_path))
    assert resumed.summary == session.summary
    assert resumed.script().to_json() == session.script().to_json()
    assert replay(resumed.script()).summary == session.summary


def test_undo_replays_one_action_fewer_and_survives_a_restart(tmp_path):
    store = Store(tmp_path)
    session = Session.start(store, "arschbombe", ["Ann", "Ben"], seed=5)
    before = session.summary
    session.apply(JUMP)
    assert session.undo()
    assert session.summary == before
    assert not session.undo()
    assert Session.resume(Store(tmp_path)).summary == before


def test_a_refused_action_is_not_journaled(tmp_path):
    store = Store(tmp_path)
    session = Session.start(store, "arschbombe", ["Ann", "Ben"])
    with pytest.raises(Exception, match="cannot land"):
        session.apply({"type": "jump", "jumper": "diver", "result": "A"})
    assert Session.resume(Store(tmp_path)).actions == []


def test_finished_game_goes_to_history_once_even_if_power_fails_while_filing(tmp_path):
    store = Store(tmp_path)
    session = Session.start(store, "arschbombe", ["Ann", "Ben"], seed=1, wall=lambda: 1000.0)
    session.apply(JUMP)
    # the end record is written, then the power fails before the history line
    session.journal.append({"end": "over", "t": 1060.0, "extra": {}})
    assert Session.resume(Store(tmp_path)) is None
    history = store.history()
    assert len(history) == 1 and history[0]["duration_s"] == 60.0
    assert not store.game_path.exists()
    assert list((tmp_path / "games").glob("*.jsonl"))
    assert Session.resume(Store(tmp_path)) is None
    assert len(store.history()) == 1


def test_history_entry_has_date_duration_players_scores_winners(tmp_path):
    now = [100.0]
    store = Store(tmp_path)
    session = Session.start(store, "arschbombe", ["Ann", "Ben"], seed=1, wall=lambda: now[0], mono=lambda: now[0])
    session.apply(JUMP)
    now[0] = 400.0  # durations come from the monotonic clock (mono), dates from the wall
    entry = session.finish("over")
    assert entry["duration_s"] == 300.0
    assert entry["players"] == ["Ann", "Ben"] and entry["scores"] == {"Ann": 3, "Ben": 0}
    assert store.history() == [json.loads(json.dumps(entry))]


def test_bench_journal_reports_the_fsync_time(cli, tmp_path):
    result = cli("bench", "journal", "--count", "5", "--state-dir", tmp_path)
    assert result.status == 0 and "median" in result.out and "p95" in result.out
    assert list(tmp_path.iterdir()) == []  # it leaves nothing behind


def test_after_a_resume_that_drops_a_refused_action_new_actions_survive_the_next_resume(tmp_path):
    store = Store(tmp_path)
    session = Session.start(store, "arschbombe", ["Ann", "Ben"], seed=5)
    session.apply(JUMP)
    session.journal.append({"a": {"type": "bogus"}})  # an action a newer engine no longer takes
    resumed = Session.resume(Store(tmp_path))
    assert resumed.skipped and len(resumed.actions) == 1
    resumed.apply({"type": "jump", "jumper": "diver", "result": "clean"})
    resumed.apply(JUMP)
    again = Session.resume(Store(tmp_path))
    assert again.actions == resumed.actions and again.skipped is None
    assert again.undo() and Session.resume(Store(tmp_path)).actions == resumed.actions[:-1]
