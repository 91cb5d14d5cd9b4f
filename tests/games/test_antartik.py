"""Antartik rules (docs/antartik.md), through the engine and replay."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest

from firmware_host.core.i18n import set_language, tr
from games import get_engine
from games.antartik.cards import DEFAULT_DECK, number
from games.antartik.engine import gains
from games.core import Collect, Menu, Option, Refused, Text
from tests.engine_words import check_words

E = get_engine("antartik")
P3 = ["Ann", "Ben", "Cy"]


class Table:
    """A game driven through the engine; ``draw``/``stop``/``referee`` first let everyone answer."""

    def __init__(self, players: list[str] | None = None, seed: int = 0, **options: Any) -> None:
        self.players = players or P3
        self.seed, self.options = seed, options
        self.state = E.new(self.players, seed, options)
        self.actions: list[dict] = []
        self.effects: list = []

    def do(self, action: dict) -> Table:
        self.state, self.effects = E.apply(self.state, action)
        self.actions.append(action)
        return self

    def answer(self, **bets: str) -> Table:
        """Everyone still waiting bets the card given for them, or passes."""
        for p in E.waiting(self.state):
            self.do({"type": "bet", "player": p, "card": bets[p]} if p in bets else {"type": "pass", "player": p})
        return self

    def draw(self, card: str | None = None, **bets: str) -> Table:
        self.answer(**bets)
        return self.do({"type": "draw"} if card is None else {"type": "draw", "card": card})

    def stop(self, **bets: str) -> Table:
        return self.answer(**bets).do({"type": "stop"})

    def refused(self, action: dict, match: str) -> None:
        with pytest.raises(Refused, match=match):
            E.apply(self.state, action)

    @property
    def summary(self) -> dict:
        return E.summary(self.state)

    def script(self, extra: list[dict] | None = None) -> dict:
        return {
            "game": "antartik",
            "players": self.players,
            "seed": self.seed,
            "options": self.options,
            "actions": self.actions + (extra or []),
        }


def cards_in_play(s) -> Counter:
    """Every card the state knows of, wherever it is."""
    held = [c for p in s.players for c in s.face_up[p] + s.face_down[p]]
    return Counter(held + s.pile + s.dive + list(s.bets.values()) + s.discarded)


# -- setup and options ---------------------------------------------------------------------------
@pytest.mark.parametrize("count", [2, 3, 4, 5])
def test_each_player_starts_with_a_card_showing_the_number_of_players(count):
    players = [f"P{i}" for i in range(count)]
    summary = E.summary(E.new(players, 1))
    assert summary["face_up"] == {p: [str(count)] for p in players}
    assert summary["pile"] == 55 - count and summary["dive"] == [] and summary["bets"] == {}
    assert summary["scores"] == {p: 1 for p in players}
    assert summary["turn"] == (None if count > 2 else "P1")  # the others pass or bet first


def test_default_deck_is_one_1_to_ten_10s_with_bonuses_on_8_9_10():
    assert len(DEFAULT_DECK) == 55
    assert Counter(number(c) for c in DEFAULT_DECK) == {n: n for n in range(1, 11)}
    marked = [c for c in DEFAULT_DECK if not c.isdigit()]
    assert marked and all(number(c) >= 8 for c in marked)
    assert {"R", "P", "S"} <= set("".join(marked))


def custom_deck(**replace: str) -> list[str]:
    deck = list(DEFAULT_DECK)
    for old, new in replace.items():
        deck[deck.index(old.lstrip("_"))] = new
    return deck


def test_a_deck_option_replaces_the_default_and_stars_count_double(cli, write_script):
    deck = [c.rstrip("RPS") for c in DEFAULT_DECK]
    deck[deck.index("7")] = "7S"
    script = {"game": "antartik", "players": ["Ann", "Ben"], "options": {"deck": deck}, "actions": []}
    script["actions"] = [{"type": "pass", "player": "Ben"}, {"type": "draw", "card": "7S"}]
    script["actions"] += [{"type": "pass", "player": "Ben"}, {"type": "stop"}]
    result = cli("replay", write_script(script))
    assert result.status == 0, result.err
    assert result.json()["scores"] == {"Ann": 3, "Ben": 1}  # her 2 (1 point) and 7S (2 points)
    assert result.json()["face_up"]["Ann"] == ["2", "7S"]
    bad = {**script, "actions": [{"type": "pass", "player": "Ben"}, {"type": "draw", "card": "10R"}]}
    assert cli("replay", write_script(bad)).status == 3  # no referee card in this deck


@pytest.mark.parametrize(
    ("options", "says"),
    [
        ({"deck": "default"}, "list of 55"),
        ({"deck": list(DEFAULT_DECK)[:54]}, "54 cards"),
        ({"deck": custom_deck(_7="11")}, "'11'"),
        ({"deck": custom_deck(_7="7X")}, "'7X'"),
        ({"deck": custom_deck(_10S="10SR")}, "'10SR'"),  # marks in the order R, P, S
        ({"deck": custom_deck(_7=7)}, "card 21"),
        ({"deck": custom_deck(_7="8")}, "numbered 7"),
        ({"juniors": "Ann"}, "juniors"),
        ({"juniors": ["Zed"]}, "'Zed' is not a player"),
        ({"speed": 2}, "unknown option"),
    ],
)
def test_bad_options_exit_2_with_one_line(cli, write_script, options, says):
    result = cli("replay", write_script({"game": "antartik", "players": P3, "options": options}))
    assert result.status == 2 and result.out == ""
    assert result.err.count("\n") == 1 and says in result.err


@pytest.mark.parametrize("players", [["Solo"], ["A", "B", "C", "D", "E", "F"]])
def test_two_to_five_players(cli, write_script, players):
    result = cli("replay", write_script({"game": "antartik", "players": players}))
    assert result.status == 2 and "2–5 players" in result.err


# -- the betting window ----------------------------------------------------------------------------
def test_every_other_player_answers_before_the_divers_decision(cli, write_script):
    t = Table()
    for action in ({"type": "draw"}, {"type": "stop"}):
        t.refused(action, "waiting for Ben, Cy to pass or bet")
    t.do({"type": "pass", "player": "Cy"})
    assert t.summary["turn"] == "Ben"  # one player left to answer
    t.refused({"type": "draw"}, "waiting for Ben")
    t.do({"type": "pass", "player": "Ben"})
    assert t.summary["turn"] == "Ann"
    t.do({"type": "draw", "card": "7"})
    assert t.summary["turn"] is None  # the window opens again before the next card
    result = cli("replay", write_script(t.script([{"type": "draw"}])))
    assert result.status == 3 and result.err.startswith("action 3:") and "waiting for Ben, Cy" in result.err
    assert result.json() == t.summary  # the state before the refused action


def test_pass_and_bet_refusals():
    t = Table().do({"type": "pass", "player": "Ben"})
    t.refused({"type": "pass", "player": "Ben"}, "already passed")
    t.refused({"type": "bet", "player": "Ben", "card": "3"}, "already passed")
    t.refused({"type": "bet", "player": "Ann", "card": "3"}, "Ann is diving")
    t.refused({"type": "pass", "player": "Zed"}, "unknown player")
    t.refused({"type": "bet", "player": "Cy", "card": "7"}, "Cy has no face-up 7")
    t.refused({"type": "bet", "player": "Cy"}, "needs 'card'")
    t.refused({"type": "bet", "player": "Cy", "card": "x"}, "not a card")
    t.do({"type": "bet", "player": "Cy", "card": "3"})
    assert t.summary["bets"] == {"Cy": "3"} and t.summary["face_up"]["Cy"] == []


def test_an_unnamed_pass_is_the_single_waiting_players():
    t = Table(["Ann", "Ben"])
    t.do({"type": "pass"})
    assert t.summary["turn"] == "Ann"


def test_each_player_bets_once_per_turn():
    t = Table().draw("7", Ben="3")  # bold: Ben's bet is lost
    t.refused({"type": "bet", "player": "Ben", "card": "3"}, "already bet this turn")
    assert E.waiting(t.state) == ["Cy"]  # Ben is not asked again this turn
    t.do({"type": "pass", "player": "Ben"})  # his hand up anyway changes nothing
    assert E.waiting(t.state) == ["Cy"]
    t.draw("9").stop()
    assert E.waiting(t.state) == ["Cy", "Ann"]  # a new turn: everyone may bet again


# -- decisions and bets -------------------------------------------------------------------------
def test_stop_wins_the_dive_and_the_bets():
    t = Table().draw("7").draw("9", Cy="3")
    t.refused({"type": "stop"}, "waiting for Ben")
    t.stop(Ben="3")
    s = t.summary
    assert s["face_up"]["Ann"] == ["3", "3", "7", "9"]  # Cy's lost bet at the 9, then the dive
    assert s["face_down"] == {"Ann": [], "Ben": ["3"], "Cy": []}  # chicken: Ben's bet won
    assert s["scores"] == {"Ann": 4, "Ben": 3, "Cy": 0}
    assert s["dive"] == [] and s["turn"] is None and E.diver(t.state) == "Ben"
    assert ("signal", "success") in [(e.kind, e.value) for e in t.effects]


def test_a_stop_needs_a_card_turned_this_turn():
    Table().answer().refused({"type": "stop"}, "must turn a card first")


def test_belly_flop_keeps_only_the_last_card_and_wins_the_bets():
    t = Table().draw("7").draw("9").draw("7", Ben="3", Cy="3")
    s = t.summary
    assert s["face_up"]["Ann"] == ["3", "7"]
    assert s["face_down"] == {"Ann": [], "Ben": ["3"], "Cy": ["3"]}  # daredevil: bets won
    assert s["dive"] == ["7", "9"] and s["bets"] == {}  # the failed dive stays on the table
    assert E.diver(t.state) == "Ben"
    assert ("signal", "fall") in [(e.kind, e.value) for e in t.effects]


def test_a_flop_compares_numbers_not_marks():
    t = Table().draw("10").draw("10R")
    assert t.summary["face_up"]["Ann"] == ["3", "10R"] and t.summary["dive"] == ["10"]


def test_the_next_diver_continues_a_failed_dive_or_starts_a_new_one():
    t = Table().draw("7").draw("9").draw("9S")  # Ann flops; Ben's turn with 7 9 on the table
    pile = t.summary["pile"]
    cont = Table().draw("7").draw("9").draw("9S").draw("4").stop()
    assert cont.summary["face_up"]["Ben"] == ["3", "7", "9", "4"]  # continued: the whole dive is his
    flop = Table().draw("7").draw("9").draw("9S").draw("7")
    assert flop.summary["face_up"]["Ben"] == ["3", "7"]  # a flop against the failed dive's cards
    t.do({"type": "new_dive"})
    assert t.summary["dive"] == [] and t.summary["pile"] == pile + 2
    t.draw("7")
    assert t.summary["dive"] == ["7"]  # a 7 can come again: the old dive went under the pile


def test_new_dive_only_at_turn_start():
    t = Table().do({"type": "new_dive"})  # nothing on the table: the dive is new anyway
    assert t.summary == Table().summary
    t = Table().draw("7").draw("9").draw("9S").draw("4")
    t.refused({"type": "new_dive"}, "already turned a card")
    t.refused({"type": "new_dive", "player": "Cy"}, "Ben's dive, not Cy's")


def test_a_physical_pile_refuses_a_card_that_no_longer_exists():
    t = Table().draw("1")
    t.answer().refused({"type": "draw", "card": "1"}, "no 1 is left")
    t.refused({"type": "draw", "card": "3"}, "no 3 is left")  # all three 3s were dealt
    t.refused({"type": "draw", "card": "11"}, "not a card")
    t.refused({"type": "draw", "card": 7}, "wrong type")


def test_a_seeded_pile_is_the_same_for_the_same_seed(cli, write_script):
    def seeded(seed: int) -> Table:
        t = Table(seed=seed)
        for _ in range(6):
            if E.diver(t.state) == "Ann" and len(t.state.dive) >= 2:
                t.stop()
            else:
                t.draw()
        return t

    a, b, c = seeded(5), seeded(5), seeded(6)
    assert a.summary == b.summary and a.actions == b.actions
    assert a.state.pile != c.state.pile
    first = cli("replay", write_script(a.script()))
    again = cli("replay", write_script(a.script()))
    assert first.status == again.status == 0 and first.out == again.out
    assert first.json() == a.summary


# -- referee -------------------------------------------------------------------------------------
def marked(card: str) -> list[str]:
    """The default deck with the first card of ``card``'s number replaced by ``card``."""
    deck = list(DEFAULT_DECK)
    deck[deck.index(str(number(card)))] = card
    return deck


