"""Screens: what the buttons do and what the OLED shows, one screen at a time.

The device keeps a stack of screens; the top one gets every press and draws the frame. Buttons,
everywhere the same:

- ``prev`` / ``next`` move the highlight, ``ok`` picks, ``back`` goes back (a long ``back`` in a
  game asks to undo the last action);
- a long ``ok`` while a game is in play pauses or resumes its turn timer, whatever screen shows
  (outside a game it is an ``ok`` like a short one);
- a seat button acts for its player: a short press moves that player's highlight (or changes
  their answer), a long press picks (or locks their answer in).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from drivers.buttons import Press
from firmware_host.core.config import SEATS
from firmware_host.core.i18n import _
from firmware_host.ui.layout import text_rows, wrapped_forms
from firmware_host.ui.render import Frame, Row, fitting, panel, report
from games.core import T

if TYPE_CHECKING:
    from PIL import Image

    from firmware_host.ui.panel import Panel
    from firmware_host.ui.table import GameTable, Table


class Screen:
    """One screen of the device; it reaches the table only through its door (:mod:`firmware_host.ui.table`)."""

    mood = "idle"
    """The tower's lasting light while this screen shows."""
    uses_scale = False
    """Whether it needs the scale's readings while it is anywhere in the stack (calibration)."""
    reads_scale = False
    """Whether it shows the scale's readings (the self-test): the scale reads while it is stacked."""
    raw_buttons = False
    """Whether it takes every button as it is (the self-test): no long ``ok`` pauses the timer."""

    def __init__(self, table: Table) -> None:
        self.table = table

    def press(self, press: Press) -> None:
        """Handle one button press."""

    def frame(self) -> Frame:
        """What the OLED shows."""
        return Frame("tablemate")

    def shown(self) -> None:
        """Called when the screen comes (back) to the top of the stack."""

    def button_down(self, button: str) -> None:
        """A button went down (the press follows on release); nothing here."""

    def picture(self, panel: Panel) -> Image.Image | None:
        """A picture the screen draws itself, else ``None`` (here): its frame is drawn."""
        return None

    def picture_lines(self) -> list[str]:
        """The words of its own picture, one line a row; none here."""
        return []

    def must_read(self) -> list[str]:
        """What the table must be able to read on this screen now, each text whole on the panel
        (a player's name in it may show shortened): the panel rule, which
        ``tests/panel_rule.py`` checks over every frame of random play. None here."""
        return []


def footed(rows: list[Row], foot: Row) -> list[Row]:
    """``rows`` padded to fill the screen above ``foot``, then ``foot`` on the last line (rows
    that do not fit are reported: a screen must page or scroll them)."""
    on = panel()
    room = on.rows - on.slots(foot)
    shown = fitting(rows, on, room)
    if shown < len(rows):
        report("rows", " / ".join(" ".join(r.cells) for r in rows[shown:]), room)
        rows = rows[:shown]
    return [*rows, *[Row.of()] * (room - on.height_of(rows)), foot]


def apply_confirmed(table: GameTable, action: dict[str, Any]) -> None:
    """Hand ``action`` to the game, after a yes when the game says it cannot be taken back at a
    glance (a fall that costs a chip, ending a session)."""
    question = table.confirm_question(action)
    if not question:
        table.apply(action)
        return
    table.push(Confirm(table, T("Sure?"), question, lambda: table.apply(action)))


def is_seat(press: Press) -> bool:
    """Whether a press came from a seat button."""
    return press.button in SEATS


@dataclass
class Item:
    """A line of a :class:`ListScreen`: its label, what ok does, and a right-aligned note.

    ``whole``: the label must show whole (a cut is reported); else a long one ends in ``…``."""

    label: str
    pick: Callable[[], object]
    note: str = ""
    whole: bool = False


class ListScreen(Screen):
    """A scrolling list: prev/next (or a seat's short press) move, ok (or a long press) picks."""

    def __init__(
        self,
        table: Table,
        title: str,
        items: Callable[[], Sequence[Item]] | Sequence[Item],
        on_back: Callable[[], None] | None = None,
        hint: str = "",
    ) -> None:
        super().__init__(table)
        self.title = title
        self._items = items
        self.on_back = on_back
        self.hint = hint or T("ok: pick  back")
        self.index = 0

    def items(self) -> Sequence[Item]:
        """The current items (a callable is asked again on every draw)."""
        return self._items() if callable(self._items) else self._items

    def press(self, press: Press) -> None:
        items = self.items()
        if not items:
            if press.button == "back" and self.on_back:
                self.on_back()
            return
        self.index %= len(items)
        # lists wrap round: their damaging lines (end a game, undo) ask before they act
        if press.button == "next" or (is_seat(press) and not press.long):
            self.index = (self.index + 1) % len(items)
        elif press.button == "prev":
            self.index = (self.index - 1) % len(items)
        elif press.button == "ok" or (is_seat(press) and press.long):
            items[self.index].pick()
        elif press.button == "back":
            (self.on_back or self.table.pop)()

    def frame(self) -> Frame:
        items = self.items()
        room = panel().rows - 1
        if items:
            self.index %= len(items)
        first = max(0, min(self.index - room // 2, len(items) - room))
        rows = [
            Row.of(item.label, item.note, invert=(first + i == self.index), cut=not item.whole)
            for i, item in enumerate(items[first : first + room])
        ]
        rows = footed(rows, Row.of(self.hint))
        position = f"{self.index + 1}/{len(items)}" if len(items) > room else ""
        return Frame(self.title, tuple(rows), position, keep=len(rows) - (self.index - first))


class Confirm(Screen):
    """A yes/no question: ok (or a long seat press) says yes, back says no."""

    def __init__(self, table: Table, title: str, question: str, on_yes: Callable[[], object]) -> None:
        super().__init__(table)
        self.title = title
        self.question = question
        self.on_yes = on_yes

    def press(self, press: Press) -> None:
        if press.button == "ok" or (is_seat(press) and press.long):
            self.table.pop()
            self.on_yes()
        elif press.button == "back":
            self.table.pop()

    def frame(self) -> Frame:
        room = panel().rows - 1
        question = min(wrapped_forms(self.question, bar=False), key=len)  # whole: its names shortened first
        lines = question if len(question) <= room else text_rows(self.question, room)
        return Frame(self.title, tuple(footed(lines, Row.of(_("ok: yes    back: no"), invert=True))))

    def must_read(self) -> list[str]:
        """The question, whole (undo's says what it takes back)."""
        return [self.question]


class Message(Screen):
    """A text to read (an error, a result); ok or back leaves it, if leaving is allowed."""

    def __init__(
        self,
        table: Table,
        title: str,
        text: str,
        on_ok: Callable[[], None] | None = None,
        mood: str = "idle",
    ) -> None:
        super().__init__(table)
        self.title = title
        self.text = text
        self.on_ok = on_ok
        self.mood = mood

    def press(self, press: Press) -> None:
        if self.on_ok and press.button in ("ok", "back"):
            self.on_ok()

    def frame(self) -> Frame:
        if self.on_ok:
            rows = footed(text_rows(self.text, panel().rows - 1), Row.of(_("ok: continue")))
        else:
            rows = text_rows(self.text, panel().rows)
        return Frame(self.title, tuple(rows))
