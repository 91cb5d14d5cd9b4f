"""Arschbombe (Zoch 2011): jumper cards dropped into a pool, scored by where they land.

The rules as the device applies them: ``docs/arschbombe.md``. The companion walks each turn (jumper kind, normal or
special, who picks a rascal's target, the result), scores it, and keeps every marker's position
on the pool-edge score track.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from games.arschbombe.ear import EAR
from games.core import (
    Action,
    BaseState,
    Effect,
    Engine,
    Menu,
    Option,
    Rng,
    SetupError,
    T,
    Text,
    View,
    get_field,
    get_player,
    need,
    say,
    signal,
    top_scorers,
)

JUMPERS = ("rascal", "diver")
JUMPER_NAMES = {"rascal": T("rascal"), "diver": T("diver")}
"""Each jumper kind as a sentence names it (the German edition's Rabauke and Kunstspringer)."""
EACH_KIND = 3
EDGE_CARDS = {2: 18, 3: 20, 4: 24}

RASCAL_POINTS = {"A": 3, "B": 2, "C": 1, "D": 0}
DIVER_RESULTS = ("clean", "touch")
COMMON_RESULTS = ("out", "under", "under_edge")
RESULTS = {"rascal": (*RASCAL_POINTS, *COMMON_RESULTS), "diver": (*DIVER_RESULTS, *COMMON_RESULTS)}

RESULT_LABELS = {
    "A": T("A on target"),
    "B": T("B part cover"),
    "C": T("C full cover"),
    "D": T("D missed"),
    "clean": T("Clean"),
    "touch": T("Touched card"),
    "out": T("Out/edge"),
    "under": T("Under a card"),
    "under_edge": T("Under + edge"),
}


@dataclass
class ArschbombeState(BaseState):
    """Scores and jumpers left per player; ``current`` indexes ``players``."""

    current: int = 0
    score: dict[str, int] = field(default_factory=dict)
    left: dict[str, dict[str, int]] = field(default_factory=dict)
    news: list[str] = field(default_factory=list)
    """The last jump as the table heard it: on screen until the next one."""

    def jumps(self, player: str) -> int:
        """Jumps ``player`` has made: the jumpers no longer in their hand."""
        return 2 * EACH_KIND - sum(self.left[player].values())


def jump_points(jumper: str, special: bool, result: str, ordinal: int) -> int:
    """Points of one jump; ``ordinal`` is its place among the jumper's owner's jumps (1..6)."""
    if result in ("out", "under_edge"):
        return -2 if special else -1
    if jumper == "rascal":
        base = RASCAL_POINTS.get(result, 0)
    elif result == "clean":
        base = ordinal
    else:
        base = 0
    return base * 2 if special else base


class Arschbombe(Engine[ArschbombeState]):
    """The Arschbombe engine."""

    id = "arschbombe"
    title = T("Arschbombe")
    ear = EAR
    min_players = 2
    max_players = 4

    def setup(self, players: list[str], rng: Rng, options: dict[str, Any]) -> ArschbombeState:
        if options:
            raise SetupError(T("arschbombe takes no options"))
        return ArschbombeState(
            players=players,
            rng=rng,
            score={p: 0 for p in players},
            left={p: {k: EACH_KIND for k in JUMPERS} for p in players},
        )

    # -- moves --------------------------------------------------------------------------------
    def move_jump(self, s: ArschbombeState, action: Action, effects: list[Effect]) -> None:
        """The current player's jump: jumper kind, normal or special, and where it landed."""
        player = get_player(s, action, s.players[s.current], turn_of=s.players[s.current])
        jumper = get_field(action, "jumper", str)
        need(
            jumper in JUMPERS,
            T("jumper must be {rascal} or {diver}, not {jumper!r}", rascal="rascal", diver="diver", jumper=jumper),
        )
        special = get_field(action, "special", bool, False)
        result = get_field(action, "result", str)
        need(
            result in RESULTS[jumper],
            T("a {jumper} cannot land {result!r}", jumper=JUMPER_NAMES[jumper], result=result),
        )
        need(s.left[player][jumper] > 0, T("{player} has no {jumper} left", player=player, jumper=JUMPER_NAMES[jumper]))

        s.left[player][jumper] -= 1
        points = jump_points(jumper, special, result, s.jumps(player))
        s.score[player] += points
        s.news = [self._record(player, jumper, special, result, points)]
        effects.append(say(s.news[0]))
        if points > 0:
            effects.append(signal("success"))
        elif points < 0:
            effects.append(signal("penalty"))

        if all(s.jumps(p) == 2 * EACH_KIND for p in s.players):
            s.over = True
        else:
            s.current = (s.current + 1) % len(s.players)

    @staticmethod
    def _record(player: str, jumper: str, special: bool, result: str, points: int) -> Text:
        """A jump as the table hears it and What happened keeps it: who, which jumper, how, where
        it landed, the points (``Ben: rascal, B part cover +2``)."""
        kind, landed = JUMPER_NAMES[jumper], RESULT_LABELS[result]
        if special:
            return T(
                "{player}: {jumper} special, {result} {points:+d}",
                player=player,
                jumper=kind,
                result=landed,
                points=points,
            )
        return T("{player}: {jumper}, {result} {points:+d}", player=player, jumper=kind, result=landed, points=points)

    # -- reading ------------------------------------------------------------------------------
    def edge(self, s: ArschbombeState) -> int:
        """Number of pool-edge cards, which is also the length of the score track."""
        return EDGE_CARDS[len(s.players)]

    def scores(self, s: ArschbombeState) -> dict[str, int]:
        return dict(s.score)

    def winners(self, s: ArschbombeState) -> list[str]:
        return top_scorers(s.score, s.players)

    def turn(self, s: ArschbombeState) -> str | None:
        return s.players[s.current]

    def details(self, s: ArschbombeState) -> dict[str, Any]:
        edge = self.edge(s)
        return {
            "left": {p: dict(s.left[p]) for p in s.players},
            "jumps": {p: s.jumps(p) for p in s.players},
            "edge": edge,
            "track": {p: s.score[p] % edge for p in s.players},
        }

    def target_picker(self, s: ArschbombeState) -> str:
        """The left neighbour (next clockwise), who points out a rascal's target."""
        return s.players[(s.current + 1) % len(s.players)]

    def prompt(self, s: ArschbombeState) -> Menu | None:
        """Two steps a jump: the jumper and its style in one list, then where it landed."""
        if s.over:
            return None
        player = s.players[s.current]
        ordinal = s.jumps(player) + 1
        kinds = []
        for jumper in JUMPERS:
            n = s.left[player][jumper]
            if n:
                for special in (False, True):
                    label = self._jumper_label(jumper, special, n)
                    kinds.append(Option(label, then=self._result_menu(s, jumper, special, ordinal)))
        return Menu(T("{player}: jump {n}/6", player=player, n=ordinal), tuple(kinds), player)

    def _jumper_label(self, jumper: str, special: bool, left: int) -> Text:
        """A menu line naming the jumper and the jump (each its own message: German needs room)."""
        if jumper == "rascal":
            return T("Rascal special") if special else T("Rascal ({n} left)", n=left)
        return T("Diver special") if special else T("Diver ({n} left)", n=left)

    def _result_menu(self, s: ArschbombeState, jumper: str, special: bool, ordinal: int) -> Menu:
        player = s.players[s.current]
        options = tuple(
            Option(
                T("{result} {points:+d}", result=RESULT_LABELS[r], points=jump_points(jumper, special, r, ordinal)),
                action={"type": "jump", "jumper": jumper, "special": special, "result": r},
            )
            for r in RESULTS[jumper]
        )
        if jumper == "rascal":
            title = T("{player} picks target", player=self.target_picker(s))
        elif special:
            title = T("{player}: platform", player=player)
        else:
            title = T("{player}: dive", player=player)
        return Menu(title, options, player)

    def view(self, s: ArschbombeState) -> View:
        edge = self.edge(s)
        scores = tuple((p, f"{s.score[p]} ({s.score[p] % edge})") for p in s.players)
        if s.over:  # the winners, and the last jump
            return self.final_view(s, self.title, scores, tuple(s.news))
        player = s.players[s.current]
        left = s.left[player]
        hand = T("{player} R{rascals} D{divers} left", player=player, rascals=left["rascal"], divers=left["diver"])
        return View(self.title, scores, (*s.news, hand), (player,), "playing", len(s.news))


ENGINE = Arschbombe()
