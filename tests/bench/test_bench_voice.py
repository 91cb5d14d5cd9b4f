"""The engine alone, timed: the figures' helper runs and says what it measured (never how fast)."""

from __future__ import annotations

import pytest

from bench import voice as bench
from drivers.voice import espeak


@pytest.mark.skipif(not espeak.available(), reason="needs espeak-ng")
def test_the_engine_alone_is_timed_to_its_first_sample_and_to_its_end(capsys):
    results = bench.synthesis_alone(runs=1, phrases={"de": ("Anna ist dran.",)})
    assert set(results) == {"de", "all"} and results["all"]["runs"] == 1
    assert 0 < results["de"]["first_p95_ms"] <= results["de"]["whole_p95_ms"]
    assert bench.main(runs=1) == 0
    out = capsys.readouterr().out
    assert out.startswith("eSpeak NG") and "en: first sample p50" in out and "de: first sample" in out
