"""Ab in die Tonne, Bomb and Arschbombe say words as data: every title, line, option, message and
refusal a player reads is a Text whose English is what it always was (so ``tablemate replay`` and
the logs do not change) and whose German comes from the game's own catalogue."""

from __future__ import annotations

import random
import re
from typing import Any

import pytest

from firmware_host.core.i18n import set_language, tr, watch_misses
from games import TITLES, get_engine
from games.core import Collect, Menu, Order, Refused, SetupError, Task, Text

PLAYERS = ["Ann", "Ben", "Cy"]


def prompt_words(prompt: Any, rnd: random.Random, seen: list[str]) -> dict:
    """An action the prompt leads to (random choices), noting every text it shows on the way."""
    if isinstance(prompt, Task):
        seen += [prompt.title, *prompt.lines, prompt.confirm]
        return prompt_words(prompt.then, rnd, seen)
    if isinstance(prompt, Menu):
        seen += [prompt.title, *(o.label for o in prompt.options)]
        option = rnd.choice(prompt.options)
        return option.action if option.action is not None else prompt_words(option.submenu(), rnd, seen)
    if isinstance(prompt, Collect):
        seen.append(prompt.title)
        answers = {p: rnd.choice(prompt.values[p]) for p in prompt.players}
        seen += [prompt.label(v) for v in answers.values()]
        assert prompt.build is not None
        built = prompt.build(answers)
        return built if isinstance(built, dict) else prompt_words(built, rnd, seen)
    assert isinstance(prompt, Order)
    seen.append(prompt.title)
    return prompt.build(rnd.sample(list(prompt.players), len(prompt.players)))


def whole_game(game: str, seed: int) -> list[str]:
    """Everything a random whole game of ``game`` shows: views, prompts, messages, refusals."""
    engine, rnd = get_engine(game), random.Random(seed)
    state, seen = engine.new(list(PLAYERS), seed), [engine.title]
    for _ in range(400):
        view = engine.view(state)
        seen += [view.title, *view.lines, *(value for _, value in view.scores)]
        if state.over:
            return seen
        action = prompt_words(engine.prompt(state), rnd, seen)
        try:
            state, effects = engine.apply(state, action)
        except Refused as exc:
            seen.append(str(exc))
            continue
        seen += [e.value for e in effects if e.kind == "say"]
    raise AssertionError(f"{game} did not end")


def has_words(text: str) -> bool:
    """Whether ``text`` holds a word beyond the players' names (which are never translated)."""
    return bool(re.search(r"[A-Za-z]{2,}", re.sub("|".join(PLAYERS), "", text)))


@pytest.mark.parametrize("game", ["tonne", "bomb", "arschbombe"])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_every_word_a_whole_game_shows_is_a_text_the_german_catalogue_knows(game, seed):
    shown = whole_game(game, seed)
    glued = [s for s in shown if has_words(s) and not isinstance(s, Text)]
    assert not glued, f"plain English a translation cannot reach: {glued}"
    set_language("de")
    with watch_misses() as missed:
        german = [tr(s) for s in shown]
    assert not missed, f"not in the German catalogue: {missed}"
    assert german != shown


def refusal(game: str, actions: list[dict], players: list[str] = PLAYERS) -> Refused:
    engine = get_engine(game)
    state = engine.new(list(players), 1)
    for action in actions[:-1]:
        state, _ = engine.apply(state, action)
    with pytest.raises(Refused) as err:
        engine.apply(state, actions[-1])
    return err.value


def test_a_refusal_keeps_its_english_and_names_its_reason_in_german():
    reveal = {"type": "reveal", "cards": {"Ann": 3, "Ben": 5, "Cy": 7}}
    places = [{"type": "place", "count": n} for n in (3, 5, 7)]
    refused = refusal("tonne", [reveal, *places, reveal])
    assert str(refused) == "Ann already played a 3" and isinstance(str(refused), Text)
    set_language("de")
    assert tr(str(refused)) == "Ann hat die 3 schon gespielt"


