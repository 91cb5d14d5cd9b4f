"""The Rules screen: every page of every game's rules fits the 128×64 panel in both languages,
and the screen opens at the part of the rules that matters in the game's state."""

from __future__ import annotations

import asyncio
import dataclasses

import pytest

from firmware_host.core.i18n import LANGUAGES, set_language
from firmware_host.ui.render import CONTENT_W, ROWS, fit, text_width, wrap
from firmware_host.ui.rules import TEXT_ROWS, RulesScreen, load_rules, paginate, section_for
from games import ENGINES, get_engine
from tests.devicekit import presses, run_device, screen
from tests.ui.test_screens import StubTable, tap


def overflows(frame) -> list[str]:
    """Every text of ``frame`` that the renderer would cut, with the room it had."""
    cut = []
    title_room = CONTENT_W - 2 - (text_width(frame.title_right) + 2 if frame.title_right else 0)
    if fit(frame.title, title_room) != frame.title:
        cut.append(f"title {frame.title!r} > {title_room}px")
    for row in frame.rows:
        room = CONTENT_W - 2 - (text_width(row.right) + 2 if row.right else 0)
        cut += [f"{cell!r} > {room}px" for cell in row.cells if fit(cell, room) != cell]
    if len(frame.rows) > ROWS:
        cut.append(f"{len(frame.rows)} rows > {ROWS}")
    return cut


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("game", list(ENGINES))
def test_every_page_of_the_rules_fits_the_panel(game, lang):
    set_language(lang)
    rules = RulesScreen(StubTable(), game)
    count = len(rules.pages())
    seen = []
    for _ in range(count):
        frame = rules.frame()
        assert not overflows(frame), (game, lang, rules.page, overflows(frame))
        assert frame.title_right == f"{rules.page + 1}/{count}"
        seen.append(rules.section)
        rules.press(tap("next"))
    assert rules.page == 0  # next from the last page comes round to the first
    assert seen[0] == "goal" and set(seen) == {s.key for s in load_rules(game, lang)}


@pytest.mark.parametrize("game", list(ENGINES))
def test_both_languages_have_the_same_sections_in_the_same_order(game):
    keys = {lang: [s.key for s in load_rules(game, lang)] for lang in LANGUAGES}
    assert keys["en"] == keys["de"] and len(set(keys["en"])) == len(keys["en"])
    assert all(s.title and s.text for lang in LANGUAGES for s in load_rules(game, lang))


def test_the_german_rules_use_the_games_own_words():
    words = {
        "tonne": ["Tonne", "Vorrat", "Mäuse"],
        "arschbombe": ["Rabauke", "Kunstspringer"],
        "trottel": ["Stehtisch", "Schüttelbude", "Trottelmütze", "Pasch", "Knast"],
        "bomb": ["SAFE", "Lebenschips"],
        "antartik": ["Bauchklatscher", "Fallschirm"],
    }
    for game, expected in words.items():
        text = " ".join(f"{s.title} {s.text}" for s in load_rules(game, "de"))
        assert all(word in text for word in expected), game