def with_referee(seed: int = 0) -> Table:
    """Ann was dealt a 3R (a deck option) and dives first on a seeded pile."""
    return Table(seed=seed, deck=marked("3R"))


def test_referee_reorders_the_top_three_of_the_seeded_pile(cli, write_script):
    t = with_referee().answer()
    top = t.state.pile[:3]
    order = [top[2], top[0], top[1]]
    t.refused({"type": "referee", "card": "3R", "order": ["3", "4", "5"]}, "no 3 is left")  # all dealt
    t.refused({"type": "referee", "card": "3R", "order": top[:2]}, "must list 3")
    t.refused({"type": "referee", "card": "3", "order": order}, "not a referee card")
    t.refused({"type": "referee", "card": "8R", "order": order}, "Ann has no 8R")
    t.refused({"type": "referee", "card": "3R", "order": "up"}, "wrong type")
    t.do({"type": "referee", "card": "3R", "order": order})
    assert t.state.pile[:3] == order and t.state.discarded == ["3R"]
    assert t.summary["face_up"]["Ann"] == [] and t.summary["pile"] == 52
    t.refused({"type": "draw"}, "waiting for Ben, Cy")  # the window opens again
    t.draw()
    assert t.summary["dive"] == [order[0]]
    assert cli("replay", write_script(t.script())).json() == t.summary


