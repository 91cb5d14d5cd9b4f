"""The interactive simulator in a terminal: the whole panel, status and keys in 80×24; scale keys count."""

from __future__ import annotations

import asyncio

from devicekit import run_device

from firmware_host.sim.scale import sim_calibration
from firmware_host.sim.terminal import KEYMAP, Terminal, drawing, frame_text
from firmware_host.ui.calibrate import kind_labels


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
    assert "x Ende" in lines[-1] and "Waage" in lines[-1] and "q-y lang" in lines[-2]


def test_the_drawing_is_the_finest_that_fits_the_terminal(tmp_path):
    async def body(device):
        await device.flush()
        image = device.display.shown
        return {size: frame_text(image, *size) for size in ((80, 24), (100, 40), (140, 40))}

    frames = run_device(tmp_path, body)
    assert [(len(f), len(f[0])) for f in frames.values()] == [(16, 64), (32, 64), (32, 128)]
    assert drawing((128, 64), 80, 24) == "braille" and drawing((128, 64), 132, 37) == "half"


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
        return device.session.actions

    assert run_device(tmp_path, body) == [{"type": "reveal", "cards": {"Ann": "2", "Ben": "0"}}]
