"""Trottelmütze rules (docs/trottel.md) through `tablemate replay`."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from firmware_host.core.i18n import set_language, tr
from games import get_engine
from games.core import Refused, Text
from games.trottel.board import DEFAULT_BOARD, DEFAULT_CASINO, KINDS
from tests.engine_words import check_words

E = get_engine("trottel")
PLAYERS = ["Ann", "Ben", "Cy"]
ANN_CAP = {"type": "cap_roll", "rolls": {"Ann": [1, 2], "Ben": [4, 4], "Cy": [6, 5]}}
"""Ann rolls lowest: she gets the cap and starts."""
BEN_CAP = {"type": "cap_roll", "rolls": {"Ann": [4, 4], "Ben": [1, 2], "Cy": [6, 5]}}
"""Ben rolls lowest: he gets the cap and starts; Ann plays after Cy."""


def board(size: int = 20, **fields: str) -> list[str]:
    """A board of Parkbank fields (nothing happens) with the given kinds at ``f<index>``."""
    out = ["schuettelbude"] + ["parkbank"] * (size - 1)
    for key, kind in fields.items():
        out[int(key[1:])] = kind
    return out


def roll(a: int, b: int) -> dict[str, Any]:
    return {"type": "roll", "dice": [a, b]}


def drinks(beer: int = 0, shot: int = 0, water: int = 0) -> dict[str, int]:
    return {"beer": beer, "shot": shot, "water": water}


NONE = drinks()


@pytest.fixture
def play(cli, write_script) -> Callable[..., Any]:
    """Replay ``actions`` (after a fixed cap roll) and return the summary; refusals raise."""

    def run(
        actions: list[dict[str, Any]],
        *,
        cap: dict[str, Any] | None = ANN_CAP,
        players: list[str] | None = None,
        seed: int = 0,
        expect: int = 0,
        **options: Any,
    ) -> Any:
        script = {
            "game": "trottel",
            "players": players or PLAYERS,
            "seed": seed,
            "options": options,
            "actions": ([cap] if cap else []) + actions,
        }
        result = cli("replay", write_script(script))
        assert result.status == expect, result.err
        if expect == 0:
            assert result.err == ""
            return result.json()
        return result

    return run


def refused(play: Callable[..., Any], actions: list[dict[str, Any]], **kw: Any) -> tuple[dict, str]:
    """Replay that must stop at the last action with exit 3: (summary before it, reason)."""
    result = play(actions, expect=3, **kw)
    index = len(actions) - (0 if kw.get("cap", ANN_CAP) is None else -1) - 1
    assert result.err.startswith(f"action {index}:"), result.err
    assert result.err.count("\n") == 1
    return result.json(), result.err


# -- setup and the cap roll -----------------------------------------------------------------------
def test_setup_one_beer_on_the_stehtisch_everyone_on_the_schuettelbude(play):
    s = play([], cap=None, seed=5)
    assert s["game"] == "trottel" and s["over"] is False and s["winners"] == []
    assert s["stehtisch"] == drinks(beer=1)
    assert s["positions"] == {"Ann": 0, "Ben": 0, "Cy": 0}
    assert s["drinks"] == {p: NONE for p in PLAYERS} and s["scores"] == {p: 0 for p in PLAYERS}
    assert s["board"] == list(DEFAULT_BOARD) and s["board"][0] == "schuettelbude"
    assert s["cap"] in PLAYERS and s["turn"] == s["cap"]  # seeded cap roll: the lowest starts
    assert s["away"] == [] and s["pending"] is None


def test_lowest_cap_roll_gets_the_cap_and_starts(play):
    s = play([], cap=BEN_CAP)
    assert s["cap"] == "Ben" and s["turn"] == "Ben"


def test_cap_roll_tie_rerolls_among_the_tied(play):
    tie = {"type": "cap_roll", "rolls": {"Ann": [1, 2], "Ben": [6, 6], "Cy": [2, 1]}}
    s = play([tie], cap=None)
    assert s["cap"] is None and s["turn"] is None  # Ann and Cy roll again, at once
    s = play([tie, {"type": "cap_roll", "rolls": {"Ann": [5, 5], "Cy": [3, 3]}}], cap=None)
    assert s["cap"] == "Cy" and s["turn"] == "Cy"
    # Ben is out of the re-roll
    before, err = refused(play, [tie, {"type": "cap_roll", "rolls": {"Ann": [5, 5], "Ben": [3, 3]}}], cap=None)
    assert "Ann, Cy" in err and before["cap"] is None
    # a seeded re-roll settles it, as does a turn's roll (seeded re-rolls first)
    s = play([tie, {"type": "cap_roll"}], cap=None)
    assert s["cap"] in ("Ann", "Cy")
    s = play([tie, roll(1, 2)], cap=None)
    assert s["cap"] in ("Ann", "Cy") and s["positions"][s["cap"]] == 3


def test_cap_roll_refusals(play):
    _, err = refused(play, [roll(1, 2), ANN_CAP], cap=None)
    assert "begun" in err
    _, err = refused(play, [{"type": "cap_roll", "rolls": {"Ann": [1, 2]}}], cap=None)
    assert "each of Ann, Ben, Cy" in err
    _, err = refused(play, [{"type": "cap_roll", "rolls": {"Ann": [1, 7], "Ben": [1, 2], "Cy": [1, 2]}}], cap=None)
    assert "two dice" in err
    _, err = refused(play, [{"type": "cap_roll", "rolls": [1, 2]}], cap=None)
    assert "wrong type" in err


def test_a_player_away_cannot_roll_for_the_cap(play):
    other = next(p for p in PLAYERS if p != play([], cap=None)["cap"])
    _, err = refused(play, [{"type": "leave", "player": other}, ANN_CAP], cap=None)
    assert f"{other} away" in err


def test_tied_players_settle_the_cap_before_anything_else(play):
    tie = {"type": "cap_roll", "rolls": {"Ann": [1, 2], "Ben": [6, 6], "Cy": [2, 1]}}
    for action in ({"type": "leave", "player": "Ben"}, {"type": "effect", "kind": "cap", "player": "Ben"}):
        _, err = refused(play, [tie, action], cap=None)
        assert "Ann, Cy re-roll" in err
    _, err = refused(play, [tie, {"type": "penalty"}], cap=None)
    assert "needs 'player'" in err
    assert play([tie, {"type": "penalty", "player": "Ben"}], cap=None)["drinks"]["Ben"] == drinks(shot=1)


# -- a turn --------------------------------------------------------------------------------------
def test_pieces_move_by_the_total_and_turns_go_clockwise(play):
    s = play([roll(1, 2), roll(2, 4)], board=board())
    assert s["positions"] == {"Ann": 3, "Ben": 6, "Cy": 0}
    assert s["turn"] == "Cy" and s["scores"] == {p: 0 for p in PLAYERS}


def test_the_loop_wraps_around_past_the_schuettelbude(play):
    s = play([roll(6, 5), roll(1, 2), roll(1, 2), roll(6, 4)], board=board(20))
    assert s["positions"]["Ann"] == (11 + 10) % 20 == 1


def test_a_double_costs_the_cap_a_beer_and_rolls_again(play):
    s = play([roll(1, 2), roll(2, 2)], board=board())
    assert s["drinks"]["Ann"] == drinks(beer=1)  # Ann has the cap; Ben rolled the double
    assert s["drinks"]["Ben"] == NONE and s["turn"] == "Ben" and s["positions"]["Ben"] == 4
    s = play([roll(1, 2), roll(2, 2), roll(3, 3), roll(1, 2)], board=board())
    assert s["drinks"]["Ann"] == drinks(beer=2) and s["turn"] == "Cy"


def test_seeded_dice_are_deterministic_and_an_undone_roll_repeats(play):
    a = play([{"type": "roll"}] * 12, seed=11, board=board())
    b = play([{"type": "roll"}] * 12, seed=11, board=board())
    assert a == b
    c = play([{"type": "roll"}] * 12, seed=12, board=board())
    assert c["positions"] != a["positions"] or c["drinks"] != a["drinks"]
    state = E.new(PLAYERS, 3)
    once, _ = E.apply(state, {"type": "roll"})
    again, _ = E.apply(state, {"type": "roll"})
    assert E.summary(once) == E.summary(again)


@pytest.mark.parametrize("dice", [[0, 3], [1, 7], [1], [1, 2, 3], "3,4", [True, 2], [1.5, 2]])
def test_bad_dice_are_refused(play, dice):
    before, err = refused(play, [{"type": "roll", "dice": dice}])
    assert "two dice" in err and before["positions"]["Ann"] == 0


def test_drink_cards_on_a_field_are_drunk_first_and_used_up(play):
    card = {"type": "effect", "kind": "field_drink", "field": 5, "drink": "shot"}
    s = play([card, card, roll(2, 3)], board=board(f5="bier"))
    assert s["drinks"]["Ann"] == drinks(beer=1, shot=2)
    s = play([card, roll(2, 3), roll(1, 4)], board=board())
    assert s["drinks"]["Ben"] == drinks(beer=1)  # the card was gone; Ben meets Ann
    assert s["drinks"]["Ann"] == drinks(beer=1, shot=1)


def test_a_meeting_costs_everybody_on_the_field_a_beer(play):
    s = play([roll(1, 3), roll(2, 2), roll(1, 3)], board=board())
    # Ben's double: Ann (cap) drinks; Ben lands on Ann: both drink; Ben again onto 8
    assert s["drinks"]["Ann"] == drinks(beer=2) and s["drinks"]["Ben"] == drinks(beer=1)
    s = play([roll(1, 3), roll(1, 3), roll(1, 3)], board=board())
    assert s["scores"] == {"Ann": 2, "Ben": 2, "Cy": 1}  # three on field 4: all drink, Ann & Ben twice


# -- the fields ----------------------------------------------------------------------------------
def test_schuettelbude_invites_a_guest_to_drink_together(play):
    b = board(10)  # 10 fields: 4+6 brings Ann round to the Schüttelbude, where Ben and Cy still stand
    s = play([roll(4, 6)], board=b)
    assert s["pending"] == "invite" and s["turn"] == "Ann"
    assert s["scores"] == {p: 1 for p in PLAYERS}  # the meeting comes first
    s = play([roll(4, 6), {"type": "invite", "player": "Ben", "drink": "shot"}], board=b)
    assert s["drinks"]["Ann"] == drinks(beer=1, shot=1) and s["drinks"]["Ben"] == drinks(beer=1, shot=1)
    assert s["drinks"]["Cy"] == drinks(beer=1) and s["pending"] is None and s["turn"] == "Ben"


def test_invite_moves_the_guest_and_both_drink_the_chosen_drink(play):
    b = board(10, f3="jail")
    moves = [roll(1, 2), roll(1, 3), roll(1, 4), roll(3, 4)]  # Cy on 5, Ann round to the Schüttelbude
    s = play([*moves, {"type": "invite", "player": "Cy", "drink": "water"}], board=b)
    assert s["positions"] == {"Ann": 0, "Ben": 4, "Cy": 0}
    assert s["drinks"]["Ann"] == drinks(water=1) and s["drinks"]["Cy"] == drinks(water=1)
    assert s["drinks"]["Ben"] == NONE and s["pending"] is None and s["turn"] == "Ben"
    # a guest fetched from Jail drinks: their piece has left it
    moves = [roll(1, 2), roll(1, 2), roll(1, 3), roll(3, 4)]
    s = play([*moves, {"type": "invite", "player": "Ben", "drink": "shot"}], board=b)
    assert s["positions"]["Ben"] == 0 and s["drinks"]["Ben"] == drinks(shot=1)


def test_invite_refusals(play):
    b = board(10)
    for action, why in [
        ({"type": "invite", "player": "Ann", "drink": "beer"}, "themselves"),
        ({"type": "invite", "player": "Zed", "drink": "beer"}, "unknown player"),
        ({"type": "invite", "player": "Ben", "drink": "wine"}, "beer, shot or water"),
        ({"type": "invite", "drink": "beer"}, "needs 'player'"),
        (roll(1, 2), "must invite someone first"),
        ({"type": "taxi", "to": 3}, "no taxi"),
        ({"type": "casino"}, "Spielothek"),
    ]:
        before, err = refused(play, [roll(4, 6), action], board=b)
        assert why in err and before["pending"] == "invite"
    _, err = refused(play, [{"type": "invite", "player": "Ben", "drink": "beer"}], board=b)
    assert "nobody is at the Schuettelbude" in err


def test_trottelmuetze_gives_the_cap(play):
    s = play([roll(1, 2), roll(2, 3)], board=board(f5="trottelmuetze"))
    assert s["cap"] == "Ben"
    s = play([roll(1, 2), roll(2, 3), roll(3, 3)], board=board(f5="trottelmuetze"))
    assert s["drinks"]["Ben"] == drinks(beer=1)  # Cy's double: now Ben, the cap, drinks


def test_stehtisch_drinks_everything_then_a_new_beer(play):
    b = board(f4="jail", f7="stehtisch")
    # Ann to Jail; Ben's double: Ann (the cap, on Jail) → her beer to the Stehtisch; the meeting on
    # Jail → both beers to the Stehtisch
    s = play([roll(1, 3), roll(2, 2)], board=b)
    assert s["stehtisch"] == drinks(beer=4) and s["scores"] == {p: 0 for p in PLAYERS}
    s = play([roll(1, 3), roll(2, 2), roll(1, 2)], board=b)  # Ben again: 4 → 7, the Stehtisch
    assert s["drinks"]["Ben"] == drinks(beer=4) and s["stehtisch"] == drinks(beer=1)
    s = play([roll(1, 3), {"type": "penalty", "player": "Ann"}, roll(3, 4)], board=b)
    assert s["drinks"]["Ben"] == drinks(beer=1, shot=1) and s["stehtisch"] == drinks(beer=1)


def test_jail_sends_every_drink_to_the_stehtisch(play):
    b = board(f3="jail", f8="kneipe", f9="brennerei")
    penalty = {"type": "penalty", "player": "Ann"}
    card = {"type": "effect", "kind": "drink", "player": "Ann", "drink": "water"}
    s = play([roll(1, 2), penalty, card, roll(4, 4)], board=b)
    # Ben's double (Ann is the cap, on Jail): the beer to the Stehtisch; Ben to Kneipe: all a beer
    assert s["drinks"]["Ann"] == NONE
    assert s["stehtisch"] == drinks(beer=3, shot=1, water=1)
    assert s["drinks"]["Ben"] == drinks(beer=1) and s["drinks"]["Cy"] == drinks(beer=1)
    s = play([roll(1, 2), roll(4, 5)], board=b)  # Brennerei: all a shot, Ann's to the Stehtisch
    assert s["stehtisch"] == drinks(beer=1, shot=1) and s["drinks"]["Ann"] == NONE


def test_jail_meeting_beers_go_to_the_stehtisch(play):
    s = play([roll(1, 2), roll(2, 1)], board=board(f3="jail"))
    assert s["stehtisch"] == drinks(beer=3) and s["scores"] == {p: 0 for p in PLAYERS}


@pytest.mark.parametrize(
    ("kind", "mover", "everyone"),
    [
        ("kneipe", None, drinks(beer=1)),
        ("brennerei", None, drinks(shot=1)),
        ("parkbank", NONE, NONE),
        ("bier", drinks(beer=1), NONE),
        ("kurzer", drinks(shot=1), NONE),
        ("daemmerschoppen", drinks(beer=1, shot=1), NONE),
        ("fruehschoppen", drinks(beer=2), NONE),
        ("teich", drinks(water=1), NONE),
        ("waa", NONE, NONE),
        ("arschloch", NONE, NONE),
        ("jail", NONE, NONE),
    ],
)
def test_drinking_fields(play, kind, mover, everyone):
    s = play([roll(1, 2)], board=board(f3=kind))
    for p in PLAYERS:
        expected = everyone if mover is None or p != "Ann" else mover
        assert s["drinks"][p] == expected, p
    assert s["pending"] is None and s["turn"] == "Ben"


def test_card_fields_say_what_to_draw():
    state = E.new(PLAYERS, 0, {"board": board(f3="waa", f4="arschloch")})
    state, effects = E.apply(state, {**ANN_CAP})
    state, effects = E.apply(state, roll(1, 2))
    assert "WaA card" in effects[0].value
    state, effects = E.apply(state, roll(1, 3))
    assert "Arschloch card" in effects[0].value


def test_taxi_goes_anywhere_and_does_that_field(play):
    b = board(f3="taxi", f7="kneipe", f9="taxi", f12="spielothek")
    s = play([roll(1, 2)], board=b)
    assert s["pending"] == "taxi" and s["turn"] == "Ann"
    s = play([roll(1, 2), {"type": "taxi", "to": 7}], board=b)
    assert s["positions"]["Ann"] == 7 and s["scores"] == {p: 1 for p in PLAYERS} and s["turn"] == "Ben"
    s = play([roll(1, 2), {"type": "taxi", "to": 0}], board=b)  # back to the Schüttelbude: meets, invites
    assert s["pending"] == "invite" and s["drinks"]["Ben"] == drinks(beer=1)
    s = play([roll(1, 2), {"type": "taxi", "to": 12}], board=b)
    assert s["pending"] == "casino"


def test_taxi_after_a_double_still_rolls_again(play):
    b = board(f4="taxi")
    s = play([roll(2, 2), {"type": "taxi", "to": 10}], board=b)
    assert s["turn"] == "Ann" and s["drinks"]["Ann"] == drinks(beer=1)


@pytest.mark.parametrize(
    ("to", "why"), [(9, "Taxi field"), (3, "Taxi field"), (20, "field 0–19"), (-1, "field 0–19"), ("7", "wrong")]
)
def test_taxi_refusals(play, to, why):
    before, err = refused(play, [roll(1, 2), {"type": "taxi", "to": to}], board=board(f3="taxi", f9="taxi"))
    assert why in err and before["pending"] == "taxi"


def test_spielothek_pays_out_from_the_table(play):
    casino = {"7": {"kind": "drink", "drink": "shot"}, "4": {"kind": "drink", "drink": "water", "player": "Cy"}}
    b = board(f3="spielothek")
    s = play([roll(1, 2)], board=b, casino=casino)
    assert s["pending"] == "casino" and s["turn"] == "Ann"
    s = play([roll(1, 2), {"type": "casino", "dice": [3, 4]}], board=b, casino=casino)
    assert s["drinks"]["Ann"] == drinks(shot=1) and s["pending"] is None and s["turn"] == "Ben"
    s = play([roll(1, 2), {"type": "casino", "dice": [1, 3]}], board=b, casino=casino)
    assert s["drinks"]["Cy"] == drinks(water=1) and s["drinks"]["Ann"] == NONE
    s = play([roll(1, 2), {"type": "casino", "dice": [1, 4]}], board=b, casino=casino)  # 5: no win
    assert s["scores"] == {p: 0 for p in PLAYERS} and s["turn"] == "Ben"


def test_spielothek_doubles_cost_the_cap_and_play_again(play):
    casino = {"6": {"kind": "drink", "drink": "water"}}
    b = board(f3="spielothek")
    ann = [roll(1, 2), {"type": "casino", "dice": [1, 2]}]  # Ann plays: 3, no win
    s = play([*ann, roll(1, 2), {"type": "casino", "dice": [3, 3]}], board=b, casino=casino)
    # Ben at the Spielothek (meets Ann: both a beer); 3+3: Ben a water, Ann (cap) a beer, again
    assert s["pending"] == "casino" and s["turn"] == "Ben"
    assert s["drinks"]["Ben"] == drinks(beer=1, water=1) and s["drinks"]["Ann"] == drinks(beer=2)
    s = play([*ann, roll(1, 2), {"type": "casino", "dice": [3, 3]}, {"type": "casino", "dice": [1, 2]}], board=b)
    assert s["pending"] is None and s["turn"] == "Cy"


def test_reaching_the_spielothek_with_a_double_keeps_the_extra_turn(play):
    b = board(f4="spielothek")
    s = play([roll(2, 2), {"type": "casino", "dice": [1, 2]}], board=b, casino={})
    assert s["turn"] == "Ann" and s["pending"] is None


def test_default_casino_table_and_payout_effects(play):
    assert set(DEFAULT_CASINO) == {str(t) for t in range(2, 13)}
    b = board(10, f3="spielothek")
    s = play([roll(1, 2), {"type": "casino", "dice": [5, 6]}], board=b)  # 11: a shot card on field 0
    assert s["turn"] == "Ben" and s["scores"]["Ann"] == 0
    s = play([roll(1, 2), {"type": "casino", "dice": [5, 6]}, roll(6, 4)], board=b)
    assert s["drinks"]["Ben"] == drinks(beer=1, shot=1)  # the card, then the meeting with Cy
    assert s["pending"] == "invite"
    ann = [roll(1, 2), {"type": "casino", "dice": [1, 2]}]  # 3: Ann a shot
    s = play([*ann, roll(1, 2), {"type": "casino", "dice": [1, 1]}], board=b)  # 2: Ben gets the cap
    assert s["drinks"]["Ann"] == drinks(beer=1, shot=1)
    assert s["cap"] == "Ben" and s["drinks"]["Ben"] == drinks(beer=2)  # the meeting + the cap's double beer


def test_casino_roll_is_seeded_when_dice_are_left_out(play):
    b = board(f3="spielothek")
    a = play([roll(1, 2), {"type": "casino"}], board=b, seed=4)
    assert a == play([roll(1, 2), {"type": "casino"}], board=b, seed=4)


def test_pinkeln_lets_a_player_go_without_getting_the_cap(play):
    b = board(f3="pinkeln")
    leave, back = {"type": "leave", "player": "Ben"}, {"type": "return", "player": "Ben"}
    s = play([roll(5, 6), roll(1, 2), leave], board=b)
    assert s["away"] == ["Ben"] and s["turn"] == "Cy"
    s = play([roll(5, 6), roll(1, 2), leave, back], board=b)
    assert s["cap"] == "Ann" and s["away"] == []  # Ben went on the Pinkeln's leave
    s = play([roll(5, 6), roll(1, 2), roll(4, 5), leave, back], board=b)
    assert s["cap"] == "Ben"  # the leave cannot be saved for later: the next roll ended it


def test_the_cap_holder_never_goes_and_gets_no_pinkeln_leave(play):
    _, err = refused(play, [{"type": "leave", "player": "Ann"}])
    assert "cap" in err
    _, err = refused(play, [roll(1, 2), {"type": "leave", "player": "Ann"}], board=board(f3="pinkeln"))
    assert "Ann has the cap" in err
    _, err = refused(play, [{"type": "effect", "kind": "pee_pass", "player": "Ann"}])
    assert "cap" in err


def test_leaving_without_leave_gets_the_cap_on_return(play):
    s = play([{"type": "leave", "player": "Cy"}])
    assert s["away"] == ["Cy"] and s["cap"] == "Ann"
    s = play([{"type": "leave", "player": "Cy"}, {"type": "return", "player": "Cy"}])
    assert s["away"] == [] and s["cap"] == "Cy"


def test_a_card_pass_lets_a_player_go(play):
    s = play(
        [
            {"type": "effect", "kind": "pee_pass", "player": "Cy"},
            {"type": "leave", "player": "Cy"},
            {"type": "return", "player": "Cy"},
        ]
    )
    assert s["cap"] == "Ann"


def test_absent_on_their_turn_skipped_and_owed_a_beer(play):
    s = play([{"type": "leave", "player": "Ben"}, roll(1, 2)], board=board())
    assert s["turn"] == "Cy" and s["drinks"]["Ben"] == drinks(beer=1) and s["positions"]["Ben"] == 0
    s = play([{"type": "leave", "player": "Ben"}, roll(1, 2), roll(1, 3), roll(1, 4)], board=board())
    assert s["drinks"]["Ben"] == drinks(beer=2) and s["turn"] == "Cy"  # skipped again
    # leaving on one's own turn is being absent on it
    s = play([roll(1, 2), {"type": "leave"}], board=board())
    assert s["turn"] == "Cy" and s["away"] == ["Ben"] and s["drinks"]["Ben"] == drinks(beer=1)


def test_toilet_refusals(play):
    for actions, why in [
        ([{"type": "return", "player": "Ben"}], "Ben is not away"),
        ([{"type": "leave", "player": "Ben"}, {"type": "leave", "player": "Ben"}], "already away"),
        ([{"type": "leave", "player": "Zed"}], "unknown player"),
    ]:
        _, err = refused(play, actions)
        assert why in err
    _, err = refused(play, [roll(1, 3), roll(1, 2), {"type": "leave"}], board=board(f3="taxi"))
    assert "Ben must choose a taxi target first" in err


def test_the_cap_never_goes_to_someone_away(play):
    _, err = refused(play, [{"type": "leave", "player": "Cy"}, {"type": "effect", "kind": "cap", "player": "Cy"}])
    assert "away" in err
    casino = {"3": {"kind": "cap", "player": "Cy"}}
    s = play(
        [{"type": "leave", "player": "Cy"}, roll(1, 2), {"type": "casino", "dice": [1, 2]}],
        board=board(f3="spielothek"),
        casino=casino,
    )
    assert s["cap"] == "Ann"  # a payout that cannot be done is void


def test_penalty_costs_a_shot(play):
    s = play([{"type": "penalty", "player": "Cy"}, {"type": "penalty"}])
    assert s["drinks"]["Cy"] == drinks(shot=1) and s["drinks"]["Ann"] == drinks(shot=1)
    _, err = refused(play, [{"type": "penalty", "player": "Zed"}])
    assert "unknown player" in err


def test_generic_card_effects(play):
    s = play(
        [
            {"type": "effect", "kind": "drink", "player": "Ben", "drink": "beer"},
            {"type": "effect", "kind": "drink", "drink": "water"},
            {"type": "effect", "kind": "cap", "player": "Cy"},
            {"type": "effect", "kind": "move", "player": "Ben", "to": 7},
        ]
    )
    assert s["drinks"]["Ben"] == drinks(beer=1) and s["drinks"]["Ann"] == drinks(water=1)
    assert s["cap"] == "Cy" and s["positions"]["Ben"] == 7 and s["scores"]["Ben"] == 1  # a move: no field
    assert s["turn"] == "Ann"


@pytest.mark.parametrize(
    ("effect", "why"),
    [
        ({"kind": "dance"}, "effect kind"),
        ({"kind": ["drink"]}, "effect kind"),
        ({"kind": "drink"}, "needs 'drink'"),
        ({"kind": "drink", "drink": "wine"}, "beer, shot or water"),
        ({"kind": "drink", "drink": "beer", "player": "Zed"}, "unknown player"),
        ({"kind": "move", "player": "Ben"}, "needs 'to'"),
        ({"kind": "move", "player": "Ben", "to": 99}, "field 0–31"),
        ({"kind": "field_drink", "field": 3}, "needs 'drink'"),
        ({"kind": "field_drink", "field": True, "drink": "beer"}, "field number"),
    ],
)
def test_effect_refusals(play, effect, why):
    before, err = refused(play, [{"type": "effect", **effect}])
    assert why in err and before["scores"] == {p: 0 for p in PLAYERS}


# -- the law of beer conservation ----------------------------------------------------------------
def test_the_stehtisch_always_holds_a_beer_over_long_seeded_sessions():
    for seed in range(12):
        state = E.new(["Ann", "Ben", "Cy", "Dan"], seed)
        for _ in range(300):
            prompt = E.prompt(state)
            option = prompt.options[0]  # roll, seeded; the first invite/taxi target
            while option.action is None:
                option = option.submenu().options[0]
            state, _ = E.apply(state, option.action)
            summary = E.summary(state)
            assert summary["stehtisch"]["beer"] >= 1
            assert summary["cap"] not in summary["away"]


# -- alcohol-free, options, the end ---------------------------------------------------------------
def test_alcohol_free_counts_every_drink_as_a_point(play):
    b = board(f3="daemmerschoppen")
    s = play([roll(1, 2)], board=b, alcohol_free=True)
    assert s["scores"]["Ann"] == 2 and s["drinks"]["Ann"] == drinks(beer=1, shot=1)
    state = E.new(PLAYERS, 0, {"board": b, "alcohol_free": True})
    state, _ = E.apply(state, ANN_CAP)
    state, effects = E.apply(state, roll(1, 2))
    assert effects[0].value.startswith("Ann +2")
    plain = E.new(PLAYERS, 0, {"board": b})
    plain, _ = E.apply(plain, ANN_CAP)
    _, effects = E.apply(plain, roll(1, 2))
    assert effects[0].value.startswith("Ann B+S")


def test_end_closes_the_session_with_the_totals_and_no_winner(play):
    s = play([roll(1, 2), {"type": "penalty", "player": "Cy"}, {"type": "end"}], board=board(f3="bier"))
    assert s["over"] is True and s["turn"] is None and s["winners"] == []
    assert s["scores"] == {"Ann": 1, "Ben": 0, "Cy": 1}
    before, err = refused(play, [{"type": "end"}, roll(1, 2)])
    assert "over" in err and before["over"] is True


@pytest.mark.parametrize(
    ("options", "why"),
    [
        ({"board": "big"}, "list of field kinds"),
        ({"board": ["schuettelbude"]}, "2–100 fields"),
        ({"board": ["schuettelbude"] + ["bier"] * 100}, "2–100 fields"),
        ({"board": ["bier", "schuettelbude"]}, "field 0 must be the schuettelbude"),
        ({"board": ["schuettelbude", "disco"]}, "unknown kind 'disco'"),
        ({"casino": []}, "casino must be an object"),
        ({"casino": {"13": {"kind": "cap"}}}, "not a dice total"),
        ({"casino": {"07": {"kind": "cap"}}}, "not a dice total"),
        ({"casino": {"7": "beer"}}, "an effect is an object"),
        ({"casino": {"7": {"kind": "drink"}}}, "casino 7: a drink effect needs 'drink'"),
        ({"casino": {"7": {"kind": "drink", "drink": "beer", "count": 2}}}, "no field 'count'"),
        ({"casino": {"7": {"kind": "cap", "player": "Zed"}}}, "unknown player"),
        ({"casino": {"7": {"kind": "move", "to": 40}}}, "field 0–31"),
        ({"board": board(5), "casino": {"7": {"kind": "field_drink", "field": 5, "drink": "beer"}}}, "0–4"),
        ({"alcohol_free": "yes"}, "true or false"),
        ({"doubles": True}, "unknown option 'doubles'"),
    ],
)
def test_bad_options_exit_2_with_one_line(cli, write_script, options, why):
    result = cli("replay", write_script({"game": "trottel", "players": PLAYERS, "options": options}))
    assert result.status == 2 and result.out == ""
    assert why in result.err and result.err.count("\n") == 1


def test_player_counts(cli, write_script):
    assert cli("replay", write_script({"game": "trottel", "players": ["Solo"]})).status == 2
    many = [f"P{i}" for i in range(9)]  # no upper limit in the rules
    script = {"game": "trottel", "players": many, "options": {"board": board()}, "actions": [{"type": "roll"}] * 20}
    result = cli("replay", write_script(script))
    assert result.status == 0 and set(result.json()["scores"]) == set(many)


def test_replay_refusal_prints_the_state_before_and_the_index(cli, write_script):
    script = {
        "game": "trottel",
        "players": PLAYERS,
        "options": {"board": board(f3="bier")},
        "actions": [ANN_CAP, roll(1, 2), {"type": "dance"}],
    }
    result = cli("replay", write_script(script))
    assert result.status == 3 and result.err.startswith("action 2:") and "no action 'dance'" in result.err
    summary = result.json()
    assert summary["drinks"]["Ann"] == drinks(beer=1) and summary["turn"] == "Ben"
    assert set(summary) == {
        "game", "players", "over", "winners", "scores", "turn",
        "cap", "positions", "stehtisch", "drinks", "away", "board", "pending",
    }  # fmt: skip


def test_replay_summary_is_json_with_exact_shapes(cli, write_script):
    result = cli("replay", write_script({"game": "trottel", "players": PLAYERS, "seed": 9}))
    data = json.loads(result.out)
    assert all(set(d) == {"beer", "shot", "water"} for d in data["drinks"].values())
    assert all(KINDS.get(k) for k in data["board"])


# -- prompts, views, anytime ----------------------------------------------------------------------
def walk(menu, *labels: str):
    """Follow option labels down a prompt tree; returns the last option."""
    option = None
    for label in labels:
        option = next(o for o in menu.options if o.label == label)
        if option.action is None:
            menu = option.submenu()
    return option if option.action is not None else menu


def start(options: dict | None = None, players: list[str] | None = None):
    state = E.new(players or PLAYERS, 0, options or {})
    state, _ = E.apply(state, ANN_CAP)
    return state


def test_roll_prompt_rolls_or_takes_physical_dice():
    state = E.new(PLAYERS, 0)
    prompt = E.prompt(state)
    assert prompt.player == E.turn(state)
    assert [o.label for o in prompt.options] == ["Roll dice", "Enter dice", "Cap roll: enter"]
    assert prompt.options[0].action == {"type": "roll"}
    assert walk(prompt, "Enter dice", "4", "4+2").action == {"type": "roll", "dice": [4, 2]}
    cap = walk(prompt, "Cap roll: enter", "1", "1+2", "4", "4+4", "6", "6+5")
    assert cap.action == ANN_CAP
    state, _ = E.apply(state, {"type": "roll"})
    assert "Cap roll: enter" not in [o.label for o in E.prompt(state).options]


def test_pending_prompts_ask_the_right_choice():
    state = start({"board": board(10, f3="taxi", f5="spielothek")})
    invite, _ = E.apply(state, roll(4, 6))
    menu = E.prompt(invite)
    assert menu.title == "Ann: invite whom?" and [o.label for o in menu.options] == ["Ben", "Cy"]
    assert walk(menu, "Cy", "Shot").action == {"type": "invite", "player": "Cy", "drink": "shot"}
    taxi, _ = E.apply(state, roll(1, 2))
    menu = E.prompt(taxi)
    assert menu.player == "Ann" and "3 Taxi" not in [o.label for o in menu.options]
    assert walk(menu, "5 Spielothek").action == {"type": "taxi", "to": 5}
    casino, _ = E.apply(taxi, {"type": "taxi", "to": 5})
    menu = E.prompt(casino)
    assert menu.title == "Ann: Spielothek"
    assert walk(menu, "Enter dice", "2", "2+2").action == {"type": "casino", "dice": [2, 2]}


def test_tie_prompt_is_for_the_tied_players():
    state = E.new(PLAYERS, 0)
    state, _ = E.apply(state, {"type": "cap_roll", "rolls": {"Ann": [1, 2], "Ben": [6, 6], "Cy": [2, 1]}})
    menu = E.prompt(state)
    assert menu.player is None and "Ann, Cy" in menu.title
    action = walk(menu, "Enter dice", "2", "2+2", "1", "1+1").action
    assert action == {"type": "cap_roll", "rolls": {"Ann": [2, 2], "Cy": [1, 1]}}
    assert E.view(state).active == ("Ann", "Cy")


def test_anytime_offers_toilet_penalty_cards_and_the_end():
    state = start()
    labels = [o.label for o in E.anytime(state)]
    assert labels == ["Ben to WC", "Cy to WC", "Penalty shot", "Card effect", "End session"]
    away, _ = E.apply(state, {"type": "leave", "player": "Ben"})
    options = {o.label: o for o in E.anytime(away)}
    assert options["Ben back from WC"].action == {"type": "return", "player": "Ben"}
    assert walk(E.anytime(away)[2].submenu(), "Cy").action == {"type": "penalty", "player": "Cy"}
    card = options["Card effect"].submenu()
    assert walk(card, "Give a drink", "Ben", "Water").action == {
        "type": "effect", "kind": "drink", "player": "Ben", "drink": "water",
    }  # fmt: skip
    assert [o.label for o in walk(card, "Give the cap").options] == ["Ann", "Cy"]  # Ben is away
    assert walk(card, "Move a piece", "Cy", "16 Stehtisch").action["to"] == 16
    assert [o.label for o in walk(card, "Toilet pass").options] == ["Cy"]
    assert walk(card, "Drink on a field", "3 Teich", "Beer").action == {
        "type": "effect", "kind": "field_drink", "field": 3, "drink": "beer",
    }  # fmt: skip
    assert options["End session"].action == {"type": "end"}
    for option in E.anytime(away):  # every option the menu offers is accepted
        if option.action is not None:
            E.apply(away, option.action)


def test_view_shows_drinks_cap_positions_stehtisch_and_the_last_line():
    state = start({"board": board(f3="kneipe")})
    state, _ = E.apply(state, roll(1, 2))
    view = E.view(state)
    assert view.title == "Cap Ann  Tisch B" and view.mood == "playing"
    assert view.scores == (("Ann", "1▲"), ("Ben", "1"), ("Cy", "1"))  # the cap's glyph beside the number
    assert view.lines[0] == "all B | Ann 1+2 Kneipe"
    assert view.lines[1] == "Ann@3 Ben@0 Cy@0"
    assert view.active == ("Ben",)
    state, effects = E.apply(state, {"type": "penalty", "player": "Cy"})
    assert [e.value for e in effects] == ["Cy S | Cy penalty", "penalty"]
    state, effects = E.apply(state, {"type": "end"})
    assert ("signal", "game_over") in [(e.kind, e.value) for e in effects] and E.view(state).mood == "over"
    with pytest.raises(Refused):
        E.apply(state, {"type": "penalty", "player": "Cy"})


# -- words ---------------------------------------------------------------------------------------
def engine_play(actions: list[dict[str, Any]], **options: Any) -> Any:
    """The state after Ann's cap roll and ``actions``, through the engine."""
    s = E.new(PLAYERS, 0, options)
    for action in [ANN_CAP, *actions]:
        s, _ = E.apply(s, action)
    return s