def test_referee_puts_the_top_three_under_the_pile():
    t = with_referee().answer()
    top, fourth = t.state.pile[:3], t.state.pile[3]
    t.do({"type": "referee", "card": "3R", "bottom": True})
    assert t.state.pile[-3:] == top
    t.draw()
    assert t.summary["dive"] == [fourth]


def test_referee_only_when_nobody_bet_on_this_decision():
    t = with_referee().answer(Ben="3")
    t.refused({"type": "referee", "card": "3R", "bottom": True}, "someone has bet")
    t = with_referee()
    t.refused({"type": "referee", "card": "3R", "bottom": True}, "waiting for")


def test_referee_on_a_physical_pile_takes_the_tables_order(cli, write_script):
    t = with_referee().draw("7").answer()  # a named card: the pile is a physical one
    pile = list(t.state.pile)
    t.do({"type": "referee", "card": "3R"})  # rearranged by hand: the engine has nothing to do
    assert t.state.pile == pile
    t = with_referee().draw("7").answer()
    t.refused({"type": "referee", "card": "3R", "order": ["9", "9", "3"]}, "no 3 is left")
    t.refused({"type": "referee", "card": "3R", "order": ["9", "4", 6]}, "not a card")
    t.do({"type": "referee", "card": "3R", "order": ["9", "4", "6"]})
    t.draw().draw().draw()  # unnamed draws now follow the order the table gave
    assert t.summary["dive"] == ["7", "9", "4", "6"]
    result = cli("replay", write_script(t.script()))
    assert result.status == 0 and result.json()["dive"] == ["7", "9", "4", "6"]


