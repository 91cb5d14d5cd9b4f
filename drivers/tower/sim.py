"""A simulated tower: remembers what it was told, for the simulator's status line and tests."""

from __future__ import annotations

from drivers.tower import DARK, TowerState


class SimTower:
    """Records every state it is shown, in order."""

    def __init__(self) -> None:
        self.state: TowerState = DARK
        self.history: list[TowerState] = []
        self.closed = False

    def show(self, state: TowerState) -> None:
        """Record ``state`` as the one showing now."""
        if state != self.state or not self.history:
            self.history.append(state)
        self.state = state

    def close(self) -> None:
        """Go dark."""
        self.show(DARK)
        self.closed = True
