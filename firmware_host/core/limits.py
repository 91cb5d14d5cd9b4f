"""Bounds on what comes in from outside: names, files, JSON trees, and how errors quote them.

Every input the device or the command line reads (a replay SCRIPT, a ``sim --script`` file, the
config file, a name on the buttons) is checked against these bounds before anything uses it, so
that no input reaches a traceback and none takes long enough to stall the loop: the screen's text
fitting grows faster than linearly with the length of a word, and a name shows on every frame.

The bounds are generous for play and small for a 128×64 screen:

- a player name: 1 to :data:`MAX_NAME_CHARS` characters, printable, no line breaks;
- a sim script or config file: at most :data:`MAX_FILE_BYTES`;
- a SCRIPT (``tablemate replay``): at most :data:`MAX_SCRIPT_BYTES` holding at most
  :data:`MAX_SCRIPT_VALUES` JSON values (counted before it is parsed);
- a line of a sim script: at most :data:`MAX_LINE_CHARS` characters;
- JSON (a SCRIPT, an ``action`` line, game options): nested at most :data:`MAX_DEPTH` deep,
  integers of at most :data:`MAX_INT_DIGITS` digits, strings that are text (no lone surrogates).

:func:`quote` puts user text into a one-line error: control characters escaped, long text cut.
"""

from __future__ import annotations

import unicodedata
from pathlib import Path
from typing import Any

MAX_NAME_CHARS = 20
"""The longest player name: a whole name still fits a row of the screen beside a score."""
MAX_FILE_BYTES = 1_000_000
"""The largest sim script or config file read: both are written by hand (a config is about 2 KB,
the longest sim script of the tests a few KB)."""
MAX_SCRIPT_BYTES = 16_000_000
"""The largest SCRIPT read. ``tablemate state`` prints the whole game in play as one, and a game is
as long as the table plays it: a Trottelmütze evening of 10,000 actions is 270 KB, and the bound is
for an evening and far beyond — 100,000 actions of the longest games (27 bytes an action with four
players, 110 with twenty-letter names of four-byte characters: 11 MB)."""
MAX_SCRIPT_VALUES = 1_000_000
"""The most JSON values a SCRIPT may hold, counted before it is parsed (every ``{``, ``[``, ``,`` and
``:`` in it, an upper bound of its values). Bytes alone do not bound the memory a parse takes:
parsed JSON takes up to 30 times its bytes (``[[],[],…]``: an empty list of 56 bytes for every three),
so 16 MB of it would need nearly 500 MB, more than a Zero 2 W has beside the device; a value takes at
most about 80 bytes (``{"a":"bc"}``), so a million of them about 80 MB. 100,000 actions of the
longest games need 500,000 (Trottelmütze: 5 an action, Antartik 3; parsed, 30 MB)."""
MAX_LINE_CHARS = 4096
"""The longest line of a sim script."""
MAX_DEPTH = 32
"""How deeply JSON may nest (a SCRIPT needs 4 levels; game options a few more)."""
MAX_INT_DIGITS = 30
"""The longest integer in JSON input: seeds, counts and dice need far fewer digits."""
QUOTE_CHARS = 40
"""How much of a user's text an error line quotes."""


class InputError(ValueError):
    """Input out of bounds; the message is one line."""


def quote(text: Any, limit: int = QUOTE_CHARS) -> str:
    """``text`` in quotes for a one-line message: line breaks, control characters and lone
    surrogates escaped, cut to ``limit`` characters with ``…``."""
    return "'" + one_line(text if isinstance(text, str) else repr(text), limit) + "'"


def one_line(text: str, limit: int = 400) -> str:
    """``text`` as one printable line (line breaks and lone surrogates escaped), cut at ``limit``."""
    out = []
    for ch in text[: limit + 1]:
        if ch in "\r\n\t" or _surrogate(ch) or (not ch.isprintable() and ch != " "):
            out.append(ch.encode("unicode_escape", "backslashreplace").decode("ascii"))
        else:
            out.append(ch)
    shown = "".join(out)
    return shown[:limit] + "…" if len(text) > limit else shown


