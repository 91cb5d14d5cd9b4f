"""A tiny test-only game that gives running out of time a consequence (``timeout_action``).

Players take turns (``move``: +1 point). With the option ``phase``, every full round of turns is
followed by a simultaneous choice: every player picks ``0``..``2`` at once (``reveal``, one action
for all) or, with ``each``, one ``pick`` action per player. A ``timeout`` costs a point: a turn's
player loses their turn; in a phase, those who had not answered score nothing for it. The game
ends after ``rounds`` rounds (default 50).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from games.core import Action, BaseState, Collect, Effect, Engine, Menu, Option, Rng, View, get_field, need, signal


@dataclass
class TickState(BaseState):
    """Whose turn, points, and the open simultaneous choice."""

    current: int = 0
    score: dict[str, int] = field(default_factory=dict)
    phase: bool = False
    picked: dict[str, str] = field(default_factory=dict)
    round: int = 1


class Tick(Engine[TickState]):
    """The test game."""

    id = "tick"
    title = "Tick"
    min_players = 2
    max_players = 6
    option_keys = frozenset({"phase", "each", "rounds"})
    timeout_action = True

    def setup(self, players: list[str], rng: Rng, options: dict[str, Any]) -> TickState:
        return TickState(players=players, rng=rng, options=options, score={p: 0 for p in players})

    def _next(self, s: TickState) -> None:
        s.current = (s.current + 1) % len(s.players)
        if s.current == 0:
            if s.options.get("phase"):
                s.phase, s.picked = True, {}
            else:
                self._new_round(s)

    def _new_round(self, s: TickState) -> None:
        s.round += 1
        if s.round > s.options.get("rounds", 50):
            s.over = True

    def move_move(self, s: TickState, action: Action, effects: list[Effect]) -> None:
        need(not s.phase, "everyone picks now")
        s.score[s.players[s.current]] += 1
        self._next(s)

    def move_reveal(self, s: TickState, action: Action, effects: list[Effect]) -> None:
        need(s.phase, "no choice is open")
        cards = get_field(action, "cards", dict)
        need(set(cards) == set(s.players), "every player picks")
        for p, v in cards.items():
            s.score[p] += int(v)
        s.phase = False
        self._new_round(s)

    def move_pick(self, s: TickState, action: Action, effects: list[Effect]) -> None:
        need(s.phase, "no choice is open")
        player = get_field(action, "player", str)
        need(player in s.players and player not in s.picked, f"{player} cannot pick")
        s.picked[player] = get_field(action, "value", str)
        s.score[player] += int(s.picked[player])
        if len(s.picked) == len(s.players):
            s.phase = False
            self._new_round(s)

    def move_timeout(self, s: TickState, action: Action, effects: list[Effect]) -> None:
        """Out of time: a point off; the turn passes, or the choice closes without the late ones."""
        effects.append(signal("penalty"))
        if "players" in action:
            need(s.phase, "no choice is open")
            for p in get_field(action, "players", list):
                s.score[p] -= 1
            s.phase = False
            self._new_round(s)
        else:
            player = get_field(action, "player", str)
            need(not s.phase and player == s.players[s.current], f"it is not {player}'s turn")
            s.score[player] -= 1
            self._next(s)

    def scores(self, s: TickState) -> dict[str, int]:
        return dict(s.score)

    def winners(self, s: TickState) -> list[str]:
        best = max(s.score.values())
        return [p for p in s.players if s.score[p] == best]

    def turn(self, s: TickState) -> str | None:
        return None if s.phase else s.players[s.current]

    def details(self, s: TickState) -> dict[str, Any]:
        return {"phase": s.phase, "round": s.round}

    def prompt(self, s: TickState) -> Menu | Collect | None:
        if s.over:
            return None
        if s.phase:
            waiting = tuple(p for p in s.players if p not in s.picked)
            values = {p: ("0", "1", "2") for p in waiting}
            if s.options.get("each"):
                return Collect("Pick", waiting, values, each=lambda p, v: {"type": "pick", "player": p, "value": v})
            return Collect("Pick", waiting, values, hidden=True, build=lambda a: {"type": "reveal", "cards": a})
        player = s.players[s.current]
        return Menu(f"{player}: move", (Option("Move", action={"type": "move"}),), player)

    def view(self, s: TickState) -> View:
        scores = tuple((p, str(s.score[p])) for p in s.players)
        return View(self.title, scores, (f"round {s.round}",), (s.players[s.current],), "playing")


ENGINE = Tick()
