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
