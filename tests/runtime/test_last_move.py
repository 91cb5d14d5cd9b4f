"""What the last move brought stays on screen, and whoever must act is marked (issue 22).

Each test plays on the simulated device from its buttons (or hands it the very actions they make)
and reads the frame as a player would: every panel size, English and German.
"""

from __future__ import annotations

import pytest

from firmware_host.core import config as configuration
from firmware_host.core.i18n import set_language, tr
from firmware_host.ui.render import watch
from tests.devicekit import presses, run_device, screen

PANELS = ("ssd1306", "ssd1322", "sh1107")
"""128×64, 256×64 and 128×128."""
LANGUAGES = ("en", "de")
FOUR = {"p1": "Ann", "p2": "Ben", "p3": "Cy", "p4": "Dora"}


def config(kind: str, language: str) -> configuration.Config:
    return configuration.parse({"display": {"kind": kind, "language": language}}, "config.toml")


@pytest.fixture(autouse=True)
def english_after():
    yield
    set_language("en")


def rows(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines()]


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("kind", PANELS)
def test_bomb_shows_the_dice_of_the_roll_that_ends_the_round_beside_every_life(tmp_path, kind, language):
    """4 seats, the cards recorded, one defuser rolls on ``ok``: the next reveal still shows that
    roll's totals, its outcome and its dice, and the message hides no row of lives."""

    async def body(device):
        device.start_game("bomb", list(FOUR), "p1", names=FOUR)
        device.apply({"type": "reveal", "cards": {"Ann": "1", "Ben": "5", "Cy": "5", "Dora": "5"}})
        await presses(device, "ok")  # Ann rolls the two dice in the centre (seeded)
        state = device.session.state
        shown = await screen(device)
        return shown, [tr(line) for line in device.session.engine._roll_lines(state)], dict(state.lives)

    with watch() as overflows:
        shown, roll, lives = run_device(tmp_path, body, config(kind, language))
    assert not overflows, overflows
    assert "Ann" in roll[0] and ("B" in roll[0] and ("F" in roll[0] or "Z" in roll[0]))
    text = rows(shown)
    assert roll[0] in text and roll[1] in text, shown  # the totals and outcome, and each die
    scores = " | ".join(text)
    for name, left in lives.items():
        assert f"{name} {left}" in scores, shown  # every row of lives


def marked(frame) -> list[str]:
    """The names the score grid marks with ``>`` (whose input the screen waits for), as shown
    (a big grid may shorten them)."""
    return [cell[1:].split()[0].rstrip("…") for row in frame.rows for cell in row.cells if cell.startswith(">")]


def marks(frame, name: str) -> bool:
    """Whether ``name``, and only ``name``, is marked (whole, or shortened as a big grid does)."""
    shown = marked(frame)
    return len(shown) == 1 and len(shown[0]) >= 2 and name.startswith(shown[0])


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("kind", PANELS)
def test_antartik_marks_the_diver_and_shows_what_the_draw_and_the_stop_brought(tmp_path, kind, language):
    """``>`` marks the diver while the others may bet, not the bettors; the card turned, then
    the stop's gain, stay on screen (not only in a passing message)."""

    async def body(device):
        device.start_game("antartik", list(FOUR), "p1", names=FOUR)
        await presses(device, "ok")  # Ann draws (the others pass by her pick)
        await device.flush()
        drawn = device.frame(), tr(device.session.state.news[0])
        await presses(device, "next", "ok")  # Ann stops
        await device.flush()
        device.clear_message()  # a message passes: the rows must still say it
        await device.flush()
        stopped = device.frame(), tr(device.session.state.news[0])
        return drawn, stopped

    with watch() as overflows:
        (draw_frame, draw_news), (stop_frame, stop_news) = run_device(tmp_path, body, config(kind, language))
    assert not overflows, overflows
    assert marks(draw_frame, "Ann"), draw_frame
    assert draw_news.startswith("Ann") and draw_news in " ".join(rows(str_frame(draw_frame))), draw_frame
    assert marks(stop_frame, "Ben"), stop_frame
    assert stop_news.startswith("Ann") and stop_news in " ".join(rows(str_frame(stop_frame))), stop_frame


def str_frame(frame) -> str:
    return "\n".join(" | ".join(r.cells) for r in frame.rows)


