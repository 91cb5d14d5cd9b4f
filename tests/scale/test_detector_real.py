"""The detector on the real HX711 recordings (bench/data/hx711-coffee-pot): real noise, spikes,
read glitches, presses and pours."""

from __future__ import annotations

import pytest

from bench import recordings
from bench.recordings import COUNTS_PER_GRAM, RealTrace
from firmware_host.scale.detector import FALL, FAULT, PLACE, Detector, ScaleEvent

DATA = recordings.default_data_dir()
pytestmark = pytest.mark.skipif(DATA is None, reason="the coffee-pot recordings are not in this checkout")


def real(name: str) -> RealTrace:
    assert DATA is not None
    return next(t for t in recordings.real_traces(DATA) if t.name == name)


def run(times, raws, cpg: float = COUNTS_PER_GRAM, piece: float | None = None) -> list[ScaleEvent]:
    det = Detector(cpg, piece)
    return [e for t, r in zip(times, raws, strict=True) for e in det.feed(t, r)]


def changes(events: list[ScaleEvent]) -> list[ScaleEvent]:
    return [e for e in events if e.event != FAULT]


def test_a_pot_standing_still_for_17_minutes_gives_no_change():
    trace = real(recordings.STILL_FILE)
    events = run(trace.times, trace.raw, piece=5.0)
    assert changes(events) == []
    # its one logging gap (1.3 s without a reading) is reported, once
    assert [e.reason for e in events] == ["gap: no samples for 1.3 s"]


def test_the_pours_are_falls_with_the_right_grams():
    trace = real(recordings.POURS_FILE)
    events = run(trace.times, trace.raw, piece=5.0)
    assert [e.event for e in events] == [FALL, FALL]
    for event, label in zip(events, trace.events, strict=True):
        assert event.grams == pytest.approx(label.grams, abs=3.0)
        assert label.settled < event.t < label.settled + 3.0
        assert abs(event.pieces - round(-label.grams / 5.0)) <= 1  # the pot creeps on by 2 g


def test_a_ten_kilogram_press_that_leaves_the_weight_as_it_was_gives_nothing():
    trace = real(recordings.POURS_FILE)
    first = trace.events[0]
    # the first pour with the coffee put back: the press alone, on real noise and spikes
    keep = [i for i, t in enumerate(trace.times) if 300.0 <= t <= 500.0]
    times = [trace.times[i] for i in keep]
    raws = [trace.raw[i] - (round(first.grams * COUNTS_PER_GRAM) if trace.times[i] > 376.0 else 0) for i in keep]
    assert max(raws) / COUNTS_PER_GRAM > 14_000  # it is a press of over 10 kg
    assert changes(run(times, raws, piece=5.0)) == []


def test_lifting_the_pot_off_and_putting_it_back_are_a_fall_and_a_place():
    trace = real(recordings.LIFTS_FILE)
    events = changes(run(trace.times, trace.raw))
    assert [e.event for e in events[:4]] == [PLACE, FALL, PLACE, FALL]
    assert len(events) == len(trace.events)
    for event, label in zip(events, trace.events, strict=True):
        assert event.event == label.kind
        assert event.grams == pytest.approx(label.grams, abs=5.0)


def test_the_channels_hold_real_minus_one_and_full_scale_reads():
    assert DATA is not None
    channels = recordings.load_channels(DATA / recordings.READINGS_FILE)
    codes = [r[ch] for r in channels for ch in (0, 2, 3)]
    assert codes.count(-1) >= 20
    assert codes.count(0x7FFFFF) >= 1


@pytest.mark.parametrize("channel", [0, 2, 3])
def test_minus_one_full_scale_and_bit_slip_glitches_give_nothing(channel: int):
    assert DATA is not None
    raws = [r[channel] for r in recordings.load_channels(DATA / recordings.READINGS_FILE)]
    times = [i / 10 for i in range(len(raws))]
    # one real channel's counts, read as a 5 kg cell counting 5 g pieces
    det = Detector(430.0, 5.0, 10.0)
    events = [e for t, r in zip(times, raws, strict=True) for e in det.feed(t, r)]
    assert events == []
    assert det.dropped >= raws.count(-1) + raws.count(0x7FFFFF)
