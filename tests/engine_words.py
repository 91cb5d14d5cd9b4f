"""What an engine puts on the panel in a state — its view and every line of its prompts, walked
down their sub-menus — and the check that each word of it is a message the catalogues translate.

Engines say :class:`~games.core.text.Text` (a msgid and its values); what is not a Text must be a
symbol no language translates: a player's name, a number, dice (``3+4``), a card code (``10R``),
a place on the board (``Ann@12``).
"""

from __future__ import annotations

import re
from typing import Any

from firmware_host.core.i18n import set_language, tr, watch_misses
from firmware_host.ui.render import BAR_W, PANEL, text_width
from games.core import Collect, Engine, Menu, Option, Order, Task, Text

SYMBOL = r"[\d+@?RPS ():]"
"""The characters of strings that carry no word: numbers, dice, card codes, board places (with
the players' names)."""
TITLE_W = PANEL.content_w - BAR_W - 2
"""Pixels a menu title has on the game screen."""
LABEL_W = TITLE_W - text_width("9/9") - 2
"""Pixels an option line has beside its ``n/m``."""
MORE = text_width(" >")
ROOM = {"title": TITLE_W, "label": LABEL_W, "label >": LABEL_W - MORE, "item": TITLE_W, "item >": TITLE_W - MORE}
"""Pixels each kind of line has: a menu's title, a prompt's option (``>``: it opens a sub-menu), a
line of the game menu (its options at any time, and what they open)."""


def _walk(prompt: Any, depth: int, found: list[tuple[str, str]], line: str = "label") -> None:
    if isinstance(prompt, Menu):
        found.append(("title", prompt.title))
        for option in prompt.options:
            _option(option, depth, found, line)
        if prompt.side is not None:
            _walk(prompt.side, depth, found)
    elif isinstance(prompt, Collect):
        found.append(("title", prompt.title))
        found += [("text", prompt.label(v)) for values in prompt.values.values() for v in values]
    elif isinstance(prompt, Order):
        found.append(("title", prompt.title))
    elif isinstance(prompt, Task):
        found += [("title", prompt.title), *(("text", line) for line in prompt.lines), ("text", prompt.confirm)]


def _option(option: Option, depth: int, found: list[tuple[str, str]], line: str) -> None:
    found.append((line if option.then is None else f"{line} >", option.label))
    if option.then is not None and depth > 0:
        _walk(option.submenu(), depth - 1, found, line)


def shown(engine: Engine, state: Any, depth: int = 3) -> list[tuple[str, str]]:
    """(kind, text) of everything ``state`` shows: the view's title, lines and scores, the
    prompt, the game menu's options, each walked ``depth`` sub-menus deep."""
    view = engine.view(state)
    found = [("text", view.title), *(("text", line) for line in view.lines), *(("text", v) for _, v in view.scores)]
    _walk(engine.prompt(state), depth, found)
    for option in engine.anytime(state):  # the game menu's lines, and the menus they open
        _option(option, depth, found, "item")
    for question in engine.confirm.values():
        found.append(("text", question))
    return found


def check_words(engine: Engine, states: list[Any], names: list[str]) -> dict[str, str]:
    """Check that every word ``states`` show is a Text with a German translation, and that German
    titles and option lines fit where the English ones do; returns the German of each English."""
    german = {}
    symbol = re.compile("(?:" + "|".join([SYMBOL, *map(re.escape, names)]) + ")*")
    found = [item for state in states for item in shown(engine, state)]
    plain = sorted({text for _, text in found if not isinstance(text, Text) and not symbol.fullmatch(text)})
    assert not plain, f"words that are not messages: {plain}"
    set_language("de")
    try:
        with watch_misses() as missed:
            for kind, text in found:
                german[str(text)] = said = tr(text)
                room = ROOM.get(kind)
                if room is not None:  # what English already cuts (a long field name) is not German's fault
                    assert text_width(said) <= max(room, text_width(str(text))), f"{said!r} does not fit ({kind})"
        assert not missed, f"not in the German catalogue: {sorted(missed)}"
    finally:
        set_language("en")
    return german