def test_every_word_trottelmuetze_shows_is_a_message_german_translates_and_fits():
    fields = board(10, f3="taxi", f5="spielothek", f7="pinkeln", f8="kurzer")
    states = [
        E.new(PLAYERS, 0),  # the cap rolled by the device, the table may enter its own
        E.apply(E.new(PLAYERS, 0), {"type": "cap_roll", "rolls": {"Ann": [1, 2], "Ben": [2, 1], "Cy": [6, 6]}})[0],
        engine_play([roll(1, 2)], board=fields),  # the Taxi
        engine_play([roll(2, 3)], board=fields),  # the Spielothek
        engine_play([roll(4, 6)], board=fields),  # the Schüttelbude: invite whom, which drink
        engine_play([roll(3, 4), {"type": "leave", "player": "Ben"}], board=fields),  # a pass, someone away
        engine_play([{"type": "effect", "kind": "field_drink", "field": 4, "drink": "shot"}], board=fields),
        engine_play([roll(4, 4)], board=fields, alcohol_free=True),
        engine_play([{"type": "end"}]),
    ]
    german = check_words(E, states, PLAYERS)
    assert german["Cap Ann  Tisch B"] == "Mütze Ann Tisch B" and german["Ann: roll"] == "Ann: würfeln"
    assert german["0 Schuettelbude"] == "0 Schüttelbude" and german["Shot"] == "Kurzer"


