"""At the table: what a player notices of the layout, the messages, the confirmations and the
answers to wrong presses (issue: every screen readable at a glance, every outcome kept)."""

from __future__ import annotations

import asyncio

from firmware_host.ui import font, render
from firmware_host.ui.base import Confirm
from firmware_host.ui.game import COUNT_STEP
from firmware_host.ui.menus import ChooseSeats, GameOver, HistoryEntry
from firmware_host.ui.render import Frame, Row, compose, fit, message_lines, text_width, watch, wrap
from firmware_host.ui.render import render as draw
from tests.devicekit import choose_game, presses, run_device, screen

NAME = "Bartholomew" * 1455  # 16,005 letters


# -- the layout ---------------------------------------------------------------------------------------
def test_fitting_a_huge_name_is_linear_in_its_length(monkeypatch):
    calls = [0]
    width = render.char_width

    def counted(ch: str) -> int:
        calls[0] += 1
        return width(ch)

    monkeypatch.setattr(render, "char_width", counted)
    monkeypatch.setattr(font, "char_width", counted)  # text_width's
    refusal = f"unknown player {NAME!r}"
    lines = wrap(refusal, 124)
    short = fit(refusal, 124)
    assert all(text_width(line) <= 124 for line in lines) and "".join(lines[1:]).startswith("'Barth")
    assert text_width(short) <= 124 and short.endswith("…")
    assert calls[0] <= 6 * len(refusal)  # it was quadratic (fit) and cubic (wrap): 101 s at the table


def test_the_font_draws_plus_minus_and_nothing_is_cut_without_intent():
    with watch() as found:
        picture = draw(Frame("Calibrate", (Row.of("noise ±126"),)))
        question = draw(Frame("Calibrate", (Row.of("noise ?126"),)))
    assert found == [] and picture.tobytes() != question.tobytes()
    with watch() as found:
        draw(Frame("tablemate", (Row.of("Maximilian Konstantin Bartholomew Wilhelmina"),)))
    assert [o.kind for o in found] == ["cut"]


def test_a_message_never_covers_the_hint_or_the_highlighted_option():
    rows = (
        Row(("Ann 0", "Ben 0")), Row(("Cy 0", "Dan 0")), Row(("Eve 0", "Fay 0")),
        Row.of("Dan: roll"), Row.of("Roll dice", "1/2", invert=True), Row.of("tap: next  ok: pick"),
    )  # fmt: skip
    message = "Cy 5+2 Muetze and a long line that wraps"
    frame = compose(Frame("Trottel", rows, message=message, keep=2))
    texts = [" ".join(r.cells) for r in frame.rows]
    assert texts[-2:] == ["Roll dice", "tap: next  ok: pick"] and frame.rows[-2].invert
    assert texts[2:4] == message_lines(message) and len(message_lines(message)) == 2


def test_score_grid_names_are_shortened_so_every_number_shows(tmp_path):
    async def body(dev):
        dev.start_named("bomb", ["Annabelle", "Maximilian", "Konstantin", "Wilhelmina", "Bartholomew"])
        await presses(dev, "p2")  # Maximilian records a 0
        dev.hw.buttons.press("p1")  # Annabelle holds: her count shows as it goes up
        await asyncio.sleep(2 * COUNT_STEP + 0.1)
        await dev.flush()
        frame = dev.frame()
        dev.hw.buttons.release("p1")
        return frame

    with watch() as found:
        frame = run_device(tmp_path, body)
    assert found == []
    texts = [" ".join(row.cells) for row in frame.rows]
    answers = [cell for row in frame.rows[1:3] for cell in row.cells]
    lives = [cell for row in frame.rows[3:5] for cell in row.cells]
    assert answers[0].startswith("Ann") and answers[0].endswith(" 2<") and len(answers) == 5, texts
    assert answers[1].startswith("Max") and answers[1].endswith(" [0]"), texts
    assert all(cell.endswith(" 3♥") for cell in lives) and len(lives) == 5, texts  # lives stay in sight


