"""The speech engine alone: how long eSpeak NG takes from being started to the first sample of a
phrase, and to its last.

This is the yardstick of the voice's latency: ``tablemate bench voice`` sets press → first sample
handed to ALSA beside it (target: at most 1.5 times this p95). Each run starts ``espeak-ng``
exactly as the speaker does (:func:`drivers.voice.espeak.command`), as a plain child process read
with blocking reads — no event loop, no player — and times from just before the process is created
to the first bytes past the WAV header on its stdout (its first samples: stdio hands them over in
4 KiB pieces, as the speaker gets them) and to the end of its output. One unmeasured run per
language first, so the voice's files are in the page cache as on a device that has spoken before.

Run it alone: ``python3 -m bench.voice [RUNS]`` (default 20 runs of each phrase).
"""

from __future__ import annotations

import os
import subprocess
import sys
import time

from drivers.voice import Voice
from drivers.voice.espeak import PROGRAM, available, command

HEADER = 44
"""The bytes of eSpeak NG's WAV header before its first sample."""

PHRASES = {
    "en": (
        "Anna's turn.",
        "Anna rolls a bomb and loses two lives. Ben defuses next.",
        "Ten seconds left.",
        "Game over. Carla wins with seven points.",
    ),
    "de": (
        "Anna ist dran.",
        "Anna würfelt eine Bombe und verliert zwei Leben. Ben entschärft als Nächster.",
        "Noch zehn Sekunden.",
        "Spielende. Carla gewinnt mit sieben Punkten.",
    ),
}
"""Calls of the kinds the table will hear: a turn, a move's result, a timer warning, game over."""


def first_sample(text: str, voice: Voice) -> tuple[float, float]:
    """Seconds from starting the engine on ``text`` to its first sample and to its end."""
    start = time.perf_counter()
    proc = subprocess.Popen(command(text, voice), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE)
    assert proc.stdout is not None
    fd, got, first = proc.stdout.fileno(), 0, None
    while chunk := os.read(fd, 65536):
        got += len(chunk)
        if first is None and got > HEADER:
            first = time.perf_counter() - start
    proc.wait()
    end = time.perf_counter() - start
    if proc.returncode != 0 or first is None:
        raise RuntimeError(f"{PROGRAM} failed on {text!r} (exit {proc.returncode}, {got} bytes)")
    return first, end


def _q(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[int(q * (len(ordered) - 1))]


def synthesis_alone(runs: int = 20, phrases: dict[str, tuple[str, ...]] = PHRASES) -> dict[str, dict[str, float]]:
    """Per language and over all: p50 and p95 of first sample and of the whole phrase, in
    milliseconds, over ``runs`` runs of each phrase (taken in turn, not one phrase in a row)."""
    firsts: dict[str, list[float]] = {}
    ends: dict[str, list[float]] = {}
    for language, texts in phrases.items():
        voice = Voice(language)
        first_sample(texts[0], voice)  # the voice's files into the page cache
        for _ in range(runs):
            for text in texts:
                first, end = first_sample(text, voice)
                firsts.setdefault(language, []).append(first)
                ends.setdefault(language, []).append(end)
    firsts["all"] = [t for k in phrases for t in firsts[k]]
    ends["all"] = [t for k in phrases for t in ends[k]]
    return {
        k: {
            "runs": len(firsts[k]),
            "first_p50_ms": _q(firsts[k], 0.5) * 1e3,
            "first_p95_ms": _q(firsts[k], 0.95) * 1e3,
            "whole_p50_ms": _q(ends[k], 0.5) * 1e3,
            "whole_p95_ms": _q(ends[k], 0.95) * 1e3,
        }
        for k in firsts
    }


def engine_version() -> str:
    """The engine's own version line."""
    out = subprocess.run([PROGRAM, "--version"], capture_output=True, text=True, check=False).stdout
    return " ".join(out.split()[:4]) if out else PROGRAM


def main(runs: int = 20) -> int:
    """Print the engine's figures."""
    if not available():
        print(f"voice: {PROGRAM} is not installed", file=sys.stderr)
        return 1
    results = synthesis_alone(runs)
    print(f"{engine_version()}: start → first sample, start → end, {runs} runs of each phrase")
    for key, r in results.items():
        print(
            f"  {key}: first sample p50 {r['first_p50_ms']:.1f} ms, p95 {r['first_p95_ms']:.1f} ms; "
            f"whole phrase p50 {r['whole_p50_ms']:.1f} ms, p95 {r['whole_p95_ms']:.1f} ms ({r['runs']} runs)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main(int(sys.argv[1]) if len(sys.argv) > 1 else 20))
