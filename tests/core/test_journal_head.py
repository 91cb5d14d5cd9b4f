"""A long journal read from its last snapshot on: the lines before it (proven by one CRC) are decoded
only when something needs them, and whatever needs them gets exactly what a whole read gives."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys

import pytest

from firmware_host.core import journal_lines, verdict
from firmware_host.core import session as sessions
from firmware_host.core.journal import Journal, JournalError
from firmware_host.core.replay import Script, replay
from firmware_host.core.session import Session
from firmware_host.core.snapshot import same_state
from firmware_host.core.store import Store
from games.workloads import LONG_GAMES, long_session
from tests.crashkit import clock
from tests.devicekit import run_device


def _played(store: Store, game: str, count: int, notes: bool = True) -> Session:
    """``count`` actions of ``game`` in effect, with an undo and the same action again now and
    then (some across a snapshot), and notes between them."""
    players, fallback = LONG_GAMES[game]
    actions = long_session(game, players, count + 5, 1, fallback).actions
    session = Session.start(store, game, list(players), {}, 1, clock(), meta={"seats": {"p1": players[0]}})
    step = 0
    while len(session.actions) < count:
        session.apply(actions[len(session.actions)])
        step += 1
        if notes and step % 17 == 0:
            session.note("meta", {"mark": step})
        if step % 23 == 0 and len(session.actions) > 2:
            assert session.undo() and session.undo()
    return session


def _whole(path) -> Journal:
    """The journal read line by line, nothing left for later (as before the head existed)."""
    lines = path.read_bytes().split(b"\n")[:-1]
    records = [journal_lines.decode(line) for line in lines]
    assert all(r is not None for r in records)
    return Journal(path, records[0], records[1:])


def _untouched(journal: Journal) -> bool:
    head = journal.head
    return head is not None and head._records is None and head._fields is None


@pytest.mark.parametrize("game", sorted(LONG_GAMES))
def test_a_journal_read_from_its_last_snapshot_gives_what_a_whole_read_gives(tmp_path, monkeypatch, game):
    monkeypatch.setattr(sessions, "SNAP_EVERY", 10)
    played = _played(Store(tmp_path), game, 240)
    played.journal.close()
    path = Store(tmp_path).game_path
    lazy, whole = Journal.open(path), _whole(path)
    assert lazy.head is not None and len(lazy.head) > 200
    a, b = lazy.timeline(), whole.timeline()
    assert len(a.actions) == len(b.actions) == 240
    assert [s.get("n") for s in a.snaps] == [s.get("n") for s in b.snaps]
    for k in (0, 1, 57, 119, 200, len(b.actions) - 1):  # one by one, from the bytes
        assert a.actions[k] == b.actions[k] and a.joined[k] == b.joined[k]
    assert _untouched(lazy)
    assert lazy.metas("mark") == whole.metas("mark") and lazy.last_meta("seats") == whole.last_meta("seats")
    assert lazy.draft() == whole.draft() and lazy.ended == whole.ended
    assert list(a.actions) == b.actions and list(a.joined) == b.joined
    again = Journal.open(path)
    assert [r for r in again.records if "snap" not in r] == [r for r in whole.records if "snap" not in r]

    session = Session(Store(tmp_path), Journal.open(path))
    assert session.snapshot_used == 240 and session.replayed == 0
    assert _untouched(session.journal)  # the state needs nothing before the snapshot
    assert same_state(session.state, played.state) and session.summary == played.summary
    assert session.actions == played.actions and session.outcomes() == played.outcomes()


def test_resume_decodes_nothing_before_the_snapshot_until_the_check_replays(tmp_path, monkeypatch):
    monkeypatch.setattr(sessions, "SNAP_EVERY", 100)
    played = _played(Store(tmp_path), "trottel", 905)
    played.journal.close()
    sealed = Session.resume(Store(tmp_path))  # its snapshot sealed: trusted, no check to come
    assert sealed is not None and sealed.snapshot_used == 900 and sealed.unchecked is None
    assert _untouched(sealed.journal)  # (the checkpoints before it replayed from the one before)
    monkeypatch.setattr(verdict, "code", lambda: b"an update since")  # every seal void
    again = Session.resume(Store(tmp_path))
    assert again is not None and again.snapshot_used == 900 and _untouched(again.journal)
    replay_all = again.replay_whole()  # the check off the loop: every action from the first
    assert replay_all is not None and again.agrees(replay_all)
    assert same_state(again.state, played.state) and again.actions == played.actions


@pytest.mark.parametrize("game", sorted(LONG_GAMES))
def test_undo_past_the_snapshot_reads_only_the_lines_it_replays(tmp_path, monkeypatch, game):
    monkeypatch.setattr(sessions, "SNAP_EVERY", 20)
    played = _played(Store(tmp_path), game, 205, notes=False)
    played.journal.close()
    session = Session.resume(Store(tmp_path))
    assert session is not None and session.snapshot_used == 200
    expected = played.actions[:190]
    while len(session.actions) > 190:  # back past the snapshot at 200, toward the one at 180
        assert session.undo()
    assert _untouched(session.journal)  # (comparing below decodes them all)
    assert session.actions == expected
    script = Script(game, list(LONG_GAMES[game][0]), 1, {}, list(expected))
    assert session.summary == replay(script).summary
    again = Session.resume(Store(tmp_path))  # and the journal says the same
    assert again is not None and again.actions == expected and again.summary == session.summary


@pytest.mark.parametrize("game", sorted(LONG_GAMES))
def test_state_prints_the_whole_script_of_a_long_journal(tmp_path, monkeypatch, game):
    monkeypatch.setattr(sessions, "SNAP_EVERY", 10)
    played = _played(Store(tmp_path), game, 150)
    played.journal.close()
    out = subprocess.run(
        [sys.executable, "-m", "firmware_host", "state", "--state-dir", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    printed = json.loads(out.stdout)
    whole = _whole(Store(tmp_path).game_path)
    assert printed["script"]["actions"] == whole.actions() == played.actions
    assert printed["summary"] == played.summary == replay(Script.from_json(printed["script"])).summary
    session = Session(Store(tmp_path), Journal.open(Store(tmp_path).game_path))
    text = json.dumps({"summary": session.summary, "script": session.script().to_json()}, ensure_ascii=False)
    assert out.stdout == text + "\n"  # exactly what a whole read prints


def test_an_action_line_unlike_those_the_session_writes_is_still_read_right(tmp_path, monkeypatch):
    """An action line the one search does not know (a key the session never writes, a backslash)
    still reads right: the head's lines are then decoded whole."""
    monkeypatch.setattr(sessions, "SNAP_EVERY", 10)
    players, fallback = LONG_GAMES["trottel"]
    actions = list(long_session("trottel", players, 25, 1, fallback).actions)
    session = Session.start(Store(tmp_path), "trottel", list(players), {}, 1, clock())
    for i, action in enumerate(actions):
        if i == 4:
            stamp = session._stamp
            monkeypatch.setattr(session, "_stamp", lambda stamp=stamp: {**stamp(), "x": 'a\\b"'})
        session.apply(action)
        if i == 4:
            monkeypatch.setattr(session, "_stamp", stamp)
    session.journal.close()
    path = Store(tmp_path).game_path
    assert b'"x":"a\\\\b\\""' in path.read_bytes()
    lazy = Journal.open(path)
    assert lazy.head is not None and list(lazy.actions()) == _whole(path).actions() == actions
    assert Session(Store(tmp_path), Journal.open(path)).script().actions == actions


