"""Words for the ear: what an engine says, said in the table's language.

The panel writes short (``Ben: B3 F2 C0 boom -2``); the ear needs sentences ("Ben rolls three
bombs, two fuses and no card. Boom! Ben loses two lives."). Each game lists, beside its engine, the
spoken form of its panel messages (:attr:`games.core.Engine.ear`: msgid → a function building the
spoken :class:`~games.core.text.Text` from the panel Text's values); the spoken msgids are in the
game's own catalogue, English and German, like every word of the screens. A message no game lists
is said as the panel shows it (:func:`firmware_host.core.i18n.tr`).

:class:`Speech` walks a Text: a listed msgid is replaced by its spoken form, a list joined for the
panel (``Ann/Ben``, ``2B+S``) is said as a list ("Ann and Ben"), and a player's name is said as
the table spelt it to be said (:class:`drivers.voice.names.Pronunciations`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from firmware_host.core.i18n import _, tr
from firmware_host.core.i18n import _ as lookup
from games.core import Text
from games.core.text import Joined

Ear = Mapping[str, Callable[[Text], Text]]
"""Panel msgid → the spoken Text made from a panel Text (a game's :attr:`~games.core.Engine.ear`)."""

LISTS = (", ", "/", "+", " · ")
"""Separators of panel lists, said as "a, b and c"."""
SENTENCES = (" | ",)
"""Separators of a panel line's parts, said as sentences."""


def said_list(parts: list[str]) -> str:
    """``a, b and c`` in the language in force."""
    parts = [p for p in parts if p]
    if len(parts) < 2:
        return "".join(parts)
    return _("{some} and {last}").format(some=", ".join(parts[:-1]), last=parts[-1])


def _separator(text: Joined) -> str | None:
    """The separator of a joined list (``None``: a single part)."""
    msgid = text.msgid
    if "{p1}" not in msgid:
        return None
    return msgid[msgid.index("}") + 1 : msgid.index("{p1}")]


class Speech:
    """Renders Texts for the ear with one game's ``ear`` and the table's ``name`` (a player's name
    → what the voice says for it)."""

    def __init__(self, ear: Ear | None = None, name: Callable[[str], str] | None = None, players: tuple[str, ...] = ()):
        self.ear = ear or {}
        self.name = name or (lambda n: n)
        self.players = frozenset(players)

    def __call__(self, text: Any) -> str:
        """``text`` as the voice says it, in the language in force."""
        return " ".join(self._say(text).split())

    def _say(self, text: Any) -> str:
        if isinstance(text, Text):
            build = self.ear.get(text.msgid)
            if build is not None:
                text = build(text)
            if isinstance(text, Joined):
                return self._joined(text)
            values = {k: self._say(v) if isinstance(v, str) else v for k, v in text.values.items()}
            pattern = lookup(text.msgid)  # a msgid of the catalogues, as tr() looks it up
            try:
                return pattern.format(**values) if values else pattern
            except (KeyError, IndexError, ValueError):
                return tr(text)
        if isinstance(text, str):
            return self.name(text) if text in self.players else text
        return str(text)

    def _joined(self, text: Joined) -> str:
        parts = [self._say(text.values[f"p{i}"]) for i in range(len(text.values))]
        sep = _separator(text)
        if sep is None:
            return parts[0] if parts else ""
        if sep in LISTS:
            return said_list(parts)
        if sep in SENTENCES:
            return ". ".join(p.rstrip(".") for p in parts if p) + "."
        return sep.join(parts)


def number_of(n: int, one: Text, many: Callable[[int], Text], none: Text | None = None) -> Text:
    """``one`` for 1, ``none`` (when given) for 0, else ``many(n)``: the ear's plurals."""
    if n == 1:
        return one
    if n == 0 and none is not None:
        return none
    return many(n)
