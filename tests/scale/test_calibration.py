"""Load-cell calibration: the pure steps, ``tablemate calibrate`` and the device's screen."""

from __future__ import annotations

import io
import json
import random

import pytest

from firmware_host.scale.calibration import (
    Calibration,
    CalibrationError,
    CalibrationRun,
    Level,
    counts_per_gram,
    measure,
    piece_grams,
)
from games.tonne.engine import KIND_LABELS
from tests.devicekit import run_device, screen

OFFSET = 84_000


def window(grams: float, cpg: float = 420.0, noise: float = 150.0, n: int = 20, seed: int = 1) -> list[int]:
    rng = random.Random(seed)
    return [round(OFFSET + grams * cpg + rng.gauss(0.0, noise)) for _ in range(n)]


def test_measure_leaves_read_glitches_and_spikes_out():
    samples = window(0.0, noise=50.0)
    level = measure(samples)
    dirty = measure([*samples[:15], -1, 0x7FFFFF, OFFSET + 2_000_000, *samples[15:]])
    assert abs(dirty.counts - level.counts) < 15 and dirty.noise < 1.5 * level.noise and dirty.n == 20
    with pytest.raises(CalibrationError, match="is it connected"):
        measure([-1, -1, 0x7FFFFF, 5])


def test_a_known_weight_gives_counts_per_gram():
    cpg = counts_per_gram(measure(window(0.0)), measure(window(100.0, seed=2)), 100.0)
    assert cpg == pytest.approx(420.0, rel=0.005)


def test_a_cell_mounted_the_other_way_gives_negative_counts_per_gram():
    empty, loaded = measure(window(0.0, cpg=-420.0)), measure(window(100.0, cpg=-420.0, seed=2))
    cpg = counts_per_gram(empty, loaded, 100.0)
    assert cpg == pytest.approx(-420.0, rel=0.005)
    piece = measure(window(105.0, cpg=-420.0, seed=3))
    assert piece_grams(loaded, piece, cpg, "can") == pytest.approx(5.0, abs=0.2)  # still positive grams


def test_a_step_lost_in_the_noise_is_refused():
    with pytest.raises(CalibrationError, match="lost in the noise"):
        counts_per_gram(measure(window(0.0)), measure(window(2.0, seed=2)), 2.0)
    with pytest.raises(CalibrationError, match="more than 0 g"):
        counts_per_gram(Level(0, 1, 20), Level(1000, 1, 20), 0.0)
    with pytest.raises(CalibrationError, match=r"the apple core \([-+]0.\d g\) is lost in the noise"):
        piece_grams(measure(window(0.0)), measure(window(0.1, seed=2)), 420.0, "apple core")
    with pytest.raises(CalibrationError, match="load went down"):
        piece_grams(measure(window(10.0)), measure(window(5.0, seed=2)), 420.0, "can")


def full_run(cpg: float = 420.0, weight: float = 100.0) -> tuple[CalibrationRun, list[str]]:
    run = CalibrationRun(weight, KIND_LABELS)
    load, seed, messages = 0.0, 10, []
    steps = {"tare": 0.0, "weight": weight, "unload": -weight}
    pieces = {"milk": 6.5, "can": 5.0, "bottle": 8.0, "apple": 4.0}
    while not run.done:
        step = run.step
        load += steps.get(step.name, pieces.get(step.kind or "", 0.0))
        seed += 1
        messages.append(run.take(window(load, cpg=cpg, seed=seed)))
    return run, messages


def test_a_whole_run_gives_offset_counts_per_gram_and_piece_weights():
    run, messages = full_run()
    result = run.result()
    assert result.counts_per_gram == pytest.approx(420.0, rel=0.01)
    assert result.offset == pytest.approx(OFFSET, abs=60)
    assert result.pieces == pytest.approx({"milk": 6.5, "can": 5.0, "bottle": 8.0, "apple": 4.0}, abs=0.25)
    assert result.lightest == result.pieces["apple"]
    assert messages[-1].startswith("apple core: ") and messages[-1].endswith(" g")
    again = Calibration.from_json(json.loads(json.dumps(result.to_json())))
    assert again is not None and again.counts_per_gram == pytest.approx(result.counts_per_gram)
    assert again.grams(OFFSET + 4200) == pytest.approx(10.0, abs=0.2)


def test_a_refused_step_stays_to_be_measured_again():
    run = CalibrationRun(100.0, KIND_LABELS)
    run.take(window(0.0))
    rng = random.Random(4)
    moving = [round(OFFSET + 42_000 + rng.gauss(0.0, 3000.0)) for _ in range(20)]
    with pytest.raises(CalibrationError, match="moved"):
        run.take(moving)
    assert run.step.name == "weight"
    run.take(window(100.0, seed=5))
    with pytest.raises(CalibrationError, match="not back to empty"):
        run.take(window(3.0, seed=6))
    assert run.step.name == "unload" and not run.done
    with pytest.raises(CalibrationError, match="not complete"):
        run.result()


