"""The players' language: every word a screen shows comes through :func:`_` from one catalogue.

The catalogues are GNU gettext ``.po`` files, one per language: the host's words beside this
module (``locale/en.po``, ``locale/de.po``) and each game's own words beside its engine
(``games/<id>/locale/de.po``), so a new game brings its words with its rules. A language's
catalogue is all of its files together; the msgid is the English text. They are read with the
standard library only: :func:`parse_po` reads a ``.po`` file, :func:`compile_mo` turns it into the
binary ``.mo`` form in memory, and :class:`gettext.GNUTranslations` serves it. So the ``.po``
file is the one source — nothing generated is committed and there is no build step — and
lookups behave as gettext's do (a missing entry shows the English msgid, never a crash).

The language in force is process-wide (one table, one panel): :func:`set_language` changes it at
once, the next frame is drawn in it. Engines never translate: they return data
(:class:`games.core.text.Text`: a msgid and its values), and what they say stays the same in
every language (``tablemate replay`` does not depend on it). Screens hand such data to :func:`tr`
when they lay it out; their own words go through :func:`_`.

A lookup the catalogue cannot answer shows the English text and is reported to whoever
:func:`watch_misses` (the German frame tests fail on it).
"""

from __future__ import annotations

import ast
import gettext
import io
import struct
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache
from pathlib import Path
from typing import Any

import games
from games.core.text import Joined, Text

LOCALE_DIR = Path(__file__).with_name("locale")
GAMES_DIR = Path(games.__file__).parent
LANGUAGES = ("en", "de")
"""The languages a catalogue exists for (the config file's ``[display] language``)."""
NAMES = {"en": "English", "de": "Deutsch"}
"""Each language in its own words (the settings menu shows these untranslated)."""

_language = "en"


def parse_po(text: str) -> dict[str, str]:
    """msgid → msgstr of a ``.po`` file (the header entry, msgid ``""``, included).

    Handles what our catalogues use: ``#`` comments, ``msgid``/``msgstr`` with strings continued
    on following lines, and the C escapes of ``.po`` strings. Plural forms and contexts are not
    used by tablemate and are refused, so a catalogue cannot silently lose them.
    """
    entries: dict[str, str] = {}
    field: str | None = None
    parts: dict[str, list[str]] = {}

    def flush() -> None:
        if "msgid" in parts:
            if "msgstr" not in parts:
                raise ValueError(f"msgid {''.join(parts['msgid'])!r} has no msgstr")
            entries["".join(parts["msgid"])] = "".join(parts["msgstr"])
        parts.clear()

    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith('"'):
            if field is None:
                raise ValueError(f"line {number}: a string continues nothing")
            parts[field].append(_string(line, number))
            continue
        keyword, _, rest = line.partition(" ")
        if keyword not in ("msgid", "msgstr"):
            raise ValueError(f"line {number}: {keyword} is not supported here")
        if keyword == "msgid":
            flush()
        field = keyword
        parts[field] = [_string(rest.strip(), number)]
    flush()
    return entries


def _string(token: str, number: int) -> str:
    if len(token) < 2 or not (token.startswith('"') and token.endswith('"')):
        raise ValueError(f"line {number}: expected a quoted string, got {token!r}")
    inner = token[1:-1]
    if "\\" not in inner and '"' not in inner:
        return inner  # most strings: nothing to unescape (literal_eval compiles each: slow on a Pi)
    return ast.literal_eval(token)  # the .po escapes (\n, \", \\, \t) are Python's


def compile_mo(entries: dict[str, str]) -> bytes:
    """The GNU ``.mo`` form of ``entries`` (what ``msgfmt`` writes; untranslated entries left out)."""
    pairs = sorted((k.encode(), v.encode()) for k, v in entries.items() if v)
    ids = b"".join(k + b"\0" for k, _ in pairs)
    strs = b"".join(v + b"\0" for _, v in pairs)
    count = len(pairs)
    start = 7 * 4 + 16 * count  # header, then the two tables of (length, offset)
    table_ids, table_strs, offset_id, offset_str = [], [], start, start + len(ids)
    for k, v in pairs:
        table_ids += [len(k), offset_id]
        table_strs += [len(v), offset_str]
        offset_id += len(k) + 1
        offset_str += len(v) + 1
    header = struct.pack("Iiiiiii", 0x950412DE, 0, count, 7 * 4, 7 * 4 + 8 * count, 0, 0)
    return header + struct.pack(f"{2 * count}i", *table_ids) + struct.pack(f"{2 * count}i", *table_strs) + ids + strs


def po_files(language: str) -> list[Path]:
    """``language``'s catalogue files: the host's, then each game's that has one."""
    return [LOCALE_DIR / f"{language}.po", *sorted(GAMES_DIR.glob(f"*/locale/{language}.po"))]


def _entries(language: str) -> dict[str, str]:
    entries: dict[str, str] = {}
    for path in po_files(language):
        try:
            found = parse_po(path.read_text(encoding="utf-8"))
        except ValueError as e:
            raise ValueError(f"{path.name} of {path.parent.parent.name}: {e}") from None
        header = found.pop("", None)
        entries.update(found)
        entries.setdefault("", header or "")
    return entries


def catalogue(language: str) -> dict[str, str]:
    """The entries of ``language``'s ``.po`` files together (header left out)."""
    entries = _entries(language)
    entries.pop("", None)
    return entries


@cache
def translations(language: str) -> gettext.NullTranslations:
    """``language``'s catalogue as gettext serves it."""
    if language not in LANGUAGES:
        raise ValueError(f"no catalogue for language {language!r} (known: {', '.join(LANGUAGES)})")
    return gettext.GNUTranslations(io.BytesIO(compile_mo(_entries(language))))


def set_language(language: str) -> None:
    """Speak ``language`` from now on (``"en"`` or ``"de"``)."""
    global _language
    translations(language)  # fails here, not at the next lookup
    _language = language


def language() -> str:
    """The language in force."""
    return _language


_miss_watchers: list[set[str]] = []


@contextmanager
def watch_misses() -> Iterator[set[str]]:
    """Collect every msgid looked up while the block runs that the catalogue in force lacks."""
    found: set[str] = set()
    _miss_watchers.append(found)
    try:
        yield found
    finally:
        _miss_watchers.remove(found)


_SENTINEL = "\0missing\0"


def _(message: str) -> str:
    """``message`` (English, a msgid of the catalogues) in the language in force."""
    served = translations(_language)
    catalog = served._catalog  # type: ignore[attr-defined]
    if _miss_watchers and message and _language != "en" and catalog.get(message, _SENTINEL) is _SENTINEL:
        for found in _miss_watchers:
            found.add(message)
    return served.gettext(message)


def tr(text: Any) -> str:
    """``text`` as the players read it: a :class:`~games.core.text.Text` (what engines say) is
    looked up and filled, its values translated first; any other string (a name, a number, a
    sentence already translated) is shown as it is."""
    if not isinstance(text, Text):
        return text if isinstance(text, str) else str(text)
    values = {k: tr(v) if isinstance(v, str) else v for k, v in text.values.items()}
    pattern = text.msgid if isinstance(text, Joined) else _(text.msgid)
    try:
        return pattern.format(**values) if values else pattern
    except (KeyError, IndexError, ValueError):  # a translation that names a field wrongly
        return text.msgid.format(**values) if values else text.msgid


t = _
"""The same lookup under a name that reads well where ``_`` is taken."""


def N_(message: str) -> str:
    """Mark ``message`` for the catalogues without translating it yet (labels kept as data)."""
    return message
