"""Ab in die Tonne rules (docs/tonne.md), engine and replay contract."""

from __future__ import annotations

import pytest

from games import get_engine
from games.core import Collect, Menu, Order, Refused, SetupError, Task

E = get_engine("tonne")


def reveal(cards: dict[str, int], order: list[str] | None = None) -> dict:
    action: dict = {"type": "reveal", "cards": cards}
    if order is not None:
        action["order"] = order
    return action


def place(count: int | None = None) -> dict:
    return {"type": "place"} if count is None else {"type": "place", "count": count}


FALL = {"type": "fall"}


def play(players: list[str], actions: list[dict], options: dict | None = None):
    state = E.new(players, 0, options)
    for action in actions:
        state, _ = E.apply(state, action)
    return state


def summary(players, actions, options=None) -> dict:
    return E.summary(play(players, actions, options))


# -- setup ------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("n", "bin_"), [(2, 12), (3, 8), (4, 4), (5, 0)])
def test_prefill_by_player_count_and_the_chip_stack(n, bin_):
    s = summary([f"P{i}" for i in range(n)], [])
    assert s["bin"] == bin_ and s["supply"] == 40 - bin_
    assert s["stack"] == [1, 2, 3, 4, 5, 6]  # minus side up, -1 on top
    assert s["round"] == 1 and s["owed"] == 0 and s["turn"] is None
    assert s["chips"] == {f"P{i}": [] for i in range(n)} and set(s["scores"].values()) == {0}


@pytest.mark.parametrize("n", [1, 6])
def test_two_to_five_players(n):
    with pytest.raises(SetupError):
        E.new([f"P{i}" for i in range(n)])


@pytest.mark.parametrize("mice", [[1] * 10, {"Ann": [1] * 9}, {"Ann": [1] * 9 + [-1]}, {"Ann": "many"}])
def test_bad_mice_tables_are_setup_errors(mice):
    with pytest.raises(SetupError, match="mice"):
        E.new(["Ann", "Ben"], 0, {"mice": mice})


# -- reveal and turn order -----------------------------------------------------------------------------
def test_turns_go_in_ascending_card_value():
    s = summary(["Ann", "Ben", "Cy"], [reveal({"Ann": 7, "Ben": 2, "Cy": 5})])
    assert s["turn"] == "Ben" and s["owed"] == 2
    s = summary(["Ann", "Ben", "Cy"], [reveal({"Ann": 7, "Ben": 2, "Cy": 5}), place(2)])
    assert s["turn"] == "Cy" and s["owed"] == 5


def test_tie_without_mice_needs_the_order():
    with pytest.raises(Refused, match="Ann, Ben tie on 3"):
        play(["Ann", "Ben", "Cy"], [reveal({"Ann": 3, "Ben": 3, "Cy": 1})])
    s = summary(["Ann", "Ben", "Cy"], [reveal({"Ann": 3, "Ben": 3, "Cy": 1}, ["Ben", "Ann"]), place()])
    assert s["turn"] == "Ben"  # Cy (1) first, then the order given for the tie
    with pytest.raises(Refused, match="tie"):  # an order that leaves a tied player out
        play(["Ann", "Ben", "Cy"], [reveal({"Ann": 3, "Ben": 3, "Cy": 3}, ["Ben", "Ann"])])


def test_fewer_mice_go_first_and_equal_mice_still_need_the_order():
    mice = {"Ann": [0, 0, 2, 0, 0, 0, 0, 0, 0, 0], "Ben": [0, 0, 1, 0, 0, 0, 0, 0, 0, 0], "Cy": [0] * 10}
    s = summary(["Ann", "Ben", "Cy"], [reveal({"Ann": 3, "Ben": 3, "Cy": 9})], {"mice": mice})
    assert s["turn"] == "Ben" and s["owed"] == 3
    # the order cannot overrule the mice
    s = summary(["Ann", "Ben", "Cy"], [reveal({"Ann": 3, "Ben": 3, "Cy": 9}, ["Ann", "Ben"])], {"mice": mice})
    assert s["turn"] == "Ben"
    with pytest.raises(Refused, match="Ann, Cy tie on 1"):  # both have 0 mice on their 1
        play(["Ann", "Ben", "Cy"], [reveal({"Ann": 1, "Ben": 3, "Cy": 1})], {"mice": mice})
    # a player the mice table does not know needs the order
    s = summary(["Ann", "Ben", "Dan"], [reveal({"Ann": 3, "Ben": 5, "Dan": 3}, ["Dan", "Ann"])], {"mice": mice})
    assert s["turn"] == "Dan"


