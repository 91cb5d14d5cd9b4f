"""Bomb rules (docs/bomb.md), through the engine, the prompts and the replay contract."""

from __future__ import annotations

import pytest

from firmware_host.core.session import Session
from firmware_host.core.store import Store
from games import get_engine
from games.bomb.dice import DEFAULT_WHITE, spread
from games.bomb.engine import defusers_of
from games.core import Collect, Menu, Order, Refused, SetupError

E = get_engine("bomb")
P3 = ["Ann", "Ben", "Cy"]

BLANK: dict = {}
BOOM = [{"bomb": 1}, {"fuse": 1}]  # one bomb, one fuse: -1 life


def reveal(**cards: str) -> dict:
    return {"type": "reveal", "cards": cards}


def roll(*faces: dict, player: str | None = None) -> dict:
    action: dict = {"type": "roll", "faces": list(faces)}
    if player:
        action["player"] = player
    return action


def blanks(n: int) -> list[dict]:
    return [{} for _ in range(n)]


def play(actions: list[dict], players: list[str] = P3, seed: int = 0, options: dict | None = None):
    state = E.new(players, seed, options)
    for action in actions:
        state, _ = E.apply(state, action)
    return state


def summary(actions: list[dict], players: list[str] = P3, seed: int = 0) -> dict:
    return E.summary(play(actions, players, seed))


def effects_of(state, action: dict):
    return E.apply(state, action)[1]


# -- setup ---------------------------------------------------------------------------------------
def test_setup_three_lives_two_dice_no_red_and_a_reveal_awaited():
    s = summary([])
    assert s["lives"] == s["scores"] == {"Ann": 3, "Ben": 3, "Cy": 3}
    assert (s["dice"], s["red"], s["defusers"], s["out"], s["round"]) == (2, False, [], [], 1)
    assert s["turn"] is None and not s["over"]


@pytest.mark.parametrize("players", [["Solo"], ["A", "B", "C", "D", "E", "F"]])
def test_two_to_five_players(players):
    with pytest.raises(SetupError):
        E.new(players)


# -- dice as data, options ---------------------------------------------------------------------------
def test_options_replace_the_dice():
    always_card = [{"card": 1}] * 6
    s = play([reveal(Ann="1", Ben="5", Cy="5"), {"type": "roll"}], options={"white": always_card})
    assert s.last["faces"] == [{"card": 1}, {"card": 1}]
    assert s.hands["Ann"] == 4 - 1 + 2  # played one card, drew two


def test_the_red_option_replaces_the_red_die():
    boom = [{"bomb": 1, "fuse": 1}] * 6
    s = play([reveal(Ann="2", Ben="5", Cy="5"), {"type": "roll"}], options={"white": [{}] * 6, "red": boom})
    assert s.lives["Ann"] == 2 and s.last["faces"][-1] == {"bomb": 1, "fuse": 1}


@pytest.mark.parametrize(
    "options",
    [
        {"white": "bomb"},
        {"white": [{}] * 5},
        {"white": [{}] * 7},
        {"red": [{"boom": 1}] + [{}] * 5},
        {"red": [{"bomb": -1}] + [{}] * 5},
        {"red": [{"bomb": True}] + [{}] * 5},
        {"red": [{"bomb": "1"}] + [{}] * 5},
        {"white": [[1]] + [{}] * 5},
        {"blue": [{}] * 6},
    ],
)
def test_bad_dice_options_exit_2_with_one_line(cli, write_script, options):
    result = cli("replay", write_script({"game": "bomb", "players": P3, "options": options}))
    assert result.status == 2 and result.out == "" and result.err.count("\n") == 1
    with pytest.raises(SetupError):
        E.new(P3, 0, options)


def test_spread_keeps_the_totals_on_the_right_number_of_dice():
    faces = spread(3, 2, 3, 1)
    assert len(faces) == 3
    assert sum(f.get("bomb", 0) for f in faces) == 2
    assert sum(f.get("fuse", 0) for f in faces) == 3
    assert sum(f.get("card", 0) for f in faces) == 1


