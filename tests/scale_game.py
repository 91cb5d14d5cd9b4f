"""A tiny game that weighs its pieces, for proving the scale service serves any such engine.

Players take turns dropping ``EACH`` blocks on the scale (a button can say so too); the scale's
settled steps become ``{"type": "drop", "n": N}``. Falls mean nothing in this game. Score: the
blocks each player dropped.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from games.core import BaseState, Engine, Menu, Option, Piece, Rng, ScaleNow, ScaleUse, View, get_field, need

EACH = 3
BLOCK_GRAMS = 10.0


@dataclass
class WeighState(BaseState):
    turn: int = 0
    dropped: dict[str, int] = field(default_factory=dict)


class Weigh(Engine[WeighState]):
    id = "weigh"
    title = "Weigh"
    min_players = 2
    max_players = 4
    scale = ScaleUse((Piece("block", "wooden block", BLOCK_GRAMS),), place={"type": "drop"}, count_key="n", fall=None)

    def setup(self, players: list[str], rng: Rng, options: dict[str, Any]) -> WeighState:
        return WeighState(players, rng, options, dropped={p: 0 for p in players})

    def _current(self, s: WeighState) -> str | None:
        return None if s.over else s.players[s.turn]

    def _owed(self, s: WeighState) -> int:
        player = self._current(s)
        return EACH - s.dropped[player] if player else 0

    def move_drop(self, s: WeighState, action: dict, effects: list) -> None:
        n = get_field(action, "n", int)
        need(1 <= n <= self._owed(s), f"{self._current(s)} owes {self._owed(s)}")
        s.dropped[s.players[s.turn]] += n
        if self._owed(s) == 0:
            s.turn += 1
            s.over = s.turn == len(s.players)

    def scale_now(self, s: WeighState) -> ScaleNow | None:
        return ScaleNow(self._current(s), self._owed(s))

    def scores(self, s: WeighState) -> dict[str, int]:
        return dict(s.dropped)

    def winners(self, s: WeighState) -> list[str]:
        return list(s.players)

    def turn(self, s: WeighState) -> str | None:
        return self._current(s)

    def details(self, s: WeighState) -> dict[str, Any]:
        return {"dropped": dict(s.dropped)}

    def prompt(self, s: WeighState) -> Menu | None:
        player = self._current(s)
        if player is None:
            return None
        return Menu(
            f"{player}: {self._owed(s)} to drop", (Option("Dropped 1", action={"type": "drop", "n": 1}),), player
        )

    def view(self, s: WeighState) -> View:
        scores = tuple((p, str(n)) for p, n in s.dropped.items())
        return View("Weigh", scores, (), (self._current(s),) if self._current(s) else ())


ENGINE = Weigh()
