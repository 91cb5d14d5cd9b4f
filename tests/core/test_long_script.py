"""A SCRIPT as long as the longest evening and beyond: ``tablemate state`` prints it and ``tablemate
replay`` runs it (``docs/commands.md``), while a SCRIPT past the bounds is still refused."""

from __future__ import annotations

import json

import pytest

from firmware_host.core import fsio
from firmware_host.core.limits import MAX_FILE_BYTES, MAX_SCRIPT_BYTES, MAX_SCRIPT_VALUES
from firmware_host.core.rebuild import digest
from firmware_host.core.session import Session
from firmware_host.core.snapshot import encode_state, fingerprint
from firmware_host.core.store import Store
from tests.crashkit import clock

PLAYERS = ["Ann", "Ben", "Cy"]
START = [("leave", "Ben"), ("return", "Ben"), ("leave", "Cy"), ("return", "Cy"), ("leave", "Ben"), ("return", "Ben")]
ROUND = [("leave", "Cy"), ("return", "Cy"), ("leave", "Ben"), ("return", "Ben")]
"""Trottelmütze while Ann is to roll: Ben and Cy go to the toilet without leave and come back with
the cap, in turn. After :data:`START` every :data:`ROUND` leaves the game exactly as it found it."""


def _action(kind: str, player: str) -> dict[str, str]:
    return {"type": kind, "player": player}


def _evening(store: Store, scratch: Store, rounds: int) -> int:
    """A game of ``len(START) + 4 * rounds`` actions in ``store``'s journal as the device writes
    it (a snapshot at its end), made without playing them all: the state after every
    :data:`ROUND` is the one after :data:`START`, worked out once in ``scratch``. Its length."""
    played = Session.start(scratch, "trottel", PLAYERS, {}, 1, clock())
    for kind, player in START + ROUND * 10:
        played.apply(_action(kind, player))
    actions = [_action(k, p) for k, p in START + ROUND * rounds]
    n = len(actions)
    session = Session.start(store, "trottel", PLAYERS, {}, 1, clock())
    journal = session.journal
    real = fsio.fsync
    fsio.fsync = lambda fd: None  # (what is measured is the SCRIPT, not the card)
    try:
        for i, action in enumerate(actions):
            journal.submit({"a": action, "e": float(i), "t": 1_700_000_000.0 + i})
        point = played._point
        body = {
            "n": n,
            "g": "trottel",
            "k": fingerprint(type(played.engine)),
            "d": digest(actions[-1]),
            "s": encode_state(point.state),
            "o": encode_state(list(point.said)),
            "os": point.saids - len(played.actions) + n,  # one outcome an action
        }
        journal.submit({"snap": body, "e": float(n), "t": 1_700_000_000.0 + n}, optional=True, line=(actions, 0))
    finally:
        fsio.fsync = real
    journal.close()
    return n


def test_state_then_replay_of_a_100000_action_evening_prints_the_same_summary(tmp_path, cli):
    n = _evening(Store(tmp_path / "state"), Store(tmp_path / "scratch"), 25_000)
    assert n >= 100_000
    shown = cli("state", "--state-dir", tmp_path / "state")
    assert shown.status == 0, shown.err
    printed = shown.json()
    assert len(printed["script"]["actions"]) == n
    path = tmp_path / "evening.json"
    path.write_text(json.dumps(printed["script"], ensure_ascii=False), encoding="utf-8")
    assert MAX_FILE_BYTES < path.stat().st_size < MAX_SCRIPT_BYTES  # (once refused: 1 MB was every file's bound)
    replayed = cli("replay", path)
    assert replayed.status == 0, replayed.err
    assert replayed.json() == printed["summary"]


@pytest.mark.parametrize(
    "text, said",
    [
        ('{"game": "trottel", "players": ["Ann", "Ben"], "actions": [' + "{}," * MAX_SCRIPT_VALUES + "{}]}", "values"),
        ('{"game": "trottel", "players": ["Ann", "Ben"], "x": "' + "a" * MAX_SCRIPT_BYTES + '"}', "bytes"),
    ],
    ids=["a million empty actions", "16 MB of one text"],
)
def test_a_script_past_the_bounds_is_refused_in_one_line_before_it_is_parsed(tmp_path, cli, text, said):
    path = tmp_path / "hostile.json"
    path.write_text(text, encoding="utf-8")
    out = cli("replay", path)
    assert out.status == 2 and out.out == ""
    assert len(out.err.strip().splitlines()) == 1 and said in out.err and "Traceback" not in out.err