# -- messages and outcomes ---------------------------------------------------------------------------------
def test_an_outcome_stays_until_the_next_press_and_then_goes(tmp_path):
    async def body(dev):
        dev.start_named("arschbombe", ["Ann", "Ben"])
        await presses(dev, "ok", "ok")  # Ann: rascal (normal), A
        await asyncio.sleep(60)
        kept = dev.toast_text()
        await presses(dev, "next")
        return kept, dev.toast_text()

    kept, after = run_device(tmp_path, body)
    assert kept == "Ann: rascal, A on target +3" and after is None


def test_what_happened_lists_the_games_outcomes_newest_first(tmp_path):
    async def body(dev):
        dev.start_named("arschbombe", ["Ann", "Ben"])
        await presses(dev, "ok", "ok", "ok", "ok")  # Ann's jump, then Ben's
        await presses(dev, "back", "next", "ok")  # game menu: What happened
        return await screen(dev)

    text = run_device(tmp_path, body).splitlines()
    assert text[0].startswith("What happened") and " ".join(text[1:3]) == "- Ben: rascal, A on target +3", text
    assert " ".join(text[3:5]) == "- Ann: rascal, A on target +3", text  # who jumped what, where, how much


def test_the_press_that_wakes_a_dimmed_screen_only_wakes_it(tmp_path):
    async def body(dev):
        dev.start_named("arschbombe", ["Ann", "Ben"])
        await asyncio.sleep(200)
        assert dev.dimmed
        await presses(dev, "ok")  # wakes only
        woke = (dev.dimmed, len(dev.session.actions), dev.screens[-1].path[-1].title)
        await presses(dev, "ok", "ok")  # one whole jump
        return woke, len(dev.session.actions)

    woke, actions = run_device(tmp_path, body)
    assert woke[:2] == (False, 0) and actions == 1


# -- wrong presses -------------------------------------------------------------------------------------
def test_every_wrong_seat_press_gets_its_reason(tmp_path):
    async def body(dev):
        dev.start_named("arschbombe", ["Ann", "Ben"])
        await presses(dev, "p5")
        absent = dev.toast_text()
        await presses(dev, "p2")
        turn = dev.toast_text()
        dev.start_named("bomb", ["Ann", "Ben", "Cy"])
        await presses(dev, "p4")
        reveal = dev.toast_text()
        await presses(dev, "ok")
        entry = dev.toast_text()
        dev.start_named("antartik", ["Ann", "Ben", "Cy"])
        await presses(dev, "p2", "p2")  # Ben taps past pass to a bet on Ann's dive, and does not lock it
        await presses(dev, "ok")  # Ann draws: Ben's bet is not settled yet
        betting = dev.toast_text(), len(dev.session.actions)
        return absent, turn, reveal, entry, betting

    absent, turn, reveal, entry, betting = run_device(tmp_path, body)
    assert absent == "P5 is not in this game" and turn == "Ann's turn"
    assert reveal == "P4 is not in this game" and entry == "Ann, Ben, Cy: hold your own button"
    assert betting[0].startswith("Ben: hold to lock, or tap to") and betting[1] == 0


def test_bomb_does_not_ask_who_starts(tmp_path):
    async def body(dev):
        await choose_game(dev, "Bomb")
        await presses(dev, "ok")
        return dev.session is not None and dev.session.summary["players"]

    assert run_device(tmp_path, body) == ["P1", "P2", "P3", "P4"]


