"""At the table, fourth pass: five players with long German names, every game, the 128×64 panel.

Each test is one point of the report, read off the frame's lines as drawn
(:func:`firmware_host.ui.render.drawn_lines`: after the names are shortened and the texts too long
are cut) with the panel rule's reader (:func:`tests.panel_rule.readable`): a fact reads whole,
wrapped or not, a player's name in it shortened to three letters or more.
"""

from __future__ import annotations

import asyncio

from firmware_host.core import config as configuration
from firmware_host.core.i18n import set_language, tr
from firmware_host.core.store import Store
from firmware_host.sim.scale import SIM_PIECE_GRAMS, calibrate_sim_scale
from firmware_host.ui.render import drawn_lines, name_and_value, text_width
from games.core import T
from tests.devicekit import presses, run_device
from tests.panel_rule import readable

FIVE = ["Maximiliane Öztürk", "Hans-Jürgen Weiß", "Bartholomäus Groß", "Ann", "Jörg"]
"""The table of the report: three long German names and two short ones."""
MAX, HANS, BART, ANN, JOERG = FIVE
GERMAN = configuration.parse({"display": {"language": "de"}}, "config.toml")


def lines(dev) -> list[str]:
    """What the players read on the panel now (the frame laid out and drawn as the panel does)."""
    return drawn_lines(dev.frame())


def play(tmp_path, body, seed: int = 1, scale: bool = False):
    """Run ``body`` on a German device (``scale``: the simulated cell calibrated, one piece 5 g)."""
    if scale:
        calibrate_sim_scale(Store(tmp_path))
    try:
        return run_device(tmp_path, body, GERMAN, seed=seed)
    finally:
        set_language("en")


async def pieces(dev, count: int) -> None:
    """Put ``count`` pieces in the bin, one by one, each counted by the scale."""
    await asyncio.sleep(2)  # the scale sees the bin still first
    for _ in range(count):
        dev.hw.scale.grams += SIM_PIECE_GRAMS
        await asyncio.sleep(4)
        await dev.flush()


# -- 1. Antartik: the dive stays in sight when bets ride --------------------------------------------------
def test_1_antartiks_dive_stays_on_the_panel_beside_the_bets(tmp_path):
    async def body(dev):
        dev.start_named("antartik", FIVE)
        await presses(dev, "ok", "ok", "ok")  # three draws: 9 10S 1
        before = lines(dev)
        await presses(dev, "p2", "p2", "p2!", "p3", "p3", "p3!", "p4", "p4", "p4!")  # three bets
        return before, lines(dev), list(dev.session.state.dive), dict(dev.session.state.bets)

    before, after, dive, bets = play(tmp_path, body, seed=5)
    assert dive == ["9", "10S", "1"] and len(bets) == 3
    assert readable(f"{MAX} springt: 9 10S 1", before, FIVE)
    assert readable(f"{MAX} springt: 9 10S 1", after, FIVE), after  # bug: 9 and 10S were nowhere
    assert readable("Wetten " + " ".join(f"{p}:{c}" for p, c in bets.items()), after, FIVE), after


# -- 2. an outcome keeps its verb and its number, its names shortened first ---------------------------------
def test_2_tonnes_fall_reads_whole_beside_the_scales_bin_filled(tmp_path):
    four = FIVE[:4]

    async def body(dev):
        dev.start_named("tonne", four)
        await asyncio.sleep(2)
        dev.hw.scale.grams = 4 * SIM_PIECE_GRAMS  # the pre-fill: one of each kind
        await asyncio.sleep(4)
        await dev.flush()
        dev.apply({"type": "reveal", "cards": dict(zip(four, [3, 5, 7, 8], strict=True))})
        await pieces(dev, 3)  # Maximiliane's three, counted by the scale
        placed = lines(dev)
        await presses(dev, "p2")  # (Hans-Jürgen taps: the news of the turn placed stays)
        dev.apply({"type": "fall"})  # Hans-Jürgen's pile falls
        await dev.flush()
        dev.hw.scale.grams = 0.0  # the bin emptied
        await asyncio.sleep(4)
        dev.hw.scale.grams = 4 * SIM_PIECE_GRAMS  # and filled again: the scale says so
        for _ in range(16):  # (a passing word: looked at while it shows)
            await asyncio.sleep(0.25)
            await dev.flush()
            if "bin filled" in (dev.toast_text() or ""):
                break
        return placed, lines(dev), [tr(part) for part in dev.message.showing()]

    placed, filled, said = play(tmp_path, body, scale=True)
    assert readable(f"{MAX} hat 3 gelegt", placed, FIVE), placed
    assert said == ["Waage: Tonne gefüllt"], said
    assert readable(f"{HANS}: Sturz, -1", filled, FIVE), filled  # bug: "Maximiliane Öztürk:" (Sturz, -3 gone)
    assert readable("Waage: Tonne gefüllt", filled, FIVE), filled


