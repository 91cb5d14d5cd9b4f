"""``tablemate state`` takes a long game's SCRIPT from the cache beside the journal, and prints
exactly what the journal holds: after undos past snapshots and other moves played instead, after
a power cut that lost the cache, with a cache that lies, and with none at all."""

from __future__ import annotations

import json
import random

import pytest

from firmware_host.core import journal_head
from firmware_host.core import session as sessions
from firmware_host.core.journal import Journal
from firmware_host.core.script_cache import cache_path
from firmware_host.core.session import Session
from firmware_host.core.store import Store
from games.core import Refused
from games.workloads import next_action
from tests.core.test_state_text import _as_before
from tests.crashkit import clock


@pytest.fixture
def often(monkeypatch):
    """Snapshots every 5 actions: a short game has many of them."""
    monkeypatch.setattr(sessions, "SNAP_EVERY", 5)


def _roll(session: Session, rng: random.Random) -> bool:
    """Play one Trottelmütze move of ``rng``'s choosing (dice entered, when a roll is asked for,
    so that a line played again differs); ``False`` when none goes on."""
    dice = {"type": "roll", "dice": [rng.randint(1, 6), rng.randint(1, 6)]}
    try:
        session.apply(dice)
    except Refused:
        try:
            action, _ = next_action(session.engine, session.state, rng)
        except RuntimeError:
            return False
        session.apply(action)
    if session.over:
        session.undo()
        return False
    return True


def _walk(store: Store, seed: int, steps: int = 160) -> Session:
    """A Trottelmütze evening: rolls, and now and then several moves taken back (past snapshots)
    and other dice rolled instead."""
    rng = random.Random(seed)
    session = Session.start(store, "trottel", ["Ann", "Bo", "Cy"], {}, seed, clock(), meta={"seats": {"p1": "Ann"}})
    for _ in range(steps):
        if session.actions and rng.random() < 0.07:
            for _ in range(rng.randint(2, 8)):
                session.undo()
        elif not _roll(session, rng):
            break
    return session


def _state(cli, folder) -> str:
    out = cli("state", "--state-dir", folder)
    assert out.status == 0, out.err
    return out.out


def _cached(store: Store) -> bool:
    journal = Journal.open(store.game_path, defer=True)
    Session(store, journal)
    return journal.script_json(Session(store, Journal.open(store.game_path)).actions) is not None


@pytest.mark.parametrize("seed", range(4))
def test_the_script_after_undos_past_snapshots_and_other_dice_is_what_the_journal_holds(tmp_path, often, cli, seed):
    played = _walk(Store(tmp_path), seed)
    played.journal.close()
    assert len(played.actions) > 20
    assert _cached(Store(tmp_path))
    out = _state(cli, tmp_path)
    assert out == _as_before(Store(tmp_path))
    assert json.loads(out)["script"]["actions"] == json.loads(json.dumps(played.actions, sort_keys=True))


def test_a_game_resumed_and_played_on_keeps_its_cache_true(tmp_path, often, cli):
    first = _walk(Store(tmp_path), 7, 60)
    first.journal.close()
    resumed = Session.resume(Store(tmp_path), clock())
    assert resumed is not None
    rng = random.Random(8)
    for _ in range(40):
        if rng.random() < 0.15:
            resumed.undo()
            resumed.undo()
        else:
            _roll(resumed, rng)
    resumed.journal.close()
    assert _cached(Store(tmp_path))
    assert _state(cli, tmp_path) == _as_before(Store(tmp_path))


def test_a_cache_lost_to_a_power_cut_is_written_again_whole(tmp_path, often, cli):
    first = _walk(Store(tmp_path), 3, 60)
    first.journal.close()
    cache_path(Store(tmp_path).game_path).write_bytes(b"")  # never fsynced: a power cut may take it
    assert not _cached(Store(tmp_path))
    assert _state(cli, tmp_path) == _as_before(Store(tmp_path))  # from the journal's own lines
    resumed = Session.resume(Store(tmp_path), clock())
    assert resumed is not None
    rng = random.Random(4)
    assert _roll(resumed, rng)
    while len(resumed.actions) % sessions.SNAP_EVERY:  # up to the next snapshot
        assert _roll(resumed, rng)
    resumed.journal.close()
    assert _cached(Store(tmp_path))  # the writer found the bytes gone and wrote them all again
    assert _state(cli, tmp_path) == _as_before(Store(tmp_path))


@pytest.mark.parametrize("damage", ["flipped", "cut", "another game's", "gone"])
def test_a_cache_that_does_not_check_is_not_used(tmp_path, often, cli, damage):
    played = _walk(Store(tmp_path), 5, 80)
    played.journal.close()
    path = cache_path(Store(tmp_path).game_path)
    data = path.read_bytes()
    if damage == "flipped":
        path.write_bytes(data.replace(b"[", b"(", 1))
    elif damage == "cut":
        path.write_bytes(data[: len(data) // 2])
    elif damage == "another game's":
        path.write_bytes(data.replace(b'"roll"', b'"rule"'))
    else:
        path.unlink()
    assert not _cached(Store(tmp_path))
    assert _state(cli, tmp_path) == _as_before(Store(tmp_path))


def test_state_of_a_long_game_reads_only_from_its_last_snapshot_on(tmp_path, monkeypatch, often):
    from firmware_host.cli.cmd_records import state_text

    played = _walk(Store(tmp_path), 2, 200)
    rng = random.Random(9)
    assert _roll(played, rng)
    while len(played.actions) % sessions.SNAP_EVERY != 2:  # two rolls past a snapshot, no undo since
        assert _roll(played, rng)
    played.journal.close()
    searched = []
    real = journal_head._not_actions
    monkeypatch.setattr(journal_head, "_not_actions", lambda data: searched.append(1) or real(data))
    store = Store(tmp_path, create=False)
    journal = store.open_game(defer=True)
    assert journal is not None and journal.head is not None
    text = state_text(Session(store, journal))
    assert not searched and not journal.head.indexed  # the lines before the snapshot: never searched
    assert text + "\n" == _as_before(Store(tmp_path))
