"""The interactive simulator in a terminal: the whole panel, status and keys in 80×24; scale keys count."""

from __future__ import annotations

import asyncio

import pytest

from firmware_host.sim.fitting import plan
from firmware_host.sim.scale import sim_calibration
from firmware_host.sim.terminal import KEYMAP, Terminal
from firmware_host.ui.calibrate import kind_labels
from tests.devicekit import run_device


def test_a_standard_80x24_terminal_shows_the_whole_panel_the_status_and_every_key(tmp_path):
    async def body(device):
        device.start_named("antartik", ["Ann", "Ben", "Cy", "Dana", "Eve"])
        await device.flush()
        return Terminal(device).lines(80, 24)

    lines = run_device(tmp_path, body)
    assert len(lines) <= 24 and max(len(line) for line in lines) <= 80
    panel = lines[:16]  # 64×16 braille characters hold all 128×64 pixels
    assert all(len(line) == 64 and all("\u2800" <= ch <= "\u28ff" for ch in line) for line in panel)
    assert any(ch != "\u2800" for line in panel for ch in line)  # the game is drawn
    assert lines[17].startswith("tower ") and "bin 0 pcs" in lines[17]
    assert lines[-len(KEYMAP) :] == list(KEYMAP) and "x quit" in lines[-1]


def test_in_german_the_status_line_and_the_keys_are_german_and_still_fit_80_columns(tmp_path):
    from firmware_host.core import config as configuration

    config = configuration.parse({"display": {"language": "de"}}, "config.toml")

    async def body(device):
        device.start_named("tonne", ["Ann", "Ben"])
        await device.flush()
        return Terminal(device).lines(80, 24)

    lines = run_device(tmp_path, body, config)
    assert len(lines) <= 24 and max(len(line) for line in lines) <= 80
    assert lines[17].startswith("Turm ") and "Anzeige ok" in lines[17] and "Tonne 0 Stk." in lines[17]
    assert "x Ende" in lines[-1] and "Waage" in lines[-1] and "q-y lang" in lines[-3] and "> lang" in lines[-2]


def test_the_drawing_is_the_finest_that_fits_the_terminal(tmp_path):
    async def body(device):
        await device.flush()
        term = Terminal(device)
        return {size: term.lines(*size) for size in ((80, 24), (100, 40), (140, 40))}

    frames = run_device(tmp_path, body)
    assert [len(f[0]) for f in frames.values()] == [64, 64, 128]  # braille, quarter blocks, half blocks
    keys = ["seat 1-6"]
    assert plan((128, 64), 80, 24, ["tower"], keys, "x").kind == "braille"
    assert plan((128, 64), 100, 40, ["tower"], keys, "x").kind == "quarter"
    assert plan((128, 64), 132, 37, ["tower"], keys, "x").kind == "half"


def test_plus_and_minus_put_one_piece_in_and_take_it_out_and_tonne_counts_it(tmp_path):
    from firmware_host.core.store import Store

    Store(tmp_path).write_doc("scale", sim_calibration(list(kind_labels())))

    async def body(device):
        term = Terminal(device)
        device.start_named("tonne", ["Ann", "Ben"])
        await asyncio.sleep(3)  # the scale sees the empty bin
        term.key("]++")  # the 2-player pre-fill: 12 pieces
        await asyncio.sleep(12)  # the fill confirmed, the detector starts over on the full bin
        device.apply({"type": "reveal", "cards": {"Ann": 2, "Ben": 5}})
        await asyncio.sleep(3)  # the scale learns the level again after the bin job
        term.key("+")
        await asyncio.sleep(4)
        term.key("+")
        await asyncio.sleep(4)
        return device.session.summary, term.status()

    summary, status = run_device(tmp_path, body)
    assert summary["bin"] == 14 and summary["turn"] == "Ben" and summary["owed"] == 5
    assert "bin 14 pcs" in status


def test_shifted_seat_keys_hold_a_button_down_until_pressed_again(tmp_path):
    async def body(device):
        term = Terminal(device)
        device.start_named("bomb", ["Ann", "Ben"])
        term.key("Q")  # Ann's button goes down: her card counts up
        await asyncio.sleep(1.3)
        term.key("Q")  # and up: the count showing is recorded
        term.key("2")  # Ben taps: a 0
        await asyncio.sleep(0.5)
        term.key("\r")  # every card in: on
        await asyncio.sleep(0.5)
        return device.session.actions

    assert run_device(tmp_path, body) == [{"type": "reveal", "cards": {"Ann": "2", "Ben": "0"}}]