def test_each_value_only_once_per_player_per_game():
    first = [reveal({"Ann": 1, "Ben": 2}), place(), place(2)]
    with pytest.raises(Refused, match="Ann already played a 1"):
        play(["Ann", "Ben"], [*first, reveal({"Ann": 1, "Ben": 3})])
    s = summary(["Ann", "Ben"], [*first, reveal({"Ann": 2, "Ben": 1})])  # the other's value is fine
    assert s["round"] == 2 and s["turn"] == "Ben"


@pytest.mark.parametrize(
    ("cards", "reason"),
    [
        ({"Ann": 1}, "Ben's card"),
        ({"Ann": 1, "Ben": 11}, "1 to 10"),
        ({"Ann": 1, "Ben": 0}, "1 to 10"),
        ({"Ann": 1, "Ben": "2"}, "1 to 10"),
        ({"Ann": 1, "Ben": True}, "1 to 10"),
        ({"Ann": 1, "Ben": 2, "Zed": 3}, "unknown player"),
    ],
)
def test_malformed_reveals_are_refused(cards, reason):
    with pytest.raises(Refused, match=reason):
        play(["Ann", "Ben"], [reveal(cards)])


def test_reveal_while_someone_still_owes_is_refused():
    with pytest.raises(Refused, match="Ann still has 2 to place"):
        play(["Ann", "Ben"], [reveal({"Ann": 2, "Ben": 5}), reveal({"Ann": 3, "Ben": 4})])


# -- placing -------------------------------------------------------------------------------------------
def test_placing_counts_down_moves_pieces_and_passes_the_turn():
    s = summary(["Ann", "Ben"], [reveal({"Ann": 4, "Ben": 6}), place(), place(2)])
    assert s["owed"] == 1 and s["supply"] == 25 and s["bin"] == 15 and s["turn"] == "Ann"
    s = summary(["Ann", "Ben"], [reveal({"Ann": 4, "Ben": 6}), place(), place(2), place()])
    assert s["turn"] == "Ben" and s["owed"] == 6


def test_placing_when_nothing_is_owed_or_more_than_owed_is_refused():
    with pytest.raises(Refused, match="nothing is owed"):
        play(["Ann", "Ben"], [place()])
    with pytest.raises(Refused, match="nothing is owed"):
        play(["Ann", "Ben"], [FALL])
    with pytest.raises(Refused, match="Ann owes only 2"):
        play(["Ann", "Ben"], [reveal({"Ann": 2, "Ben": 5}), place(3)])
    for bad in (0, -1, "2", 1.5, True):
        with pytest.raises(Refused):
            play(["Ann", "Ben"], [reveal({"Ann": 2, "Ben": 5}), {"type": "place", "count": bad}])
    with pytest.raises(Refused, match="Ann's turn"):
        play(["Ann", "Ben"], [reveal({"Ann": 2, "Ben": 5}), {"type": "place", "player": "Ben"}])


def test_round_ends_when_everyone_placed_and_the_next_asks_for_cards():
    s = summary(["Ann", "Ben"], [reveal({"Ann": 1, "Ben": 2}), place(), place(2)])
    assert s["round"] == 2 and s["turn"] is None and s["owed"] == 0 and s["bin"] == 15


# -- a fall ------------------------------------------------------------------------------------------------
def test_a_fall_ends_the_turn_gives_the_top_chip_minus_and_refills_the_bin():
    s = summary(["Ann", "Ben", "Cy"], [reveal({"Ann": 5, "Ben": 2, "Cy": 8}), place(), FALL])
    assert s["chips"] == {"Ann": [], "Ben": [-1], "Cy": []} and s["scores"]["Ben"] == -1
    assert s["stack"] == [2, 3, 4, 5, 6]
    assert s["bin"] == 8 and s["supply"] == 32  # emptied, pre-filled again for 3 players
    assert s["turn"] == "Ann" and s["owed"] == 5 and s["round"] == 1  # the round goes on


def test_the_last_players_fall_ends_the_round():
    s = summary(["Ann", "Ben"], [reveal({"Ann": 1, "Ben": 2}), place(), FALL])
    assert s["round"] == 2 and s["turn"] is None and s["chips"]["Ben"] == [-1]


# -- the supply runs out -------------------------------------------------------------------------------------
def _drain_supply() -> list[dict]:
    """Two players: 28 pieces in the supply; 9 + 10 placed in round 1, 2 + 6 in round 2: 1 left."""
    return [
        reveal({"Ann": 9, "Ben": 10}),
        place(9),
        place(10),
        reveal({"Ann": 2, "Ben": 8}),
        place(2),
        place(6),
    ]


