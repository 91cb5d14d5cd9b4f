"""The garbage collector, set for a long-running device that serves a page.

Once the device is up, :func:`settle` collects, then freezes what start-up made (modules, the
engines, the panel's fonts) so the collector's full passes no longer walk it, and makes full passes
a hundred times rarer; young objects are collected as often as before. Without it, a flood of
requests to the companion page made full passes that stopped the loop for 50–130 ms; with it the
worst pause measured was 18 ms (``tablemate bench web``).
"""

from __future__ import annotations

import gc

FULL_EVERY = 1000
"""Collections of the middle generation between two full passes (Python's default: 10)."""


def settle() -> None:
    """Collect, freeze the survivors, and space out full passes (see the module's docstring)."""
    gc.collect()
    gc.freeze()
    young, middle, _ = gc.get_threshold()
    gc.set_threshold(young, middle, FULL_EVERY)
