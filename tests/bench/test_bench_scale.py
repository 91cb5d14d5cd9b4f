"""The detector bench: a small run on held-out seeds meets the accuracy targets.

An accuracy check, not a timing check: the detector's CPU figure is printed by
``tablemate bench scale`` and never asserted here.
"""

from __future__ import annotations

import pytest

from bench import recordings
from bench.scale import (
    HELD_OUT_SEEDS,
    TARGETS,
    TUNE_SEEDS,
    BenchConfig,
    format_report,
    plans,
    run_bench,
    run_detector,
)
from bench.traces import Plan, make_trace
from firmware_host.scale.detector import final_events

DATA = recordings.default_data_dir()
pytestmark = pytest.mark.skipif(DATA is None, reason="the coffee-pot recordings are not in this checkout")


def test_a_held_out_run_meets_the_accuracy_targets():
    report = run_bench(BenchConfig())  # the documented fast default: held-out seeds 1001..1003
    figures = report.figures()
    assert report.total.places > 100 and report.total.falls > 30
    assert figures["place_recall"] >= TARGETS["place_recall"]
    assert figures["place_p50"] <= TARGETS["place_p50"]
    assert figures["place_p95"] <= TARGETS["place_p95"]
    assert figures["fall_recall"] >= TARGETS["fall_recall"]
    assert figures["false_falls"] == 0
    assert figures["false_per_hour"] < TARGETS["false_per_hour"]
    assert figures["pieces_right"] >= TARGETS["pieces_right"]
    assert figures["fall_p95_10"] <= TARGETS["fall_p95_10"]
    assert figures["fall_p95_80"] <= TARGETS["fall_p95_80"]
    assert figures["faults_found_table"] == 1.0  # every sensor fault within 3.5 s, as issue 12's table measured
    for real in report.real:  # the held-out recordings: every labelled change, nothing else
        assert (real.found, real.false_events) == (real.events, 0), real.name
        assert max(real.grams_error, default=0.0) < 5.0


@pytest.mark.parametrize(
    ("seed", "sps", "cell", "mode", "span", "expected"),
    [
        # a hand set the piece's fall off 3 s after it landed ringing the bin by tens of grams:
        # the ringing hid the press, and place and fall were taken back as a hand that left
        (1804, 80, "5kg", "game", (101.0, 107.0), ["place", "fall"]),
        # the falling piece's kick, in the level's last readings, looked like a hand's waver
        (1212, 80, "1kg", "game", (186.0, 193.0), ["place", "fall"]),
        # a still level on a quiet cell, its piece falling out 3 s after the count, was a hand
        (1256, 10, "5kg", "faults", (102.0, 107.0), ["place", "fall"]),
        # a piece set down gently on a noisy cell fell out on its own 2.9 s after its count; no
        # landing seen, the hand test was made tighter than its faintest sign, and the cell's
        # noise passed for a hand's waver: place and fall were taken back
        (1229, 80, "5kg", "game", (124.0, 129.0), ["place", "fall"]),
        # a 30 g press held still for 4 s, counted as three pieces, lifted 3.8 s after its count
        (1572, 10, "5kg", "game", (160.0, 168.0), []),
        # a piece fell out on its own 2.5 s after its count, ringing the bin: taken back as a hand
        (1563, 80, "1kg", "game", (143.0, 147.0), ["place", "fall"]),
        # a storm of two or three corrupted reads a second was reported after 5.9 s
        (1456, 10, "5kg", "faults", (137.0, 141.1), ["fault"]),
    ],
)
def test_bench_cases_that_went_wrong_now_come_out_right(seed, sps, cell, mode, span, expected):
    # held-out traces of the bench (read while fixing these, so no longer held out for them)
    assert DATA is not None
    trace = make_trace(Plan(recordings.HELD_OUT, seed, sps, cell, 4.0, mode), DATA)
    events, _ = run_detector(trace.times, trace.raw, trace.counts_per_gram, trace.piece_grams, trace.sps)
    assert [e.event for e in final_events(events) if span[0] <= e.t <= span[1]] == expected