def test_placing_the_last_piece_gives_the_top_chip_plus_and_ends_the_turn_at_once():
    s = summary(["Ann", "Ben"], _drain_supply())
    assert s["supply"] == 1 and s["turn"] == "Ben" and s["owed"] == 2
    with pytest.raises(Refused, match="only 1 left in the supply"):
        play(["Ann", "Ben"], [*_drain_supply(), place(2)])
    s = summary(["Ann", "Ben"], [*_drain_supply(), place()])
    assert s["chips"]["Ben"] == [1] and s["scores"]["Ben"] == 1 and s["stack"] == [2, 3, 4, 5, 6]
    assert s["supply"] == 28 and s["bin"] == 12  # emptied and pre-filled again
    assert s["round"] == 3 and s["turn"] is None  # Ben's turn ended with 1 still owed; round over


def test_the_supply_running_low_is_told_to_the_ear_only_after_each_placement():
    """From five pieces left down, every placement adds a line for the voice; the panel's lines
    (``say``) stay as they were: the title shows the supply all along."""
    state = play(["Ann", "Ben"], _drain_supply()[:5])  # 28 - 19 - 2: 7 left, Ben owes 8
    heard, said = [], []
    for count in (1, 1, 3, 1):
        state, effects = E.apply(state, place(count))
        heard.append([(e.value.msgid, dict(e.value.values)) for e in effects if e.kind == "hear"])
        said.append([e.value for e in effects if e.kind == "say"])
    assert heard == [
        [],  # 6 left
        [("Only {supply} pieces left in the supply.", {"supply": 5})],
        [("Only {supply} pieces left in the supply.", {"supply": 2})],
        [("Only one piece left in the supply.", {})],
    ]
    assert said == [[], [], [], []]  # mid-turn placements say nothing on the panel, as before


def test_a_fall_while_the_last_piece_goes_in_is_a_fall():
    s = summary(["Ann", "Ben"], [*_drain_supply(), FALL])
    assert s["chips"]["Ben"] == [-1] and s["supply"] == 28


def test_five_players_start_with_an_empty_bin():
    players = ["A", "B", "C", "D", "E"]
    s = summary(players, [reveal({"A": 1, "B": 2, "C": 3, "D": 4, "E": 5}), place(), FALL])
    assert s["bin"] == 0 and s["supply"] == 40 and s["chips"]["B"] == [-1]


# -- the end -------------------------------------------------------------------------------------------------
def test_the_game_ends_at_once_with_the_last_chip():
    actions = [reveal({"Ann": 1, "Ben": 2}), FALL, FALL]
    actions += [reveal({"Ann": 2, "Ben": 1}), FALL, FALL]
    actions += [reveal({"Ann": 3, "Ben": 4}), FALL]
    s = summary(["Ann", "Ben"], actions)
    assert not s["over"] and s["stack"] == [6] and s["turn"] == "Ben"
    s = summary(["Ann", "Ben"], [*actions, FALL])
    assert s["over"] and s["stack"] == [] and s["turn"] is None and s["owed"] == 0
    assert s["chips"] == {"Ann": [-1, -4, -5], "Ben": [-2, -3, -6]}
    assert s["scores"] == {"Ann": -10, "Ben": -11} and s["winners"] == ["Ann"]  # a negative total can win
    with pytest.raises(Refused, match="over"):
        E.apply(play(["Ann", "Ben"], [*actions, FALL]), place())


def test_ties_share_the_win_even_at_zero():
    actions = []
    for r in range(1, 7):  # Cy goes first every round and drops something: -1 … -6
        actions += [reveal({"Ann": r + 1, "Ben": r + 2, "Cy": r}), FALL]
        if r < 6:
            actions += [place(r + 1), place(r + 2)]
    s = summary(["Ann", "Ben", "Cy"], actions)
    assert s["over"] and s["round"] == 6 and s["chips"]["Cy"] == [-1, -2, -3, -4, -5, -6]
    assert s["scores"] == {"Ann": 0, "Ben": 0, "Cy": -21} and s["winners"] == ["Ann", "Ben"]