def test_the_line_of_what_happened_reads_as_before_in_english_and_in_german_at_the_table():
    s = engine_play([roll(4, 4)], board=board(10, f8="kurzer"))  # a double: the cap drinks, Ann a shot
    assert s.line == "Ann B+S | Ann 4+4 Kurzer" and isinstance(s.line, Text)
    assert E.prompt(s).title == "Ann: roll again"  # the question says it, the line keeps its room
    set_language("de")
    assert tr(s.line) == "Ann B+K | Ann 4+4 Kurzer"
    assert tr(E.prompt(s).title) == "Ann: nochmal würfeln"
    everyone = engine_play([roll(2, 3)], board=board(10, f5="kneipe"))
    assert tr(everyone.line) == "alle B | Ann 2+3 Kneipe"
    assert tr(E.view(everyone).title) == "Mütze Ann Tisch B"


def test_a_refusal_names_its_reason_in_the_players_language():
    s = engine_play([{"type": "leave", "player": "Ben"}])
    cases = [
        ({"type": "leave", "player": "Ann"}, "Ann has the cap: never to the toilet", "Ann hat die Mütze: nie aufs Klo"),
        ({"type": "effect", "kind": "cap", "player": "Ben"}, "Ben is away: no cap", "Ben ist weg: keine Mütze"),
        ({"type": "effect", "kind": "drink"}, "a drink effect needs 'drink'", "Ein drink-Effekt braucht 'drink'"),
        ({"type": "taxi", "to": 3}, "no taxi is waiting", "Kein Taxi wartet"),
    ]
    for action, english, german in cases:
        with pytest.raises(Refused) as refusal:
            E.apply(s, action)
        reason = refusal.value.args[0]
        assert reason == english  # as the replay and the logs read it
        set_language("de")
        assert tr(reason) == german
        set_language("en")
