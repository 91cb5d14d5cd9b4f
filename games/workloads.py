"""Fixed workloads for the device's own benchmarks (``tablemate bench ...``).

The benchmarks in ``firmware_host/cli/bench/`` play these, so that no host module names a game:
a plain game whose whole course is known in advance, and a game that weighs its pieces, brought
to the point where the scale is wanted.
"""

from __future__ import annotations

from dataclasses import dataclass

from games.core import Action


@dataclass(frozen=True)
class Workload:
    """A game, its players in seat order, and actions that are legal in that order from its start."""

    game: str
    players: tuple[str, ...]
    actions: tuple[Action, ...]


_RASCAL: Action = {"type": "jump", "jumper": "rascal", "special": False, "result": "B"}
_DIVER: Action = {"type": "jump", "jumper": "diver", "special": False, "result": "clean"}

PLAIN = Workload("arschbombe", ("Ann", "Ben", "Cy"), (_RASCAL,) * 9 + (_DIVER,) * 9)
"""A whole three-player game of Arschbombe: every rascal, then every diver; it ends with the last."""

WEIGHING = Workload("tonne", ("Ann", "Ben"), ({"type": "reveal", "cards": {"Ann": 3, "Ben": 5}},))
"""Ab in die Tonne past its card reveal: Ann owes three pieces and the scale is read."""


def long_session(
    game: str, players: tuple[str, ...], count: int, seed: int = 1, fallback: tuple[Action, ...] = ()
) -> Workload:
    """``count`` legal actions of ``game`` that never end it: a long evening at the table.

    Each step takes a seeded random choice the game's own prompt offers (as the buttons would),
    skipping any that would end the game, so the session runs on as long as needed; when every
    choice offered would end it, the ``fallback`` actions are tried.
    """
    import random

    from games import get_engine
    from games.core import Collect, Menu, Order, Refused, Task

    rng = random.Random(seed)
    engine = get_engine(game)
    state = engine.new(list(players), seed, {})
    actions: list[Action] = []

    def walk(option: object) -> Action:
        while option.action is None:  # type: ignore[attr-defined]
            sub = option.submenu()  # type: ignore[attr-defined]
            if isinstance(sub, Order):
                return sub.build(rng.sample(list(sub.players), len(sub.players)))
            option = rng.choice(sub.options)
        return option.action  # type: ignore[attr-defined]

    def candidates(prompt: object) -> list[Action]:
        while isinstance(prompt, Task):
            prompt = prompt.then
        out: list[Action] = []
        if isinstance(prompt, Menu):
            side = prompt.side
            if side is not None and side.players and side.each is not None:
                player = side.players[0]
                out += [side.each(player, v) for v in rng.sample(list(side.values[player]), len(side.values[player]))]
            out += [walk(o) for o in rng.sample(list(prompt.options), len(prompt.options))]
        elif isinstance(prompt, Order):
            out.append(prompt.build(rng.sample(list(prompt.players), len(prompt.players))))
        elif isinstance(prompt, Collect):
            if prompt.each is not None:
                for player in prompt.players:
                    out.append(prompt.each(player, rng.choice(prompt.values[player])))
            else:
                built = prompt.build({p: rng.choice(prompt.values[p]) for p in prompt.players})
                out += [built] if isinstance(built, dict) else candidates(built)
        return out

    while len(actions) < count:
        for action in [*candidates(engine.prompt(state)), *fallback]:
            if action.get("type") == "end":
                continue
            try:
                new, _ = engine.apply(state, action)
            except Refused:
                continue
            if not new.over:
                state = new
                actions.append(action)
                break
        else:
            raise RuntimeError(f"{game}: no choice that goes on after {len(actions)} actions")
    return Workload(game, players, tuple(actions))


LONG_GAMES: dict[str, tuple[tuple[str, ...], tuple[Action, ...]]] = {
    "trottel": (("Ann", "Ben", "Cy", "Dora"), ()),
    "antartik": (("Ann", "Ben", "Cy", "Dora"), ({"type": "new_dive"},)),
}
"""The games of the long-session benchmark: players, and what keeps a game going at its end."""