def test_2_the_scales_take_back_word_reads_whole(tmp_path):
    async def body(dev):
        dev.start_named("tonne", FIVE)
        await presses(dev, "ok")
        dev.apply({"type": "reveal", "cards": dict(zip(FIVE, [3, 5, 7, 8, 10], strict=True))})
        await pieces(dev, 1)
        await presses(dev, "back!", "ok")  # undo the piece: the scale asks for it back
        await dev.flush()
        return lines(dev), [tr(part) for part in dev.message.showing()]

    shown, said = play(tmp_path, body, scale=True)
    assert said == [f"Zurückgenommen: {MAX} hat 1 gelegt (1/3)", "1 wieder herausnehmen"], said
    assert all(readable(part, shown, FIVE) for part in said), shown  # bug: "1 wieder aus der Tonn…"


def test_2_arschbombes_last_jump_reads_whole_at_game_over(tmp_path):
    four = [HANS, BART, ANN, MAX]  # Maximiliane jumps last

    async def body(dev):
        dev.start_named("arschbombe", four)
        for jump in range(6 * 4 - 1):
            dev.apply({"type": "jump", "jumper": "diver" if jump < 12 else "rascal", "result": "out"})
        await dev.flush()
        dev.apply({"type": "jump", "jumper": "rascal", "result": "under"})  # the last jump: under a card
        await dev.flush()
        return lines(dev), tr(dev.session.view().lines[-1] if dev.session else dev.events[-1])

    shown, last = play(tmp_path, body)
    assert last == f"{MAX}: Rabauke, Unter einer Karte +0", last
    assert readable(last, shown, four), shown  # bug: "…: Rabauke, Unter einer…"


def test_2_bombs_reveal_after_a_failure_names_every_hand_to_cut_whole(tmp_path):
    async def body(dev):
        dev.start_named("bomb", FIVE)
        state = dev.session.state
        state.hands[MAX] = state.hands[HANS] = 6  # two hands over the limit after the round
        dev.apply({"type": "reveal", "cards": dict(zip(FIVE, ["1", "5", "5", "5", "5"], strict=True))})
        dev.apply({"type": "roll", "faces": [{"bomb": 1}, {"fuse": 1}]})  # Maximiliane: boom
        await dev.flush()
        return lines(dev), tr(dev.session.state.notice)

    shown, notice = play(tmp_path, body)
    assert "auf 4, alle +1 Karte" in notice
    assert readable(notice, shown, FIVE), shown  # bug: "Han auf 4, alle +1 Kar…"


# -- 3. Bomb at five: every revealed card in sight while the round runs -----------------------------------------
def test_3_bomb_shows_every_revealed_card_while_the_round_runs(tmp_path):
    cards = dict(zip(FIVE, ["3", "5", "3", "8", "7"], strict=True))  # Maximiliane and Bartholomäus defuse

    async def body(dev):
        dev.start_named("bomb", FIVE)
        dev.apply({"type": "reveal", "cards": cards})
        await dev.flush()
        await presses(dev, "ok")  # Random order (a tie on lives)
        dice = dev.session.state.dice + dev.session.state.red
        dev.apply({"type": "roll", "faces": [{"card": 1}] + [{}] * (dice - 1)})  # one defused: the round runs on
        await dev.flush()
        return lines(dev), dev.session.state.defusers

    shown, defusers = play(tmp_path, body)
    assert len(defusers) == 1, defusers
    for name, card in cards.items():  # bug: "Max:3 Han:5 Bar:4 Ann:…", Ann's and Jörg's cut
        assert readable(f"{name} 3♥ [{card}]", shown, FIVE), (name, shown)


