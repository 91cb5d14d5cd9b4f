"""Snapshots in the journal: every one equals the replay of its actions, resume and undo start
from them, a damaged or mismatching one is ignored, and crashes across them lose nothing."""

from __future__ import annotations

import asyncio
import json
import zlib

import pytest

from firmware_host.core import session as sessions
from firmware_host.core.journal import Journal, JournalError, snap_body
from firmware_host.core.replay import Script, replay, run_actions
from firmware_host.core.session import Session
from firmware_host.core.snapshot import decode_state, encode_state, same_state
from firmware_host.core.store import Store
from games.workloads import LONG_GAMES, long_session
from tests.crashkit import GAMES, Run, clock, fresh, kill_points, play, snapshot_cuts, whole_game
from tests.devicekit import run_device


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
    # Antartik's 339 calls: each of its first and last 80 (some 36 actions each way: its first
    # three snapshots, its last three and the filing; the cycles between repeat; a kill at every
    # call of its whole game is test_crashes')
    points, failures = kill_points(tmp_path, game, ends=80 if game == "antartik" else None)
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


@pytest.mark.parametrize("game", sorted(LONG_GAMES))
def test_every_snapshot_of_a_long_session_is_its_replay_order_included(tmp_path, often, game):
    players, fallback = LONG_GAMES[game]
    store = Store(tmp_path / "all")
    session = Session.start(store, game, list(players), {}, 1, clock())
    for action in long_session(game, players, 300, 1, fallback).actions:
        session.apply(action)
    session.journal.close()
    script = session.script()
    lines = store.game_path.read_bytes().split(b"\n")[:-1]
    engine, state = script.start()
    replayed = [state]  # the replay's state after each action: made once, not once per snapshot
    for action in script.actions:
        state, index, _ = run_actions(engine, state, [action])
        assert index is None
        replayed.append(state)
    actions: list = []
    checked = 0
    for number, line in enumerate(lines[1:], start=2):
        record = json.loads(line)
        if "a" in record:
            actions.append(record["a"])
            continue
        if "snap" not in record:
            continue
        body = record["snap"]
        assert actions == script.actions[: len(actions)]
        assert same_state(decode_state(body["s"]), replayed[len(actions)]), f"snapshot at {body['n']}"
        # what `tablemate state` says of the journal up to two actions on is what `tablemate replay` says
        cut = next((i for i in range(number, len(lines)) if b'"a":' in lines[i] and b'"snap":' not in lines[i]), None)
        if cut is not None and cut + 1 < len(lines):
            folder = tmp_path / f"at{body['n']}"
            folder.mkdir()
            (folder / "game.jsonl").write_bytes(b"\n".join(lines[: cut + 2]) + b"\n")
            resumed = Session(Store(folder), Journal.open(folder / "game.jsonl"))
            assert resumed.snapshot_used == body["n"]
            shown = Script.from_json(resumed.script().to_json())
            assert shown.actions == script.actions[: len(shown.actions)]
            assert resumed.summary == engine.summary(replayed[len(shown.actions)]), f"restored at {body['n']}"
        checked += 1
    assert checked >= 90
    assert replay(shown).summary == resumed.summary  # and `tablemate replay` itself, at the last one


def _lying(tmp_path, change) -> tuple[Session, Store]:
    session = _long(Store(tmp_path), 25)
    session.journal.close()
    _reseal(Store(tmp_path).game_path, lambda s: change(s["s"]["f"]) if s["n"] == 20 else None)
    return session, Store(tmp_path)


LIES = {
    "current past the last player": lambda f: f.update(current=len(f["players"])),
    "current + 1": lambda f: f.update(current=(f["current"] + 1) % len(f["players"])),
    "current of the wrong type": lambda f: f.update(current="Ann"),
    "no players": lambda f: f.update(players=[]),
    "a drink more": lambda f: f["stehtisch"].update(beer=f["stehtisch"]["beer"] + 1),
    "drinks in another order": lambda f: f.update(drinks={"$m": [[k, v] for k, v in reversed(f["drinks"].items())]}),
    "a position off the board": lambda f: f["positions"].update(Ann=10_000),
    "the board cut short": lambda f: f.update(board=f["board"][:3]),
    "a field missing": lambda f: f.pop("away"),
}


def test_a_snapshot_naming_a_point_its_lines_do_not_hold_is_found_out_and_the_device_reads_every_line(
    tmp_path, monkeypatch, cli, caplog
):
    """The lines before the last snapshot are searched only when needed, its point trusted until
    then: one that names another point is found out when they are, never trusted past that."""
    monkeypatch.setattr(sessions, "SNAP_EVERY", 10)
    session = _long(Store(tmp_path), 25)
    session.journal.close()
    truth = _replayed(session.script(), session.actions)
    _reseal(Store(tmp_path).game_path, lambda s: s.update(n=s["n"] + 1) if s["n"] == 20 else None)
    shown = cli("state", "--state-dir", tmp_path)
    assert "Traceback" not in shown.err
    assert shown.status == 2 or shown.json()["script"]["actions"] == session.actions

    async def body(dev):
        await dev.checked.wait()
        return dev.session.state, len(dev.session.actions)

    with caplog.at_level("WARNING"):
        state, count = run_device(tmp_path, body)
    assert count == 25 and same_state(state, truth)
    said = [r.getMessage() for r in caplog.records if "names 21 actions" in r.getMessage()]
    assert len(said) == 1 and "read again from every line" in said[0]