# -- parachute -------------------------------------------------------------------------------------
def flopping_junior(juniors: list[str]) -> Table:
    """Ann owns a 9P and belly-flops on her dive 5 8 with an 8S."""
    t = Table(juniors=juniors).draw("9P").stop().draw("2").stop().draw("2").stop()
    return t.draw("5").draw("8").draw("8S", Ben="3")


def test_a_junior_opens_a_parachute_right_after_a_belly_flop(cli, write_script):
    t = flopping_junior(["Ann"])
    assert t.summary["turn"] == "Ann"  # her parachute choice comes first
    pile = t.summary["pile"]
    t.do({"type": "parachute", "card": "9P"})
    s = t.summary
    assert s["face_up"]["Ann"] == ["3", "5", "8"]  # the dive is hers; 9P discarded, 8S under the pile
    assert s["pile"] == pile + 1 and s["dive"] == [] and s["face_down"]["Ben"] == ["3"]
    assert E.diver(t.state) == "Ben" and s["turn"] is None
    t.refused({"type": "parachute", "card": "9P"}, "only right after a belly flop")
    assert cli("replay", write_script(t.script())).json() == s


def test_parachute_refusals():
    t = flopping_junior([])
    assert t.summary["turn"] is None  # no parachute to offer: Ben's window
    t.refused({"type": "parachute", "card": "9P"}, "Ann is not a junior")
    t = flopping_junior(["Ann"])
    t.refused({"type": "parachute", "card": "9"}, "not a parachute card")
    t.refused({"type": "parachute", "card": "8P"}, "Ann has no 8P")
    t.refused({"type": "parachute", "player": "Cy", "card": "9P"}, "only Ann")
    t.do({"type": "pass", "player": "Cy"})  # play goes on: the moment has passed
    t.refused({"type": "parachute", "card": "9P"}, "only right after")


