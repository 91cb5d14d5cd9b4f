"""Snapshots in the journal: every one equals the replay of its actions, resume and undo start
from them, a damaged or mismatching one is ignored, and crashes across them lose nothing."""

from __future__ import annotations

import json
import zlib

import pytest

from firmware_host.core import session as sessions
from firmware_host.core.journal import Journal, snap_body
from firmware_host.core.replay import Script, run_actions
from firmware_host.core.session import Session
from firmware_host.core.snapshot import decode_state, encode_state, same_state
from firmware_host.core.store import Store
from games.workloads import LONG_GAMES, long_session
from tests.crashkit import GAMES, Run, clock, fresh, kill_points, play, snapshot_cuts, whole_game


@pytest.fixture
def often(monkeypatch):
    """Snapshots every 3 actions, so a short game crosses many."""
    monkeypatch.setattr(sessions, "SNAP_EVERY", 3)
    return 3


def _replayed(script: Script, actions: list) -> object:
    engine, state = script.start()
    state, index, _ = run_actions(engine, state, actions)
    assert index is None
    return state


def _played_with_undos(store: Store, game: str) -> tuple[Script, Session]:
    """A whole game of ``game``, with an undo and the same action again every fifth action."""
    script, steps = whole_game(game)
    session = Session.start(store, game, script.players, {}, script.seed, clock())
    for i, (kind, value) in enumerate(steps):
        if kind == "task":
            session.confirm_task(value)
            continue
        session.apply(value)
        if i % 5 == 4 and not session.over:
            assert session.undo()
            session.apply(value)
    return script, session


@pytest.mark.parametrize("game", sorted(GAMES))
def test_replaying_the_actions_gives_the_state_of_every_snapshot(tmp_path, often, game):
    store = Store(tmp_path)
    script, session = _played_with_undos(store, game)
    journal = Journal.open(store.game_path)
    actions: list = []
    checked = 0
    for record in journal.records:
        if "a" in record:
            actions.append(record["a"])
        elif "undo" in record:
            del actions[-record.get("k", 1) :]
        elif "snap" in record:
            body = snap_body(record["snap"])
            assert body["n"] == len(actions)
            assert same_state(decode_state(body["s"]), _replayed(script, actions)), f"snapshot at {body['n']}"
            checked += 1
    assert checked >= 4
    assert same_state(session.state, _replayed(script, actions))


@pytest.mark.parametrize("game", sorted(GAMES))
def test_a_state_round_trips_through_its_snapshot(game):
    script, steps = whole_game(game)
    state = _replayed(script, [v for k, v in steps if k == "action"])
    again = decode_state(json.loads(json.dumps(encode_state(state))))
    assert type(again) is type(state) and same_state(again, state)


def _long(store: Store, count: int) -> Session:
    players, fallback = LONG_GAMES["trottel"]
    session = Session.start(store, "trottel", list(players), {}, 1, clock())
    for action in long_session("trottel", players, count, 1, fallback).actions:
        session.apply(action)
    return session


def test_resume_starts_from_the_last_snapshot_and_replays_only_what_follows(tmp_path, monkeypatch):
    monkeypatch.setattr(sessions, "SNAP_EVERY", 10)
    session = _long(Store(tmp_path), 25)
    again = Session.resume(Store(tmp_path))
    assert again is not None
    assert again.snapshot_used == 20 and again.replayed == 5
    assert same_state(again.state, session.state) and again.actions == session.actions


def test_undo_replays_at_most_a_snapshot_span_and_says_the_same_outcomes(tmp_path, monkeypatch):
    monkeypatch.setattr(sessions, "SNAP_EVERY", 10)
    _long(Store(tmp_path), 34)
    resumed = Session.resume(Store(tmp_path))
    assert resumed is not None
    script = resumed.script()
    for _ in range(20):
        assert resumed.undo()
        assert resumed.replayed <= 10
        state = _replayed(script, resumed.actions)
        assert same_state(resumed.state, state)
    full = Session(Store(tmp_path), Journal.open(Store(tmp_path).game_path))
    assert resumed.outcomes() == full.outcomes()


