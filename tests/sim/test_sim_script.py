"""`tablemate sim --script`, `state` and `history`, exactly as docs/commands.md has them."""

from __future__ import annotations

import json

import pytest
from PIL import Image

JUMP = '{"type":"jump","jumper":"diver","special":true,"result":"clean"}'


def run_sim(cli, tmp_path, text: str, *extra: str):
    script = tmp_path / "s.txt"
    script.write_text(text)
    return cli("sim", "--script", script, "--state-dir", tmp_path / "state", "--frames", tmp_path / "frames", *extra)


def test_a_scripted_session_plays_a_whole_arschbombe_game_from_the_buttons(cli, tmp_path):
    lines = ["# two players, every jump the first choice of each menu", "start arschbombe Ann Ben", "snap start"]
    for turn in range(12):
        lines += ["press ok", f"snap turn{turn:02d}-result", "press ok"]
    lines += ["wait 1", "snap final"]
    result = run_sim(cli, tmp_path, "\n".join(lines) + "\n")
    assert result.status == 0, result.err
    history = cli("history", "--json", "--state-dir", tmp_path / "state").json()
    assert len(history) == 1
    # three rascals on target (3 each), then the divers, clean as jumps 4, 5, 6
    assert history[0]["scores"] == {"Ann": 24, "Ben": 24} and history[0]["winners"] == ["Ann", "Ben"]
    frames = sorted((tmp_path / "frames").glob("*.png"))
    assert len(frames) == 14
    image = Image.open(tmp_path / "frames" / "final.png")
    assert image.size == (128, 64)
    assert cli("state", "--state-dir", tmp_path / "state").json() == {"summary": None, "script": None}


def test_every_snap_writes_the_panels_lines_as_drawn_beside_its_picture(cli, tmp_path):
    names = ["Maximiliane-Öztürk", "Bartholomäus-Groß", "Cy"]  # too long for a row: shortened as drawn
    text = f"start antartik {' '.join(names)}\nsnap first\npress ok\nsnap drawn\n"
    result = run_sim(cli, tmp_path, text)
    assert result.status == 0, result.err
    frames = tmp_path / "frames"
    assert sorted(p.name for p in frames.iterdir()) == ["drawn.png", "drawn.txt", "first.png", "first.txt"]
    lines = (frames / "drawn.txt").read_text(encoding="utf-8").splitlines()
    assert lines[0].startswith("Antartik  pile") and lines[1].startswith(">Maxi")  # the title bar, the grid
    assert any(line.startswith("Max's dive: ") for line in lines) and len(lines) == 7  # one line a row
    assert (frames / "drawn.txt").read_text(encoding="utf-8").endswith("\n")
    assert Image.open(frames / "drawn.png").size == (128, 64)


def test_action_lines_and_grams_and_wait_run(cli, tmp_path):
    result = run_sim(cli, tmp_path, f"start arschbombe Ann Ben Cy\naction {JUMP}\ngrams 25\nwait 3600\nsnap x\n")
    assert result.status == 0, result.err
    state = cli("state", "--state-dir", tmp_path / "state").json()
    assert state["summary"]["scores"]["Ann"] == 2 and state["summary"]["turn"] == "Ben"
    assert state["script"]["actions"] == [json.loads(JUMP)]


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("start arschbombe Ann Ben\nfly away\n", "line 2: unknown command 'fly'"),
        ("press p7\n", "line 1: press needs one button"),
        ("hold ok\n", "line 1: hold needs a button and seconds"),
        ("\n# comment\nwait soon\n", "line 3: wait: bad number"),
        ("grams lots\n", "line 1: grams: bad number"),
        ("action [1,2]\n", "line 1: action needs a JSON object"),
        ("action {nope\n", "line 1: action needs a JSON object"),
        ("snap ../../etc\n", "line 1: snap needs one label"),
        ("start chess A B\n", "line 1: unknown game 'chess'"),
        ("start arschbombe\n", "line 1: start needs a game and at least one player"),
        ("wait -1\n", "line 1: wait: bad number"),
    ],
)
def test_a_bad_line_exits_2_naming_it_and_nothing_runs(cli, tmp_path, text, needle):
    result = run_sim(cli, tmp_path, text)
    assert result.status == 2
    assert needle in result.err and result.err.count("\n") == 1
    assert not (tmp_path / "state" / "game.jsonl").exists()