def test_an_exchange_keeps_the_parachute_moment_open():
    t = flopping_junior(["Ann"])
    t.do({"type": "exchange", "player": "Ben", "card": "3"})
    t.do({"type": "parachute", "card": "9P"})
    assert t.summary["dive"] == []


# -- exchange ------------------------------------------------------------------------------------
def test_exchange_turns_a_face_down_card_up_and_takes_the_bottom_card():
    t = Table().draw("7").stop(Ben="3")  # Ben's bet is won: his 3 face down
    bottom = t.state.pile[-1]
    t.refused({"type": "exchange", "player": "Ben", "card": "7"}, "no face-down 7")
    t.refused({"type": "exchange", "player": "Cy", "card": "3"}, "no face-down 3")
    t.do({"type": "exchange", "player": "Ben", "card": "3"})
    s = t.summary
    assert s["face_up"]["Ben"] == ["3", bottom] and s["face_down"]["Ben"] == [] and s["pile"] == 50


def test_exchange_from_a_physical_pile_names_the_drawn_card():
    t = Table().draw("7").stop(Ben="3")
    t.do({"type": "exchange", "player": "Ben", "card": "3", "drawn": "1"})
    assert t.summary["face_up"]["Ben"] == ["3", "1"]
    t2 = Table().draw("1").stop(Ben="3")
    t2.refused({"type": "exchange", "player": "Ben", "card": "3", "drawn": "1"}, "no 1 is left")


def test_exchange_is_refused_when_no_card_but_the_last_is_left():
    t = Table().draw("7").stop(Ben="3")
    t.state.pile = t.state.pile[:1]
    t.refused({"type": "exchange", "player": "Ben", "card": "3"}, "the last card is left for the dive")
    t.state.pile = []
    t.refused({"type": "exchange", "player": "Ben", "card": "3"}, "draw pile is empty")