@pytest.mark.parametrize("lie", sorted(LIES))
def test_a_crafted_snapshot_never_breaks_the_folder_and_the_device_keeps_the_replay(tmp_path, monkeypatch, cli, lie):
    monkeypatch.setattr(sessions, "SNAP_EVERY", 10)
    session, _ = _lying(tmp_path, LIES[lie])
    truth = _replayed(session.script(), session.actions)
    shown = cli("state", "--state-dir", tmp_path)
    assert shown.status == 0 and "Traceback" not in shown.err and shown.json()["summary"] is not None

    async def body(dev):
        await dev.checked.wait()
        return dev.session.state, len(dev.session.actions)

    state, count = run_device(tmp_path, body)
    assert count == 25 and same_state(state, truth)
    again = Session.resume(Store(tmp_path))  # the folder is not stuck, and what it resumes is the truth
    assert again is not None and same_state(again.state, truth)
    Session.start(Store(tmp_path), "arschbombe", ["Ann", "Ben"], seed=1)  # a new game starts (settles this one)


def test_after_a_resume_from_a_lying_snapshot_the_device_keeps_the_replay_and_saves_a_fresh_one(
    tmp_path, monkeypatch, caplog
):
    monkeypatch.setattr(sessions, "SNAP_EVERY", 10)
    session, store = _lying(tmp_path, LIES["a drink more"])
    truth = _replayed(session.script(), session.actions)
    assert Session.resume(Store(tmp_path)).snapshot_used == 20  # the lie passes every check on its own

    async def body(dev):
        await dev.checked.wait()
        return dev.session.state, dev.session.summary

    with caplog.at_level("WARNING"):
        state, summary = run_device(tmp_path, body)
    assert same_state(state, truth) and summary == Session(store, Journal.open(store.game_path)).summary
    said = [r.getMessage() for r in caplog.records if "snapshot" in r.getMessage()]
    assert len(said) == 1 and "resumed at action 20" in said[0]
    snaps = Journal.open(store.game_path).timeline().snaps
    assert snaps[-1]["n"] == 25


@pytest.mark.parametrize("at", range(80))
def test_a_damaged_byte_in_a_snapshot_head_is_ignored_like_one_in_its_body(tmp_path, monkeypatch, at):
    monkeypatch.setattr(sessions, "SNAP_EVERY", 10)
    session = _long(Store(tmp_path), 25)
    session.journal.close()
    path = Store(tmp_path).game_path
    raw = bytearray(path.read_bytes())
    start = raw.rindex(b"\n", 0, raw.index(b'"snap":{')) + 1  # the first snapshot line
    raw[start + at] ^= 0x01
    path.write_bytes(bytes(raw))
    store = Store(tmp_path)
    again = Session.resume(store)
    assert again is not None and store.problems == [] and path.exists()
    assert again.actions == session.actions and same_state(again.state, session.state)


def test_a_long_journal_is_checked_line_by_line_only_after_its_last_snapshot(tmp_path, monkeypatch):
    from firmware_host.core import journal_lines as journals

    monkeypatch.setattr(sessions, "SNAP_EVERY", 100)
    session = _long(Store(tmp_path), 250)
    session.journal.close()
    checked = []
    real = journals.sealed
    monkeypatch.setattr(journals, "sealed", lambda line: checked.append(line) or real(line))
    again = Session.resume(Store(tmp_path))
    assert again is not None and again.actions == session.actions and again.snapshot_used == 200
    assert len(checked) <= 52  # the 50 actions after the snapshot at 200, and the snapshot itself


def test_damage_before_the_last_snapshot_is_still_found_and_named(tmp_path, monkeypatch):
    monkeypatch.setattr(sessions, "SNAP_EVERY", 10)
    session = _long(Store(tmp_path), 25)
    session.journal.close()
    path = Store(tmp_path).game_path
    lines = path.read_bytes().split(b"\n")
    number = next(i for i, line in enumerate(lines) if line.startswith(b'{"a":')) + 5  # an action before the snapshots
    lines[number - 1] = lines[number - 1].replace(b'"type"', b'"tYpe"', 1)
    path.write_bytes(b"\n".join(lines))
    with pytest.raises(JournalError, match=f"line {number} is damaged"):
        Journal.open(path)


def test_once_the_resume_is_checked_an_undo_past_its_snapshot_replays_at_most_a_checkpoint_span(tmp_path, monkeypatch):
    monkeypatch.setattr(sessions, "SNAP_EVERY", 100)
    session = _long(Store(tmp_path), 210)
    session.journal.close()

    async def body(dev):
        await dev.checked.wait()
        costs = []
        for _ in range(15):  # back past the snapshot at 200
            costs.append(dev.session.undo_cost())
            dev.undo()
            await asyncio.sleep(0.1)
        return costs, dev.session.actions

    costs, actions = run_device(tmp_path, body)
    assert actions == session.actions[:-15] and max(costs) <= sessions.KEEP_EVERY
