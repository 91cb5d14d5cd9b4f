"""``tablemate bench undo`` says how much longer resume, ``state`` and undo take at its largest
size than at its smallest: the figures that hold on a shared machine."""

from __future__ import annotations

from bench.undo import ratios


def test_the_ratios_line_names_the_game_the_sizes_and_each_figure():
    small = {"resume_ms": 2.0, "state_ms": 1.5, "undo_ms": 8.0}
    large = {"resume_ms": 5.0, "state_ms": 6.0, "undo_ms": 8.0}
    line = ratios("antartik", small, large, 100, 10000)
    assert line == "antartik 10000/100 actions, in-process ratios: resume x2.5, state x4.0, undo x1.0"


def test_a_figure_of_zero_at_the_small_size_gives_no_division_error():
    zero = {"resume_ms": 0.0, "state_ms": 0.0, "undo_ms": 0.0}
    assert "resume x" in ratios("trottel", zero, {"resume_ms": 1.0, "state_ms": 1.0, "undo_ms": 1.0}, 100, 1000)