def test_full_ten_rounds_with_supply_outs_and_falls():
    """Ten rounds where every card is placed whole; the supply runs out now and then."""
    state = E.new(["Ann", "Ben", "Cy"], 0)
    values = {"Ann": list(range(1, 11)), "Ben": list(range(10, 0, -1)), "Cy": [5, 6, 4, 7, 3, 8, 2, 9, 1, 10]}
    for r in range(10):
        cards = {p: values[p][r] for p in values}
        state, _ = E.apply(state, reveal(cards, ["Ann", "Ben", "Cy"]))
        while not state.over and E.summary(state)["turn"] is not None:
            state, _ = E.apply(state, place())
        if state.over:
            break
    s = E.summary(state)
    assert s["over"] and s["round"] == 10
    # 165 pieces owed in all; each supply-out takes 32 (3 players) and a plus chip
    assert all(c > 0 for chips in s["chips"].values() for c in chips)
    assert sum(len(c) for c in s["chips"].values()) == 5 and s["stack"] == [6]
    assert s["winners"] == [p for p in ("Ann", "Ben", "Cy") if s["scores"][p] == max(s["scores"].values())]


# -- effects, prompts and the view -----------------------------------------------------------------------------
def test_effects_signal_fall_success_and_game_over():
    s = E.new(["Ann", "Ben"])
    s, fx = E.apply(s, reveal({"Ann": 10, "Ben": 9}))
    s, fx = E.apply(s, FALL)
    assert [e.value for e in fx if e.kind == "signal"] == ["fall"]  # no turn beep over the fall
    assert ("say", "Ben fell: -1") in [(e.kind, e.value) for e in fx]
    s = play(["Ann", "Ben"], _drain_supply())
    s, fx = E.apply(s, place())
    assert ("signal", "success") in [(e.kind, e.value) for e in fx]
    s = play(["Ann", "Ben"], [reveal({"Ann": 1, "Ben": 2}), FALL, FALL, reveal({"Ann": 2, "Ben": 1}), FALL, FALL])
    s, _ = E.apply(s, reveal({"Ann": 3, "Ben": 4}))
    s, _ = E.apply(s, FALL)
    s, fx = E.apply(s, FALL)
    assert fx[-1].value == "game_over"


def test_prompt_starts_with_the_bin_setup_then_asks_every_card():
    s = E.new(["Ann", "Ben"])
    task = E.prompt(s)
    assert isinstance(task, Task) and task.key == "bin0" and "3 of each kind" in " ".join(task.lines)
    collect = task.then
    assert isinstance(collect, Collect) and collect.players == ("Ann", "Ben")
    assert collect.values["Ann"] == tuple(str(v) for v in range(1, 11))
    assert collect.build({"Ann": "3", "Ben": "5"}) == reveal({"Ann": 3, "Ben": 5})


def test_reveal_prompt_leaves_played_values_out_and_asks_the_order_of_a_tie():
    s = play(["Ann", "Ben", "Cy"], [reveal({"Ann": 1, "Ben": 2, "Cy": 3}), place(), place(2), place(3)])
    collect = E.prompt(s)
    assert isinstance(collect, Collect)  # no re-fill was due: straight to the cards
    assert "1" not in collect.values["Ann"] and "1" in collect.values["Ben"]
    follow = collect.build({"Ann": "4", "Ben": "4", "Cy": "6"})
    assert isinstance(follow, Order) and follow.players == ("Ann", "Ben")
    assert follow.build(["Ben", "Ann"]) == reveal({"Ann": 4, "Ben": 4, "Cy": 6}, ["Ben", "Ann"])


def test_no_order_is_asked_when_the_mice_settle_the_tie():
    mice = {"Ann": [2] * 10, "Ben": [1] * 10}
    collect = E.prompt(E.new(["Ann", "Ben"], 0, {"mice": mice})).then
    assert collect.build({"Ann": "4", "Ben": "4"}) == reveal({"Ann": 4, "Ben": 4})


def test_placing_menu_defaults_to_placed_and_offers_fell():
    s = play(["Ann", "Ben"], [reveal({"Ann": 3, "Ben": 5})])
    menu = E.prompt(s)
    assert isinstance(menu, Menu) and menu.player == "Ann" and menu.title == "Ann: 3 to place"
    labels = [o.label for o in menu.options]
    assert labels == ["Placed", "Fell", "Placed 2", "Placed 3"]
    assert menu.options[menu.default].action == place(1)
    assert menu.options[1].action == FALL
    assert E.view(s).mood == "playing" and E.view(s).active == ("Ann",)


