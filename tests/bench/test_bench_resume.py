"""``tablemate bench resume`` boots on a game whose snapshot must be proved, sees the check from the
boot on, and sees the second start make none (what it measures is not asserted here: see
docs/measured.md)."""

from __future__ import annotations

from bench.resume import boot, build_void
from firmware_host.core import session as sessions
from firmware_host.core.session import Session
from firmware_host.core.store import Store


def test_the_bench_builds_a_game_to_prove_and_its_second_start_proves_nothing(tmp_path):
    build_void(tmp_path, 120)
    assert Session.resume(Store(tmp_path)).unchecked is not None  # its seals are another code's
    first, second = boot(tmp_path), boot(tmp_path)
    assert first["checked"] and not second["checked"]
    assert second["applied_up"] <= sessions.SNAP_EVERY  # the checkpoints below the snapshot, no more
    assert {"up_ms", "start_loop_ms", "loop_ms", "undo_ms", "check_ms"} <= set(first)