# -- the reveal and card effects -----------------------------------------------------------------------
def test_a_zero_draws_adds_a_die_and_goes_back_to_hand():
    s = play([reveal(Ann="0", Ben="5", Cy="5")])
    assert E.summary(s)["dice"] == 3
    assert s.hands == {"Ann": 5, "Ben": 3, "Cy": 3}


def test_several_zeros_and_threes_each_add_a_die():
    s = summary([reveal(Ann="0", Ben="0", Cy="3")])
    assert s["dice"] == 5
    s = summary([reveal(Ann="3", Ben="3", Cy="3")])
    assert s["dice"] == 5


def test_added_dice_stay_and_never_pass_ten():
    five = ["A", "B", "C", "D", "E"]
    threes = reveal(A="3", B="3", C="3", D="3", E="1")  # E defuses alone
    s = play([threes], five)
    assert E.summary(s)["dice"] == 6  # 2 + four 3s
    s, _ = E.apply(s, roll(*blanks(6)))
    assert E.summary(s)["dice"] == 7  # a clean round adds one
    s, _ = E.apply(s, threes)
    assert E.summary(s)["dice"] == 10  # 7 + 4, capped
    s, _ = E.apply(s, roll(*blanks(10)))
    assert E.summary(s)["dice"] == 10  # a clean round at ten adds nothing
    s, _ = E.apply(s, reveal(A="0", B="0", C="0", D="0", E="0"))
    assert E.summary(s)["dice"] == 10  # five 0s at ten add nothing either


def test_a_two_brings_the_red_die_once_for_this_round_only():
    s = play([reveal(Ann="2", Ben="2", Cy="5")])
    assert E.summary(s)["red"] is True
    with pytest.raises(Refused, match="3 dice in the centre with the red die, not 4 faces"):
        E.apply(s, roll(*blanks(4)))
    s, _ = E.apply(s, roll(*blanks(3)))  # Ann
    s, _ = E.apply(s, roll(*blanks(3)))  # Ben rolls the red die too
    out = E.summary(s)
    assert out["red"] is False and out["dice"] == 3 and out["round"] == 2
    s, _ = E.apply(s, reveal(Ann="1", Ben="5", Cy="5"))
    with pytest.raises(Refused, match="3 dice in the centre, not 4"):
        E.apply(s, roll(*blanks(4)))


def test_the_red_die_is_rolled_last_when_seeded():
    s = play([reveal(Ann="2", Ben="5", Cy="5"), {"type": "roll"}])
    assert len(s.last["faces"]) == 3 and s.last["red"]


# -- who defuses -----------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("cards", "defusers"),
    [
        ({"Ann": "4", "Ben": "1", "Cy": "8"}, ["Ben"]),
        ({"Ann": "0", "Ben": "1", "Cy": "0"}, ["Ann", "Cy"]),
        ({"Ann": "6", "Ben": "2", "Cy": "0"}, ["Ann"]),  # a 6 over cards of 2 or less
        ({"Ann": "6", "Ben": "3", "Cy": "0"}, ["Cy"]),  # a 3 spoils the 6
        ({"Ann": "7", "Ben": "3", "Cy": "1"}, ["Ann"]),  # a 7 over cards of 3 or less
        ({"Ann": "7", "Ben": "4", "Cy": "1"}, ["Cy"]),
        ({"Ann": "6", "Ben": "6", "Cy": "1"}, ["Cy"]),  # two 6s: neither is alone
        ({"Ann": "7", "Ben": "6", "Cy": "2"}, ["Cy"]),  # the 7 sees a 6; the 6 sees a 7
        ({"Ann": "6", "Ben": "0"}, ["Ann"]),
        ({"Ann": "5", "Ben": "5", "Cy": "5"}, ["Ann", "Ben", "Cy"]),
    ],
)
def test_defusers_lowest_card_or_a_lone_six_or_seven(cards, defusers):
    assert defusers_of(cards) == defusers


