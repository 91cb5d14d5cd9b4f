"""At the table, third pass: undo at game over asks as undo does everywhere (saying what it takes
back), the last card of a reveal can be mended, the main menu is in reach during a game."""

from __future__ import annotations

import pytest

from firmware_host.core.store import Store
from firmware_host.ui.base import Confirm
from firmware_host.ui.menus import GameOver, HistoryScreen, MainMenu
from firmware_host.ui.render import watch
from games.workloads import PLAIN
from tests.core.test_undo_and_saves import _end_arschbombe
from tests.devicekit import presses, run_device, screen


def flat(shown: str) -> str:
    """The screen's rows as one line (a wrapped question read whole)."""
    return " ".join(shown.replace(" | ", " ").split())


# -- 1. undo on the result screen asks ------------------------------------------------------------
def test_a_long_back_at_game_over_asks_and_no_leaves_the_result_to_be_filed(tmp_path):
    async def body(dev):
        _end_arschbombe(dev)
        await screen(dev)
        await presses(dev, "back!")
        asked = await screen(dev), type(dev.screens[-1])
        await presses(dev, "back")  # no
        after = type(dev.screens[-1]), dev.session, dev.result_on_screen is not None
        await presses(dev, "ok!")  # leaves the result: filed
        return asked, after, Store(tmp_path).history()

    (question, kind), (top, session, over), history = run_device(tmp_path, body)
    assert kind is Confirm and "Take back the last action? Cy: diver, Clean +6" in flat(question)  # and what
    assert top is GameOver and session is None and over
    assert [e["reason"] for e in history] == ["over"]


def test_a_long_back_at_game_over_then_ok_brings_the_game_back(tmp_path):
    async def body(dev):
        _end_arschbombe(dev)
        await screen(dev)
        await presses(dev, "back!", "ok")
        return dev.session is not None and not dev.session.over, len(dev.session.actions), dev.toast_text()

    in_play, count, told = run_device(tmp_path, body)
    assert in_play and count == len(PLAIN.actions) - 1
    assert told.startswith("Undone")


def test_undo_in_a_game_says_what_it_will_take_back(tmp_path):
    async def body(dev):
        dev.start_named("antartik", ["Ann", "Ben", "Cy"])
        await presses(dev, "ok")  # Ann turns a card
        await presses(dev, "back!")
        return await screen(dev)

    question = run_device(tmp_path, body)
    assert "Take back the last action? Ann turns" in flat(question)


# -- 6. the main menu during a game -----------------------------------------------------------------
def test_the_game_menu_opens_the_main_menu_and_the_game_stays_in_play(tmp_path):
    async def body(dev):
        dev.start_named("arschbombe", ["Ann", "Ben"])
        await presses(dev, "back")  # the game menu
        menu = dev.screens[-1]
        for _ in range(len(menu.items())):
            if menu.items()[menu.index].label == "Main menu":
                break
            await presses(dev, "next")
        await presses(dev, "ok")
        top = dev.screens[-1]
        labels = [item.label for item in top.items()]
        await presses(dev, "next", "ok")  # History
        history = type(dev.screens[-1])
        await presses(dev, "back", "back")  # back to the main menu, then to the game
        return type(top), labels, history, type(dev.screens[-1]).__name__, dev.session is not None

    top, labels, history, back, in_play = run_device(tmp_path, body)
    assert top is MainMenu and {"New game", "History", "Phone"} <= set(labels)
    assert history is HistoryScreen
    assert back == "GameScreen" and in_play


# -- 2. the last card of a reveal can be mended ---------------------------------------------------------
def _hold(dev, button: str, value: int):
    """Hold a seat for the card ``value`` of Bomb's counting reveal (values count up from 0)."""
    import asyncio

    from firmware_host.ui.game import COUNT_STEP

    async def go() -> None:
        dev.hw.buttons.press(button)
        await asyncio.sleep((value + 0.5) * COUNT_STEP)
        dev.hw.buttons.release(button)
        await asyncio.sleep(0.05)

    return go()


