"""The simulator's keyboard: bytes from the terminal in, one token a key out.

A terminal sends most keys as one character, and the others (arrows, function keys, keys with a
modifier) as an escape sequence: ``ESC [`` parameters and a final letter or ``~`` (CSI, ``F5`` is
``ESC [ 1 5 ~``), ``ESC O`` and one letter (SS3, ``F1`` or an arrow in application mode), ``ESC ]``
or ``ESC P`` up to a BEL or ``ESC \\`` (a string a terminal answers with), or ``ESC`` and one
character (Alt and that key). :class:`KeyReader` keeps each whole sequence together, so a key the
simulator does not map is one token it ignores, never a few characters that each mean a key
(``F5`` is not seat 5). A sequence cut at the end of one read waits for the next; an ``ESC`` that
nothing follows is the Escape key (:meth:`KeyReader.flush`).
"""

from __future__ import annotations

import codecs

ESC = "\x1b"
BEL = "\x07"
FLUSH_SECONDS = 0.05
"""How long an unfinished escape sequence waits for the rest before it is taken as it stands."""


def _csi_end(text: str, start: int) -> int | None:
    """The end (exclusive) of the CSI sequence whose parameters begin at ``start``; ``None``
    when ``text`` ends first. A character that cannot be in one ends it there (a broken one)."""
    for i in range(start, len(text)):
        code = ord(text[i])
        if 0x40 <= code <= 0x7E:  # the final byte
            return i + 1
        if not 0x20 <= code <= 0x3F:  # neither a parameter nor an intermediate: broken off here
            return i
    return None


def _string_end(text: str, start: int) -> int | None:
    """The end (exclusive) of an OSC or DCS string begun before ``start``: after its BEL or
    ``ESC \\``; ``None`` when ``text`` ends first."""
    for i in range(start, len(text)):
        if text[i] == BEL:
            return i + 1
        if text.startswith(ESC + "\\", i):
            return i + 2
    return None


def split_keys(text: str) -> tuple[list[str], str]:
    """The keys in ``text``, one token each, and what is left at its end: the start of an escape
    sequence that the next read will finish."""
    keys: list[str] = []
    i = 0
    while i < len(text):
        if text[i] != ESC:
            keys.append(text[i])
            i += 1
            continue
        if i + 1 >= len(text):
            return keys, text[i:]
        kind = text[i + 1]
        if kind == "[":
            end = _csi_end(text, i + 2)
        elif kind == "O":
            end = i + 3 if i + 2 < len(text) else None
        elif kind in "]P":
            end = _string_end(text, i + 2)
        else:  # Alt and a key (or ESC ESC: the first is the Escape key)
            end = i + 1 if kind == ESC else i + 2
        if end is None:
            return keys, text[i:]
        keys.append(text[i:end])
        i = end
    return keys, ""


class KeyReader:
    """Turns the bytes of successive reads into keys, keeping escape sequences whole (and UTF-8
    characters, should a read split one)."""

    def __init__(self) -> None:
        self._decoder = codecs.getincrementaldecoder("utf-8")("replace")
        self.pending = ""
        """The start of an escape sequence the last read ended in."""

    def feed(self, data: bytes | str) -> list[str]:
        """The keys that ``data`` completes (a ``str`` is taken as already decoded)."""
        text = data if isinstance(data, str) else self._decoder.decode(data)
        keys, self.pending = split_keys(self.pending + text)
        return keys

    def flush(self) -> list[str]:
        """What is pending, as the keys it stands for, once nothing more came
        (:data:`FLUSH_SECONDS`): a lone ``ESC`` is the Escape key, a cut sequence an unknown key."""
        pending, self.pending = self.pending, ""
        return [pending] if pending else []