@pytest.mark.parametrize("data", [{}, {"counts_per_gram": 0, "offset": 1}, {"counts_per_gram": "x", "offset": 1}])
def test_unusable_scale_json_means_uncalibrated(data):
    assert Calibration.from_json(data) is None


# -- tablemate calibrate ------------------------------------------------------------------------------------
def test_calibrate_on_the_simulated_scale_saves_scale_json(cli, tmp_path, monkeypatch):
    monkeypatch.setattr("sys.stdin", io.StringIO("\n" * 8))
    result = cli("calibrate", "--sim", "--state-dir", tmp_path)
    assert result.status == 0, result.err
    assert "Step 7/7: Add one apple core." in result.out and "Saved" in result.out
    saved = json.loads((tmp_path / "scale.json").read_text())
    assert saved["counts_per_gram"] == pytest.approx(420.0, rel=0.01)
    assert saved["offset"] == pytest.approx(84_000, abs=100)
    assert saved["pieces"] == pytest.approx({"milk": 6.5, "can": 5.0, "bottle": 8.0, "apple": 4.0}, abs=0.3)


def test_calibrate_refuses_a_weight_lost_in_the_noise_and_saves_nothing(cli, tmp_path, monkeypatch):
    monkeypatch.setattr("sys.stdin", io.StringIO("\n\n\n\n"))
    result = cli("calibrate", "--sim", "--weight", "0.5", "--state-dir", tmp_path)
    assert result.status == 2 and result.err == "tablemate calibrate: cancelled: nothing saved\n"
    assert "refused: the 0.5 g step" in result.out and "lost in the noise" in result.out
    assert not (tmp_path / "scale.json").exists()


def test_calibrate_asks_the_weight_again_until_it_is_a_number(cli, tmp_path, monkeypatch):
    monkeypatch.setattr("sys.stdin", io.StringIO("heavy\n-3\n200\n\nq\n"))
    result = cli("calibrate", "--sim", "--state-dir", tmp_path)
    assert result.status == 2 and "Put the 200 g weight in" in result.out
    assert result.out.count("a weight is a number of grams") == 2


def test_calibrate_without_a_scale_is_one_line(cli, tmp_path):
    config = tmp_path / "config.toml"
    config.write_text('[scale]\nbackend = "none"\n')
    result = cli("calibrate", "--config", config, "--state-dir", tmp_path / "state")
    assert result.status == 2 and result.err.count("\n") == 1 and "no scale configured" in result.err


# -- the device's screen -------------------------------------------------------------------------------------
def test_calibrate_scale_screen_on_the_device(cli, write_script, tmp_path):
    lines = [
        "press next",
        "press next",
        "press ok",  # Settings
        "press prev",  # the list wraps: Calibrate scale is its last entry
        "press ok",  # Calibrate scale
        "press next",  # 100 g -> 200 g
        "snap weight",
        "press ok",
        "snap tare",
        "press ok",
        "wait 4",
        "grams 200",
        "press ok",
        "snap measuring",
        "wait 4",
        "snap weighed",
        "grams -190",  # not all of it came out
        "press ok",
        "wait 4",
        "snap refused",
        "grams -10",
        "press ok",
        "wait 4",
    ]
    for grams in (6.5, 5.0, 8.0, 4.0):
        lines += [f"grams {grams}", "press ok", "wait 4"]
    lines += ["snap saved", "press ok", "snap settings"]
    script = write_script("\n".join(lines) + "\n", "calibrate.txt")
    state, frames = tmp_path / "state", tmp_path / "frames"
    result = cli("sim", "--script", script, "--frames", frames, "--state-dir", state, "--seed", "1")
    assert result.status == 0, result.err
    saved = json.loads((state / "scale.json").read_text())
    assert saved["counts_per_gram"] == pytest.approx(420.0, rel=0.01) and saved["weight_grams"] == 200
    assert saved["pieces"] == pytest.approx({"milk": 6.5, "can": 5.0, "bottle": 8.0, "apple": 4.0}, abs=0.3)
    assert {p.stem for p in frames.glob("*.png")} >= {"weight", "tare", "refused", "saved", "settings"}


def test_a_calibration_file_with_nan_or_infinity_is_no_calibration():
    from firmware_host.scale.calibration import Calibration

    assert Calibration.from_json(json.loads('{"counts_per_gram": NaN, "offset": 0}')) is None
    assert Calibration.from_json(json.loads('{"counts_per_gram": 420, "offset": Infinity}')) is None
    assert Calibration.from_json({"counts_per_gram": 420, "offset": 0}) is not None


def test_a_scale_json_with_no_usable_calibration_is_told_on_the_panel_not_dropped_silently(tmp_path):
    state = tmp_path / "state"
    state.mkdir()
    (state / "scale.json").write_text('{"counts_per_gram": 0, "offset": 1}')

    async def body(device):
        return list(device.store.problems), await screen(device)

    problems, shown = run_device(state, body)
    assert "scale.json holds no usable calibration: calibrate again" in problems
    assert "calibrate" in shown  # the "Files checked" screen names it
