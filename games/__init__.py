"""The game engines: pure rules, no hardware, no clock.

``ENGINES`` maps a game id to the module that holds its engine class ``ENGINE``, in the order the
menus list them; modules load on first use so the device starts fast and a broken game cannot
stop the others. ``TITLES`` reads each engine's own ``title``.
"""

from __future__ import annotations

import importlib
import logging
from collections.abc import Iterator, Mapping

from games.core import Engine, Piece

log = logging.getLogger(__name__)

ENGINES: dict[str, str] = {
    "tonne": "games.tonne.engine",
    "bomb": "games.bomb.engine",
    "arschbombe": "games.arschbombe.engine",
    "antartik": "games.antartik.engine",
    "trottel": "games.trottel.engine",
}


class UnknownGame(KeyError):
    """A game id that is not playable here."""

    def __str__(self) -> str:
        return f"unknown game {self.args[0]!r} (known: {', '.join(sorted(ENGINES))})"


def get_engine(game: str) -> Engine:
    """The engine of ``game``; raises :class:`UnknownGame`."""
    if not isinstance(game, str) or game not in ENGINES:
        raise UnknownGame(game)
    return importlib.import_module(ENGINES[game]).ENGINE


def unit_of(game: object) -> str:
    """What ``game`` counts in its scores where a bare number would not say it
    (:attr:`Engine.unit`, a Text); ``""`` for the others and for an unknown game (a history
    entry is read, not trusted)."""
    try:
        return get_engine(game).unit  # type: ignore[arg-type]
    except UnknownGame:
        return ""


class _Titles(Mapping[str, str]):
    """Game id → the engine's ``title``, for every game of :data:`ENGINES` (loaded when read)."""

    def __getitem__(self, game: str) -> str:
        engine = get_engine(game)  # UnknownGame is a KeyError: ``TITLES.get`` works as for a dict
        return engine.title

    def __iter__(self) -> Iterator[str]:
        return iter(ENGINES)

    def __len__(self) -> int:
        return len(ENGINES)


TITLES: Mapping[str, str] = _Titles()
"""Every playable game's title, by id, in menu order."""


def scale_pieces() -> dict[str, Piece]:
    """Kind → piece, of every game that weighs its pieces: what the scale's calibration asks for."""
    pieces: dict[str, Piece] = {}
    for game in ENGINES:
        use = get_engine(game).scale
        if use is not None:
            pieces.update((p.kind, p) for p in use.pieces if p.kind not in pieces)
    return pieces


def scale_kinds() -> dict[str, str]:
    """Kind → label of the pieces to calibrate (:func:`scale_pieces`)."""
    return {kind: piece.label for kind, piece in scale_pieces().items()}