def _surrogate(ch: str) -> bool:
    return 0xD800 <= ord(ch) <= 0xDFFF


def check_name(name: Any) -> str:
    """A player name, stripped; :class:`InputError` says what is wrong with it."""
    if not isinstance(name, str) or not name.strip():
        raise InputError("a player name must be a non-empty string")
    name = name.strip()
    if len(name) > MAX_NAME_CHARS:
        raise InputError(f"player name {quote(name, MAX_NAME_CHARS)} is longer than {MAX_NAME_CHARS} characters")
    for ch in name:
        if _surrogate(ch) or unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp", "Co", "Cn"):
            raise InputError(f"player name {quote(name)} holds a character that is not printable text")
    return name


def read_text(path: Path, what: str = "file", limit: int = MAX_FILE_BYTES) -> str:
    """A UTF-8 file of at most ``limit`` bytes; ``OSError``/``UnicodeDecodeError`` pass through,
    :class:`InputError` for a file too large."""
    with open(path, "rb") as fh:
        data = fh.read(limit + 1)
    if len(data) > limit:
        raise InputError(f"{what} is larger than {limit:,} bytes")
    return data.decode("utf-8")


def check_values(text: str, limit: int = MAX_SCRIPT_VALUES) -> None:
    """:class:`InputError` when the JSON ``text`` may hold more than ``limit`` values (see
    :data:`MAX_SCRIPT_VALUES`): checked before it is parsed."""
    count = 1 + sum(text.count(mark) for mark in "{[,:")
    if count > limit:
        raise InputError(f"more than {limit:,} JSON values")


def check_tree(data: Any) -> None:
    """Check parsed JSON (or TOML) against the bounds; :class:`InputError` names the first problem.

    Walks without recursion, so a tree too deep to walk recursively is still reported.
    """
    stack: list[tuple[Any, int]] = [(data, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, dict | list):
            if depth > MAX_DEPTH:
                raise InputError(f"nested more than {MAX_DEPTH} levels deep")
            items = list(value.items()) if isinstance(value, dict) else [(None, v) for v in value]
            for key, item in items:
                if key is not None:
                    _check_string(key)
                stack.append((item, depth + 1))
        elif isinstance(value, str):
            _check_string(value)
        elif isinstance(value, int) and value.bit_length() > MAX_INT_DIGITS * 3.33:  # ~ decimal digits
            raise InputError(f"an integer longer than {MAX_INT_DIGITS} digits")


def _check_string(text: str) -> None:
    if any(_surrogate(ch) for ch in text):
        raise InputError(f"the string {quote(text)} holds a lone surrogate (not text)")


def _unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object from its pairs; :class:`InputError` when it names a key twice."""
    data: dict[str, Any] = {}
    for key, value in pairs:
        if key in data:
            raise InputError(f"the key {quote(key)} is given twice")
        data[key] = value
    return data


def parse_json(text: str, unique_keys: bool = False) -> Any:
    """``json.loads`` within the bounds: :class:`InputError` for nesting, long integers or
    surrogates (``unique_keys``: or an object naming a key twice, which JSON leaves open and
    Python reads as the last one); ``json.JSONDecodeError`` (a ``ValueError``) for text that is
    not JSON."""
    import json

    try:
        data = json.loads(text, object_pairs_hook=_unique if unique_keys else None)
    except RecursionError:
        raise InputError(f"nested more than {MAX_DEPTH} levels deep") from None
    except (json.JSONDecodeError, InputError):
        raise
    except ValueError:  # an integer past Python's int/str conversion limit
        raise InputError(f"an integer longer than {MAX_INT_DIGITS} digits") from None
    check_tree(data)
    return data
