"""Text that a real name or German would cut: shown whole, or reported by the layout engine.

Issue 22, point 6: the cap holder of Trottelmütze at 3–4 seats (``>C 0 Mütze``, ``>P 0 Mütze``),
History's game names (``Arschbom…``), a Rules page that wrapped ``3. B / Schwimmer``.
"""

from __future__ import annotations

import time
from itertools import pairwise

import pytest

from firmware_host.core import config as configuration
from firmware_host.core.i18n import set_language
from firmware_host.ui.layout import grid, per_row, score_rows
from firmware_host.ui.render import name_and_value, on_panel, watch
from games import TITLES
from tests.devicekit import run_device

CAP = "0 Mütze"
"""A score with a long mark beside its number (as Trottelmütze's cap holder's read in German
before the mark became the cap's glyph, ``0▲``)."""


def _cells(frame) -> list[str]:
    return [cell for row in frame.rows for cell in row.cells]


@pytest.mark.parametrize("language", ["en", "de"])
@pytest.mark.parametrize("names", [["Ann", "Ben", "Cy"], ["P1", "P2", "P3", "P4"], ["Ann", "Ben", "Cy", "Dora"]])
def test_the_cap_holder_keeps_a_name_that_tells_who_it_is(tmp_path, language, names):
    # bug: the German cap mark was measured in English ("0 cap"), so ">Cy 0 Mütze" was cut to ">C",
    # and with the default names ">P 0 Mütze": which P?
    config = configuration.parse({"display": {"language": language}}, "config.toml")
    holder = names[-1]
    rolls = {p: [1, 2] for p in names[:-1]} | {holder: [1, 1]}

    async def body(device):
        device.start_named("trottel", names)
        device.apply({"type": "cap_roll", "rolls": rolls})
        await device.flush()
        return device.frame()

    with watch() as found:
        frame = run_device(tmp_path, body, config)
    assert any(c.startswith(f">{holder[:3]}") and c.endswith(" 0▲") for c in _cells(frame)), _cells(frame)
    assert all(f"{p} 0" in _cells(frame) for p in names[:-1])
    assert found == []


def test_a_name_cut_below_its_three_letters_is_reported():
    with watch() as found:
        assert name_and_value(">Cy", "0 Mütze", 59, least=4) == ">C 0 Mütze"
        assert name_and_value("Bartholomew", "12", 40, least=3).startswith("Bar")
    assert [(o.kind, o.text) for o in found] == [("name", ">Cy 0 Mütze")]


def test_a_score_too_long_for_a_column_takes_room_from_its_neighbour_rather_than_lose_its_name():
    set_language("de")
    try:
        with watch() as found:
            cells = [("P1", "0"), (">P2", CAP), ("P3", "0"), ("P4", "0")]
            rows = grid(cells, per_row(cells))
            big = [r.cells for r in score_rows([("Ann", "0"), ("Ben", "0"), ("Cy", CAP)], ["Cy"], big=True)]
            with on_panel((128, 128)):  # too long for half the width: the grid is not drawn big
                tall = score_rows([("Ann", "0"), ("Ben", "0"), ("Cy", CAP)], ["Cy"], big=True)
    finally:
        set_language("en")
    assert [r.cells for r in rows] == [("P1 0", ">P2 0 Mütze"), ("P3 0", "P4 0")]
    assert rows[0].weights[0] < rows[0].weights[1] and rows[1].weights == ()  # shared as they need
    assert big == [("Ann 0", "Ben 0", ">Cy 0 Mütze")]
    assert not any(r.big for r in tall) and found == []


