"""The sandbox harness waits as long as the machine needs: scaled, not a longer fixed sleep."""

from __future__ import annotations

from tests import waits as sandboxkit


def test_every_wait_is_scaled_by_the_slowness_given(monkeypatch):
    monkeypatch.setenv(sandboxkit.SLOWNESS_ENV, "4")
    sandboxkit.slowness.cache_clear()
    try:
        assert sandboxkit.scaled(30) == 120  # READY on an emulated board
        monkeypatch.setenv(sandboxkit.SLOWNESS_ENV, "0.5")
        sandboxkit.slowness.cache_clear()
        assert sandboxkit.scaled(30) == 30  # a fast machine does not wait less than the defaults
    finally:
        sandboxkit.slowness.cache_clear()


def test_unset_the_slowness_is_measured_and_never_under_one(monkeypatch):
    monkeypatch.delenv(sandboxkit.SLOWNESS_ENV, raising=False)
    sandboxkit.slowness.cache_clear()
    try:
        assert sandboxkit.slowness() >= 1.0
    finally:
        sandboxkit.slowness.cache_clear()
