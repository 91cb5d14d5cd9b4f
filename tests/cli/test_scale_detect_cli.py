"""``tablemate scale detect TRACE.csv``: the contract's input, output and exit statuses."""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from pathlib import Path

import pytest

from bench import recordings

Write = Callable[..., Path]


def csv_trace(changes: dict[float, float], seconds: float = 20.0, sps: float = 10.0, cpg: float = 430.0) -> str:
    """A t,raw trace of a load stepping by ``grams`` at each time, with noise."""
    rng = random.Random(7)
    lines = ["t,raw"]
    for k in range(int(seconds * sps)):
        t = k / sps
        grams = sum(g for at, g in changes.items() if t >= at)
        lines.append(f"{t:.3f},{round(50_000 + grams * cpg + rng.gauss(0, 100))}")
    return "\n".join(lines) + "\n"


def events(out: str) -> list[dict]:
    return [json.loads(line) for line in out.splitlines()]


def test_one_json_object_per_event_in_time_order(cli, write_script: Write):
    path = write_script(csv_trace({5.0: 10.0, 12.0: -15.0}), "trace.csv")
    r = cli("scale", "detect", path, "--counts-per-gram", "430", "--piece-grams", "5")
    assert r.status == 0
    assert r.err == ""
    lines = r.out.splitlines()
    assert len(lines) == 2
    assert lines[0].startswith('{"t": ')
    place, fall = events(r.out)
    assert list(place) == ["t", "event", "grams", "pieces"]
    assert place["event"] == "place" and place["pieces"] == 2 and place["grams"] == pytest.approx(10.0, abs=0.5)
    assert fall["event"] == "fall" and fall["pieces"] == 3 and fall["grams"] == pytest.approx(-15.0, abs=0.5)
    assert 5.0 < place["t"] < fall["t"]
    assert 12.0 < fall["t"] <= 13.0  # the time of the sample at which the detector knew
    assert isinstance(place["pieces"], int)


def test_two_pieces_of_one_fall_sliding_out_apart_print_as_one_fall(cli, write_script: Write):
    # at 80 SPS the pile is seen settle between the two pieces, 0.45 s apart
    path = write_script(csv_trace({5.0: 10.0, 12.0: -5.0, 12.45: -5.0}, sps=80.0), "trace.csv")
    r = cli("scale", "detect", path, "--counts-per-gram", "430", "--piece-grams", "5")
    assert r.status == 0
    place, fall = events(r.out)
    assert (place["event"], place["pieces"]) == ("place", 2)
    assert (fall["event"], fall["pieces"]) == ("fall", 2)
    assert fall["grams"] == pytest.approx(-10.0, abs=0.6)
    assert 12.0 < fall["t"] <= 12.5  # when the first piece's fall was known


def test_negative_counts_per_gram(cli, write_script: Write):
    path = write_script(csv_trace({8.0: -6.0}, cpg=-430.0), "trace.csv")
    r = cli("scale", "detect", path, "--counts-per-gram", "-430", "--piece-grams", "6")
    assert r.status == 0
    assert [(e["event"], e["pieces"]) for e in events(r.out)] == [("fall", 1)]


def test_without_counts_per_gram_raw_is_grams(cli, write_script: Write):
    rng = random.Random(3)
    rows = [f"{k / 10:.1f},{300 + (8.0 if k >= 100 else 0.0) + rng.gauss(0, 0.2):.2f}" for k in range(200)]
    path = write_script("t,raw\n" + "\n".join(rows) + "\n", "grams.csv")
    r = cli("scale", "detect", path, "--piece-grams", "8")
    assert r.status == 0
    [place] = events(r.out)
    assert (place["event"], place["pieces"]) == ("place", 1)
    assert place["grams"] == pytest.approx(8.0, abs=0.3)


def test_without_piece_grams_pieces_is_zero(cli, write_script: Write):
    path = write_script(csv_trace({5.0: 10.0}), "trace.csv")
    r = cli("scale", "detect", path, "--counts-per-gram", "430")
    assert [(e["event"], e["pieces"]) for e in events(r.out)] == [("place", 0)]


def test_sps_is_taken_from_the_option(cli, write_script: Write):
    path = write_script(csv_trace({5.0: -10.0}, sps=80.0, seconds=8.0), "trace.csv")
    r = cli("scale", "detect", path, "--counts-per-gram", "430", "--piece-grams", "5", "--sps", "80")
    [fall] = events(r.out)
    assert fall["event"] == "fall"
    assert 5.0 < fall["t"] <= 5.5


