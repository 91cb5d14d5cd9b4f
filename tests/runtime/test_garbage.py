"""Once the device is up, what start-up made is out of the collector's way: its full passes, which
stop the loop and the buttons with it, no longer walk the modules and engines, and come rarely."""

from __future__ import annotations

import gc

from firmware_host.runtime.garbage import FULL_EVERY, settle


def test_start_up_is_frozen_and_full_passes_are_spaced_out_while_young_objects_are_still_collected():
    threshold, frozen_before = gc.get_threshold(), gc.get_freeze_count()
    try:
        settle()
        frozen = gc.get_freeze_count()
        young, middle, full = gc.get_threshold()
        cycle = []
        cycle.append(cycle)  # garbage made after start-up
        del cycle
        gone = gc.collect(1)  # a young pass still finds it
    finally:
        gc.unfreeze()
        gc.set_threshold(*threshold)
    assert frozen > max(1000, frozen_before)  # the modules, the engines, the fonts
    assert (young, middle) == threshold[:2] and full == FULL_EVERY
    assert gone >= 1