def test_most_life_chips_defuse_first():
    # round 1: Cy loses 2 lives; round 2: Ann, Ben, Cy all defuse, Cy (1 life) last
    s = play([reveal(Ann="5", Ben="5", Cy="1"), roll({"bomb": 2}, {"fuse": 3})])
    assert s.lives["Cy"] == 1
    s, _ = E.apply(s, reveal(Ann="0", Ben="0", Cy="0"))
    assert E.summary(s)["defusers"][-1] == "Cy"


def test_ties_are_seeded_the_same_each_time_and_differ_between_seeds():
    orders = {tuple(summary([reveal(Ann="0", Ben="0", Cy="0")], seed=seed)["defusers"]) for seed in range(12)}
    assert len(orders) > 1
    a = summary([reveal(Ann="0", Ben="0", Cy="0")], seed=5)["defusers"]
    assert a == summary([reveal(Ann="0", Ben="0", Cy="0")], seed=5)["defusers"]


def test_the_order_action_chooses_the_tied_order():
    s = play([reveal(Ann="0", Ben="0", Cy="0")])
    s, _ = E.apply(s, {"type": "order", "players": ["Cy", "Ann", "Ben"]})
    out = E.summary(s)
    assert out["defusers"] == ["Cy", "Ann", "Ben"] and out["turn"] == "Cy"
    with pytest.raises(Refused, match="no tie"):
        E.apply(s, {"type": "order", "players": ["Ann", "Ben", "Cy"]})


def test_order_only_reorders_within_a_tie():
    s = play([reveal(Ann="5", Ben="5", Cy="1"), roll(*BOOM), reveal(Ann="0", Ben="0", Cy="0")])
    with pytest.raises(Refused, match="Cy is not tied"):
        E.apply(s, {"type": "order", "players": ["Cy", "Ann", "Ben"]})
    with pytest.raises(Refused, match="tied too"):
        E.apply(s, {"type": "order", "players": ["Ben"]})
    with pytest.raises(Refused, match="names no player"):
        E.apply(s, {"type": "order", "players": []})
    with pytest.raises(Refused, match="twice"):
        E.apply(s, {"type": "order", "players": ["Ben", "Ben"]})
    s, _ = E.apply(s, {"type": "order", "players": ["Ben", "Ann"]})
    assert E.summary(s)["defusers"] == ["Ben", "Ann", "Cy"]


def test_order_is_refused_once_the_defusals_began():
    s = play([reveal(Ann="0", Ben="0", Cy="9"), roll(*blanks(4))])
    with pytest.raises(Refused):
        E.apply(s, {"type": "order", "players": ["Ann", "Ben"]})


def test_only_the_next_defuser_may_roll():
    s = play([reveal(Ann="0", Ben="0", Cy="9"), {"type": "order", "players": ["Ann", "Ben"]}])
    with pytest.raises(Refused, match="Ann defuses before Ben"):
        E.apply(s, roll(*blanks(4), player="Ben"))
    with pytest.raises(Refused, match="Cy is not defusing"):
        E.apply(s, {"type": "safe", "player": "Cy"})


# -- defusals ----------------------------------------------------------------------------------------------
def test_worked_example_two_bombs_three_fuses_cost_two_chips():
    s = play([reveal(Ann="1", Ben="5", Cy="5")])
    s, effects = E.apply(s, roll({"bomb": 2}, {"fuse": 3}))
    assert E.summary(s)["lives"]["Ann"] == 1
    assert ("signal", "explosion") in [(e.kind, e.value) for e in effects]
    assert ("say", "Ann: B2 F3 C0 boom -2") in [(e.kind, e.value) for e in effects]


def test_bombs_alone_or_fuses_alone_are_a_success_that_draws_card_marks():
    s = play([reveal(Ann="1", Ben="5", Cy="5")])
    before = s.hands["Ann"]
    s, effects = E.apply(s, roll({"bomb": 2, "card": 1}, {"card": 2}))
    assert s.lives["Ann"] == 3 and s.hands["Ann"] == before + 3
    assert ("signal", "success") in [(e.kind, e.value) for e in effects]
    assert E.summary(s)["dice"] == 3  # clean round: one more die


