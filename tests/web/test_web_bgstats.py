"""BG Stats: a scripted game's deep link and play file read back to the same players, scores and
winners; unsynced dates are said, not guessed; history statistics and CSV."""

from __future__ import annotations

import json
from pathlib import Path

from firmware_host.core import config as configuration
from firmware_host.core.store import Store
from firmware_host.sim.script import load, run_script
from firmware_host.web import bgstats, plays

DATA = Path(__file__).parents[1] / "data"


def _scripted_history(tmp_path: Path) -> list[dict]:
    store = Store(tmp_path / "state")
    run_script(configuration.defaults(), store, load(DATA / "arschbombe_game.sim"), None, seed=1)
    history = store.history()
    assert history and history[-1]["reason"] == "over"
    return history


def test_a_scripted_games_bgstats_link_and_play_file_read_back_to_its_result(tmp_path):
    entry = _scripted_history(tmp_path)[-1]
    play = plays.plays([entry])[0]

    linked = bgstats.parse_link(bgstats.deep_link(play))
    assert linked["sourceName"] == "tablemate" and linked["sourcePlayId"] == entry["id"]
    assert linked["game"]["sourceGameId"] == "arschbombe" and linked["game"]["highestWins"] is True
    assert [p["name"] for p in linked["players"]] == entry["players"]
    assert {p["name"]: p["score"] for p in linked["players"]} == entry["scores"]
    assert [p["name"] for p in linked["players"] if p["winner"]] == entry["winners"]
    assert [p["startPlayer"] for p in linked["players"]] == [True, False]
    assert linked["durationMin"] >= 1
    assert len(linked["playDate"]) == 19  # always given (BG Stats' format needs it)
    assert set(linked) <= LINK_KEYS

    file = json.loads(json.dumps(bgstats.play_file([play], "2026-01-01 20:00:00")))
    assert set(file) >= {"about", "players", "locations", "games", "plays"}
    by_id = {p["id"]: p["name"] for p in file["players"]}
    (saved,) = file["plays"]
    assert saved["gameRefId"] == file["games"][0]["id"] and saved["locationRefId"] == file["locations"][0]["id"]
    scores = {by_id[s["playerRefId"]]: int(s["score"]) for s in saved["playerScores"]}
    assert scores == entry["scores"]
    assert [by_id[s["playerRefId"]] for s in saved["playerScores"] if s["winner"]] == entry["winners"]


def _entry(**changes) -> dict:
    entry = {
        "id": "20260101T200000-abc123",
        "game": "bomb",
        "started": 1_767_297_600.0,
        "ended": 1_767_299_400.0,
        "duration_s": 1800.0,
        "players": ["Ann", "Ben", "Cy"],
        "scores": {"Ann": 2, "Ben": 0, "Cy": 0},
        "winners": ["Ann"],
        "reason": "over",
        "clock_synced": True,
    }
    entry.update(changes)
    return entry


LINK_KEYS = {"sourceName", "sourcePlayId", "playDate", "durationMin", "location", "comments", "board", "game"} | {
    "players"
}
"""The keys of BG Stats' documented push format (its page on pushing plays from other apps)."""


def test_a_game_played_with_the_clock_set_has_its_date_in_utc():
    linked = bgstats.parse_link(bgstats.deep_link(plays.plays([_entry()])[0]))
    assert linked["playDate"] == "2026-01-01 20:00:00"  # 1_767_297_600 is 20:00 UTC, 21:00 in Germany
    assert "comments" not in linked and set(linked) <= LINK_KEYS
    assert linked["durationMin"] == 30 and linked["players"][0] == {
        "name": "Ann",
        "score": 2,
        "winner": True,
        "rank": 1,
        "startPlayer": True,
        "sourcePlayerId": bgstats.player_id("Ann"),
    }