def phases():
    """(game, state, task on screen, the section it must open at), from real engine states."""
    tonne = get_engine("tonne")
    s = tonne.new(["Ann", "Ben"], 1, {})
    yield "tonne", s, "bin0", "bin"
    yield "tonne", s, None, "cards"
    s, _ = tonne.apply(s, {"type": "reveal", "cards": {"Ann": 3, "Ben": 5}})
    yield "tonne", s, None, "placing"
    yield "tonne", dataclasses.replace(s, over=True), None, "end"

    bomb = get_engine("bomb")
    s = bomb.new(["Ann", "Ben"], 1, {})
    yield "bomb", s, None, "cards"
    s, _ = bomb.apply(s, {"type": "reveal", "cards": {"Ann": "1", "Ben": "5"}})
    yield "bomb", s, None, "defuse"
    faces = [{"card": 2}] * bomb.summary(s)["dice"]
    claim, _ = bomb.apply(s, {"type": "roll", "player": "Ann", "faces": faces})
    yield "bomb", claim, None, "claim"
    yield "bomb", dataclasses.replace(s, over=True), None, "end"

    arsch = get_engine("arschbombe")
    s = arsch.new(["Ann", "Ben"], 1, {})
    yield "arschbombe", s, None, "turn"
    yield "arschbombe", dataclasses.replace(s, over=True), None, "end"

    ant = get_engine("antartik")
    s = ant.new(["Ann", "Ben", "Cy"], 1, {})
    yield "antartik", s, None, "dive"
    bet, _ = ant.apply(s, {"type": "bet", "player": "Ben", "card": "3"})
    yield "antartik", bet, None, "bets"
    for p in ("Ben", "Cy"):
        s, _ = ant.apply(s, {"type": "pass", "player": p})
    yield "antartik", s, None, "dive"
    s, _ = ant.apply(s, {"type": "draw", "card": "7"})
    for p in ("Ben", "Cy"):
        s, _ = ant.apply(s, {"type": "pass", "player": p})
    s, _ = ant.apply(s, {"type": "draw", "card": "7"})  # a belly flop: Ben may go on with Ann's 7
    yield "antartik", s, None, "flop"
    yield "antartik", dataclasses.replace(s, chute="Cy", juniors=["Cy"]), None, "parachute"
    yield "antartik", dataclasses.replace(s, over=True), None, "end"

    trottel = get_engine("trottel")
    s = trottel.new(["Ann", "Ben"], 1, {})
    yield "trottel", s, None, "cap"
    s, _ = trottel.apply(s, {"type": "roll"})
    assert s.started
    yield "trottel", dataclasses.replace(s, pending=None), None, "turn"
    for pending, key in (("taxi", "taxi"), ("invite", "schuettelbude"), ("casino", "spielothek")):
        yield "trottel", dataclasses.replace(s, pending=pending), None, key
    s, _ = trottel.apply(s, {"type": "end"})
    yield "trottel", s, None, "end"


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_screen_opens_at_the_section_of_the_games_phase(lang):
    set_language(lang)
    cases = list(phases())
    assert {game for game, *_ in cases} == set(ENGINES)
    for game, state, task, key in cases:
        assert section_for(game, state, task) == key, (game, key)
        rules = RulesScreen(StubTable(), game, section_for(game, state, task))
        assert rules.section == key
        first = [p.section.key for p in paginate(load_rules(game, lang))].index(key)
        assert rules.page == first  # the section's first page


def test_the_rules_follow_a_change_of_language_at_once():
    rules = RulesScreen(StubTable(), "tonne", "placing")
    assert rules.frame().title == "Placing"
    set_language("de")
    assert rules.frame().title == "Einlegen" and "Seite" in rules.frame().rows[-1].cells[0]


def test_back_leaves_the_rules():
    table = StubTable()
    rules = RulesScreen(table, "bomb")
    table.push(rules)
    rules.press(tap("prev"))
    assert rules.page == len(rules.pages()) - 1  # prev from the first page: the last
    rules.press(tap("back"))
    assert table.stack == []


def test_rules_from_the_game_menu_open_at_the_placing_in_german(tmp_path):
    """On the device: a Tonne turn, the game menu (short back), prev to Rules, ok."""

    async def body(dev):
        dev.change_setting("language", "de")
        dev.start_named("tonne", ["Ann", "Ben"])
        dev.confirm_task("bin0")
        dev.apply({"type": "reveal", "cards": {"Ann": 3, "Ben": 5}})
        await presses(dev, "back", "prev")
        menu = await screen(dev)
        await presses(dev, "ok")
        await asyncio.sleep(10)  # the toast of the reveal ("Ann first") has gone
        return menu, await screen(dev), dev.screens[-1]

    menu, text, top = run_device(tmp_path, body)
    assert "Regeln" in menu
    assert isinstance(top, RulesScreen) and top.section == "placing"
    assert text.splitlines()[0].startswith("Einlegen") and "Seite" in text


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("game", list(ENGINES))
def test_every_paragraph_is_written_to_fit_one_page(game, lang):
    """So a page never ends inside a paragraph: the texts are written for the panel."""
    for section in load_rules(game, lang):
        for paragraph in section.text.split("\n"):
            assert 0 < len(wrap(paragraph)) <= TEXT_ROWS, (game, lang, section.key, paragraph)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_game_without_rules_says_so_instead_of_failing(lang):
    set_language(lang)
    rules = RulesScreen(StubTable(), "nosuchgame", "anything")
    frame = rules.frame()
    assert frame.title_right == "1/1" and not overflows(frame)
    text = " ".join(row.cells[0] for row in frame.rows[:-1]).split()
    said = {"en": "No rules for this game yet.", "de": "Für dieses Spiel gibt es noch keine Regeln."}
    assert " ".join(text) == said[lang]