def test_a_refusal_of_the_shared_checks_is_german_too():
    refused = refusal("arschbombe", [{"type": "jump", "player": "Ben", "jumper": "diver", "result": "clean"}])
    assert str(refused) == "it is Ann's turn, not Ben's"
    set_language("de")
    assert tr(str(refused)) == "Ann ist dran, nicht Ben"


def test_too_many_players_is_told_in_the_players_language():
    with pytest.raises(SetupError) as err:
        get_engine("tonne").new(["A", "B", "C", "D", "E", "F"], 1)
    assert str(err.value) == "tonne takes 2–5 players, not 6"
    set_language("de")
    assert tr(str(err.value)) == "tonne: 2–5 Spieler, nicht 6"


def said(game: str, actions: list[dict], players: list[str] = PLAYERS) -> list[str]:
    engine = get_engine(game)
    state = engine.new(list(players), 1)
    for action in actions:
        state, effects = engine.apply(state, action)
    return [e.value for e in effects if e.kind == "say"]


def test_bomb_names_several_defusers_as_a_sentence_in_both_languages():
    one = said("bomb", [{"type": "reveal", "cards": {"Ann": "1", "Ben": "4", "Cy": "5"}}])
    assert one == ["Ann defuses"]
    (three,) = said("bomb", [{"type": "reveal", "cards": {"Ann": "1", "Ben": "1", "Cy": "1"}}])
    first, second, last = re.fullmatch(r"(\w+), (\w+) and (\w+) defuse", three).groups()
    assert {first, second, last} == set(PLAYERS)
    two = said("bomb", [{"type": "reveal", "cards": {"Ann": "1", "Ben": "1", "Cy": "5"}}], ["Ann", "Ben", "Cy"])
    assert re.fullmatch(r"(Ann and Ben|Ben and Ann) defuse", two[0])
    set_language("de")
    assert tr(one[0]) == "Ann entschärft"
    assert tr(three) == f"{first}, {second} und {last} entschärfen"


def test_arschbombe_menus_use_the_german_editions_words():
    engine = get_engine("arschbombe")
    menu = engine.prompt(engine.new(["Ann", "Ben"], 1))
    assert [o.label for o in menu.options] == ["Rascal (3 left)", "Rascal special", "Diver (3 left)", "Diver special"]
    set_language("de")
    assert [tr(o.label) for o in menu.options] == [
        "Rabauke (3)",
        "Rabauke Spezial",
        "Kunstspr. (3)",
        "Kunstspr. Spez.",
    ]
    assert tr(menu.options[0].submenu().title) == "Ben wählt Ziel"


def test_the_tonne_set_up_job_reads_in_german():
    engine = get_engine("tonne")
    task = engine.prompt(engine.new(["Ann", "Ben", "Cy"], 1))
    assert isinstance(task, Task)
    assert (task.title, *task.lines, task.confirm) == (
        "Set up the bin",
        "Empty bin, then put 2 of each kind in",
        "Supply: 32 pieces",
        "Bin filled",
    )
    set_language("de")
    assert [tr(t) for t in (task.title, *task.lines, task.confirm)] == [
        "Tonne vorbereiten",
        "Tonne leeren, dann je Sorte 2 hinein",
        "Vorrat: 32 Teile",
        "Tonne befüllt",
    ]


def test_bomb_dice_read_in_the_players_letters():
    engine = get_engine("bomb")
    state = engine.new(list(PLAYERS), 1)
    state, _ = engine.apply(state, {"type": "reveal", "cards": {"Ann": "1", "Ben": "1", "Cy": "5"}})
    first = state.defusers[0]  # two defuse: the round, and its last roll on screen, goes on
    state, _ = engine.apply(state, {"type": "roll", "faces": [{"bomb": 1, "fuse": 1}, {"card": 1}]})
    head, faces = engine.view(state).lines[:2]
    assert (head, faces) == (f"{first}: B1 F1 C1 boom -1", "bf c")
    set_language("de")
    assert (tr(head), tr(faces)) == (f"{first}: B1 Z1 K1 Bumm -1", "bz k")


def test_the_game_titles_stay_the_games_names():
    set_language("de")
    assert [tr(TITLES[g]) for g in ("tonne", "bomb", "arschbombe")] == ["Ab in die Tonne", "Bomb", "Arschbombe"]
