"""The Rules screen: a game's rules, written for the panel, opening at the part that matters now.

Each game's package holds its rules as data (``games/<id>/rules.toml``: sections, each with a
title and a text in every language) and a pure function ``games.<id>.rules.section(state)``
naming the section for a state. The screen wraps the section texts to the panel's width, cuts
them into pages, and pages through all of them with prev/next; back (or ok) leaves. It opens at
the first page of the section for the game's state in play, in the language in force.

The screen sees only the screen stack (:class:`~firmware_host.ui.table.Table`); which game and
where to open come from the caller (:func:`rules_for`).
"""

from __future__ import annotations

import importlib
import logging
import tomllib
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import TYPE_CHECKING, Any

from drivers.buttons import Press
from firmware_host.core.i18n import _, language
from firmware_host.ui.base import Screen
from firmware_host.ui.render import ROWS, Frame, Panel, Row, panel, wrap
from games.core import Task

if TYPE_CHECKING:
    from firmware_host.ui.table import GameTable, Table

log = logging.getLogger(__name__)

TEXT_ROWS = ROWS - 1
"""Lines of rules on a page of the 128×64 panel; the last row is the hint (a bigger panel's page
takes its own rows less one)."""


@dataclass(frozen=True)
class Section:
    """One part of a game's rules in one language."""

    key: str
    title: str
    text: str


@dataclass(frozen=True)
class Page:
    """What one screenful shows: its section, and the lines of text on it."""

    section: Section
    lines: tuple[str, ...]


class RulesError(ValueError):
    """A rules file that cannot be used (names the file and what is wrong)."""


@cache
def load_rules(game: str, lang: str) -> tuple[Section, ...]:
    """The sections of ``game``'s rules in ``lang``, in the file's order."""
    where = f"games/{game}/rules.toml"
    try:
        data = tomllib.loads((resources.files(f"games.{game}") / "rules.toml").read_text(encoding="utf-8"))
    except (OSError, ModuleNotFoundError, tomllib.TOMLDecodeError) as exc:
        raise RulesError(f"{where}: {exc}") from None
    sections = []
    for i, entry in enumerate(data.get("section", [])):
        try:
            sections.append(Section(entry["key"], entry["title"][lang], entry["text"][lang].strip()))
        except (KeyError, TypeError) as exc:
            raise RulesError(f"{where}: section {i + 1} lacks {exc}") from None
    if not sections:
        raise RulesError(f"{where}: no [[section]]")
    return tuple(sections)


def paginate(sections: tuple[Section, ...]) -> list[Page]:
    """Every page of ``sections``. A section's text is a paragraph a line; each is wrapped to the
    panel in force, and a page takes whole paragraphs while they fit in its rows less the hint's
    (:data:`TEXT_ROWS` on a 128×64), so a page never ends inside a paragraph (the texts are
    written so that every paragraph fits one page; a longer one is cut every page's lines)."""
    pages = []
    text_rows = panel().rows - 1
    for section in sections:
        page: list[str] = []
        for paragraph in section.text.split("\n"):
            lines = wrap(paragraph)
            if page and len(page) + len(lines) > text_rows:
                pages.append(Page(section, tuple(page)))
                page = []
            while len(lines) > text_rows:
                pages.append(Page(section, tuple(lines[:text_rows])))
                lines = lines[text_rows:]
            page += lines
        if page:
            pages.append(Page(section, tuple(page)))
    return pages


def section_for(game: str, state: Any, task: str | None = None) -> str | None:
    """The key of the section of ``game``'s rules that ``state`` is at, ``task`` the key of the
    table job on screen if any (``None``: no place known, the screen opens at the first page)."""
    try:
        return importlib.import_module(f"games.{game}.rules").section(state, task)
    except Exception:  # a game without the function, or a state it does not expect
        return None


class RulesScreen(Screen):
    """A game's rules, page by page: prev/next turn pages (round the end), back or ok leaves."""

    mood = "idle"

    def __init__(self, table: Table, game: str, at: str | None = None) -> None:
        super().__init__(table)
        self.game = game
        self.page = 0
        self._lang = ""
        self._panel: Panel | None = None
        self._pages: list[Page] = []
        pages = self.pages()
        self.page = next((i for i, p in enumerate(pages) if p.section.key == at), 0)

    def pages(self) -> list[Page]:
        """Every page in the language in force on the panel in force (made again when either
        changes)."""
        if self._lang != language() or self._panel != panel():
            place = None
            if self._pages:  # keep the place: the same section, as far into it as it goes
                key = self._pages[self.page].section.key
                place = (key, sum(1 for p in self._pages[: self.page] if p.section.key == key))
            self._lang, self._panel = language(), panel()
            try:
                self._pages = paginate(load_rules(self.game, self._lang))
            except RulesError as exc:  # a game without its rules file: say so, never crash
                log.warning("%s", exc)
                self._pages = paginate((Section("", _("Rules"), _("No rules for this game yet.")),))
            if place is not None:
                same = [i for i, p in enumerate(self._pages) if p.section.key == place[0]]
                self.page = same[min(place[1], len(same) - 1)] if same else 0
        return self._pages

    @property
    def section(self) -> str:
        """The key of the section on screen."""
        return self.pages()[self.page].section.key

    def press(self, press: Press) -> None:
        count = len(self.pages())
        if press.button == "next":
            self.page = (self.page + 1) % count
        elif press.button == "prev":
            self.page = (self.page - 1) % count
        elif press.button in ("back", "ok"):
            self.table.pop()

    def frame(self) -> Frame:
        pages = self.pages()
        page = pages[min(self.page, len(pages) - 1)]
        rows = [Row.of(line) for line in page.lines]
        rows += [Row.of("")] * (panel().rows - 1 - len(rows))
        rows.append(Row.of(_("prev/next: page  back"), invert=True))
        return Frame(page.section.title, tuple(rows), f"{self.page + 1}/{len(pages)}")


def rules_for(table: GameTable) -> RulesScreen:
    """The Rules screen of the game in play, open at the section of its state."""
    session = table.session
    assert session is not None
    game = session.base.game
    prompt = session.prompt()
    task = prompt.key if isinstance(prompt, Task) else None
    return RulesScreen(table, game, section_for(game, session.state, task))
