"""``tablemate scale monitor``: the load cell live in the terminal."""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from drivers.scale.hx711 import HX711Scale, HX711Unavailable
from drivers.scale.hx711_chip import HX711Chip, LoadModel, VirtualClock
from drivers.scale.hx711_spi import SimSpiBus, SpiHX711
from firmware_host.cli.monitor import Monitor

Cli = Callable[..., Any]


def sample_lines(out: str) -> list[str]:
    return [line for line in out.splitlines() if " raw " in line]


def test_sim_monitor_shows_samples_grams_stability_and_events(cli: Cli, tmp_path: Path) -> None:
    r = cli("scale", "monitor", "--sim", "--virtual", "--seconds", "25", "--state-dir", tmp_path)
    assert r.status == 0, r.err
    lines = r.out.splitlines()
    assert lines[0].startswith("scale monitor: simulated HX711 at 10 SPS")
    samples = sample_lines(r.out)
    assert len(samples) == pytest.approx(245, abs=3)
    assert " g  noise " in samples[-1]
    assert any(line.endswith("settled") for line in samples)
    assert any("PLACE" in line and "+5" in line for line in lines)  # the story's first piece
    assert lines[-1].startswith("driver: 249 reads, 0 dropped for a slow clock pulse, 4 while settling")


def test_sample_count_stops_it(cli: Cli, tmp_path: Path) -> None:
    r = cli("scale", "monitor", "--sim", "--virtual", "--samples", "30", "--state-dir", tmp_path)
    assert r.status == 0
    assert len(sample_lines(r.out)) == 30


def test_counts_per_gram_from_the_calibration_file_or_the_option(cli: Cli, tmp_path: Path) -> None:
    saved = {"counts_per_gram": 840, "offset": 1000, "pieces": {"can": 5.0, "apple": 4.0}}  # `tablemate calibrate`
    (tmp_path / "scale.json").write_text(json.dumps(saved))
    r = cli("scale", "monitor", "--sim", "--virtual", "--samples", "5", "--state-dir", tmp_path)
    assert "840 counts/g" in r.out.splitlines()[0]
    r = cli(
        "scale", "monitor", "--sim", "--virtual", "--samples", "5", "--counts-per-gram", "-210", "--state-dir", tmp_path
    )
    assert "-210 counts/g" in r.out.splitlines()[0]


def test_virtual_needs_sim_and_an_end(cli: Cli, tmp_path: Path) -> None:
    r = cli("scale", "monitor", "--virtual", "--seconds", "1", "--state-dir", tmp_path)
    assert r.status == 2
    assert r.err.strip() == "tablemate scale: monitor: --virtual needs --sim (real hardware runs in real time)"
    r = cli("scale", "monitor", "--sim", "--virtual", "--state-dir", tmp_path)
    assert r.status == 2 and "--seconds or --samples" in r.err


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--seconds", "0"], "--seconds must be a number of seconds above 0"),
        (["--seconds", "nan"], "--seconds must be a number of seconds above 0"),
        (["--samples", "0"], "--samples must be 1 or more"),
        (["--counts-per-gram", "0", "--seconds", "1"], "--counts-per-gram must be a number other than 0"),
    ],
)
def test_bad_numbers_are_one_line(cli: Cli, tmp_path: Path, args: list[str], message: str) -> None:
    r = cli("scale", "monitor", "--sim", "--virtual", *args, "--state-dir", tmp_path)
    assert (r.status, r.err, r.out) == (2, f"tablemate scale: monitor: {message}\n", "")


def test_no_spi_is_one_line_and_status_2(cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def no_spi(*args: Any, **kwargs: Any) -> None:
        raise HX711Unavailable("/dev/spidev1.0: No such file or directory")

    monkeypatch.setattr("drivers.scale.hx711_spi.open_hx711_spi", no_spi)
    r = cli("scale", "monitor", "--state-dir", tmp_path)
    assert r.status == 2
    assert r.err == (
        "tablemate scale: monitor: HX711 on SPI1 (/dev/spidev1.0: DOUT GPIO 19, PD_SCK GPIO 20): "
        "/dev/spidev1.0: No such file or directory\n"
    )
    assert r.out == ""


def test_hardware_path_reads_the_reader_thread(cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    clock = VirtualClock()
    chip = HX711Chip(clock, load=LoadModel(grams=3.0))

    def open_sim(sps: int, gain: int, stamps: Any, bus: int = 1) -> HX711Scale:
        bus = SimSpiBus(chip)
        return HX711Scale(SpiHX711(bus, sps=sps, timing=clock), gain, clock, pins=(bus,))

    monkeypatch.setattr("drivers.scale.hx711_spi.open_hx711_spi", open_sim)
    r = cli("scale", "monitor", "--samples", "20", "--state-dir", tmp_path)
    assert r.status == 0
    assert r.out.splitlines()[0].startswith(
        "scale monitor: HX711 on SPI1 (/dev/spidev1.0: DOUT GPIO 19, PD_SCK GPIO 20), 10 SPS"
    )
    assert "raw counts only" in r.out.splitlines()[0]
    assert len(sample_lines(r.out)) >= 20
    assert "counts" in sample_lines(r.out)[-1]
    assert "reader CPU" in r.out.splitlines()[-1]
    assert "longest clock-high 1.0 µs" in r.out


def test_faults_get_their_own_line_and_refreshing_mode_ends_lines() -> None:
    out = io.StringIO()
    monitor = Monitor(out, 10, None, None, refresh=True)
    monitor.sample(0.1, 1000)
    monitor.fault(0.7, "no data")
    monitor.sample(0.8, 1010)
    monitor.finish()
    text = out.getvalue()
    assert "\r" in text
    assert "     0.70 s  FAULT  no data\n" in text
    assert text.endswith("\n")