def test_an_unfinished_game_in_the_state_folder_is_resumed_first(cli, tmp_path):
    assert run_sim(cli, tmp_path, f"start arschbombe Ann Ben\naction {JUMP}\n").status == 0
    assert run_sim(cli, tmp_path, "press ok\npress ok\npress ok\n").status == 0
    summary = cli("state", "--state-dir", tmp_path / "state").json()["summary"]
    assert summary["jumps"] == {"Ann": 1, "Ben": 1}


def test_state_of_an_unreadable_folder_exits_2(cli, tmp_path):
    missing = cli("state", "--state-dir", tmp_path / "nope")
    assert missing.status == 2 and missing.out == "" and missing.err.count("\n") == 1
    (tmp_path / "file").write_text("x")
    assert cli("state", "--state-dir", tmp_path / "file").status == 2
    (tmp_path / "s").mkdir()
    (tmp_path / "s" / "game.jsonl").write_text('{"broken\n{"x":1}\n')
    damaged = cli("state", "--state-dir", tmp_path / "s")
    assert damaged.status == 2 and "line 1" in damaged.err


def test_state_of_an_empty_folder_is_null(cli, tmp_path):
    assert cli("state", "--state-dir", tmp_path).json() == {"summary": None, "script": None}


def test_history_table_json_and_csv(cli, tmp_path):
    lines = ["start arschbombe Ann Ben"] + ["press ok"] * 24
    assert run_sim(cli, tmp_path, "\n".join(lines) + "\n").status == 0
    assert run_sim(cli, tmp_path, "start arschbombe Cy Dee\nwait 5\nstart arschbombe Eve Fay\n").status == 0
    state = tmp_path / "state"
    entries = cli("history", "--json", "--state-dir", state).json()
    assert [e["reason"] for e in entries] == ["over", "abandoned"]
    assert entries[0]["players"] == ["Ann", "Ben"] and entries[0]["duration_s"] > 0
    table = cli("history", "--state-dir", state).out.splitlines()
    assert table[0].split()[:4] == ["date", "game", "duration", "players"]
    assert "Ann, Ben" in table[1] and "ended early" in table[2]
    csv_lines = cli("history", "--csv", "--state-dir", state).out.splitlines()
    assert csv_lines[0] == "date,game,duration,players,scores,winners,reason,time" and len(csv_lines) == 3


def test_the_committed_arschbombe_script_plays_every_kind_of_button_input(cli, tmp_path):
    from pathlib import Path

    from firmware_host.core.journal import Journal

    script = Path(__file__).parents[1] / "data" / "arschbombe_game.sim"
    state = tmp_path / "state"
    assert cli("sim", "--script", script, "--frames", tmp_path / "f", "--state-dir", state).status == 0
    entry = cli("history", "--json", "--state-dir", state).json()[-1]
    assert entry["reason"] == "over" and entry["winners"] == ["Ann"]
    (journal,) = (state / "games").glob("*.jsonl")
    first = [(a["jumper"], a["special"], a["result"]) for a in Journal.open(journal).actions()[:6]]
    assert first == [
        ("rascal", False, "A"),
        ("diver", True, "clean"),
        ("rascal", True, "B"),  # Ann's own button: hold to pick, tap to move
        ("rascal", False, "out"),
        ("diver", False, "touch"),
        ("rascal", False, "D"),
    ]
    assert len(list((tmp_path / "f").glob("*.png"))) == 8


def _journal(state):
    (journal,) = state.glob("game.jsonl")
    return [json.loads(line) for line in journal.read_text().splitlines()]


@pytest.mark.parametrize("settle", ["", "wait 3\n"])
def test_grams_in_a_script_fill_the_bin_and_place_pieces_that_tonne_counts(cli, tmp_path, settle):
    # bug: a script's scale was never calibrated, so `grams` did nothing; and a pre-fill in the
    # first second after the start (before the scale had seen the bin empty) was never seen
    text = (
        f"start tonne Ann Ben\n{settle}grams 60\nwait 15\n"
        'action {"type":"reveal","cards":{"Ann":2,"Ben":5}}\nwait 3\n'
        "grams 5\nwait 4\ngrams 5\nwait 4\n"
    )
    assert run_sim(cli, tmp_path, text).status == 0
    state = cli("state", "--state-dir", tmp_path / "state").json()
    assert state["summary"]["bin"] == 14 and state["summary"]["turn"] == "Ben" and state["summary"]["owed"] == 5
    assert state["script"]["actions"][1:] == [{"type": "place", "count": 1}] * 2
    tasks = [line["task"] for line in _journal(tmp_path / "state") if "task" in line]
    assert tasks == [{"at": 0, "done": "bin0"}]  # the scale saw the bin filled: nobody pressed "Bin filled"
