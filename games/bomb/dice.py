"""Bomb's dice as data: a face is a count of ``bomb``, ``fuse`` and ``card`` marks.

The rulebook's die faces were lost with its symbols, so the project ships a default white (bomb)
die and a red die that are **assumptions** (``docs/bomb.md``); an owner replaces them with the
faces of their own edition through the game options ``white`` and ``red`` (or ``[games.bomb]`` in
the device's configuration). Faces are plain dicts so they travel in JSON as the contract writes
them: ``{"bomb": 1}``, ``{"fuse": 1, "card": 1}``, ``{}``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from games.core import Rng, T, Text, join

MARKS = ("bomb", "fuse", "card")
LETTERS = {"bomb": T("b"), "fuse": T("f"), "card": T("c")}
"""The letter a mark is written with on screen (``bf``: a bomb and a fuse), in the players' language."""
SIDES = 6
MAX_MARKS = 9
"""The most marks of one kind a face may carry (a sanity bound on options and entered faces)."""

Face = dict[str, int]

DEFAULT_WHITE: tuple[Face, ...] = ({"bomb": 1}, {"bomb": 2}, {"fuse": 1}, {"fuse": 2}, {"card": 1}, {})
"""Assumed white die: one and two bombs, one and two fuses, one card mark, a blank."""
DEFAULT_RED: tuple[Face, ...] = (
    {"bomb": 1},
    {"bomb": 2},
    {"fuse": 1},
    {"fuse": 2},
    {"card": 2},
    {"bomb": 1, "fuse": 1},
)
"""Assumed red die: harsher than white (a face that explodes on its own) but with two card marks."""


class FaceError(ValueError):
    """A face or a die that is not mark counts; ``str()`` says what is wrong (a Text)."""

    def __str__(self) -> str:
        return self.args[0] if len(self.args) == 1 and isinstance(self.args[0], str) else super().__str__()


def check_face(face: Any, where: Text) -> Face:
    """``face`` checked to be an object of mark counts; returns it with zero counts dropped."""
    if not isinstance(face, Mapping):
        raise FaceError(
            T("{where} must be an object of mark counts like {example}", where=where, example='{"bomb": 1}')
        )
    out: Face = {}
    for mark, count in face.items():
        if mark not in MARKS:
            raise FaceError(
                T("{where}: unknown mark {mark!r} (marks: {marks})", where=where, mark=mark, marks=join(MARKS))
            )
        if isinstance(count, bool) or not isinstance(count, int) or not 0 <= count <= MAX_MARKS:
            wrong = T(
                "{where}: {mark!r} must be a whole number 0-{most}, not {count!r}",
                where=where,
                mark=mark,
                most=MAX_MARKS,
                count=count,
            )
            raise FaceError(wrong)
        if count:
            out[mark] = count
    return out


def check_die(faces: Any, name: str) -> tuple[Face, ...]:
    """A die given as a list of exactly six faces."""
    if not isinstance(faces, Sequence) or isinstance(faces, str | bytes) or len(faces) != SIDES:
        raise FaceError(T("option {name!r} must be a list of {sides} faces", name=name, sides=SIDES))
    return tuple(check_face(face, T("option {name!r} face {n}", name=name, n=i + 1)) for i, face in enumerate(faces))


def totals(faces: Sequence[Mapping[str, int]]) -> dict[str, int]:
    """Marks of each kind over all ``faces``."""
    return {mark: sum(face.get(mark, 0) for face in faces) for mark in MARKS}


def roll(rng: Rng, dice: Sequence[Sequence[Face]]) -> list[Face]:
    """One seeded face of each die, in the order given."""
    return [dict(rng.choice(list(die))) for die in dice]


def most(die: Sequence[Mapping[str, int]], mark: str) -> int:
    """The most marks of ``mark`` any face of ``die`` shows."""
    return max(face.get(mark, 0) for face in die)


def spread(dice: int, bombs: int, fuses: int, cards: int) -> list[Face]:
    """Faces for ``dice`` dice that show these totals (physical dice entered as totals).

    Marks are dealt one per die in turn (bombs, then fuses, then cards), so a die gets a second
    mark only when there are more marks than dice.
    """
    faces: list[Face] = [{} for _ in range(dice)]
    i = 0
    for mark, count in zip(MARKS, (bombs, fuses, cards), strict=True):
        for _ in range(count):
            face = faces[i % dice]
            face[mark] = face.get(mark, 0) + 1
            i += 1
    return faces


def face_text(face: Mapping[str, int]) -> str:
    """A face in a few letters: ``b`` per bomb, ``f`` per fuse, ``c`` per card, ``-`` for none
    (a Text: the letters are the players' language's)."""
    letters = [LETTERS[mark] for mark in MARKS for _ in range(face.get(mark, 0))]
    return join(letters, "") if letters else "-"
