"""A tiny game for testing the generic input layer: a secret reveal, a tie order, a menu.

Round: every player picks a number 1..3 in secret (Collect, hidden); equal numbers are put in
order by pressing buttons (Order); then each player in turn picks "keep" or "double" (Menu). The
game ends after ``rounds`` rounds; score = sum of kept or doubled numbers.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from games.core import BaseState, Collect, Engine, Menu, Option, Order, Rng, View, get_field, need, signal


@dataclass
class ProbeState(BaseState):
    round: int = 1
    picks: dict[str, int] = field(default_factory=dict)
    queue: list[str] = field(default_factory=list)
    need_order: bool = False
    score: dict[str, int] = field(default_factory=dict)


class Probe(Engine[ProbeState]):
    id = "probe"
    title = "Probe"
    min_players = 2
    max_players = 6
    option_keys = frozenset({"rounds"})

    def setup(self, players: list[str], rng: Rng, options: dict[str, Any]) -> ProbeState:
        return ProbeState(players, rng, options, score={p: 0 for p in players})

    def move_reveal(self, s: ProbeState, action: dict, effects: list) -> None:
        need(not s.picks, "not revealing now")
        cards = get_field(action, "cards", dict)
        need(set(cards) == set(s.players), "every player reveals")
        need(all(v in (1, 2, 3) for v in cards.values()), "cards are 1..3")
        s.picks = dict(cards)
        s.queue = sorted(s.players, key=lambda p: s.picks[p])
        s.need_order = len(set(cards.values())) < len(cards)

    def move_order(self, s: ProbeState, action: dict, effects: list) -> None:
        need(s.need_order, "no tie to settle")
        s.queue = list(get_field(action, "players", list))
        s.need_order = False

    def move_take(self, s: ProbeState, action: dict, effects: list) -> None:
        need(s.picks and not s.need_order and s.queue, "not taking now")
        player = s.queue.pop(0)
        factor = 2 if get_field(action, "double", bool, False) else 1
        s.score[player] += factor * s.picks[player]
        effects.append(signal("success"))
        if not s.queue:
            s.picks = {}
            if s.round >= s.options.get("rounds", 1):
                s.over = True
            else:
                s.round += 1

    def scores(self, s: ProbeState) -> dict[str, int]:
        return dict(s.score)

    def winners(self, s: ProbeState) -> list[str]:
        best = max(s.score.values())
        return [p for p in s.players if s.score[p] == best]

    def turn(self, s: ProbeState) -> str | None:
        return s.queue[0] if s.picks and not s.need_order else None

    def details(self, s: ProbeState) -> dict[str, Any]:
        return {"round": s.round}

    def prompt(self, s: ProbeState):
        if s.over:
            return None
        if not s.picks:
            values = {p: ("1", "2", "3") for p in s.players}
            return Collect(
                "Pick 1-3",
                tuple(s.players),
                values,
                hidden=True,
                build=lambda a: {"type": "reveal", "cards": {p: int(v) for p, v in a.items()}},
            )
        if s.need_order:
            return Order("Tie: press in order", tuple(s.players), lambda o: {"type": "order", "players": o})
        p = s.queue[0]
        return Menu(
            f"{p}: take", (Option("Keep", {"type": "take"}), Option("Double", {"type": "take", "double": True})), p
        )

    def view(self, s: ProbeState) -> View:
        mood = "choosing" if not s.picks else "playing"
        return View(self.title, tuple((p, str(s.score[p])) for p in s.players), (f"Round {s.round}",), (), mood)


ENGINE = Probe()
