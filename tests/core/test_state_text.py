"""``tablemate state`` of a long journal prints, byte for byte, what decoding every action and
encoding it again printed, though it now copies the actions from the journal's bytes: for every
game, for texts the copy cannot take as they are, and for journals written before ``"e"``."""

from __future__ import annotations

import json
import zlib

import pytest

from firmware_host.core import journal_lines
from firmware_host.core import session as sessions
from firmware_host.core.journal import Journal
from firmware_host.core.session import Session
from firmware_host.core.snapshot import same_state
from firmware_host.core.store import Store
from tests import crashkit
from tests.crashkit import GAMES, clock, whole_game


@pytest.fixture
def often(monkeypatch):
    """Snapshots every 3 actions: a short game has a long head (the lines before the last one)."""
    monkeypatch.setattr(sessions, "SNAP_EVERY", 3)


def _unfinished(store: Store, game: str) -> Session:
    """A whole game of ``game`` but its last step, an undo and the same action again now and then
    (undone lines inside the head), and notes between the actions."""
    script, steps = whole_game.__wrapped__(game)  # (not the cached game: its players may differ)
    session = Session.start(store, game, script.players, {}, script.seed, clock(), meta={"seats": {"p1": "x"}})
    for i, (kind, value) in enumerate(steps[:-1]):
        if kind == "task":
            session.confirm_task(value)
            continue
        session.apply(value)
        if i % 5 == 4:
            assert session.undo()
            session.apply(value)
        if i % 7 == 6:
            session.note("meta", {"mark": i})
    assert not session.over
    session.journal.close()
    return session


def _as_before(store: Store) -> str:
    """What ``tablemate state`` printed before it copied bytes: every record decoded (no head),
    the SCRIPT's actions encoded again."""
    path = store.game_path
    records = [journal_lines.decode(line) for line in path.read_bytes().split(b"\n")[:-1]]
    session = Session(store, Journal(path, records[0], records[1:]))
    data = {"summary": session.summary, "script": session.script().to_json()}
    return json.dumps(data, ensure_ascii=False) + "\n"


def _copied(store: Store) -> bool:
    """Whether the head's actions are copied from their bytes (not decoded)."""
    journal = Journal.open(store.game_path)
    assert journal.head is not None and len(journal.head) > 10
    return journal.head.text(len(journal.head.actions())) is not None


@pytest.mark.parametrize("game", sorted(GAMES))
def test_state_of_a_long_journal_prints_byte_for_byte_what_a_whole_decode_printed(tmp_path, often, cli, game):
    played = _unfinished(Store(tmp_path), game)
    assert _copied(Store(tmp_path))
    out = cli("state", "--state-dir", tmp_path)
    assert out.status == 0, out.err
    assert out.out == _as_before(Store(tmp_path))
    assert json.loads(out.out)["script"]["actions"] == list(played.actions)


@pytest.mark.parametrize(
    "names",
    [["Ann, Jr.", "Bo: the 2nd", "Cy"], ['Ann "A"', "Bo\\B", "Cy"], ["Ann", "Bo,", ":Cy"]],
    ids=["separators", "escapes", "at-the-edges"],
)
def test_names_holding_separators_or_escapes_print_as_before(tmp_path, often, monkeypatch, cli, names):
    """A separator or an escape inside a text is not what the copy can space: those actions are
    decoded and encoded again, as before."""
    monkeypatch.setitem(crashkit.GAMES, "tonne", names)
    played = _unfinished(Store(tmp_path), "tonne")
    assert any(names[1] in action.get("cards", {}) for action in played.actions)  # (a reveal names all)
    assert not _copied(Store(tmp_path))
    out = cli("state", "--state-dir", tmp_path)
    assert out.status == 0, out.err
    assert out.out == _as_before(Store(tmp_path))
    assert json.loads(out.out)["script"]["actions"] == list(played.actions)


def _written_before_e(store: Store) -> None:
    """The journal as a device wrote it before records carried ``"e"`` (and snapshots said where
    they start and the checksum before them): every record written again without it, each
    snapshot naming its own place, so the lines before the last one are still proven by it."""
    path = store.game_path
    records = [journal_lines.decode(line) for line in path.read_bytes().split(b"\n")[:-1]]
    out = journal_lines.encode(records[0])
    for record in records[1:]:
        record.pop("e", None)
        if "snap" in record:
            body = journal_lines.snap_body(record["snap"])
            record["snap"] = {**body, "ac": zlib.crc32(out), "at": len(out)}
        out += journal_lines.encode(record)
    assert b'"e":' not in out
    path.write_bytes(out)


@pytest.mark.parametrize("game", ["trottel", "tonne"])
def test_a_journal_written_before_e_still_resumes_and_prints_as_before(tmp_path, often, cli, game):
    played = _unfinished(Store(tmp_path), game)
    _written_before_e(Store(tmp_path))
    assert not _copied(Store(tmp_path))  # its lines are not as today's: decoded
    out = cli("state", "--state-dir", tmp_path)
    assert out.status == 0, out.err
    assert out.out == _as_before(Store(tmp_path))
    again = Session.resume(Store(tmp_path))
    assert again is not None and again.snapshot_used is not None
    assert list(again.actions) == list(played.actions) and same_state(again.state, played.state)
    replay_all = again.replay_whole()
    assert replay_all is not None and again.agrees(replay_all)