def last_draw_game(device) -> str:
    """Play Antartik by the engine's own actions (everyone passes, the diver draws) until the
    pile is out; the translated news of the draw that ended the game."""
    engine = device.session.engine
    for _ in range(200):
        state = device.session.state
        for player in engine.waiting(state):
            device.apply({"type": "pass", "player": player})
        state = device.session.state
        if len(state.pile) == 1:
            after, _ = engine.apply(state, {"type": "draw"})
            device.apply({"type": "draw"})
            return tr(after.news[0])
        device.apply({"type": "draw"})
    raise AssertionError("the pile did not run out")


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("kind", PANELS)
def test_antartiks_game_over_shows_the_last_draw(tmp_path, kind, language):
    async def body(device):
        device.start_game("antartik", list(FOUR), "p1", names=FOUR)
        await device.flush()
        news = last_draw_game(device)
        await device.flush()
        return news, await screen(device), device.toast_text()

    with watch() as overflows:
        news, shown, message = run_device(tmp_path, body, config(kind, language))
    assert not overflows, overflows
    assert news in " ".join(rows(shown)) and message is None, shown  # on the result's rows, none over them
    assert rows(shown)[-1] in ("hold ok menu, back undo", "ok lang Menü, back Zug")  # the last move undoable


def test_bomb_ranks_the_players_out_in_the_order_they_went_out(tmp_path):
    boom = [{"bomb": 3}, {"fuse": 3}]

    async def body(device):
        device.start_game("bomb", ["p1", "p2", "p3"], "p1", names={"p1": "Ann", "p2": "Ben", "p3": "Cy"})
        device.apply({"type": "reveal", "cards": {"Ann": "1", "Ben": "5", "Cy": "5"}})
        device.apply({"type": "roll", "player": "Ann", "faces": boom})  # Ann goes out first
        device.apply({"type": "reveal", "cards": {"Ben": "1", "Cy": "5"}})
        device.apply({"type": "roll", "player": "Ben", "faces": boom})  # then Ben: Cy wins
        await device.flush()
        over = await screen(device)
        await presses(device, "ok!", "next", "ok")  # the main menu's History, its newest game
        await presses(device, "ok")
        return over, await screen(device), device.history()[-1]

    over, history, entry = run_device(tmp_path, body)
    assert entry["places"] == {"Cy": 1, "Ben": 2, "Ann": 3}
    for shown in (over, history):
        assert "1.Cy 3 | 2.Ben 0" in shown and "3.Ann 0" in shown, shown


def test_trottel_ends_with_the_totals_not_a_ranking_nor_everyone_lost(tmp_path):
    async def body(device):
        device.start_game("trottel", ["p1", "p2", "p3"], "p1", names={"p1": "Ann", "p2": "Ben", "p3": "Cy"})
        device.apply({"type": "end"})
        await device.flush()
        over = await screen(device)
        await presses(device, "ok!", "next", "ok", "ok")
        return over, await screen(device), device.history()[-1]

    over, history, entry = run_device(tmp_path, body)
    assert "places" not in entry
    for shown in (over, history):
        assert "Session over" in shown and "Everyone lost" not in shown, shown
        assert "Ann 0 | Ben 0" in shown and "1." not in shown, shown


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_tonne_tie_names_its_value_and_ok_there_says_who_presses(tmp_path, language):
    async def body(device):
        device.start_game("tonne", ["p1", "p2", "p3"], "p1", names={"p1": "Ann", "p2": "Ben", "p3": "Cy"})
        await presses(device, "ok")  # the bin is set up
        await presses(device, "p1")  # everyone's card: 1, 1 (a tap), then Cy holds to 3
        await presses(device, "p2")
        device.hw.buttons.press("p3")
        import asyncio

        await asyncio.sleep(1.1)
        device.hw.buttons.release("p3")
        await asyncio.sleep(0.05)
        await presses(device, "ok")  # every card in: on to the tie
        tie = await screen(device)
        await presses(device, "ok")
        return tie, device.toast_text()

    with watch() as overflows:
        tie, said = run_device(tmp_path, body, config("ssd1306", language))
    assert not overflows, overflows
    assert ("Tie on 1: fewer mice first" if language == "en" else "Gleich auf 1: weniger Mäuse zuerst") in " ".join(
        rows(tie)
    ), tie
    expected = "Ann, Ben: press your own button" if language == "en" else "Ann, Ben: eigene Taste drücken"
    assert tr(said) == expected