def test_damage_before_the_last_snapshot_still_stops_the_read_and_names_its_line(tmp_path, monkeypatch):
    monkeypatch.setattr(sessions, "SNAP_EVERY", 10)
    played = _played(Store(tmp_path), "antartik", 45, notes=False)
    played.journal.close()
    path = Store(tmp_path).game_path
    lines = path.read_bytes().split(b"\n")
    number = [i for i, line in enumerate(lines) if line.startswith(b'{"a":')][7] + 1
    lines[number - 1] = lines[number - 1].replace(b'"type"', b'"tYpe"', 1)
    path.write_bytes(b"\n".join(lines))
    with pytest.raises(JournalError, match=f"line {number} is damaged"):
        Journal.open(path)


def test_a_damaged_snapshot_before_the_last_one_costs_only_its_shortcut(tmp_path, monkeypatch):
    monkeypatch.setattr(sessions, "SNAP_EVERY", 10)
    played = _played(Store(tmp_path), "trottel", 45, notes=False)
    played.journal.close()
    path = Store(tmp_path).game_path
    lines = path.read_bytes().split(b"\n")
    k = [i for i, line in enumerate(lines) if b'"snap":{' in line[:64]][1]
    lines[k] = lines[k][:200] + bytes([lines[k][200] ^ 0x01]) + lines[k][201:]
    path.write_bytes(b"\n".join(lines))
    store = Store(tmp_path)
    again = Session.resume(store)
    assert again is not None and store.problems == [] and again.actions == played.actions
    assert same_state(again.state, played.state)


def test_the_resumed_device_checks_a_long_journal_and_undoes_past_its_snapshot(tmp_path, monkeypatch):
    monkeypatch.setattr(sessions, "SNAP_EVERY", 100)
    played = _played(Store(tmp_path), "trottel", 210, notes=False)
    played.journal.close()

    async def body(dev):
        assert dev.session.snapshot_used == 200
        await dev.checked.wait()
        for _ in range(15):
            before = len(dev.session.actions)
            dev.undo()
            while dev.game.busy is not None or len(dev.session.actions) == before:
                await asyncio.sleep(0.01)
        return list(dev.session.actions), dev.session.summary

    actions, summary = run_device(tmp_path, body)
    assert actions == played.actions[: len(actions)] and len(actions) < 200
    assert summary == replay(Script("trottel", list(LONG_GAMES["trottel"][0]), 1, {}, actions)).summary
