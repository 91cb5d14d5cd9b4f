"""Trottelmütze said aloud: every drink, who drinks what and why, in sentences.

The panel's line is ``Ann/Ben 2B+S | Ann 3+3 Bier, meet``: who drinks, then why, in short. The
ear hears the why first, then the drinks, every short word said whole ("Ann rolls three and three
to the Bier field. A meeting. Ann and Ben drink two beers and a shot.")."""

from __future__ import annotations

import re
from collections.abc import Callable

from games.core import T, Text, join
from games.trottel.board import KINDS, SHORT

_ROLL = re.compile(r"^(?P<player>.+) (?P<a>[1-6])\+(?P<b>[1-6])$")
_FIELDS = {text.msgid: kind for kind, text in SHORT.items()}
"""A short field name's msgid → the field's kind."""


def _field(short: Text) -> Text:
    """A field said by its whole name (``WaA`` → ``Willkommen am Arsch``)."""
    kind = _FIELDS.get(short.msgid)
    if kind == "waa":
        return T("Willkommen am Arsch")
    if kind in ("bier", "kurzer"):
        return SHORT[kind]
    return KINDS[kind] if kind is not None else short


def _how(how: object) -> Text | object:
    """``Ann 3+4`` (a roll, written plain on the panel) → "Ann rolls three and four"."""
    match = _ROLL.match(how) if isinstance(how, str) and not isinstance(how, Text) else None
    if match is None:
        return how
    return T("{player} rolls {a} and {b}", player=match["player"], a=int(match["a"]), b=int(match["b"]))


def _count(n: str, one: Text, many: Callable[[str], Text]) -> Text:
    return one if n in ("", "1") else many(n)


def _names(text: object) -> int:
    """How many players a panel list of names (``Ann/Ben``) holds."""
    return len(text.values) if isinstance(text, Text) and text.msgid.startswith("{p0}") else 1


def _pair(t: Text) -> Text:
    """The panel's ``X Y`` pairs: a move onto a field (``Ann 3+4 Bier``) or who drinks what
    (``Ann/Ben 2B``)."""
    first, second = t.values["p0"], t.values["p1"]
    if isinstance(second, Text) and second.msgid in _FIELDS:
        return T("{how} to the {field} field", how=_how(first), field=_field(second))
    if isinstance(second, str) and not isinstance(second, Text) and second.startswith("+"):
        second = T("{n} drinks", n=second[1:])
    if _names(first) > 1:
        return T("{players} drink {drinks}", players=first, drinks=second)
    return T("{player} drinks {drinks}", player=first, drinks=second)


EAR: dict[str, Callable[[Text], Text]] = {
    "{p0} | {p1}": lambda t: join([t.values["p1"], t.values["p0"]], " | "),
    "{p0} {p1}": _pair,
    "{n}B": lambda t: _count(t.values["n"], T("a beer"), lambda n: T("{n} beers", n=n)),
    "{n}S": lambda t: _count(t.values["n"], T("a shot"), lambda n: T("{n} shots", n=n)),
    "{n}W": lambda t: _count(t.values["n"], T("a water"), lambda n: T("{n} waters", n=n)),
    "all {drinks}": lambda t: T("Everyone drinks {drinks}", drinks=t.values["drinks"]),
    "Tisch+{drinks}": lambda t: T("{drinks} onto the Stehtisch", drinks=t.values["drinks"]),
    "meet": lambda t: T("a meeting: a beer each"),
    "read a WaA card": lambda t: T("read a Willkommen am Arsch card"),
    "{player} taxi": lambda t: T("{player} takes the taxi", player=t.values["player"]),
    "cap {player}": lambda t: T("{player} gets the cap", player=t.values["player"]),
    "card": lambda t: T("a card"),
    "{player} to WC": lambda t: T("{player} goes to the toilet", player=t.values["player"]),
    "{player} to WC, cap on return": lambda t: T(
        "{player} goes to the toilet and gets the cap on return", player=t.values["player"]
    ),
    "{player} back": lambda t: T("{player} is back", player=t.values["player"]),
    "{player} back: cap": lambda t: T("{player} is back and gets the cap", player=t.values["player"]),
    "{player} skipped": lambda t: T("{player} is skipped", player=t.values["player"]),
    "{players} skipped": lambda t: (
        T("{players} are skipped and drink a beer each", players=t.values["players"])
        if _names(t.values["players"]) > 1
        else T("{players} is skipped and drinks a beer", players=t.values["players"])
    ),
    "{player} penalty": lambda t: T("{player} takes a penalty shot", player=t.values["player"]),
    "may pee": lambda t: T("and may go to the toilet"),
    "{player} may pee": lambda t: T("{player} may go to the toilet", player=t.values["player"]),
    "{player} casino {a}+{b}": lambda t: T(
        "{player} plays the Spielothek and rolls {a} and {b}",
        player=t.values["player"],
        a=t.values["a"],
        b=t.values["b"],
    ),
    "Cap roll: {player} lowest ({total})": lambda t: T(
        "Cap roll: {player} rolls lowest with {total}",
        player=t.values["player"],
        total=t.values["total"],
    ),
    "Cap roll: {players} tie ({total})": lambda t: T(
        "Cap roll: {players} tie with {total} and roll again", players=t.values["players"], total=t.values["total"]
    ),
}
"""The panel's short words and lines, said whole."""