def test_safe_succeeds_without_a_roll():
    s = play([reveal(Ann="1", Ben="5", Cy="5")])
    seed_before = s.rng.state
    s, effects = E.apply(s, {"type": "safe"})
    assert s.lives["Ann"] == 3 and s.rng.state == seed_before
    assert [e.value for e in effects if e.kind == "signal"] == ["success"]
    assert E.summary(s)["dice"] == 3


def test_later_defusers_still_roll_after_a_failure():
    s = play([reveal(Ann="0", Ben="0", Cy="5"), {"type": "order", "players": ["Ann", "Ben"]}, roll(*BOOM, {}, {})])
    assert E.summary(s)["defusers"] == ["Ben"] and E.summary(s)["turn"] == "Ben"
    s, _ = E.apply(s, roll(*BOOM, {}, {}))
    out = E.summary(s)
    assert out["lives"] == {"Ann": 2, "Ben": 2, "Cy": 3}
    assert out["dice"] == 2 and out["round"] == 2  # a failure: back to two dice


def test_four_card_marks_await_a_claim_before_anything_else():
    s = play([reveal(Ann="0", Ben="0", Cy="5"), {"type": "order", "players": ["Ann", "Ben"]}])
    s, _ = E.apply(s, roll({"card": 2}, {"card": 1}, {"card": 1}, {}))
    out = E.summary(s)
    assert out["turn"] == "Ann" and out["defusers"] == ["Ben"]
    for action in (roll(*blanks(4)), reveal(Ann="1", Ben="2", Cy="3"), {"type": "safe"}):
        with pytest.raises(Refused, match="Ann first chooses"):
            E.apply(s, action)
    with pytest.raises(Refused, match="Ann chooses, not Ben"):
        E.apply(s, {"type": "claim", "player": "Ben", "take": "life"})
    with pytest.raises(Refused):
        E.apply(s, {"type": "claim", "take": "both"})
    life, _ = E.apply(s, {"type": "claim", "player": "Ann", "take": "life"})
    assert E.summary(life)["lives"]["Ann"] == 4 and E.summary(life)["turn"] == "Ben"  # no upper limit
    cards, _ = E.apply(s, {"type": "claim", "take": "cards"})
    assert cards.hands["Ann"] == s.hands["Ann"] + 4 and cards.lives["Ann"] == 3


def test_claim_is_refused_without_a_claim_pending():
    with pytest.raises(Refused, match="reveal the cards first"):
        E.apply(E.new(P3), {"type": "claim", "take": "life"})


def test_three_card_marks_just_draw():
    s = play([reveal(Ann="1", Ben="5", Cy="5"), roll({"card": 2}, {"card": 1})])
    assert s.claim is None and E.summary(s)["round"] == 2


# -- elimination and the end ---------------------------------------------------------------------------
def test_a_player_without_lives_is_out_and_can_no_longer_play():
    s = play([reveal(Ann="1", Ben="5", Cy="5"), roll({"bomb": 3}, {"fuse": 3})])
    out = E.summary(s)
    assert out["out"] == ["Ann"] and out["lives"]["Ann"] == 0 and not out["over"]
    with pytest.raises(Refused, match="Ann is out"):
        E.apply(s, reveal(Ann="1", Ben="5", Cy="5"))
    with pytest.raises(Refused, match="no card for Cy"):
        E.apply(s, reveal(Ben="5"))
    s, _ = E.apply(s, reveal(Ben="5", Cy="4"))
    with pytest.raises(Refused, match="Ann is out"):
        E.apply(s, roll(*blanks(2), player="Ann"))


def test_the_last_player_with_lives_wins():
    s = play([reveal(Ann="1", Ben="5"), roll({"bomb": 3}, {"fuse": 3})], ["Ann", "Ben"])
    out = E.summary(s)
    assert out["over"] and out["winners"] == ["Ben"] and out["turn"] is None
    assert out["scores"] == {"Ann": 0, "Ben": 3}
    with pytest.raises(Refused, match="over"):
        E.apply(s, reveal(Ben="1"))