# -- 4. Tonne at five: whose turn it is and how many, with the order after them ------------------------------
def test_4_tonnes_placer_and_pieces_owed_show_beside_a_wrapped_line_and_the_order(tmp_path):
    async def body(dev):
        dev.start_named("tonne", FIVE)
        await presses(dev, "ok")
        dev.apply({"type": "reveal", "cards": dict(zip(FIVE, [3, 5, 7, 8, 10], strict=True))})
        await dev.flush()
        await presses(dev, "p1")
        dev.apply({"type": "place", "count": 3})  # Maximiliane's turn placed: Hans-Jürgen's five
        await dev.flush()
        return lines(dev)

    shown = play(tmp_path, body)
    assert readable(f"{HANS}: 5 legen", shown, FIVE), shown  # bug: gone under "Dann:"
    assert readable(f"Dann: {BART} 7 {ANN} 8 {JOERG} 10", shown, FIVE), shown
    assert readable("R1/10 Vorrat 37", shown, FIVE), shown


# -- 5. Bomb's dice entered: the question in sight under an earlier defuser's roll ------------------------------
def test_5_bombs_dice_entry_asks_its_question_under_the_last_roll(tmp_path):
    async def body(dev):
        dev.start_named("bomb", FIVE)
        dev.apply({"type": "reveal", "cards": dict(zip(FIVE, ["0", "5", "5", "0", "0"], strict=True))})
        await dev.flush()
        await presses(dev, "ok")  # Random order (a tie on lives)
        dev.apply({"type": "roll", "faces": [{"card": 1}, {}, {}, {}, {}]})  # the first defuser rolls
        await dev.flush()
        await presses(dev, "next", "next", "ok")  # Enter dice
        bombs = lines(dev), tr(dev.screens[-1].path[-1].title)
        await presses(dev, "ok")  # 0 bombs
        return bombs, (lines(dev), tr(dev.screens[-1].path[-1].title))

    (bombs, asked_bombs), (fuses, asked) = play(tmp_path, body)
    assert asked == "B0: Zündschnüre?" and readable(asked, fuses, FIVE), fuses  # bug: only "0 > 1/5"
    assert asked_bombs.endswith("Bomben?") and readable(asked_bombs, bombs, FIVE), bombs


# -- 6. undo asks, and says, what it takes back ---------------------------------------------------------------
def test_6_undo_names_the_piece_it_takes_back_not_the_turn(tmp_path):
    async def body(dev):
        dev.start_named("tonne", FIVE)
        await presses(dev, "ok")
        dev.apply({"type": "reveal", "cards": dict(zip(FIVE, [3, 5, 7, 8, 10], strict=True))})
        await pieces(dev, 1)  # a mid-turn piece
        await presses(dev, "back!")
        middle = " ".join(lines(dev))
        await presses(dev, "back")  # no
        await pieces(dev, 2)  # the last two of three: the turn placed
        await presses(dev, "back!")
        last = " ".join(lines(dev))
        await presses(dev, "ok")  # yes
        undone = dev.toast_text()
        return middle, last, undone, dev.session.state.owed

    middle, last, undone, owed = play(tmp_path, body, scale=True)
    assert "Max hat 1 gelegt (1/3)" in middle, middle  # bug: no description
    assert "Max hat 1 gelegt (3/3)" in last and "hat 3 gelegt" not in last, last  # bug: "… hat 3 gelegt"
    assert undone.startswith("Undone: Maximiliane Öztürk placed 1 (3/3)") and owed == 1  # one piece back, said so


# -- 7. Bomb's game over says how it ended ------------------------------------------------------------------------
def test_7_bombs_game_over_says_the_roll_that_ended_it(tmp_path):
    async def body(dev):
        dev.start_named("bomb", FIVE)
        for p in FIVE[:4]:
            dev.session.state.lives[p] = 1
        for _ in range(4):  # four out, one roll each; Ann the last: Jörg wins
            alive = [p for p in FIVE if p not in dev.session.state.out]
            dev.apply({"type": "reveal", "cards": {p: ("1" if p == alive[0] else "5") for p in alive}})
            dev.apply({"type": "roll", "faces": [{"bomb": 1}, {"fuse": 1}]})
            await dev.flush()
        return lines(dev), type(dev.screens[-1]).__name__

    shown, top = play(tmp_path, body)
    assert top == "GameOver"
    assert readable(f"Sieger: {JOERG}", shown, FIVE), shown
    assert readable(f"{ANN}: B1 Z1 K0 -1, raus!", shown, FIVE), shown  # bug: the ranking only