def test_after_a_fall_the_table_is_asked_to_empty_and_refill_the_bin():
    s = play(["Ann", "Ben"], [reveal({"Ann": 3, "Ben": 5}), FALL])
    task = E.prompt(s)
    assert isinstance(task, Task) and task.key == "bin1" and task.confirm == "Bin filled"
    assert isinstance(task.then, Menu) and task.then.player == "Ben"
    s, _ = E.apply(s, place())  # the job is the table's: the game goes on without it
    assert isinstance(E.prompt(s), Menu)


def test_view_shows_supply_bin_and_who_comes_next():
    s = play(["Ann", "Ben", "Cy"], [reveal({"Ann": 3, "Ben": 5, "Cy": 8})])
    v = E.view(s)
    assert v.title == "R1/10 supply 32" and "Supply 32 bin 8" in v.lines and "Next: Ben 5 Cy 8" in v.lines
    assert E.view(E.new(["Ann", "Ben"])).mood == "choosing"


# -- the replay contract -------------------------------------------------------------------------------------------
def test_replay_contract_summary(cli, write_script):
    script = {
        "game": "tonne",
        "players": ["Ann", "Ben", "Cy"],
        "seed": 3,
        "actions": [reveal({"Ann": 3, "Ben": 5, "Cy": 3}, ["Cy", "Ann"]), place(3), place(), FALL],
    }
    result = cli("replay", write_script(script))
    assert result.status == 0, result.err
    data = result.json()
    assert data == {
        "game": "tonne",
        "players": ["Ann", "Ben", "Cy"],
        "over": False,
        "winners": [],
        "scores": {"Ann": -1, "Ben": 0, "Cy": 0},
        "turn": "Ben",
        "round": 1,
        "chips": {"Ann": [-1], "Ben": [], "Cy": []},
        "stack": [2, 3, 4, 5, 6],
        "supply": 32,
        "bin": 8,
        "owed": 5,
    }


@pytest.mark.parametrize(
    ("actions", "index", "reason"),
    [
        ([reveal({"Ann": 1, "Ben": 2}), place(), place(2), reveal({"Ann": 1, "Ben": 3})], 3, "already played"),
        ([place()], 0, "nothing is owed"),
        ([reveal({"Ann": 1, "Ben": 2}), place(), place(2), place()], 3, "nothing is owed"),
        ([reveal({"Ann": 4, "Ben": 4})], 0, "tie on 4"),
        ([reveal({"Ann": 2, "Ben": 4}), place(3)], 1, "owes only 2"),
        ([{"type": "jump"}], 0, "no action"),
    ],
)
def test_replay_refusals_exit_3_with_the_state_before(cli, write_script, actions, index, reason):
    result = cli("replay", write_script({"game": "tonne", "players": ["Ann", "Ben"], "actions": actions}))
    assert result.status == 3
    assert result.err.startswith(f"action {index}:") and reason in result.err and result.err.count("\n") == 1
    before = summary(["Ann", "Ben"], actions[:index])
    assert result.json() == before


def test_replay_mice_option_and_bad_options(cli, write_script):
    mice = {"Ann": [3] * 10, "Ben": [1] * 10}
    ok = {"game": "tonne", "players": ["Ann", "Ben"], "options": {"mice": mice}}
    ok["actions"] = [reveal({"Ann": 4, "Ben": 4})]
    result = cli("replay", write_script(ok))
    assert result.status == 0 and result.json()["turn"] == "Ben"
    for bad in ({"mice": {"Ann": [1, 2]}}, {"colours": 5}):
        result = cli("replay", write_script({"game": "tonne", "players": ["Ann", "Ben"], "options": bad}))
        assert result.status == 2 and result.out == "" and result.err.count("\n") == 1
    result = cli("replay", write_script({"game": "tonne", "players": ["A", "B", "C", "D", "E", "F"]}))
    assert result.status == 2


def test_the_placing_menu_offers_no_more_pieces_than_the_supply_holds():
    # 2 players: 28 in the supply; 9 + 10 placed in round 1, Ann 1 in round 2: Ben owes 9 of 8
    round_1 = [reveal({"Ann": 9, "Ben": 10}), place(9), place(10)]
    s = play(["Ann", "Ben"], [*round_1, reveal({"Ann": 1, "Ben": 9}), place(1)])
    summary_ = E.summary(s)
    menu = E.prompt(s)
    if isinstance(menu, Task):
        menu = menu.then
    assert summary_["owed"] > summary_["supply"]
    counts = [o.action["count"] for o in menu.options if o.action and o.action["type"] == "place"]
    assert max(counts) == summary_["supply"]
    for count in counts:
        E.apply(s, place(count))  # every offered option is taken