# -- the end ---------------------------------------------------------------------------------------
def test_the_last_card_without_a_flop_gains_the_dive_and_ends_the_game():
    t = Table().draw("7")
    t.state.pile = ["4", "9"]
    t.draw(Ben="3").draw(Cy="3")  # 4 then 9: Ben's and Cy's bets lost, the pile is empty
    s = t.summary
    assert s["over"] and s["turn"] is None and s["pile"] == 0 and s["dive"] == []
    assert s["face_up"]["Ann"] == ["3", "3", "3", "7", "4", "9"]
    assert s["winners"] == ["Ann"]
    assert ("signal", "game_over") in [(e.kind, e.value) for e in t.effects]
    t.refused({"type": "draw"}, "the game is over")


def test_the_last_card_flopping_ends_the_game_with_the_dive_on_the_table():
    t = Table().draw("7")
    t.state.pile = ["7S"]
    t.draw(Ben="3", Cy="3")
    s = t.summary
    assert s["over"] and s["dive"] == ["7"] and s["face_up"]["Ann"] == ["3", "7S"]
    assert s["scores"] == {"Ann": 3, "Ben": 3, "Cy": 3}
    assert s["winners"] == ["Ann", "Ben", "Cy"]  # ties share the win


# -- what the device offers ------------------------------------------------------------------------
def walk(option: Option) -> list[dict]:
    """Every complete action under a menu option."""
    if option.action is not None:
        return [option.action]
    return [a for o in option.submenu().options for a in walk(o)]


def test_the_window_is_one_button_per_player_each_answer_its_own_action():
    t = Table().draw("7")
    menu = E.prompt(t.state)
    assert isinstance(menu, Menu) and menu.player == "Ann"  # the diver chooses while the others bet
    prompt = menu.side
    assert isinstance(prompt, Collect) and prompt.players == ("Ben", "Cy") and prompt.each is not None
    assert prompt.default == "pass"  # picking on the diver's menu passes for whoever did not bet
    assert prompt.values["Ben"] == ("pass", "3") and prompt.label("3") == "bet 3"
    assert prompt.each("Ben", "pass") == {"type": "pass", "player": "Ben"}
    assert prompt.each("Cy", "3") == {"type": "bet", "player": "Cy", "card": "3"}
    assert E.view(t.state).mood == "choosing" and E.view(t.state).active == ("Ann",)  # the diver is marked


def test_the_divers_menu():
    t = with_referee().answer()
    menu = E.prompt(t.state)
    assert isinstance(menu, Menu) and menu.player == "Ann" and E.view(t.state).mood == "playing"
    labels = [o.label for o in menu.options]
    assert labels == ["Draw", "Enter card", "Referee 3R"]  # no stop before a card
    referee = menu.options[2].submenu()
    assert referee.title == "Top: " + " ".join(t.state.pile[:3])
    assert len(referee.options) == 7 and referee.options[-1].label == "Under the pile"
    for action in walk(menu.options[2]):
        E.apply(t.state, action)  # every choice offered is accepted
    entered = walk(menu.options[1])
    assert {a["card"] for a in entered} == set(t.state.pile)
    t.draw("7").answer()  # one named card (a stray entry, maybe): the menu stays as it was
    labels = [o.label for o in E.prompt(t.state).options]
    assert labels == ["Draw", "Stop", "Enter card", "Referee 3R"]
    assert [o.label for o in E.prompt(t.state).options[3].submenu().options] == ["Sorted by hand", "Under the pile"]
    second = next(c for c in t.state.pile if c.isdigit() and c != "7")
    t.draw(second).answer()  # two in a row: a physical pile, "Enter card" comes first
    labels = [o.label for o in E.prompt(t.state).options]
    assert labels == ["Enter card", "Stop", "Draw", "Referee 3R"]


