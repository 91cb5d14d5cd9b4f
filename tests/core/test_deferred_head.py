"""A journal read from its last snapshot on (the lines before it not searched until needed)
answers every question a whole read answers, the same way: for every game, with undos, notes and
drafts among the actions, and when a note names a key the actions also hold."""

from __future__ import annotations

import pytest

from firmware_host.core import session as sessions
from firmware_host.core.journal import Journal
from firmware_host.core.session import Session
from firmware_host.core.store import Store
from tests.core.test_state_text import _unfinished
from tests.crashkit import GAMES, clock

KEYS = ("end", "task", "draft", "snap", "undo", "meta", "type")
ASKED = ("seats", "mark", "timer", "clock", "turn_done", "over")
"""The notes the device asks for at a resume."""
METAS = (*ASKED, "type")


@pytest.fixture
def often(monkeypatch):
    monkeypatch.setattr(sessions, "SNAP_EVERY", 3)


def _answers(journal: Journal) -> dict:
    line = journal.timeline()
    return {
        "last": {key: journal.last(key) for key in KEYS},
        "last_meta": {name: journal.last_meta(name) for name in METAS},
        "draft": journal.draft(),
        "ended": journal.ended,
        "actions": list(line.actions),
        "joined": list(line.joined),
        "metas": journal.metas("mark"),
        "count": journal.count,
    }


@pytest.mark.parametrize("game", sorted(GAMES))
def test_a_journal_read_from_its_last_snapshot_answers_as_a_whole_read(tmp_path, often, game):
    played = _unfinished(Store(tmp_path), game)
    path = Store(tmp_path).game_path
    whole, deferred = Journal.open(path), Journal.open(path, defer=True)
    assert deferred.head is not None and not deferred.head.indexed
    asked = {"last_meta": {name: deferred.last_meta(name) for name in ASKED}, "ended": deferred.ended}
    expected = {name: whole.last_meta(name) for name in ASKED}
    assert asked == {"last_meta": expected, "ended": whole.ended}
    assert not deferred.head.indexed  # no search for them
    assert _answers(deferred) == _answers(whole)
    store = Store(tmp_path)
    assert Session(store, Journal.open(path, defer=True)).summary == Session(store, whole).summary
    assert played.summary == Session(store, Journal.open(path, defer=True)).summary


@pytest.mark.parametrize("game", ["trottel", "antartik"])
def test_a_draft_left_after_the_last_snapshot_and_notes_after_it_are_read(tmp_path, often, game):
    played = _unfinished(Store(tmp_path), game)
    resumed = Session.resume(Store(tmp_path), clock())
    assert resumed is not None
    resumed.note("meta", {"timer": {"preset": 30}})
    resumed.save_draft({"Ann": "x"}, ["Ann"])
    resumed.journal.close()
    path = Store(tmp_path).game_path
    deferred = Journal.open(path, defer=True)
    assert deferred.draft() == {"answers": {"Ann": "x"}, "locked": ["Ann"]}
    assert deferred.last_meta("timer") == {"preset": 30}
    assert _answers(Journal.open(path, defer=True)) == _answers(Journal.open(path))
    assert len(played.actions) == len(deferred.timeline().actions)


def test_a_note_naming_a_key_an_action_also_holds_is_still_found(tmp_path, often):
    """A key found last inside an action's line cannot be read on its own: the head is searched."""
    played = _unfinished(Store(tmp_path), "trottel")
    played.journal.close()
    path = Store(tmp_path).game_path
    deferred = Journal.open(path, defer=True)
    assert deferred.last("type") is None  # every "type" of the head is an action's: none is a note
    assert deferred.head is not None and deferred.head.indexed
    assert _answers(deferred) == _answers(Journal.open(path))
