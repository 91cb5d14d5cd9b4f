"""Bigger panels use their room: twice the size for the scores and whose turn it is on a 128×128,
more lines there, wider columns and more scores to a row on a 256×64 — one layout engine, the
same fitting rules and overflow reports on every panel."""

from __future__ import annotations

from firmware_host.core import config as configuration
from firmware_host.ui.layout import big_row, score_rows
from firmware_host.ui.menus import result_rows
from firmware_host.ui.render import Frame, Panel, Row, compose, on_panel, render, to_text, watch, wrap
from firmware_host.ui.rules import load_rules, paginate
from tests.devicekit import presses, run_device

SQUARE = Panel(128, 128)
WIDE = Panel(256, 64)
SIX = [("Ann", "3"), ("Ben", "12"), ("Cy", "0"), ("Dan", "7"), ("Eve", "1"), ("Fay", "5")]


def _lit_rows(picture: str) -> list[int]:
    """The y of every pixel row with something lit."""
    return [y for y, line in enumerate(picture.splitlines()) if "#" in line]


def test_a_big_row_is_twice_as_tall_on_a_128x128_and_ordinary_on_a_128x64():
    frame = Frame("Tonne", (Row.of("Ann 12", big=True), Row.of("next")))
    square = to_text(render(frame, panel=SQUARE)).splitlines()
    small = to_text(render(frame, panel=Panel())).splitlines()
    assert [y for y in _lit_rows("\n".join(square[8:24]))] == list(range(14))  # 7 pixel rows, each twice
    assert "#" in "".join(square[24:31])  # the next row starts under it
    assert _lit_rows("\n".join(small[8:16])) == list(range(7))
    wide = to_text(render(frame, panel=WIDE)).splitlines()  # a 256×64 has no height for it
    assert _lit_rows("\n".join(wide[8:16])) == list(range(7))  # an ordinary row, as on a 128×64
    assert wide[16:23] != ["." * 256] * 7


def test_the_score_grid_and_whose_turn_are_big_only_where_the_panel_has_room():
    with on_panel(SQUARE):
        scores = score_rows(SIX[:3], ["Ann"], big=True)
        assert scores and all(r.big for r in scores)
        assert big_row("Ann: roll").big
        assert not big_row("Bartholomew: choose the card you keep").big  # would be cut at twice the size
    with on_panel(Panel()):
        assert not any(r.big for r in score_rows(SIX[:3], ["Ann"], big=True))
        assert not big_row("Ann: roll").big


def test_a_256x64_puts_more_scores_on_a_row():
    with on_panel(Panel()):
        small = score_rows(SIX, ["Ann"])
    with on_panel(WIDE):
        wide = score_rows(SIX, ["Ann"])
    assert len(small) == 2 and len(small[0].cells) == 3
    assert len(wide) == 2 and len(wide[0].cells) == 4


def test_a_message_first_makes_a_big_row_ordinary_before_it_drops_a_row():
    rows = (Row.of(">Ann 3", big=True), Row.of("Ann: roll", big=True), Row.of("Dive 7"), Row.of("a"), Row.of("b"))
    rows += (*(Row.of(str(i)) for i in range(5)), Row.of("Roll dice", "1/2", invert=True), Row.of("ok: pick"))
    with watch() as found:
        frame = compose(Frame("Bomb", rows, message="Ben lost 2 lives", keep=2), SQUARE)
    texts = [" ".join(r.cells) for r in frame.rows]
    assert found == []
    assert texts[:3] == [">Ann 3", "Ann: roll", "Dive 7"] and frame.rows[0].big and not frame.rows[1].big
    assert SQUARE.height_of(frame.rows) == SQUARE.rows and "Ben lost 2 lives" in texts


def test_rows_beyond_a_big_panel_are_reported_counting_big_rows_twice():
    rows = tuple(Row.of(f"score {i}", big=True) for i in range(8))
    with watch() as found:
        compose(Frame("Bomb", rows), SQUARE)
    assert [o.kind for o in found] == ["rows"] and found[0].text == "score 7"


def test_the_rules_take_fewer_pages_on_a_128x128():
    sections = load_rules("tonne", "de")
    with on_panel(Panel()):
        small = paginate(sections)
    with on_panel(SQUARE):
        square = paginate(sections)
    assert len(square) < len(small) and max(len(p.lines) for p in square) > 5


def test_a_game_on_a_128x128_shows_its_scores_big_and_its_menus_whole(tmp_path):
    config = configuration.parse({"display": {"kind": "sh1107"}}, "config.toml")

    async def body(device):
        device.start_game("bomb", ["p1", "p2", "p3"], "p1", names={"p1": "Ann", "p2": "Ben", "p3": "Cy"})
        await device.flush()
        game = device.frame()
        await presses(device, "back")  # the game menu: every line at once, no "1/7"
        menu = device.frame()
        return game, menu, device.display.shown.size

    game, menu, size = run_device(tmp_path, body, config)
    assert size == (128, 128)
    assert any(r.big and r.cells[0].startswith(">Ann") for r in game.rows)
    assert len(menu.rows) > 7 and menu.title_right == ""


def test_a_256x64_main_menu_is_laid_out_for_its_width_not_scaled(tmp_path):
    config = configuration.parse({"display": {"kind": "ssd1322"}}, "config.toml")

    async def body(device):
        await device.flush()
        return to_text(device.display.shown).splitlines()

    picture = run_device(tmp_path, body, config)
    assert len(picture) == 64 and len(picture[0]) == 256
    assert picture[0][250] == "#"  # the title bar runs the whole width
    doubled = ["".join(c * 2 for c in line[::2]) for line in picture[1:8]]
    assert picture[1:8] != doubled  # not the 128×64 picture drawn twice as wide


def test_who_won_is_big_on_a_128x128():
    entry = {"game": "bomb", "reason": "over", "scores": {"Ann": 3, "Ben": 0}, "winners": ["Ann"]}
    with on_panel(SQUARE):
        square = result_rows(entry)
    with on_panel(Panel()):
        small = result_rows(entry)
    assert square[0].big and square[0].cells == small[0].cells and not small[0].big


def test_a_message_wrapped_over_two_lines_of_the_game_is_not_shown_twice():
    said = "Cy 4+5 truth or dare, read the card out"
    with on_panel(SQUARE):
        lines = wrap(said, SQUARE.content_w - 2)
        assert len(lines) == 2  # the game's own line wraps on the panel
        rows = (
            Row.of(">Ann 0", big=True),
            *(Row.of(line) for line in lines),
            Row.of("Roll", invert=True),
            Row.of("ok"),
        )
        frame = compose(Frame("Trottel", rows, message=said, keep=2), SQUARE)
    texts = [" ".join(r.cells) for r in frame.rows]
    assert texts.count(lines[0]) == 1 and not any(r.invert and r.cells[0] == lines[0] for r in frame.rows)