PANELS = {"ssd1306": (128, 64), "ssd1322": (256, 64), "sh1107": (128, 128)}
SIZES = ((60, 20), (64, 22), (80, 24), (100, 30), (132, 43), (200, 60))


def _panel(lines: list[str]) -> list[str]:
    """The lines that draw the panel (block or braille characters only)."""
    drawn = set("▀▄█▘▝▖▗▌▐▛▜▙▟▚▞")
    return [row for row in lines if row and all(ch in drawn or ch == " " or "\u2800" <= ch <= "\u28ff" for ch in row)]


@pytest.mark.parametrize("language", ["en", "de"])
@pytest.mark.parametrize("kind", PANELS)
def test_every_panel_fits_every_terminal_from_60x20_up_whole_with_its_status_and_a_way_to_quit(
    tmp_path, kind, language
):
    # bug: ssd1322 at 80 columns lost its right 96 px, sh1107 at 80x24 its bottom rows and the keys,
    # and 60x20 lost "x quit"
    from firmware_host.core import config as configuration

    config = configuration.parse({"display": {"language": language, "kind": kind}}, "config.toml")

    async def body(device):
        device.start_named("tonne", ["Ann", "Ben"])
        await device.flush()
        term = Terminal(device)
        words = device.drawing.lines()
        return {size: (term.lines(*size), term.plan(*size), term.status(), words) for size in SIZES}

    quit_key = {"en": "x quit", "de": "x Ende"}[language]
    for (columns, rows), (lines, fitted, status, words) in run_device(tmp_path, body, config).items():
        where = f"{kind} in {columns}x{rows}"
        assert len(lines) <= rows and max(map(len, lines)) <= columns, where
        if fitted.scaled:  # where its picture would be made smaller: its words, every row
            assert lines[: len(words)] == words and not _panel(lines), where
        else:
            panel = _panel(lines)
            across, down = {"half": (1, 2), "quarter": (2, 2), "braille": (2, 4)}[fitted.kind]
            w, h = fitted.size
            assert len(panel) == -(-h // down) and all(len(row) == -(-w // across) for row in panel), where  # whole
        assert any(quit_key in row for row in lines), where
        assert " ".join(status.split()) in " ".join(" ".join(lines).split()), where
        if kind == "ssd1306" and columns >= 64:
            assert not fitted.scaled, where  # the 128x64 is never made smaller where braille fits


def test_a_narrow_terminal_wraps_the_keys_and_question_mark_shows_them_all(tmp_path):
    async def body(device):
        await device.flush()
        term = Terminal(device)
        narrow = term.lines(60, 20)
        short = term.lines(80, 18)
        term.key("?")
        helped = term.lines(80, 18)
        term.key("?")
        return narrow, short, helped, term.lines(80, 18)

    narrow, short, helped, back = run_device(tmp_path, body)
    assert "x quit" in narrow[-1] and "seat 1-6" in " ".join(narrow)  # every key, wrapped to 60
    assert short[-1] == "? keys  x quit"  # no room for both lines of keys beside the panel
    assert helped[: len(KEYMAP)] == list(KEYMAP) and not _panel(helped)
    assert back == short


def test_a_key_struck_twice_within_80_ms_is_two_presses(tmp_path):
    # bug: `tmux send-keys Enter Enter` came as one read "\r\r" and rolled once: the second press
    # found the button still down from the first
    async def body(device):
        term = Terminal(device)
        device.start_named("trottel", ["Ann", "Ben"])
        await asyncio.sleep(1)
        term.key(b"\r\r")
        await asyncio.sleep(1)
        rolls = list(device.session.actions)
        device.start_named("arschbombe", ["Ann", "Ben"])
        await asyncio.sleep(1)
        term.key("..")  # two steps along the jump menu, in one read too
        await asyncio.sleep(1)
        return rolls, device.screens[-1].index

    rolls, index = run_device(tmp_path, body)
    assert rolls == [{"type": "roll"}, {"type": "roll"}]
    assert index == 2


def test_function_keys_and_other_keys_it_does_not_map_press_nothing(tmp_path):
    # bug: F5 pressed seat 5, F9 emptied the bin, F10 pressed seat 1 (the parser took three
    # characters of every escape sequence and read the rest as keys)
    unmapped = [
        "\x1b[15~", "\x1b[20~", "\x1b[21~", "\x1bOP", "\x1b[A", "\x1b[1;5C", "\x1b1", "\x1b]0;title\x07",
        "\x1b[2", "0~",  # F9 cut in two by the reads
        "é", "\x1b",  # a letter it does not map, and Escape on its own
    ]  # fmt: skip

    async def body(device):
        term = Terminal(device)
        device.start_named("trottel", ["Ann", "Ben"])
        device.hw.scale.grams = 50.0
        await asyncio.sleep(1)
        pressed = []
        real = device.hw.buttons.press
        device.hw.buttons.press = lambda b: (pressed.append(b), real(b))
        for key in unmapped:
            term.key(key.encode())
        await asyncio.sleep(1)
        term.key("\x1b[C\x1bOD")  # the arrows, both ways terminals send them: next, prev
        await asyncio.sleep(1)
        return pressed, device.hw.scale.grams, device.session.actions

    pressed, grams, actions = run_device(tmp_path, body)
    assert pressed == ["next", "prev"] and grams == 50.0 and actions == []


def test_escape_sequences_are_read_whole_across_reads():
    from firmware_host.sim.keys import KeyReader, split_keys

    assert split_keys("1\x1b[15~2\x1bOC\x1b[1;2D.") == (["1", "\x1b[15~", "2", "\x1bOC", "\x1b[1;2D", "."], "")
    assert split_keys("a\x1b[1") == (["a"], "\x1b[1")
    reader = KeyReader()
    assert reader.feed(b"\x1b[2") == [] and reader.feed(b"1~q") == ["\x1b[21~", "q"]
    assert reader.feed("ä".encode()[:1]) == [] and reader.feed("ä".encode()[1:]) == ["ä"]  # a split letter
    assert reader.feed(b"\x1b") == [] and reader.flush() == ["\x1b"] and reader.pending == ""


@pytest.mark.parametrize(("kind", "whole"), [("ssd1322", "128x"), ("sh1107", "64x")])
def test_a_bigger_panel_made_smaller_in_80x24_says_so_and_the_size_that_shows_it_whole(tmp_path, kind, whole):
    # bug: the 256x64 shrank to 160x40 and the 128x128 to ~88 px in 80x24, unreadable, and said nothing
    from firmware_host.core import config as configuration
    from firmware_host.sim.fitting import cells

    config = configuration.parse({"display": {"kind": kind}}, "config.toml")

    async def body(device):
        device.start_named("tonne", ["Ann", "Ben"])
        await device.flush()
        term = Terminal(device)
        said = " ".join(term.lines(80, 24))
        columns, rows = (int(n) for n in said.split("whole in ")[1].split()[0].split("x"))
        bigger = term.plan(columns, rows)
        return said, columns, rows, bigger, device.display.shown.size

    said, columns, _, bigger, size = run_device(tmp_path, body, config)
    assert f"as text: the picture whole in {whole}" in said
    assert not bigger.scaled and bigger.kind == "braille"  # that size shows it whole
    assert columns == cells(size, "braille")[0]


@pytest.mark.parametrize("kind", ["ssd1322", "sh1107"])
def test_a_bigger_panel_in_80x24_is_shown_as_its_words_readable(tmp_path, kind):
    # bug: made smaller to fit 80x24, the 256x64 and the 128x128 were unreadable
    from firmware_host.core import config as configuration

    config = configuration.parse({"display": {"kind": kind}}, "config.toml")

    async def body(device):
        device.start_named("tonne", ["Ann", "Ben"])
        await device.flush()
        return Terminal(device).lines(80, 24), device.drawing.lines()

    lines, words = run_device(tmp_path, body, config)
    assert lines[: len(words)] == words and "Set up the bin" in words  # the panel's rows, as text
    assert len(lines) <= 24 and max(len(line) for line in lines) <= 80 and "x quit" in lines[-1]