def test_the_last_card_of_a_reveal_waits_for_ok_and_one_hold_mends_it(tmp_path):
    async def body(dev):
        dev.start_named("bomb", ["Ann", "Ben", "Cy", "Dora"])
        await screen(dev)
        for seat, card in (("p1", 3), ("p2", 5), ("p3", 1), ("p4", 8)):  # Dora meant 7
            await _hold(dev, seat, card)
        waiting = dev.session.actions == [], await screen(dev)
        await _hold(dev, "p4", 7)  # one hold mends it
        await presses(dev, "ok")
        return waiting, dev.session.actions[-1]

    (nothing_yet, shown), action = run_device(tmp_path, body)
    assert nothing_yet and "[8]" in shown and shown.splitlines()[-1] == "ok: done  hold: mend"
    assert action == {"type": "reveal", "cards": {"Ann": "3", "Ben": "5", "Cy": "1", "Dora": "7"}}


def test_undoing_a_reveal_brings_every_card_back_to_mend_one(tmp_path):
    async def body(dev):
        dev.start_named("bomb", ["Ann", "Ben", "Cy"])
        await screen(dev)
        for seat, card in (("p1", 3), ("p2", 5), ("p3", 8)):
            await _hold(dev, seat, card)
        await presses(dev, "ok")
        assert dev.session.actions
        await presses(dev, "back!", "ok")  # undo the reveal
        back = await screen(dev)
        await _hold(dev, "p3", 7)
        await presses(dev, "ok")
        return back, dev.session.actions

    back, actions = run_device(tmp_path, body)
    assert "[3]" in back and "[5]" in back and "[8]" in back  # not wiped
    assert actions == [{"type": "reveal", "cards": {"Ann": "3", "Ben": "5", "Cy": "7"}}]


# -- 4-5. the lines the rules need are on every panel, long names shortened, never the words -------------------
PANEL_KINDS = ("ssd1306", "ssd1322", "sh1107")


def _config(kind: str, language: str):
    from firmware_host.core import config as configuration

    return configuration.parse({"display": {"kind": kind, "language": language}}, "config.toml")


def _shown(dev) -> str:
    frame = dev.frame()
    return " ".join(" ".join([frame.title, *(" ".join(r.cells) for r in frame.rows)]).split())


@pytest.mark.parametrize("language", ["en", "de"])
@pytest.mark.parametrize("kind", PANEL_KINDS)
def test_the_bets_riding_supply_order_and_a_zeros_draw_show_with_five_long_names(tmp_path, kind, language):
    from firmware_host.core.i18n import set_language
    from tests.monkey import LONGEST, missing_needed

    five = list(LONGEST[:5])

    async def body(dev):
        seen = {}
        dev.start_named("antartik", five)  # the second player bets a card of theirs on the dive
        card = dev.session.state.face_up[five[1]][0]
        dev.apply({"type": "bet", "player": five[1], "card": card})
        await dev.flush()
        seen["antartik"] = missing_needed(dev), _shown(dev)
        dev.start_named("tonne", five)
        await presses(dev, "ok")  # the bin is filled
        dev.apply({"type": "reveal", "cards": dict(zip(five, [9, 3, 7, 5, 10], strict=True))})
        await dev.flush()
        seen["tonne order"] = missing_needed(dev), _shown(dev)
        dev.apply({"type": "place", "count": 3})  # the first player's turn: the next one places
        await dev.flush()
        seen["tonne placing"] = missing_needed(dev), _shown(dev)
        dev.start_named("bomb", five)
        dev.apply({"type": "reveal", "cards": dict(zip(five, ["0", "5", "0", "7", "4"], strict=True))})
        await dev.flush()
        seen["bomb"] = missing_needed(dev), _shown(dev)
        return seen

    try:
        with watch() as overflows:
            seen = run_device(tmp_path, body, _config(kind, language))
    finally:
        set_language("en")
    assert not [o for o in overflows if o.kind != "cut"], overflows
    for what, (missing, _) in seen.items():
        assert missing is None, (what, missing)
    assert ("Bets" if language == "en" else "Wetten") in seen["antartik"][1]
    assert ("supply 37" if language == "en" else "Vorrat 37") in seen["tonne placing"][1]