# -- 8. Trottelmütze at five: who drinks what, and why, once and whole --------------------------------------------
def test_8_trottels_line_of_drinks_reads_whole_once(tmp_path):
    async def body(dev):
        dev.start_named("trottel", FIVE)
        state = dev.session.state
        state.current = FIVE.index(BART)  # Bartholomäus rolls 2+2 onto a Kneipe: everyone drinks a beer
        state.board[4] = "kneipe"
        state.board[10] = "jail"
        state.positions = dict.fromkeys(FIVE, 0) | {MAX: 10}  # Maximiliane on Jail: hers goes on the Tisch
        dev.apply({"type": "roll", "dice": [2, 2]})
        await dev.flush()
        return lines(dev), tr(dev.session.state.line)

    shown, line = play(tmp_path, body)
    assert "Kneipe" in line and "Tisch+" in line, line
    assert readable(line, shown, FIVE), shown  # bug: "Han B, Bar B, Ann B, Jör B, Tisch+B | Bar 2…"
    assert " ".join(shown).count("Kneipe") == 1, shown  # bug: the message repeated the game's own line


# -- 9. the self-test's second page from the simulator's keys, and the hint naming it ---------------------------------
def test_9_the_simulators_greater_than_holds_next_and_the_self_test_hint_names_page_2(tmp_path):
    from firmware_host.sim.terminal import Terminal

    async def body(dev):
        term = Terminal(dev)
        await presses(dev, "next", "next", "next", "ok")  # Self-test
        hints = set()
        for _ in range(4):
            hints.add(lines(dev)[-1])
            await asyncio.sleep(1)
        term.key(">")  # next, held
        await asyncio.sleep(2)
        await dev.flush()
        return hints, lines(dev)[0], " ".join(term.key_parts())

    hints, title, keys = run_device(tmp_path, body)
    assert "hold next: checks 2/2" in hints and "ok: tower  hold back" in hints  # bug: page 2 not named
    assert title.startswith(("Self-test 2/2", "Checks")), title  # bug: no key held next
    assert "next > hold (self-test page 2)" in keys


# -- 10. small things ------------------------------------------------------------------------------------------------
def test_10_every_history_row_keeps_its_day_tonnes_too(tmp_path):
    from firmware_host.ui.menus import history_item

    entry = {"game": "tonne", "started": 1_700_000_000, "reason": "over", "winners": [MAX]}
    assert history_item(entry).label.endswith("Ab in die Tonne") and history_item(entry).label[:5].count("-") == 1


def test_10_jail_is_german_in_german():
    set_language("de")
    try:
        assert tr(T("Jail")) == "Knast"
    finally:
        set_language("en")


def test_10_a_name_shortened_at_its_hyphen_drops_the_hyphen():
    assert name_and_value(HANS, "-4", text_width("Hans- -4")) == "Hans -4"  # bug: "Hans- -4"


def test_10_the_pages_prompt_follows_the_panel_past_a_tie(tmp_path):
    from firmware_host.runtime.snapshot import table_snapshot

    async def body(dev):
        dev.start_named("bomb", ["Ann", "Ben", "Cy"])
        dev.apply({"type": "reveal", "cards": {"Ann": "1", "Ben": "1", "Cy": "5"}})  # a tie on lives
        await dev.flush()
        tie = table_snapshot(dev)["prompt"]["title"]
        await presses(dev, "ok")  # Random order: the defusal's menu
        return tie, table_snapshot(dev)["prompt"]["title"], lines(dev)

    tie, then, shown = run_device(tmp_path, body)
    assert tie == "Tie on lives: order?"
    assert then.endswith(" defuses") and readable(then, shown, ["Ann", "Ben", "Cy"])  # bug: still the tie


def test_10_the_readme_links_arschbombe_and_says_how_to_get_german_and_names():
    from pathlib import Path

    readme = (Path(__file__).parents[2] / "README.md").read_text(encoding="utf-8")
    assert "(docs/arschbombe.md)" in readme
    assert "sim --config" in readme and 'language = "de"' in readme and "[table] names" in readme