def test_a_stray_card_entry_leaves_antartiks_menu_as_it_was(tmp_path):
    """``next next ok ok`` on the diver's menu enters a card from a physical pile once; ``ok``
    then still draws from the device's pile, it opens no list of numbers."""

    async def body(device):
        device.start_game("antartik", list(FOUR), "p1", names=FOUR)
        await presses(device, "ok")  # Ann draws
        await presses(device, "next", "next", "ok", "ok")  # a stray entry: the lowest card left
        stray = device.session.actions[-1]
        await presses(device, "ok")  # the next ok: whatever came of the entry, a draw or a new turn
        return stray, device.session.actions[-1], await screen(device)

    stray, after, shown = run_device(tmp_path, body)
    assert stray["type"] == "draw" and "card" in stray
    assert after["type"] in ("draw", "pass") and "card" not in after, shown


def test_what_happened_keeps_whole_records_of_tonne_and_bomb(tmp_path):
    async def body(device):
        device.start_game("tonne", ["p1", "p2", "p3"], "p1", names={"p1": "Ann", "p2": "Ben", "p3": "Cy"})
        device.apply({"type": "reveal", "cards": {"Ann": 3, "Ben": 1, "Cy": 5}})
        await device.flush()
        tonne = [str(e) for e in device.events]
        device.start_game("bomb", ["p1", "p2", "p3"], "p1", names={"p1": "Ann", "p2": "Ben", "p3": "Cy"})
        device.apply({"type": "reveal", "cards": {"Ann": "1", "Ben": "5", "Cy": "5"}})
        device.apply({"type": "roll", "player": "Ann", "faces": [{"bomb": 2}, {"fuse": 1}]})
        await device.flush()
        return tonne, [str(e) for e in device.events]

    tonne, bomb = run_device(tmp_path, body)
    assert tonne[-1] == "R1 order: Ben 1, Ann 3, Cy 5"  # every card, in placing order
    assert bomb[-1] == "Ann: B2 F1 C0 boom -1"  # the roll's totals and what came of them


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("kind", PANELS)
def test_tonnes_next_placer_is_marked_and_sees_the_fall_before_them(tmp_path, kind, language):
    async def body(device):
        device.start_game("tonne", list(FOUR), "p1", names=FOUR)
        await presses(device, "ok")  # the bin is set up
        device.apply({"type": "reveal", "cards": {"Ann": 3, "Ben": 1, "Cy": 5, "Dora": 7}})
        await device.flush()
        await presses(device, "p2")  # a press: the round's order is no longer the news of the moment
        device.apply({"type": "fall"})  # Ben's pieces fall
        await device.flush()
        await presses(device, "ok")  # the bin emptied and filled again
        device.clear_message()
        await device.flush()
        return device.frame(), tr(device.session.state.news[0])

    with watch() as overflows:
        frame, news = run_device(tmp_path, body, config(kind, language))
    assert not overflows, overflows
    assert marks(frame, "Ann") and news.startswith("Ben"), frame
    assert news in " ".join(rows(str_frame(frame))), frame


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("kind", PANELS)
def test_arschbombes_next_jumper_is_marked_and_sees_the_jump_before_them(tmp_path, kind, language):
    async def body(device):
        device.start_game("arschbombe", list(FOUR), "p1", names=FOUR)
        await presses(device, "ok", "ok")  # Ann: a rascal, lands A
        device.clear_message()
        await device.flush()
        return device.frame(), tr(device.session.state.news[0])

    with watch() as overflows:
        frame, news = run_device(tmp_path, body, config(kind, language))
    assert not overflows, overflows
    assert marks(frame, "Ben") and news.startswith("Ann") and "+3" in news, frame
    assert news in " ".join(rows(str_frame(frame))), frame


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("kind", PANELS)
def test_trottels_next_roller_is_marked_and_sees_the_last_rolls_dice_and_field(tmp_path, kind, language):
    async def body(device):
        device.start_game("trottel", list(FOUR), "p1", names=FOUR)
        for _ in range(3):  # the cap roll (rolled again on a tie), then a turn's roll
            await presses(device, "ok")
        device.clear_message()
        await device.flush()
        state = device.session.state
        return device.frame(), tr(state.line), state.players[state.current]

    with watch() as overflows:
        frame, line, turn = run_device(tmp_path, body, config(kind, language))
    assert not overflows, overflows
    assert "+" in line, line  # the dice
    assert marks(frame, turn), frame
    assert line in " ".join(rows(str_frame(frame))), frame


def test_a_reveal_marks_only_those_who_still_owe_a_card(tmp_path):
    async def body(device):
        device.start_game("bomb", list(FOUR), "p1", names=FOUR)
        await presses(device, "p2")  # Ben records a 0 (a tap)
        await device.flush()
        return device.frame()

    frame = run_device(tmp_path, body)
    assert sorted(marked(frame)) == ["Ann", "Cy", "Dora"], frame