def test_everyone_loses_when_the_last_players_drop_together():
    s = play([reveal(Ann="0", Ben="0"), {"type": "order", "players": ["Ann", "Ben"]}], ["Ann", "Ben"])
    s, _ = E.apply(s, roll({"bomb": 3}, {"fuse": 3}, {}, {}))
    assert not E.summary(s)["over"] and E.summary(s)["turn"] == "Ben"  # Ben still rolls
    s, effects = E.apply(s, roll({"bomb": 3}, {"fuse": 3}, {}, {}))
    out = E.summary(s)
    assert out["over"] and out["winners"] == [] and out["out"] == ["Ann", "Ben"]
    assert ("say", "Everyone loses!") in [(e.kind, e.value) for e in effects]
    assert "game_over" in [e.value for e in effects if e.kind == "signal"]


def test_the_last_one_standing_after_others_drop_in_the_same_round_wins_if_they_survive():
    s = play([reveal(Ann="0", Ben="0", Cy="0"), {"type": "order", "players": ["Ann", "Ben", "Cy"]}])
    s, _ = E.apply(s, roll({"bomb": 3}, {"fuse": 3}, {}, {}, {}))
    s, _ = E.apply(s, roll({"bomb": 3}, {"fuse": 3}, {}, {}, {}))
    s, _ = E.apply(s, roll({"card": 4}, {}, {}, {}, {}))  # no claim: the game is decided
    out = E.summary(s)
    assert out["over"] and out["winners"] == ["Cy"]


# -- end of round, cards the device counts --------------------------------------------------------------
def test_after_a_failure_hand_limit_one_card_each_and_two_dice():
    s = play([reveal(Ann="0", Ben="0", Cy="5"), {"type": "order", "players": ["Ann", "Ben"]}])
    s, _ = E.apply(s, roll({"card": 3}, {}, {}, {}))  # Ann: 5 + 3 = 8 cards
    s, _ = E.apply(s, roll(*BOOM, {}, {}))  # Ben fails
    assert s.hands == {"Ann": 4 + 1, "Ben": 4 + 1, "Cy": 3 + 1}
    assert s.used == 0 and s.table == 0  # used cards shuffled back into the pile
    prompt = E.prompt(s)
    assert isinstance(prompt, Collect) and prompt.title == "Ann,Ben to 4, all +1 card"
    assert E.summary(s)["dice"] == 2


def test_a_failed_defuser_draws_nothing_even_with_card_marks():
    s = play([reveal(Ann="1", Ben="5", Cy="5")])
    before = s.hands["Ann"]
    s, _ = E.apply(s, roll({"bomb": 1, "card": 2}, {"fuse": 1, "card": 2}))
    assert s.hands["Ann"] == before + 1  # nothing drawn; +1 card each after the failure
    assert s.claim is None and s.lives["Ann"] == 2


def test_an_out_players_cards_go_to_the_used_cards_and_their_0_leaves():
    s = play([reveal(Ann="1", Ben="5", Cy="5")])
    hand, used = s.hands["Ann"], s.used
    s, _ = E.apply(s, roll({"bomb": 3}, {"fuse": 3}))
    assert s.hands["Ann"] == 0
    # Ann's hand but the 0, and the three cards played, were shuffled into the pile; Ben and Cy drew one
    assert s.used == 0 and s.pile == 37 - 9 + used + (hand - 1) + 3 - 2


def test_an_empty_pile_is_refilled_from_the_used_cards():
    s = play([reveal(Ann="1", Ben="5", Cy="5")])
    s.pile, s.used = 0, 5
    s, effects = E.apply(s, roll({"card": 2}, {}))
    assert ("say", "Ann: B0 F0 C2 +2 cards") in [(e.kind, e.value) for e in effects]
    assert s.pile == 3 and s.used == 3  # the round's three played cards are used now