@pytest.mark.parametrize("language", ["en", "de"])
def test_history_shows_every_game_name_whole_and_who_won_where_there_is_room(tmp_path, language):
    # bug: History cut the game's name ("Arschbom…", "Ab in die T…") to make room for the winners
    from firmware_host.ui.menus import history_item

    config = configuration.parse({"display": {"language": language}}, "config.toml")
    winners = (["Ann"], ["Ann", "Ben"], ["Bartholomew", "Maximiliane", "Cy"], [])

    async def body(device):
        from firmware_host.ui.base import ListScreen

        items = [
            history_item({"game": g, "started": 1_700_000_000, "reason": "over", "winners": w})
            for g in TITLES
            for w in winners
        ]
        device.push(ListScreen(device, "History", items))
        frames = []
        for _ in items:
            await device.flush()
            frames.append(device.frame())
            device.screens[-1].index += 1
            device.redraw()
        return items, frames

    with watch() as found:
        items, _frames = run_device(tmp_path, body, config)
    assert found == []
    assert all(item.whole for item in items)
    titles = [str(t) for t in TITLES.values() for _ in winners]
    assert all(item.label.endswith(title) for item, title in zip(items, titles, strict=True))
    # bug: the Tonne row had no date (its winners took the room): every row keeps its day, and the
    # winners where there is room beside it (the entry names them)
    day = time.strftime("%m-%d", time.localtime(1_700_000_000))
    assert all(item.label.startswith(f"{day} ") for item in items)
    notes = {str(title): [item.note for item in items[i * 4 : i * 4 + 4]] for i, title in enumerate(TITLES.values())}
    assert notes["Ab in die Tonne"] == ["", "", "", "-"] and notes["Bomb"][:2] == ["Ann", "Ann,Ben"]


@pytest.mark.parametrize("size", [(128, 64), (256, 64), (128, 128)])
@pytest.mark.parametrize("language", ["en", "de"])
def test_no_rules_line_ends_in_a_letter_or_digit_that_belongs_to_the_next_line(size, language):
    # bug: a Rules page of Arschbombe wrapped "A ... frei: 3. B" / "Schwimmer teils bedeckt: 2."
    from firmware_host.ui.render import text_width, wrap
    from firmware_host.ui.rules import load_rules
    from games import ENGINES

    set_language(language)
    stranded = []
    try:
        with on_panel(size) as on:
            for game in ENGINES:
                for section in load_rules(game, language):
                    for paragraph in section.text.split("\n"):
                        lines = wrap(paragraph)
                        for line, after in pairwise(lines):
                            last, following = line.split()[-1], after.split()[0]
                            if len(last) == 1 and text_width(f"{last} {following}") <= on.content_w - 2:
                                stranded.append(f"{game}: {line!r} / {after!r}")
    finally:
        set_language("en")
    assert stranded == []


def test_every_revealed_card_shows_beside_its_name_however_long(tmp_path):
    # bug: Bomb's revealed cards with real names read "Bartholomew:3 Maximil…": the others' cards lost
    names = ["Bartholomew Whitwort", "Maximiliane Wegmülle", "Cy", "Dora"]
    cards = dict(zip(names, ["3", "1", "7", "5"], strict=True))

    async def body(device):
        device.start_named("bomb", names)
        device.apply({"type": "reveal", "cards": cards})
        await device.flush()
        return device.frame()

    with watch() as found:
        frame = run_device(tmp_path, body)
    cells = [cell.lstrip(">") for cell in _cells(frame)]
    for name, card in cards.items():
        assert any(c.startswith(name[:3]) and c.endswith(f" 3♥ [{card}]") for c in cells), cells
    assert found == []


def test_names_are_shortened_to_the_start_that_tells_them_apart():
    from firmware_host.ui.layout import named_rows
    from firmware_host.ui.render import short_names

    assert short_names(["Maximiliane", "Maximilian", "Bartholomew", "Barbara", "Jo"]) == {
        "Maximiliane": "Maximiliane",
        "Maximilian": "Maximilian",  # every start of it starts Maximiliane too: whole
        "Bartholomew": "Bart",
        "Barbara": "Barb",
        "Jo": "Jo",
    }
    whole = named_rows("Jo:1 Bartholomew:2", 1, ["Jo", "Bartholomew"])
    assert [r.cells for r in whole] == [("Jo:1 Bartholomew:2",)]  # it fits: nothing shortened
    line = "Bartholomew:3 Barbara:0 Bartholomew's turn, Barbarossa waits"  # Barbarossa plays not
    shortened = named_rows(line, 2, ["Bartholomew", "Barbara", "Jo"])
    assert " ".join(r.cells[0] for r in shortened).startswith("Bart:3 Barb:0 Bart's turn, Barbarossa")