# -- confirmations -----------------------------------------------------------------------------------------
def test_prev_never_wraps_from_placed_onto_fell_and_fell_asks_first(tmp_path):
    async def body(dev):
        dev.start_named("tonne", ["Ann", "Ben"])
        await presses(dev, "ok")  # the bin is filled
        await presses(dev, "p1", "p2!", "ok")  # cards 1 and 3 (a tap records the lowest): Ann places 1 piece
        menu = dev.screens[-1].path[-1]
        labels = [o.label for o in menu.options]
        await presses(dev, "prev")
        still = dev.screens[-1].index
        await presses(dev, "next", "ok")
        asked = type(dev.screens[-1])
        await presses(dev, "back")  # no: nothing happened
        return labels, still, asked, dev.session.actions[1:]

    labels, still, asked, after = run_device(tmp_path, body)
    assert labels == ["Placed", "Fell"] and still == 0 and asked is Confirm and after == []


def test_game_over_stays_until_a_long_press(tmp_path):
    async def body(dev):
        dev.start_named("arschbombe", ["Ann", "Ben"])
        dev.end_early()
        await presses(dev, "ok", "back", "p1")
        last = dev.frame().rows[-1]
        stays = (type(dev.screens[-1]), " ".join(last.cells), last.invert)
        await presses(dev, "ok!")
        return stays, type(dev.screens[-1]).__name__

    stays, after = run_device(tmp_path, body)
    assert stays == (GameOver, "hold ok: menu", True) and after == "MainMenu"  # the hint lit up: hold


def test_a_new_game_over_one_in_play_asks_first(tmp_path):
    async def body(dev):
        dev.start_named("arschbombe", ["Ann", "Ben"])
        dev.push(ChooseSeats(dev, "bomb"))
        await presses(dev, "ok")
        asked = type(dev.screens[-1])
        await presses(dev, "back")
        return asked, dev.session.base.game

    assert run_device(tmp_path, body) == (Confirm, "arschbombe")


def test_the_history_opens_a_games_scores_and_winners(tmp_path):
    async def body(dev):
        dev.start_named("arschbombe", ["Annabelle", "Ben"])
        for _ in range(12):
            await presses(dev, "ok", "ok")  # a jump: rascal or diver, then on target
        await presses(dev, "ok!")  # leave the game-over screen
        await presses(dev, "next", "ok", "ok")  # History, then the game
        return type(dev.screens[-1]), await screen(dev)

    top, text = run_device(tmp_path, body)
    lines = text.splitlines()
    assert top is HistoryEntry and lines[0] == "Arschbombe"
    assert lines[1].startswith("Shared: Annabelle, Ben") and lines[2].endswith(" 24 | 1.Ben 24")


def test_the_history_list_names_long_shared_winners_within_the_line(tmp_path):
    async def body(dev):
        dev.start_named("arschbombe", ["Annabelle", "Maximilian"])
        for _ in range(12):
            await presses(dev, "ok", "ok")
        await presses(dev, "ok!", "next", "ok")  # leave the game-over screen, open History
        return await screen(dev)

    with watch() as found:
        text = run_device(tmp_path, body)
    assert found == []  # the winners' note is never cut by accident
    assert "Arschbombe" in text and "Annabelle,Max" not in text
    assert text.splitlines()[1].rstrip() == "11-14 Arschbombe  Ann+1"  # the game's name whole


def test_bets_chosen_out_of_turn_show_on_the_hint_line_and_fit_it(tmp_path):
    async def body(dev):
        dev.start_named("antartik", ["Annabelle", "Maximilian", "Konstantin", "Wilhelmina", "Bartholomew"])
        await presses(dev, "p2", "p2")  # Maximilian taps to a bet on the dive
        one = await screen(dev)
        await presses(dev, "p3", "p3", "p4", "p4", "p5", "p5")  # three more bettors choose at once
        await dev.flush()
        return one, dev.frame()

    with watch() as found:
        one, frame = run_device(tmp_path, body)
    assert found == []  # nothing cut by accident, whatever the number of bettors
    assert one.splitlines()[-1].startswith("Maximilian bet") and one.endswith("? hold")
    hint = " ".join(frame.rows[-1].cells)
    assert hint.startswith("Max ") and "Bar " in hint and frame.rows[-2].invert  # every bettor, the option kept
