"""Fixed workloads for the device's own benchmarks (``tablemate bench ...``).

The benchmarks (``firmware_host/cli/bench/`` and the checkout's ``bench/``) play these, so that no
host module names a game: a plain game whose whole course is known in advance, and a game that
weighs its pieces, brought to the point where the scale is wanted.
"""

from __future__ import annotations

from dataclasses import dataclass
from random import Random
from typing import Any

from games.core import Action, Engine


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


def choices(prompt: object, rng: Random) -> list[Action]:
    """The actions a game's ``prompt`` offers, in a seeded random order (as the buttons would
    pick them: a submenu walked down to one action, an order or a collection filled in)."""
    from games.core import Collect, Menu, Order, Task

    def walk(option: object) -> Action:
        while option.action is None:  # type: ignore[attr-defined]
            sub = option.submenu()  # type: ignore[attr-defined]
            if isinstance(sub, Order):
                return sub.build(rng.sample(list(sub.players), len(sub.players)))
            option = rng.choice(sub.options)
        return option.action  # type: ignore[attr-defined]

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
            out += [built] if isinstance(built, dict) else choices(built, rng)
    return out


def next_action(engine: Engine, state: Any, rng: Random, fallback: tuple[Action, ...] = ()) -> tuple[Action, Any]:
    """One legal action of ``engine`` from ``state`` that does not end the game (a seeded choice
    of what its prompt offers, else one of ``fallback``), and the state after it; raises
    RuntimeError when there is none."""
    from games.core import Refused

    for action in [*choices(engine.prompt(state), rng), *fallback]:
        if action.get("type") == "end":
            continue
        try:
            new, _ = engine.apply(state, action)
        except Refused:
            continue
        if not new.over:
            return action, new
    raise RuntimeError("no choice that goes on")


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

    rng = random.Random(seed)
    engine = get_engine(game)
    state = engine.new(list(players), seed, {})
    actions: list[Action] = []
    while len(actions) < count:
        try:
            action, state = next_action(engine, state, rng, fallback)
        except RuntimeError:
            raise RuntimeError(f"{game}: no choice that goes on after {len(actions)} actions") from None
        actions.append(action)
    return Workload(game, players, tuple(actions))


LONG_GAMES: dict[str, tuple[tuple[str, ...], tuple[Action, ...]]] = {
    "trottel": (("Ann", "Ben", "Cy", "Dora"), ()),
    "antartik": (("Ann", "Ben", "Cy", "Dora"), ({"type": "new_dive"},)),
}
"""The games of the long-session benchmark: players, and what keeps a game going at its end."""