def test_draws_stop_when_no_card_is_left():
    s = play([reveal(Ann="1", Ben="5", Cy="5")])
    s.pile, s.used = 1, 0
    s, effects = E.apply(s, roll({"card": 3}, {}))
    assert ("say", "Ann: B0 F0 C3 +1 card") in [(e.kind, e.value) for e in effects]
    # the played cards went to the used cards at the end of the round
    assert s.used == 3 and s.pile == 0


# -- prompts and view -------------------------------------------------------------------------------------
def test_reveal_prompt_records_the_cards_shown_by_holding_without_safe():
    s = E.new(P3)
    prompt = E.prompt(s)
    assert isinstance(prompt, Collect) and prompt.counting and not prompt.hidden
    assert prompt.values["Ann"] == tuple(str(v) for v in range(10))
    assert prompt.build({"Ann": "1", "Ben": "2", "Cy": "3"}) == reveal(Ann="1", Ben="2", Cy="3")
    view = E.view(s)
    assert view.mood == "choosing" and view.active == tuple(P3)


def test_tie_prompt_offers_random_or_an_order_on_screen():
    s = play([reveal(Ann="0", Ben="0", Cy="9")])
    prompt = E.prompt(s)
    assert isinstance(prompt, Menu) and prompt.player is None
    random, choose = prompt.options
    first = E.summary(s)["defusers"][0]
    assert random.submenu().player == first
    order = choose.submenu()
    assert isinstance(order, Order) and set(order.players) == {"Ann", "Ben"}
    assert set(E.view(s).active) == {"Ann", "Ben"}
    assert order.build(["Ben", "Ann"]) == {"type": "order", "players": ["Ben", "Ann"]}
    assert E.view(s).mood == "rolling"


def test_defuser_menu_rolls_plays_safe_or_enters_dice():
    s = play([reveal(Ann="2", Ben="5", Cy="5")])
    menu = E.prompt(s)
    assert menu.player == "Ann"
    roll_it, safe, enter = menu.options
    assert roll_it.label == "Roll 2 dice +red" and roll_it.action == {"type": "roll", "player": "Ann"}
    assert safe.action == {"type": "safe", "player": "Ann"}
    bombs = enter.submenu()
    assert [o.label for o in bombs.options] == ["0", "1", "2", "3", "4", "5", "6"]  # 2+2 white, 2 red
    fuses = bombs.options[2].submenu()
    boom = fuses.options[3]
    assert boom.label == "3  boom -2"
    s2, _ = E.apply(s, boom.action)
    assert s2.lives["Ann"] == 1 and len(boom.action["faces"]) == 3
    calm = bombs.options[0].submenu().options[1].submenu().options[4].action
    s3, _ = E.apply(s, calm)
    assert s3.claim == "Ann"  # 0 bombs, 1 fuse, 4 cards
    claim = E.prompt(s3)
    assert [o.action["take"] for o in claim.options] == ["cards", "life"]
    assert E.view(s3).mood == "playing"


def test_view_shows_lives_dice_and_the_last_roll():
    s = play([reveal(Ann="2", Ben="5", Cy="5"), roll({"bomb": 2}, {}, {"fuse": 3}), reveal(Ann="1", Ben="5", Cy="4")])
    s, _ = E.apply(s, roll({"bomb": 1}, {"card": 1}))
    view = E.view(s)
    assert view.scores == (("Ann", "1♥"), ("Ben", "3♥"), ("Cy", "3♥"))  # lives
    assert view.title == "Bomb R3 3d"
    s = play([reveal(Ann="2", Ben="2", Cy="5"), roll({"bomb": 2}, {}, {"fuse": 3})])
    view = E.view(s)
    assert view.title == "Bomb R1 2d+red" and view.active == ("Ben",)
    assert view.lines[0] == "Ann: B2 F3 C0 boom -2" and view.lines[1] == "bb - R:fff"
    assert view.mood == "rolling"


# -- the replay contract -----------------------------------------------------------------------------------
def _script(actions: list[dict], players: list[str] = P3) -> dict:
    return {"game": "bomb", "players": players, "seed": 3, "actions": actions}