def _reseal(path, change) -> None:
    """Rewrite every snapshot line through ``change`` (its checksum made right again)."""
    out = []
    for line in path.read_bytes().split(b"\n")[:-1]:
        record = json.loads(line)
        if "snap" in record:
            record.pop("c")
            change(record["snap"])
            body = json.dumps(record, ensure_ascii=False, separators=(",", ":"), sort_keys=True)
            line = (body[:-1] + f',"c":{zlib.crc32(body.encode())}}}').encode()
        out.append(line)
    path.write_bytes(b"\n".join(out) + b"\n")


@pytest.mark.parametrize(
    "change",
    [
        lambda s: s.update(k="0000000000000000"),  # made by other code (the software was updated)
        lambda s: s.update(d=s["d"] + 1),  # follows another action
        lambda s: s.update(s={"$c": "os:system", "f": {}}),  # names a class outside the games
        lambda s: s.update(s={"$c": "games.core.engine:BaseState", "f": {}}),  # not this game's state
        lambda s: s.update(g="bomb"),
    ],
)
def test_a_mismatching_snapshot_is_ignored_and_the_game_replayed(tmp_path, monkeypatch, change):
    monkeypatch.setattr(sessions, "SNAP_EVERY", 10)
    session = _long(Store(tmp_path), 25)
    _reseal(Store(tmp_path).game_path, change)
    again = Session.resume(Store(tmp_path))
    assert again is not None and again.snapshot_used is None and again.replayed == 25
    assert same_state(again.state, session.state)


def test_a_damaged_snapshot_line_is_ignored_not_the_journal(tmp_path, monkeypatch):
    monkeypatch.setattr(sessions, "SNAP_EVERY", 10)
    session = _long(Store(tmp_path), 25)
    path = Store(tmp_path).game_path
    raw = bytearray(path.read_bytes())
    at = raw.index(b'"s":{') + 12  # inside the state of the first snapshot
    raw[at] ^= 0x01
    path.write_bytes(bytes(raw))
    store = Store(tmp_path)
    again = Session.resume(store)
    assert again is not None and store.problems == []
    assert again.actions == session.actions and same_state(again.state, session.state)
    assert again.snapshot_used == 20


@pytest.mark.parametrize("game", sorted(GAMES))
def test_a_kill_at_every_write_of_a_game_crossing_several_snapshots_loses_nothing(tmp_path, monkeypatch, game):
    monkeypatch.setattr(sessions, "SNAP_EVERY", 12 if game == "antartik" else 3)  # its game is long
    points, failures = kill_points(tmp_path, game)
    assert points > 20
    assert failures == {}


@pytest.mark.parametrize("game", ["trottel", "antartik"])
def test_a_power_cut_inside_a_snapshot_record_loses_nothing(tmp_path, often, game):
    cuts, failures = snapshot_cuts(tmp_path, game, stride=53)
    assert cuts > 40 and failures == {}


def test_an_old_journal_without_snapshots_resumes_and_gets_one(tmp_path, monkeypatch):
    monkeypatch.setattr(sessions, "SNAP_EVERY", 1000)
    session = _long(Store(tmp_path), 25)
    monkeypatch.setattr(sessions, "SNAP_EVERY", 10)
    again = Session.resume(Store(tmp_path))
    assert again is not None and again.snapshot_used is None and again.actions == session.actions
    third = Session.resume(Store(tmp_path))
    assert third is not None and third.snapshot_used == 25 and third.replayed == 0


def test_a_game_over_found_on_resume_is_filed_from_its_snapshot(tmp_path, often):
    script, steps = whole_game("arschbombe")
    root = fresh(tmp_path / "s")
    run = Run()
    session = play(Store(root), script, steps[:-1], run)
    session.apply(steps[-1][1])
    assert Session.resume(Store(root)) is None
    assert [e["reason"] for e in Store(root).history()][-1] == "over"
