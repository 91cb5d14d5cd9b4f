"""Arschbombe rules (docs/arschbombe.md), through the engine and the replay contract."""

from __future__ import annotations

import pytest

from games import get_engine
from games.arschbombe.engine import jump_points
from games.core import Refused

E = get_engine("arschbombe")


def jump(jumper: str, result: str, special: bool = False, **extra: object) -> dict:
    return {"type": "jump", "jumper": jumper, "special": special, "result": result, **extra}


def play(players: list[str], actions: list[dict]):
    state = E.new(players, 0)
    for action in actions:
        state, _ = E.apply(state, action)
    return state


@pytest.mark.parametrize(
    ("jumper", "result", "special", "ordinal", "points"),
    [
        ("rascal", "A", False, 1, 3),
        ("rascal", "B", False, 1, 2),
        ("rascal", "C", False, 1, 1),
        ("rascal", "D", False, 1, 0),
        ("rascal", "A", True, 1, 6),
        ("rascal", "C", True, 1, 2),
        ("diver", "clean", False, 1, 1),
        ("diver", "clean", False, 6, 6),
        ("diver", "clean", True, 4, 8),  # the digest's example: clean special dive as 4th jump
        ("diver", "touch", True, 4, 0),
        ("diver", "out", False, 2, -1),
        ("rascal", "out", True, 2, -2),
        ("diver", "under", True, 2, 0),
        ("rascal", "under_edge", False, 2, -1),
        ("diver", "under_edge", True, 2, -2),
    ],
)
def test_points_of_each_result(jumper, result, special, ordinal, points):
    assert jump_points(jumper, special, result, ordinal) == points


def test_edge_cards_by_player_count():
    assert [E.summary(E.new([f"P{i}" for i in range(n)]))["edge"] for n in (2, 3, 4)] == [18, 20, 24]


def test_turns_go_clockwise_and_diver_points_count_own_jumps():
    s = play(["Ann", "Ben"], [jump("rascal", "D"), jump("diver", "clean"), jump("diver", "clean")])
    summary = E.summary(s)
    assert summary["scores"] == {"Ann": 2, "Ben": 1}  # Ann's dive is her 2nd jump
    assert summary["turn"] == "Ben"
    assert summary["left"]["Ann"] == {"rascal": 2, "diver": 2}
    assert summary["jumps"] == {"Ann": 2, "Ben": 1}


def test_a_fourth_rascal_is_refused():
    s = play(["Ann", "Ben"], [jump("rascal", "A"), jump("rascal", "A")] * 3)
    with pytest.raises(Refused, match="no rascal left"):
        E.apply(s, jump("rascal", "A"))


def test_wrong_player_and_bad_results_are_refused():
    s = E.new(["Ann", "Ben"])
    with pytest.raises(Refused, match="Ann's turn"):
        E.apply(s, jump("rascal", "A", player="Ben"))
    with pytest.raises(Refused):
        E.apply(s, jump("diver", "A"))
    with pytest.raises(Refused):
        E.apply(s, jump("rascal", "clean"))
    with pytest.raises(Refused):
        E.apply(s, {"type": "jump", "jumper": "frog", "result": "A"})
    with pytest.raises(Refused):
        E.apply(s, {"type": "jump", "jumper": "rascal", "result": "A", "special": "yes"})


def test_game_ends_after_six_jumps_each_and_ties_share_the_win():
    actions = [jump("rascal", "B")] * 6 + [jump("diver", "touch")] * 6
    s = play(["Ann", "Ben"], actions)
    summary = E.summary(s)
    assert summary["over"] and summary["turn"] is None
    assert summary["winners"] == ["Ann", "Ben"]
    with pytest.raises(Refused, match="over"):
        E.apply(s, jump("diver", "clean"))


def test_negative_scores_and_track_position_wrap_the_edge():
    s = play(["Ann", "Ben"], [jump("rascal", "out", True)])
    summary = E.summary(s)
    assert summary["scores"]["Ann"] == -2
    assert summary["track"]["Ann"] == 16  # two cards anticlockwise on an 18-card edge


def test_prompt_walks_jumper_and_style_then_result_to_a_complete_action():
    s = E.new(["Ann", "Ben", "Cy"])
    root = E.prompt(s)
    assert root.player == "Ann"
    assert [o.label for o in root.options] == ["Rascal (3 left)", "Rascal special", "Diver (3 left)", "Diver special"]
    special = root.options[1].submenu()
    assert special.title == "Ben picks target"  # the left neighbour picks a rascal's target
    labels = [o.label for o in special.options]
    assert labels[0] == "A on target +6"
    assert special.options[0].action == jump("rascal", "A", True)


def test_replay_contract_prints_summary_and_refuses_with_exit_3(cli, write_script):
    ok = write_script({"game": "arschbombe", "players": ["Ann", "Ben"], "actions": [jump("rascal", "A")]})
    result = cli("replay", ok)
    assert result.status == 0
    data = result.json()
    assert data["scores"] == {"Ann": 3, "Ben": 0} and data["turn"] == "Ben" and data["winners"] == []
    bad = write_script(
        {"game": "arschbombe", "players": ["Ann", "Ben"], "actions": [jump("rascal", "A"), jump("diver", "A")]}
    )
    result = cli("replay", bad)
    assert result.status == 3
    assert result.json()["scores"] == {"Ann": 3, "Ben": 0}  # the state before the refused action
    assert result.err.startswith("action 1:") and result.err.count("\n") == 1


@pytest.mark.parametrize(
    "script",
    [
        {"game": "arschbombe", "players": ["Solo"]},
        {"game": "arschbombe", "players": ["A", "B", "C", "D", "E"]},
        {"game": "arschbombe", "players": ["A", "B"], "options": {"fast": True}},
        {"game": "chess", "players": ["A", "B"]},
        {"game": "arschbombe", "players": ["A", "A"]},
    ],
)
def test_replay_bad_scripts_exit_2_with_one_line(cli, write_script, script):
    result = cli("replay", write_script(script))
    assert result.status == 2 and result.out == ""
    assert result.err.count("\n") == 1


def test_replay_unreadable_and_not_json(cli, write_script, tmp_path):
    assert cli("replay", tmp_path / "missing.json").status == 2
    result = cli("replay", write_script("{not json", "bad.json"))
    assert result.status == 2 and "bad.json" in result.err and result.out == ""