@pytest.mark.xfail(strict=True, reason="a known shortfall (docs/detector.md): the readings do not tell")
@pytest.mark.parametrize(
    ("seed", "sps", "cell", "mode", "minutes", "span", "expected"),
    [
        # pieces falling out on their own, taken for a hand lifting off: decided 3.2 and 3.1 s
        # after the count on 10 SPS cells with 0.5 g of noise, where any sign of a hand counts
        (1870, 10, "5kg", "game", 4.0, (46.0, 51.0), ["place", "fall"]),
        (1833, 10, "5kg", "faults", 4.0, (107.0, 112.0), ["place", "fall"]),
        # knocked out by a 70 g press of 0.3 s, which at 10 SPS does not move the window's median
        (1684, 10, "5kg", "faults", 4.0, (212.0, 216.0), ["place", "fall"]),
        # a hand of 11 g as still as a cell with 1.1 g of noise, lifted 2.9 s after its count
        (1384, 80, "5kg", "quiet", 8.0, (258.0, 263.0), []),
        # a brush that lifted the bin by 3.5 g for 0.6 s, longer than a fall's hold lets pass
        (1385, 80, "5kg", "game", 4.0, (31.0, 33.0), []),
    ],
)
def test_bench_cases_still_wrong(seed, sps, cell, mode, minutes, span, expected):
    # fresh held-out traces this detector gets wrong; strict, so one that comes out right (or
    # a trace that changes) is noticed and moved to the list above
    assert DATA is not None
    trace = make_trace(Plan(recordings.HELD_OUT, seed, sps, cell, minutes, mode), DATA)
    events, _ = run_detector(trace.times, trace.raw, trace.counts_per_gram, trace.piece_grams, trace.sps)
    assert [e.event for e in final_events(events) if span[0] <= e.t <= span[1]] == expected


def test_the_tuning_and_held_out_material_do_not_overlap():
    assert not set(TUNE_SEEDS) & set(HELD_OUT_SEEDS)
    held_out = plans(BenchConfig(split=recordings.HELD_OUT, traces=2))
    assert {p.seed for p in held_out} <= set(HELD_OUT_SEEDS)
    assert {p.split for p in held_out} == {recordings.HELD_OUT}
    assert DATA is not None
    splits = (recordings.TUNE, recordings.HELD_OUT)
    for kind in (recordings.noise_clips, recordings.press_shapes, recordings.real_traces):
        tune, held_out = ({x.name for x in kind(DATA) if x.split == split} for split in splits)
        assert tune and held_out
        assert not tune & held_out


def test_the_bench_command_says_which_split_it_reports(cli):
    r = cli("bench", "scale", "--traces", "1", "--minutes", "1")
    assert r.status == 0
    assert "split: held-out (seeds 1001..1001" in r.out
    assert "detector cost at 80 SPS" in r.out


def test_the_bench_command_refuses_a_bad_size(cli):
    r = cli("bench", "scale", "--traces", "0")
    assert r.status == 2 and r.err.count("\n") == 1


def test_a_missed_aim_is_reported_apart_from_the_targets(monkeypatch):
    # faults within 1 s is the detector's aim; the targets count a fault found within 3.5 s
    report = run_bench(BenchConfig(traces=1, minutes=1))
    figures = {**TARGETS, "false_per_hour": 0.0, "cpu_percent_80": 0.0, "faults_found": 12 / 13}
    monkeypatch.setattr(type(report), "figures", lambda self: figures)
    assert report.missed() == [] and report.missed(aims=True) == ["faults_found"]
    text = format_report(report)
    assert "targets: all met" in text and "aim missed: every sensor fault within 1 s" in text
    figures["false_falls"] = 1
    assert "targets MISSED: false_falls" in format_report(report)