def test_a_game_played_before_the_clock_was_set_still_has_a_date_and_says_it_is_not_known():
    play = plays.plays([_entry(clock_synced=False)])[0]
    linked = bgstats.parse_link(bgstats.deep_link(play))
    assert linked["playDate"] == "2026-01-01 20:00:00" and "clock" in linked["comments"]
    (saved,) = bgstats.play_file([play], "2026-01-01 20:00:00")["plays"]
    assert saved["playDate"] == "2026-01-01 20:00:00" and "clock" in saved["comments"]
    assert play.to_json()["date"] is None


def test_a_game_ended_early_is_said_so_in_the_comments_not_with_a_field_the_link_does_not_have():
    linked = bgstats.parse_link(bgstats.deep_link(plays.plays([_entry(reason="abandoned", winners=[])])[0]))
    assert "ignored" not in linked and "Ended early" in linked["comments"]


def test_trottelmuetze_is_named_in_ascii_as_bgstats_lists_it():
    play = plays.plays([_entry(game="trottel", players=["Ann", "Ben"], scores={"Ann": 1, "Ben": 2})])[0]
    assert bgstats.parse_link(bgstats.deep_link(play))["game"]["name"] == "Trottelmuetze"
    assert bgstats.play_file([play], "2026-01-01 20:00:00")["games"][0]["name"] == "Trottelmuetze"


def test_lowest_score_wins_is_read_from_the_result_and_ranks_share_ties():
    play = plays.plays([_entry(scores={"Ann": 1, "Ben": 5, "Cy": 5}, winners=["Ann"])])[0]
    assert play.highest_wins is False
    assert play.ranking() == {"Ann": 1, "Ben": 2, "Cy": 2}


def test_a_game_that_ranks_by_going_out_keeps_its_own_places_in_the_link():
    # Bomb: Ben went out last but one, so he is second though he scored no more than Cy
    entry = _entry(scores={"Ann": 2, "Ben": 0, "Cy": 0}, places={"Ann": 1, "Ben": 2, "Cy": 3})
    play = plays.plays([entry])[0]
    assert play.ranking() == {"Ann": 1, "Ben": 2, "Cy": 3}
    assert [p["rank"] for p in bgstats.parse_link(bgstats.deep_link(play))["players"]] == [1, 2, 3]


def test_statistics_per_player_and_game_and_filters():
    history = [
        _entry(id="a", scores={"Ann": 2, "Ben": 0, "Cy": 0}, winners=["Ann"]),
        _entry(id="b", scores={"Ann": 0, "Ben": 1, "Cy": 0}, winners=["Ben"]),
        _entry(id="c", game="tonne", players=["Ann", "Cy"], scores={"Ann": 10, "Cy": 4}, winners=["Ann"]),
        _entry(id="d", reason="abandoned", winners=[]),
    ]
    all_plays = plays.plays(history)
    assert [p.id for p in plays.select(all_plays, game="bomb", player="Ben")] == ["a", "b", "d"]
    rows = {(r["player"], r["game"]): r for r in plays.player_stats(all_plays)}
    ann = rows[("Ann", "bomb")]
    assert (ann["plays"], ann["wins"], ann["win_rate"], ann["average_score"], ann["best_score"]) == (2, 1, 0.5, 1.0, 2)
    assert rows[("Cy", "tonne")]["wins"] == 0


def test_csv_has_a_line_per_player_and_no_cell_a_spreadsheet_would_run():
    text = plays.to_csv(plays.plays([_entry(players=["=cmd", "Ben"], scores={"=cmd": -1, "Ben": 2}, winners=["Ben"])]))
    lines = text.splitlines()
    assert lines[0].startswith("id,game,date") and len(lines) == 3
    assert "'=cmd" in text and ",-1," in text


def test_a_damaged_history_line_is_left_out_not_a_crash():
    out = plays.plays([_entry(scores="x", players=None, winners=7, started="y"), {"game": 5}])
    assert [p.players for p in out] == [[], []]