def test_the_bets_riding_show_after_a_restart(tmp_path):
    from tests.monkey import LONGEST, missing_needed

    five = list(LONGEST[:5])

    async def first(dev):
        dev.start_named("antartik", five)
        dev.apply({"type": "bet", "player": five[1], "card": dev.session.state.face_up[five[1]][0]})
        await dev.flush()

    async def again(dev):
        await dev.flush()
        return missing_needed(dev), _shown(dev)

    run_device(tmp_path, first)
    missing, shown = run_device(tmp_path, again)
    assert missing is None and "Bets Bar:" in shown  # the name shortened, the bet whole


def test_a_long_name_is_shortened_before_the_verb_in_a_menu_title(tmp_path):
    async def body(dev):
        dev.start_named("trottel", ["Friederike Müller", "Maximiliane Öztürk", "Cy"])
        await dev.flush()
        return dev.frame()

    with watch() as found:
        frame = run_device(tmp_path, body)
    texts = [" ".join(r.cells) for r in frame.rows]
    assert not any(t.endswith("…") for t in texts), texts  # no word cut: the names gave way
    assert "Tisch" in frame.title, frame.title  # the title keeps the Stehtisch beside a long cap name
    assert [o for o in found if o.kind != "cut"] == []


def test_the_monkey_would_see_a_frame_without_a_needed_line(tmp_path, monkeypatch):
    from firmware_host.ui import game
    from tests.monkey import missing_needed

    async def body(dev):
        dev.start_named("antartik", ["Ann", "Ben", "Cy"])
        dev.apply({"type": "bet", "player": "Ben", "card": dev.session.state.face_up["Ben"][0]})
        await dev.flush()
        fine = missing_needed(dev)
        share = game.share

        def dropping(parts, on, **how):  # a layout that drops the bets
            rows, title = share(parts, on, **how)
            return [r for r in rows if not r.cells[0].startswith("Bets")], title

        monkeypatch.setattr(game, "share", dropping)
        return fine, missing_needed(dev)

    fine, missing = run_device(tmp_path, body)
    assert fine is None and missing.startswith("needed line not shown: 'Bets Ben:")


# -- 7. smaller points ---------------------------------------------------------------------------------------
def test_a_short_ok_at_game_over_keeps_every_ranking_line(tmp_path):
    # bug: the "Hold ok for the menu" message took the place of the third ranking line
    async def body(dev):
        dev.start_named("bomb", ["Ann", "Ben", "Cy", "Dora", "Emil"])
        dev.end_early()
        before = await screen(dev)
        await presses(dev, "ok")
        return before, await screen(dev), dev.frame().rows[-1].invert

    before, after, lit = run_device(tmp_path, body)
    ranking = [line for line in before.splitlines() if "." in line.split(" ")[0]]
    assert len(ranking) >= 3 and all(line in after.splitlines() for line in ranking), after
    assert after.splitlines()[-1] == "hold ok: menu" and lit  # the hint lit up: hold


def test_a_bad_game_option_is_shown_whole_naming_the_config_file(tmp_path):
    # bug: a cut two-second toast that did not name the config file
    from firmware_host.core import config as configuration
    from firmware_host.ui.base import Message

    config = configuration.parse({"games": {"bomb": {"red": [{"bomb": 1}]}}}, tmp_path / "tablemate.toml")

    async def body(dev):
        started = dev.start_named("bomb", ["Ann", "Ben"])
        return started, dev.screens[-1], flat(await screen(dev))

    started, top, shown = run_device(tmp_path / "state", body, config)
    assert not started and isinstance(top, Message)
    assert shown.startswith("Cannot start tablemate.toml [games.bomb]:") and "…" not in shown, shown


