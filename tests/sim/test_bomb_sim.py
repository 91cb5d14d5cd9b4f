"""A whole game of Bomb played on the simulated device from its buttons only."""

from __future__ import annotations

from pathlib import Path

from PIL import Image

from firmware_host.core.journal import Journal

SCRIPT = Path(__file__).parents[1] / "data" / "bomb_game.sim"


def test_a_scripted_game_from_the_buttons_finishes_with_a_winner(cli, tmp_path):
    frames, state = tmp_path / "frames", tmp_path / "state"
    result = cli("sim", "--script", SCRIPT, "--frames", frames, "--state-dir", state, "--seed", "4")
    assert result.status == 0, result.err

    history = cli("history", "--json", "--state-dir", state).json()
    assert len(history) == 1
    game = history[0]
    assert game["game"] == "bomb" and game["reason"] == "over"
    assert game["winners"] == ["Ann"] and game["scores"] == {"Ann": 4, "Ben": 0, "Cy": 0}

    # every way in was used: the tie ordered on screen, a seeded roll, SAFE, entered dice, a claim
    journal = Journal.open(next((state / "games").glob("*.jsonl")))
    actions = journal.actions()
    assert {a["type"] for a in actions} == {"reveal", "order", "roll", "safe", "claim"}
    assert {"type": "order", "players": ["Ben", "Ann", "Cy"]} in actions
    assert {"type": "roll", "player": "Ben"} in actions
    assert {"type": "claim", "player": "Ann", "take": "life"} in actions
    assert any("faces" in a for a in actions)

    shots = sorted(p.name for p in frames.glob("*.png"))
    assert len(shots) == 12 and shots[0] == "00-start.png"
    for shot in shots:
        with Image.open(frames / shot) as image:
            assert image.size == (128, 64)
            assert image.convert("1").getbbox() is not None  # something is drawn


BOOM_DIE = "[" + ", ".join(["{bomb = 1, fuse = 1}"] * 6) + "]"


def test_owners_dice_from_the_config_file_reach_the_game(cli, tmp_path, write_script):
    config = tmp_path / "tablemate.toml"
    config.write_text(f"[games.bomb]\nwhite = {BOOM_DIE}\n", encoding="utf-8")
    script = write_script(
        'start bomb Ann Ben\naction {"type": "reveal", "cards": {"Ann": "1", "Ben": "5"}}\naction {"type": "roll"}\n',
        "boom.sim",
    )
    state = tmp_path / "state"
    assert cli("sim", "--script", script, "--config", config, "--state-dir", state, "--seed", "1").status == 0
    shown = cli("state", "--state-dir", state).json()
    assert shown["script"]["options"]["white"] == [{"bomb": 1, "fuse": 1}] * 6
    assert shown["summary"]["lives"] == {"Ann": 1, "Ben": 3}  # two dice, each a bomb and a fuse: -2


def test_bad_dice_in_the_config_file_start_no_game(cli, tmp_path, write_script):
    config = tmp_path / "tablemate.toml"
    config.write_text("[games.bomb]\nred = [{bomb = 1}]\n", encoding="utf-8")
    script = write_script("start bomb Ann Ben\n", "start.sim")
    state = tmp_path / "state"
    assert cli("sim", "--script", script, "--config", config, "--state-dir", state).status == 0
    assert cli("state", "--state-dir", state).json() == {"summary": None, "script": None}
