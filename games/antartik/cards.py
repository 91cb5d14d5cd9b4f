"""Antartik's cards: codes, the default deck, and checking a deck given as an option.

A card is written as its number (1–10) plus optional letters in this order: ``R`` referee,
``P`` parachute, ``S`` two stars — ``7``, ``10R``, ``9P``, ``8S``. The code is the card's
identity everywhere (actions, summaries, screens). The deck holds one 1, two 2s … ten 10s.

Which 8s, 9s and 10s carry a bonus or a second star is not in the rulebook; :data:`DEFAULT_DECK`
is this project's assumption (see ``docs/antartik.md``), and the ``deck`` option replaces it.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from games.core import SetupError, T

CODE = re.compile(r"^(10|[1-9])(R?)(P?)(S?)$")
"""Number, then optional R (referee), P (parachute), S (two stars), in that order."""

DECK_SIZE = 55

BONUS_CARDS: dict[int, tuple[str, ...]] = {
    8: ("8R", "8P", "8S", "8S"),
    9: ("9R", "9P", "9P", "9S", "9S"),
    10: ("10R", "10R", "10P", "10S", "10S", "10S"),
}
"""The default deck's marked cards (an assumption); every other card is plain."""


def _default_deck() -> tuple[str, ...]:
    cards: list[str] = []
    for n in range(1, 11):
        marked = BONUS_CARDS.get(n, ())
        cards += [str(n)] * (n - len(marked)) + list(marked)
    return tuple(cards)


DEFAULT_DECK: tuple[str, ...] = _default_deck()
"""The 55 cards the project ships: 4 referees, 4 parachutes and 7 two-star cards, all among the 8–10s."""


def is_code(code: object) -> bool:
    """Whether ``code`` is a well-formed card code."""
    return isinstance(code, str) and CODE.match(code) is not None


def number(code: str) -> int:
    """The card's number (1–10)."""
    match = CODE.match(code)
    if match is None:
        raise ValueError(f"not a card: {code!r}")
    return int(match.group(1))


def marks(code: str) -> str:
    """The letters after the number (``""``, ``"R"``, ``"PS"``…)."""
    return code[len(str(number(code))) :]


def is_referee(code: str) -> bool:
    """Whether the card carries the referee bonus."""
    return "R" in marks(code)


def is_parachute(code: str) -> bool:
    """Whether the card carries the parachute bonus."""
    return "P" in marks(code)


def face_up_points(code: str) -> int:
    """Points of the card face up: 1, or 2 with two stars."""
    return 2 if "S" in marks(code) else 1


FACE_DOWN_POINTS = 3
"""Every face-down card (a won bet) is worth 3 points."""


def by_number(codes: list[str] | tuple[str, ...]) -> list[str]:
    """The distinct codes of ``codes``, by number then marks (for menus)."""
    return sorted(set(codes), key=lambda c: (number(c), marks(c)))


def check_deck(deck: Any) -> list[str]:
    """A ``deck`` option checked: 55 codes, one 1, two 2s … ten 10s; else :class:`SetupError`."""
    if not isinstance(deck, list):
        raise SetupError(T("option 'deck' must be a list of 55 card codes"))
    if len(deck) != DECK_SIZE:
        raise SetupError(T("option 'deck' has {count} cards, not {size}", count=len(deck), size=DECK_SIZE))
    for i, code in enumerate(deck):
        if not is_code(code):
            raise SetupError(
                T(
                    "option 'deck': card {index} is {code}, not a card code"
                    " (1-10, then optional R, P, S in that order)",
                    index=i,
                    code=repr(code),
                )
            )
    counts = Counter(number(c) for c in deck)
    for n in range(1, 11):
        if counts[n] != n:
            raise SetupError(T("option 'deck' has {count} card(s) numbered {n}, not {n}", count=counts[n], n=n))

    return list(deck)