def test_replay_plays_bomb(cli, write_script):
    result = cli("replay", write_script(_script([reveal(Ann="1", Ben="5", Cy="5"), roll({"bomb": 2}, {"fuse": 3})])))
    assert result.status == 0
    data = result.json()
    assert data["lives"] == data["scores"] == {"Ann": 1, "Ben": 3, "Cy": 3}
    assert set(data) == {
        *("game", "players", "over", "winners", "scores", "turn"),
        *("lives", "dice", "red", "defusers", "out", "round"),
    }


@pytest.mark.parametrize(
    ("actions", "index", "words"),
    [
        ([reveal(Ann="SAFE", Ben="5", Cy="5")], 0, "SAFE cannot be chosen"),
        (
            [reveal(Ann="1", Ben="5", Cy="5"), roll({"bomb": 3}, {"fuse": 3}), reveal(Ann="2", Ben="5", Cy="5")],
            2,
            "Ann is out",
        ),
        ([reveal(Ann="1", Ben="5", Cy="5"), roll({}, {}, {})], 1, "2 dice in the centre, not 3 faces"),
        (
            [
                reveal(Ann="1", Ben="5", Cy="5"),
                roll({"bomb": 3}, {"fuse": 3}),
                reveal(Ben="5", Cy="1"),
                {"type": "safe", "player": "Ann"},
            ],
            3,
            "Ann is out",
        ),
        ([reveal(Ann=1, Ben="5", Cy="5")], 0, "a card is '0' to '9'"),
        ([reveal(Ann="10", Ben="5", Cy="5")], 0, "a card is '0' to '9'"),
        ([{"type": "roll"}], 0, "reveal the cards first"),
        ([reveal(Ann="1", Ben="5", Cy="5"), roll({"bomb": "x"}, {})], 1, "whole number"),
        ([{"type": "jump"}], 0, "no action 'jump'"),
    ],
)
def test_replay_refusals_exit_3_naming_the_action(cli, write_script, actions, index, words):
    result = cli("replay", write_script(_script(actions)))
    assert result.status == 3
    assert result.err.startswith(f"action {index}:") and words in result.err and result.err.count("\n") == 1
    assert result.json() == E.summary(play(actions[:index], P3, 3))


# -- determinism ---------------------------------------------------------------------------------------------
def _random_game(seed: int) -> list[dict]:
    """A whole game from a seed: cards picked from the seed too, every roll seeded."""
    from games.core import Rng

    pick = Rng(seed + 1000)
    s = E.new(P3, seed)
    actions: list[dict] = []
    while not s.over:
        if s.claim:
            action = {"type": "claim", "take": pick.choice(["life", "cards"])}
        elif s.defusers:
            action = {"type": "roll"} if pick.below(5) else {"type": "safe"}
        else:
            action = reveal(**{p: str(pick.below(10)) for p in E.alive(s)})
        s, _ = E.apply(s, action)
        actions.append(action)
    return actions


def test_same_seed_same_game():
    actions = _random_game(11)
    assert summary(actions, seed=11) == summary(actions, seed=11)
    assert summary(actions, seed=11)["over"]
    assert play(actions, seed=11).last == play(actions, seed=11).last


def test_many_seeded_games_end_with_a_winner_or_everyone_losing():
    for seed in range(40):
        s = summary(_random_game(seed), seed=seed)
        assert s["over"] and len(s["winners"]) <= 1
        assert 2 <= len(s["out"]) <= 3
        assert 2 <= s["dice"] <= 10


def test_an_undone_roll_comes_out_the_same_when_made_again(tmp_path):
    session = Session.start(Store(tmp_path), "bomb", P3, {}, seed=99)
    session.apply(reveal(Ann="0", Ben="3", Cy="5"))
    session.apply({"type": "roll"})
    first = session.state.last["faces"]
    assert session.undo()
    assert session.state.last is None
    session.apply({"type": "roll"})
    assert session.state.last["faces"] == first
    resumed = Session.resume(Store(tmp_path))
    assert resumed is not None and resumed.state.last["faces"] == first


def test_default_white_die_is_six_faces():
    assert len(DEFAULT_WHITE) == 6
