"""Blinka's board detection runs once, also on a board it does not know (no seconds lost at start)."""

from __future__ import annotations

from adafruit_platformdetect import chip

from drivers import blinka_chip


class _Detector:
    pass


def _counting_unknown_board(monkeypatch) -> list[int]:
    """Every detection counted, each answering "no chip I know" (QEMU's virt board, say)."""
    calls: list[int] = []
    now = chip.Chip.__dict__["id"]
    # Blinka's own detection (this process may have remembered it already), put back after the test
    monkeypatch.setattr(chip.Chip, "id", getattr(now.fget, "__wrapped__", now))
    monkeypatch.setattr(chip.Chip, "_linux_id", lambda self: calls.append(1))
    monkeypatch.setattr(chip.sys, "platform", "linux")
    for name in ("BLINKA_FORCECHIP", "BLINKA_FT232H", "BLINKA_FT2232H", "BLINKA_MCP2221", "BLINKA_U2IF"):
        monkeypatch.delenv(name, raising=False)
    return calls


def test_blinka_alone_detects_an_unknown_board_again_at_every_question(monkeypatch):
    calls = _counting_unknown_board(monkeypatch)
    detected = chip.Chip(_Detector())
    for _ in range(50):
        assert detected.id is None
        assert not detected.BCM2XXX
    assert len(calls) == 100  # the defect this module is for, as Blinka ships it


def test_an_unknown_board_is_detected_once_for_all_the_questions_blinka_asks(monkeypatch):
    calls = _counting_unknown_board(monkeypatch)
    blinka_chip.remember()
    blinka_chip.remember()  # twice is once
    detected = chip.Chip(_Detector())
    for _ in range(220):
        assert detected.id is None
        assert not detected.BCM2XXX
    assert len(calls) == 1


def test_a_forced_chip_is_still_the_answer(monkeypatch):
    calls = _counting_unknown_board(monkeypatch)
    blinka_chip.remember()
    monkeypatch.setenv("BLINKA_FORCECHIP", "BCM2XXX")
    detected = chip.Chip(_Detector())
    assert detected.id == "BCM2XXX" and detected.BCM2XXX
    assert calls == []


def test_the_hx711_driver_asks_blinka_with_the_detection_remembered():
    import drivers.scale.hx711  # noqa: F401  (imports Blinka's digitalio through adafruit's driver)

    assert getattr(chip.Chip.__dict__["id"].fget, "_tablemate_remembers", False)
