"""``tablemate bench hx711``: per path, the PD_SCK highs and the words a long one drops."""

from __future__ import annotations

import json

import pytest

from bench.hx711_clock import LIMIT, PathResult, measure, table, words_over


def test_the_spi_path_has_every_high_one_bit_time_and_drops_nothing_with_threads_busy() -> None:
    (spi,) = measure(["spi"], words=200, busy=2, sps=80, realtime=False)
    assert spi.words >= 200 and len(spi.highs) >= 25 * 200
    assert spi.quantile(0.5) == spi.quantile(0.999) == max(spi.highs) == pytest.approx(1e-6)
    assert spi.over == spi.dropped == spi.power_downs == 0


def test_the_iio_path_runs_the_kernels_pulses() -> None:
    (iio,) = measure(["iio"], words=100, busy=0, sps=10, realtime=False)
    assert max(iio.highs) == pytest.approx(2.5e-6) and iio.dropped == 0


def test_the_gpio_paths_clock_the_chip_in_real_time() -> None:
    results = measure(["gpio-thread", "gpio-process"], words=20, busy=0, sps=80, realtime=False)
    for r in results:
        assert r.words == 20 and len(r.highs) == 500
        assert r.dropped == words_over(r.highs) <= r.words
        assert "measured here in real time" in r.how


def test_a_word_with_one_long_high_is_one_dropped_word() -> None:
    highs = [1e-6] * 50
    highs[30] = LIMIT * 2
    assert words_over(highs) == 1
    r = PathResult("x", 2, highs, 1, 1, "made up")
    assert r.over == 1 and r.quantile(1.0) == LIMIT * 2
    assert r.to_json()["high_us"]["max"] == 100.0
    header, row, how = table([r])
    assert "p99.9" in header and row.split()[0] == "x" and "made up" in how


def test_the_command_prints_a_row_per_path_and_fails_only_when_spi_is_over(cli) -> None:
    r = cli("bench", "hx711", "--words", "50", "--busy", "1", "--paths", "spi,iio", "--json")
    assert r.status == 0
    report = json.loads(r.out)
    assert [p["path"] for p in report["paths"]] == ["spi", "iio"]
    assert report["paths"][0]["pulses_over_50us"] == 0
    bad = cli("bench", "hx711", "--paths", "spi,usb")
    assert bad.status != 0 and "--paths" in bad.err