def test_a_fault_line_carries_its_reason(cli, write_script: Write):
    text = csv_trace({}, seconds=20.0)
    kept = [line for line in text.splitlines() if not line[0].isdigit() or not 8.0 <= float(line.split(",")[0]) < 11.0]
    path = write_script("\n".join(kept) + "\n", "gap.csv")
    r = cli("scale", "detect", path, "--counts-per-gram", "430", "--piece-grams", "5")
    gap = {"t": 11.0, "event": "fault", "grams": 0.0, "pieces": 0, "reason": "gap: no samples for 3.1 s"}
    assert events(r.out) == [gap]


def test_a_header_and_no_samples_is_an_empty_trace(cli, write_script: Write):
    r = cli("scale", "detect", write_script("t,raw\n", "empty.csv"))
    assert (r.status, r.out, r.err) == (0, "", "")


def test_a_real_recording_through_the_command(cli, tmp_path: Path):
    data = recordings.default_data_dir()
    if data is None:
        pytest.skip("the coffee-pot recordings are not in this checkout")
    trace = next(t for t in recordings.real_traces(data) if t.name == recordings.POURS_FILE)
    path = tmp_path / "pours.csv"
    path.write_text("t,raw\n" + "".join(f"{t:.4f},{r}\n" for t, r in zip(trace.times, trace.raw, strict=True)))
    r = cli("scale", "detect", path, "--counts-per-gram", "374", "--piece-grams", "5")
    assert r.status == 0
    assert [e["event"] for e in events(r.out)] == ["fall", "fall"]
    assert [round(e["grams"]) for e in events(r.out)] == pytest.approx([-163, -176], abs=3)


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("", "empty, expected the header 't,raw'"),
        ("time,value\n0,1\n", "line 1: the header must be 't,raw'"),
        ("t,raw\n0.0,100\n0.1,abc\n", "line 3: raw 'abc' is not a number"),
        ("t,raw\n0.0,100\nx,100\n", "line 3: t 'x' is not a number"),
        ("t,raw\n0.0,100,7\n", "line 2: expected 2 fields 't,raw', found 3"),
        ("t,raw\n0.0\n", "line 2: expected 2 fields 't,raw', found 1"),
        ("t,raw\n0.5,100\n0.5,100\n", "line 3: t 0.5 is not after the previous 0.5"),
        ("t,raw\n0.5,100\n0.4,100\n", "line 3: t 0.4 is not after the previous 0.5"),
        ("t,raw\n0.0,nan\n", "line 2: raw 'nan' is not a finite number"),
    ],
)
def test_a_malformed_trace_is_one_line_and_exit_2(cli, write_script: Write, text: str, why: str):
    path = write_script(text, "bad.csv")
    r = cli("scale", "detect", path)
    assert r.status == 2
    assert r.out == ""
    assert r.err.count("\n") == 1
    assert r.err.startswith("tablemate scale: ")
    assert why in r.err
    assert str(path) in r.err


def test_blank_lines_and_spaces_are_fine(cli, write_script: Write):
    path = write_script("\ufefft, raw\n\n0.0, 100\n 0.1 ,101\n\n", "ok.csv")
    assert cli("scale", "detect", path).status == 0


def test_an_unreadable_trace_is_one_line_and_exit_2(cli, tmp_path: Path):
    for path, why in [
        (tmp_path / "missing.csv", "no such file"),
        (tmp_path, "is a directory"),
    ]:
        r = cli("scale", "detect", path)
        assert (r.status, r.out) == (2, "")
        assert r.err.count("\n") == 1 and why in r.err
    binary = tmp_path / "binary.csv"
    binary.write_bytes(b"t,raw\n\xff\xfe\x00\x01")
    r = cli("scale", "detect", binary)
    assert r.status == 2 and "not a text file" in r.err


@pytest.mark.parametrize(
    ("option", "value"),
    [("--counts-per-gram", "0"), ("--counts-per-gram", "nan"), ("--piece-grams", "-5"), ("--sps", "0")],
)
def test_bad_options_are_one_line_and_exit_2(cli, write_script: Write, option: str, value: str):
    r = cli("scale", "detect", write_script("t,raw\n", "t.csv"), option, value)
    assert r.status == 2
    assert r.err.count("\n") == 1 and option in r.err