def test_the_menu_at_the_start_of_a_turn_with_a_failed_dive():
    t = Table().draw("7").draw("7").answer()
    labels = [o.label for o in E.prompt(t.state).options]
    assert labels == ["Enter card", "Continue: draw", "New dive"]
    assert [o.label for o in E.anytime(t.state)] == ["Ben: new dive"]


def test_the_parachute_menu_answers_the_next_window_too():
    t = flopping_junior(["Ann"])
    menu = E.prompt(t.state)
    assert menu.player == "Ann" and E.view(t.state).active == ("Ann",)
    assert [o.label for o in menu.options] == ["Parachute 9P", "No: pass", "No: bet 3", "No: bet 8S", "No: bet 9P"]
    declined = E.apply(t.state, menu.options[1].action)[0]
    assert E.prompt(declined).side.players == ("Cy",)


def test_exchange_is_offered_any_time_as_player_then_card():
    seeded = Table(seed=3).draw().stop(Ben="3")
    options = E.anytime(seeded.state)
    assert [o.label for o in options] == ["Ben: exchange"]
    assert walk(options[0]) == [{"type": "exchange", "player": "Ben", "card": "3"}]
    physical = Table().draw("7").stop(Ben="3")  # the drawn card is entered from the table
    drawn = walk(E.anytime(physical.state)[0])
    assert {a["drawn"] for a in drawn} == set(physical.state.pile)
    assert all(a["player"] == "Ben" and a["card"] == "3" for a in drawn)


def test_random_play_keeps_every_card_and_every_offered_choice_is_accepted(cli, write_script):
    """Whole games from the device's own choices (bets, referees, parachutes, exchanges)."""
    for seed in range(12):
        pick = random.Random(seed)
        t = Table(["Ann", "Ben", "Cy", "Dee"][: 2 + seed % 3], seed=seed, juniors=["Ann", "Ben"])
        steps = 0
        while not t.state.over:
            steps += 1
            assert steps < 2000
            prompt = E.prompt(t.state)
            anytime = [a for o in E.anytime(t.state) for a in walk(o)]
            if anytime and pick.random() < 0.05:
                t.do(pick.choice(anytime))
            elif isinstance(prompt, Menu) and prompt.side is not None:
                side = prompt.side
                p = pick.choice(side.players)
                value = "pass" if pick.random() < 0.8 else pick.choice(side.values[p])
                t.do(side.each(p, value))
            else:
                options = list(prompt.options)
                stop = [o for o in options if o.label == "Stop"]
                if stop and len(t.state.dive) >= pick.randint(2, 5):
                    t.do(stop[0].action)
                else:
                    t.do(pick.choice([a for o in options for a in walk(o) if a["type"] != "stop"]))
            assert cards_in_play(t.state) == Counter(DEFAULT_DECK)
        s = t.summary
        assert s["over"] and s["pile"] == 0 and s["winners"]
        result = cli("replay", write_script(t.script()))
        assert result.status == 0 and result.json() == s


def test_a_hard_timeout_of_the_betting_window_makes_the_silent_players_pass(cli, write_script):
    base = {"game": "antartik", "players": ["Ann", "Ben", "Cy"], "seed": 2}
    actions = [{"type": "bet", "player": "Ben", "card": "3"}, {"type": "timeout", "players": ["Cy"]}]
    result = cli("replay", write_script({**base, "actions": actions}))
    assert result.status == 0, result.err
    summary = result.json()
    assert summary["bets"] == {"Ben": "3"} and summary["turn"] == "Ann"  # the window is closed: Ann decides
    # the diver's own decision has no time limit: refused, the timeout stays soft on the device
    late = cli("replay", write_script({**base, "actions": [*actions, {"type": "timeout", "player": "Ann"}]}))
    assert late.status == 3 and "own time" in late.err


