"""What the voice says for every kind of move of the five games, in English and German: each line
an engine says is rendered for the ear from the games' own catalogues (no string here is built by
hand), every spoken form a game lists is reached by play, and nothing of the panel's shorthand
(``B3 F2 C0``, ``-2``, ``2B+S``, ``WaA``, ``|``) reaches the ear."""

from __future__ import annotations

import random
import re
from typing import Any

import pytest

from firmware_host.core.i18n import set_language, watch_misses
from firmware_host.ui.speech import Speech
from games import ENGINES, get_engine
from games.core import Menu, Refused, T, Text
from games.workloads import choices

NAMES = ("Ann", "Siobhan", "Cy", "Dora", "Ed", "Flo")
SAY_AS = {"Siobhan": "Shivawn"}
SHORTHAND = re.compile(r"\b[BFC]\d|(?<![\w])[+-]\d|\d[BSWK]\b|\bWaA\b|\||\bR\d|\bWC\b|\bSAFE\b|:\s*$")
"""What the panel writes short and the ear must not hear."""


def _extra(game: str, state: Any, engine: Any, rng: random.Random) -> list[dict]:
    """Besides the prompt: the game menu's options at any time (the toilet, a penalty), and a
    turn's time-out where the game gives it a consequence."""
    out: list[dict] = []
    anytime = engine.anytime(state)
    if anytime and rng.random() < 0.3:
        out += choices(Menu(T("Game"), tuple(anytime)), rng)
    for player in getattr(state, "passes", ()):  # Trottelmütze: a toilet trip the game allowed
        out.insert(0, {"type": "leave", "player": player})
    if engine.timeout_action and rng.random() < 0.1:
        turn = engine.turn(state)
        out.append({"type": "timeout", "player": turn} if turn else {"type": "timeout", "players": list(state.players)})
    return out


def said_in_play(game: str, seeds: range = range(30)) -> list[tuple[Text, tuple[str, ...]]]:
    """Every line ``game`` says over seeded random games (the buttons' choices), with its players."""
    engine = get_engine(game)
    said = []
    for seed in seeds:
        rng = random.Random(seed)
        count = max(engine.min_players, min(engine.max_players or 6, 2 + seed % 5))
        players = NAMES[:count]
        options = {"juniors": list(players[:2])} if "juniors" in engine.option_keys and seed % 2 else {}
        state = engine.new(list(players), seed, options)
        for _ in range(400):
            if state.over:
                break
            for action in [*_extra(game, state, engine, rng), *choices(engine.prompt(state), rng)]:
                try:
                    state, effects = engine.apply(state, action)
                except Refused:
                    continue
                said += [(e.value, players) for e in effects if e.kind in ("say", "hear")]
                break
            else:
                break
    return said


def msgids(text: Any, found: set[str]) -> set[str]:
    if isinstance(text, Text):
        found.add(text.msgid)
        for value in text.values.values():
            msgids(value, found)
    return found


@pytest.fixture(scope="module")
def played() -> dict[str, list[tuple[Text, tuple[str, ...]]]]:
    return {game: said_in_play(game) for game in ENGINES}


@pytest.mark.parametrize("game", list(ENGINES))
def test_every_spoken_form_a_game_lists_is_reached_by_play(game, played):
    reached: set[str] = set()
    for text, _ in played[game]:
        msgids(text, reached)
    assert not set(get_engine(game).ear) - reached, "spoken forms never reached: add them to the play"


@pytest.mark.parametrize("language", ["en", "de"])
@pytest.mark.parametrize("game", list(ENGINES))
def test_every_line_a_game_says_is_said_whole_in_both_languages(game, language, played):
    engine = get_engine(game)
    set_language(language)
    try:
        with watch_misses() as missed:
            heard = {}
            for text, players in played[game]:
                speech = Speech(engine.ear, lambda n: SAY_AS.get(n, n), players)
                heard[str(text)] = speech(text)
    finally:
        set_language("en")
    assert not missed, f"not in the {language} catalogue: {sorted(missed)}"
    short = {panel: said for panel, said in heard.items() if SHORTHAND.search(said)}
    assert not short, f"panel shorthand said aloud: {short}"
    assert not [s for s in heard.values() if "Siobhan" in s], "a name said as written despite its say-as spelling"
    assert any("Shivawn" in s for s in heard.values())


def test_german_is_said_in_german():
    engine = get_engine("bomb")
    line = engine.apply(engine.new(["Ann", "Ben"], 3, {}), {"type": "reveal", "cards": {"Ann": "3", "Ben": "5"}})[1]
    said = [e.value for e in line if e.kind == "say"]
    set_language("de")
    try:
        german = [Speech(engine.ear, players=("Ann", "Ben"))(t) for t in said]
    finally:
        set_language("en")
    english = [Speech(engine.ear, players=("Ann", "Ben"))(t) for t in said]
    assert german != english and all(german)
