"""The game engines: pure rules, no hardware, no clock.

``ENGINES`` maps a game id to the module that holds its engine class ``ENGINE``; modules load on
first use so the device starts fast and a broken game cannot stop the others.
"""

from __future__ import annotations

import importlib

from games.core import Engine

ENGINES: dict[str, str] = {
    "arschbombe": "games.arschbombe.engine",
    "bomb": "games.bomb.engine",
    "trottel": "games.trottel.engine",
    "antartik": "games.antartik.engine",
    "tonne": "games.tonne.engine",
}

TITLES: dict[str, str] = {
    "tonne": "Ab in die Tonne",
    "bomb": "Bomb",
    "arschbombe": "Arschbombe",
    "antartik": "Antartik",
    "trottel": "Trottelmuetze",
}
"""Every game of the product, by id; the ones in ``ENGINES`` are playable."""


class UnknownGame(KeyError):
    """A game id that is not playable here."""

    def __str__(self) -> str:
        game = self.args[0]
        if game in TITLES:
            return f"game {game!r} is not available yet (playable: {', '.join(sorted(ENGINES))})"
        return f"unknown game {game!r} (known: {', '.join(sorted(TITLES))})"


def get_engine(game: str) -> Engine:
    """The engine of ``game``; raises :class:`UnknownGame`."""
    if not isinstance(game, str) or game not in ENGINES:
        raise UnknownGame(game)
    return importlib.import_module(ENGINES[game]).ENGINE
