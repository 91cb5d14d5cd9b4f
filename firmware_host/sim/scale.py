"""The simulated scale comes calibrated, in the interactive simulator and in scripts alike.

When the state folder has no ``scale.json`` the simulator writes one that matches the simulated
cell, with every kind of piece weighing :data:`SIM_PIECE_GRAMS`: a key (``+``, ``-``) or a script
line (``grams 5``) then puts in or takes out pieces the game counts.
"""

from __future__ import annotations

from typing import Any

from firmware_host.core.store import Store

SIM_PIECE_GRAMS = 5.0
"""What one piece of any kind weighs on the simulated scale (its calibration says so)."""


def sim_calibration(kinds: list[str]) -> dict[str, Any]:
    """A ``scale.json`` that fits the simulated cell, each kind of piece :data:`SIM_PIECE_GRAMS`."""
    from drivers.scale.sim import DEFAULT_COUNTS_PER_GRAM, DEFAULT_OFFSET

    return {
        "counts_per_gram": DEFAULT_COUNTS_PER_GRAM,
        "offset": DEFAULT_OFFSET,
        "noise": 150.0,
        "pieces": {k: SIM_PIECE_GRAMS for k in kinds},
        "weight_grams": 100,
    }


def calibrate_sim_scale(store: Store) -> None:
    """Give the state folder the simulated cell's calibration, unless it has one of its own."""
    if store.read_doc("scale"):
        return
    from firmware_host.ui.calibrate import kind_labels

    store.write_doc("scale", sim_calibration(list(kind_labels())))
