"""The message line on its own: what a player reads above the hint, and for how long."""

from __future__ import annotations

import asyncio

from firmware_host.runtime.parts.message import TOAST_CHARS, TOAST_SECONDS, MessageLine
from firmware_host.runtime.parts.signals import Signals
from firmware_host.runtime.vtime import run_virtual


def line() -> tuple[MessageLine, Signals, list[int]]:
    signals = Signals()
    message = MessageLine(signals.signal)
    drawn: list[int] = []
    message.redraw = lambda: drawn.append(1)
    return message, signals, drawn


def test_a_message_goes_after_its_seconds_and_asks_for_a_redraw_both_times():
    async def main():
        message, _, drawn = line()
        message.toast("Saved")
        shown = message.toast_text()
        await asyncio.sleep(TOAST_SECONDS + 0.01)
        return shown, message.toast_text(), len(drawn)

    assert run_virtual(main) == ("Saved", None, 2)


def test_the_outcomes_of_one_moment_show_together_and_stay_until_the_next_input():
    async def main():
        message, _, _ = line()
        message.toast("Ann scores", until_input=True)
        message.toast("Ben is next")
        message.toast("Ben is next")  # said twice at once: shown once
        await asyncio.sleep(60)
        together = message.toast_text()
        message.clear_message()
        return together, message.toast_text()

    assert run_virtual(main) == ("Ann scores · Ben is next", None)


def test_a_refusal_replaces_what_shows_and_plays_the_refusal_signal():
    async def main():
        message, signals, _ = line()
        message.toast("Ann scores", until_input=True)
        message.refuse("Not your turn")
        return message.toast_text(), signals.lights.showing

    text, showing = run_virtual(main)
    assert text == "Not your turn"
    assert showing.yellow == "blink"  # the refusal pattern: yellow blinking, with beeps


def test_a_message_longer_than_its_lines_is_cut_with_an_ellipsis():
    async def main():
        message, _, _ = line()
        message.toast("x" * (TOAST_CHARS * 2))
        return message.toast_text()

    text = run_virtual(main)
    assert len(text) == TOAST_CHARS and text.endswith("…")
