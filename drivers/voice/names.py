"""Names said as names: the table's spellings turned into what the engine should read.

A player's name is said as written unless the table gave it a *say-as* spelling ("Siobhan" said
as "Shivawn", "Jörg" in an English voice as "Yurg"). Either way it is made fit to be said as a name
(:func:`as_name`): an all-capital word of three letters or more is read as a word, not spelt
("MAX" → "Max"; eSpeak NG spells capitals; two, "JC", stay initials); a full stop, question or
exclamation mark inside a name would end the sentence and becomes a space ("Dr. Who" → "Dr Who");
emoji and other symbols are left out ("Bob 🍺" → "Bob"), unless nothing else is left.

Only the data model lives here: where the spellings are set (the config's table, the companion
page) and which voice says them is the voice part's business. Spellings are keyed on the name,
case-insensitively, so one follows its player from seat to seat.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass, field

MAX_SAY_AS = 60
"""The longest say-as spelling (characters)."""

_BREAKS = str.maketrans({c: " " for c in ".!?;:"})


def _dropped(c: str) -> bool:
    """Emoji, their joiners, selectors and skin tones, and other symbols a voice would describe."""
    return unicodedata.category(c) in ("So", "Sk", "Cf", "Co") or "\ufe00" <= c <= "\ufe0f"


def _word(word: str) -> str:
    letters = [c for c in word if c.isalpha()]
    if len(letters) > 2 and all(c.isupper() for c in letters):
        return "-".join(part[:1] + part[1:].lower() for part in word.split("-"))
    return word


def as_name(text: str) -> str:
    """``text`` as the engine should read a name (see the module's docstring)."""
    kept = "".join(c for c in text if not _dropped(c)).translate(_BREAKS)
    words = [_word(w) for w in kept.split()]
    return " ".join(words) if words else " ".join(text.split())


def check_say_as(value: object) -> str:
    """A say-as spelling, stripped: 1 to :data:`MAX_SAY_AS` printable characters with a letter
    among them (``ValueError`` saying what is expected otherwise)."""
    if not isinstance(value, str):
        raise ValueError("a spelling as text")
    text = " ".join(value.split())
    if not 1 <= len(text) <= MAX_SAY_AS or not all(c.isprintable() for c in text):
        raise ValueError(f"a spelling of 1 to {MAX_SAY_AS} printable characters")
    if not any(c.isalpha() for c in text):
        raise ValueError("a spelling with letters in it")
    return text


def _key(name: str) -> str:
    return " ".join(name.split()).casefold()


@dataclass(frozen=True)
class Pronunciations:
    """Say-as spellings by player name."""

    say_as: Mapping[str, str] = field(default_factory=dict)
    """Name (as shown) → spelling (as said)."""

    def __post_init__(self) -> None:
        checked: dict[str, str] = {}
        for name, spelling in dict(self.say_as).items():
            if not isinstance(name, str) or not name.strip():
                raise ValueError(f"a say-as spelling needs a name, not {name!r}")
            if _key(name) in {_key(n) for n in checked}:
                raise ValueError(f"two say-as spellings for {name!r}")
            checked[" ".join(name.split())] = check_say_as(spelling)
        object.__setattr__(self, "say_as", checked)

    def spelling(self, name: str) -> str | None:
        """The say-as spelling of ``name``, if the table gave one."""
        key = _key(name)
        return next((s for n, s in self.say_as.items() if _key(n) == key), None)

    def spoken(self, name: str) -> str:
        """What the voice says for ``name``: its say-as spelling or the name, fit to be said."""
        return as_name(self.spelling(name) or name)

    def with_spelling(self, name: str, spelling: str | None) -> Pronunciations:
        """A copy where ``name`` is said as ``spelling`` (``None``: as written)."""
        kept = {n: s for n, s in self.say_as.items() if _key(n) != _key(name)}
        if spelling is not None:
            kept[name] = spelling
        return Pronunciations(kept)