def test_settings_shows_the_turn_timer_with_a_value_when_no_game_is_in_play(tmp_path):
    async def body(dev):
        await presses(dev, "next", "next", "ok")  # Settings
        return await screen(dev)

    shown = run_device(tmp_path, body)
    assert "Turn timer  per game" in shown, shown


def test_trottels_result_history_and_history_table_say_the_numbers_are_drinks(tmp_path):
    # bug: one bare number a player (beer + shot + water) with no label, on the end screen and in the history
    from firmware_host.cli.cmd_records import history_rows

    async def body(dev):
        dev.start_named("trottel", ["Ann", "Ben", "Cy"])
        dev.end_early()
        over = await screen(dev)
        await presses(dev, "ok!", "next", "ok", "ok")  # the main menu, History, its one entry
        return over, await screen(dev)

    over, entry = run_device(tmp_path, body)
    assert over.splitlines()[1] == "Ended early  drinks", over
    assert entry.splitlines()[1] == "Ended early  drinks", entry
    rows = history_rows(Store(tmp_path).history())
    assert rows[0]["scores"] == "drinks: Ann 0, Ben 0, Cy 0"


def test_trottels_result_says_drinks_in_german(tmp_path):
    from firmware_host.core import config as configuration

    async def body(dev):
        dev.start_named("trottel", ["Ann", "Ben", "Cy"])
        dev.end_early()
        return await screen(dev)

    config = configuration.parse({"display": {"language": "de"}}, "config.toml")
    assert run_device(tmp_path, body, config).splitlines()[1] == "Abgebrochen  Getränke"


def test_the_s_of_the_font_is_round_at_the_top_where_the_5_is_a_bar():
    # bug: ``8S`` (eight shots) read as ``85``: luma's S is a 5 without its top-left corner
    from firmware_host.ui.font import _glyph
    from firmware_host.ui.render import to_text

    s, five = (to_text(_glyph(ch)).splitlines() for ch in "S5")
    assert s[0].startswith(".###.") and five[0].startswith("#####")
    assert s[1].startswith("#...#")  # the S curls back at the top right, as a letter does


def test_bombs_card_entry_labels_the_lives(tmp_path):
    # bug: the card entry showed ``Ann ...`` (the card) over ``>Ann 3`` (the lives) with no word for either
    async def body(dev):
        dev.start_named("bomb", ["Ann", "Ben", "Cy"])
        return await screen(dev)

    assert ">Ann 3♥ | >Ben 3♥ | >Cy 3♥" in run_device(tmp_path, body)


def test_an_out_player_is_told_why_they_cannot_enter_a_card(tmp_path):
    # bug: `Cy is not in this turn` to a player whose lives were gone
    async def body(dev):
        dev.start_named("bomb", ["Ann", "Ben", "Cy"])
        dev.apply({"type": "reveal", "cards": {"Ann": "1", "Ben": "5", "Cy": "5"}})
        dev.apply({"type": "roll", "faces": [{"bomb": 3}, {"fuse": 3}]})  # Ann: three lives lost, out
        await presses(dev, "p1")
        return dev.toast_text()

    assert run_device(tmp_path, body) == "Ann is out: no lives left"


def test_a_player_outside_a_tie_is_told_so():
    from games import get_engine

    engine = get_engine("bomb")
    state = engine.new(["Ann", "Ben", "Cy"], 0)
    state, _ = engine.apply(state, {"type": "reveal", "cards": {"Ann": "1", "Ben": "1", "Cy": "5"}})
    choose = engine.prompt(state).options[1].then
    assert choose.players == ("Ann", "Ben") and choose.others == {"Cy": "Cy is not in the tie"}
