"""The screens part on its own (the message line, the tower's signals and a luma dummy panel
real): the stack, one draw per loop turn, drawing held while a write is in flight, the views."""

from __future__ import annotations

from firmware_host.runtime.vtime import run_virtual
from firmware_host.ui.base import Message
from tests.partkit import lower, turn


def test_push_shows_the_screen_on_top_and_pop_never_leaves_the_last(tmp_path):
    async def main():
        parts = lower(tmp_path)
        screens = parts.screens
        first = Message(screens, "First", "one")  # type: ignore[arg-type]
        second = Message(screens, "Second", "two")  # type: ignore[arg-type]
        screens.stack = [first]
        screens.push(second)
        on_top = (screens.on_top(second), screens.frame().title)
        screens.pop()
        screens.pop()
        return on_top, screens.frame().title, len(screens.stack)

    assert run_virtual(main) == ((True, "Second"), "First", 1)


def test_several_changes_in_one_turn_draw_once_and_the_page_hears_after_the_panel(tmp_path):
    async def main():
        parts = lower(tmp_path)
        screens = parts.screens
        screens.stack = [Message(screens, "Hello", "table")]  # type: ignore[arg-type]
        heard = []
        stop = screens.watch(lambda: heard.append(screens.display.wanted is not None))
        for _ in range(5):
            screens.redraw()
        await turn()
        once = list(heard)
        stop()
        screens.redraw()
        await turn()
        return once, heard, parts.wants[-1]

    once, heard, want = run_virtual(main)
    assert once == [True]  # one draw, the panel had its picture first
    assert heard == [True]  # a view that stopped watching hears nothing more
    assert want == ("screen", False)  # a screen that does not read the scale leaves it powered down


def test_what_changed_is_drawn_only_once_the_writes_in_flight_are_durable(tmp_path):
    async def main():
        parts = lower(tmp_path)
        screens = parts.screens
        screens.stack = [Message(screens, "Hello", "table")]  # type: ignore[arg-type]
        writing = [True]
        screens.writing = lambda: writing[0]
        screens.redraw()
        await turn()
        held = screens.display.wanted
        writing[0] = False
        screens.durable()
        await turn()
        return held, screens.display.wanted is not None

    assert run_virtual(main) == (None, True)


def test_the_message_line_shows_under_a_screen_that_has_none_of_its_own(tmp_path):
    async def main():
        parts = lower(tmp_path)
        screens = parts.screens
        screens.stack = [Message(screens, "Hello", "table")]  # type: ignore[arg-type]
        parts.message.toast("Phone paired")
        return screens.frame().message

    assert run_virtual(main) == "Phone paired"