def test_hard_timeouts_are_offered_for_antartik_in_the_config():
    from firmware_host.timers.presets import parse_preset

    assert parse_preset("antartik", {"mode": "turn", "timeout": "hard", "phase": 20}).timeout == "hard"


def test_a_timeout_naming_one_player_passes_only_that_player(cli, write_script):
    base = {"game": "antartik", "players": ["Ann", "Ben", "Cy"], "seed": 2}
    result = cli("replay", write_script({**base, "actions": [{"type": "timeout", "player": "Cy"}]}))
    assert result.status == 0, result.err
    assert result.json()["turn"] == "Ben"  # Ben has still to answer; Cy's time ran out
    diver = cli("replay", write_script({**base, "actions": [{"type": "timeout", "player": "Ann"}]}))
    assert diver.status == 3 and "own time" in diver.err


# -- words ---------------------------------------------------------------------------------------
def test_every_word_antartik_shows_is_a_message_german_translates_and_fits():
    junior = flopping_junior(["Ann"])
    exchange = Table().draw("7").stop(Ben="3")  # Ben's bet won: a face-down card to turn up
    states = [
        Table().state,  # the first decision, the others on their buttons
        Table().draw("7").answer(Ben="3").state,  # a bet open on a dive
        with_referee().answer().state,  # a referee to use: its orders
        with_referee().draw("7").answer().state,  # a physical pile: cards entered, sorted by hand
        junior.state,  # the parachute choice
        Table().draw("7").draw("7").state,  # a failed dive to continue, or a new one
        exchange.state,
    ]
    german = check_words(E, states, ["Ann", "Ben", "Cy"])  # (the game over's words are games.core's)
    assert german["Ann's turn"] == "Ann ist dran" and german["Ann's dive: 7"] == "Ann springt: 7"
    assert german["Parachute 9P"] == "Fallschirm 9P" and german["Referee 3R"] == "Schiri 3R"


def test_what_antartik_says_reads_as_before_in_english_and_in_german_at_the_table():
    t = Table().draw("7")
    said = [e.value for e in t.effects if e.kind == "say"]
    assert said == ["Ann turns 7"] and isinstance(said[0], Text)  # the replay's English, unchanged
    set_language("de")
    assert tr(said[0]) == "Ann deckt 7 auf"
    t.answer(Ben="3")
    with pytest.raises(Refused) as refusal:
        E.apply(t.state, {"type": "referee", "card": "3R"})
    reason = refusal.value.args[0]
    assert reason == "no referee: someone has bet on this decision"  # as every log and replay reads it
    assert tr(reason) == "Kein Schiedsrichter: es gibt eine Wette"  # the table reads why, in German
    with pytest.raises(Refused) as refusal:
        E.apply(t.state, {"type": "bet", "player": "Ben", "card": "3"})
    assert tr(refusal.value.args[0]) == "Ben hat in diesem Zug schon gewettet"
    over = Table(players=["Ann", "Ben"])
    while not over.state.over:
        over.draw()
    winner = [e.value for e in over.effects if e.kind == "say"][-1]
    assert tr(winner) == f"Sieger: {', '.join(E.winners(over.state))}"


def test_the_pass_of_a_bet_is_offered_in_the_players_language():
    side = E.prompt(Table().state).side
    assert side is not None and side.label("pass") == "pass" and side.label("3") == "bet 3"
    set_language("de")
    assert tr(side.label("pass")) == "passen" and tr(side.label("3")) == "Wette 3"


def test_what_a_diver_gains_is_told_in_the_singular_or_the_plural_in_both_languages():
    assert (gains("Ann", 1), gains("Ann", 3)) == ("Ann gains a card", "Ann gains 3 cards")
    set_language("de")
    assert (tr(gains("Ann", 1)), tr(gains("Ann", 3))) == ("Ann nimmt eine Karte", "Ann nimmt 3 Karten")
