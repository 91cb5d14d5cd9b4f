"""``tablemate bench voice``: the table's voice, press → first sample handed to ALSA, beside the
speech engine alone saying the same words.

The table (:func:`press_to_sound`): the whole device on a real event loop (simulated buttons, panel,
tower), the voice on, speaking through ``aplay`` into an ALSA device of the benchmark's own (a
``file`` plugin writing to ``/dev/null`` on the ``null`` device, defined in a temporary
``~/.asoundrc``: no sound card needed, the same ``aplay`` and ``espeak-ng`` as on the table). Each
press is a move of a three-player Arschbombe game handed to ``apply`` — the function every press
ends in — with the voice's sound cache emptied first, so every call is synthesised (the worst
case); timed from just before ``apply`` to the moment the first bytes past the WAV header were
written to ``aplay``'s stdin (:attr:`drivers.voice.Utterance.sounding`), which hands them to ALSA.
Meanwhile a task sleeping 1 ms at a time measures the loop's longest block, and the process's CPU
(its own and its children's, ``espeak-ng`` and ``aplay``) is read over the speaking stretch. The
engine alone says each press's words right after it (:func:`first_sample`), so the two meet the
same machine at the same moment — a busy neighbour slows both, not one — and the target is a p95
at most 1.5 times the engine's over those pairs; the same phrases said in a row afterwards
(:func:`synthesis_alone`) are printed beside, as before. Last, ``tablemate run --sim`` with the voice on runs as its
own process, the companion page up, and its resident memory is read once it is idle.

The engine alone: how long eSpeak NG takes from being started to the first sample of a
phrase, and to its last. Each run starts ``espeak-ng``
exactly as the speaker does (:func:`drivers.voice.espeak.command`), as a plain child process read
with blocking reads — no event loop, no player — and times from just before the process is created
to the first bytes past the WAV header on its stdout (its first samples: stdio hands them over in
4 KiB pieces, as the speaker gets them) and to the end of its output. One unmeasured run per
language first, so the voice's files are in the page cache as on a device that has spoken before.

Run the engine alone: ``python3 -m bench.voice [RUNS]`` (default 20 runs of each phrase).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

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


TARGET_RATIO = 1.5
"""Press → first sample p95 at most this many times the engine's own."""
TARGET_BLOCK_MS = 5.0
TARGET_RSS_MB = 64.0
ASOUNDRC = "pcm.bench {\n type file\n slave.pcm null\n file /dev/null\n format raw\n}\n"
"""An ALSA device that takes sound as a card would and keeps none of it."""


@contextlib.contextmanager
def bench_home() -> Iterator[Path]:
    """A temporary ``HOME`` whose ``.asoundrc`` defines the device ``bench``."""
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        (home / ".asoundrc").write_text(ASOUNDRC, encoding="utf-8")
        old = os.environ.get("HOME")
        os.environ["HOME"] = str(home)
        try:
            yield home
        finally:
            if old is None:
                os.environ.pop("HOME", None)
            else:
                os.environ["HOME"] = old


def _cpu() -> float:
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


async def _press_to_sound(presses: int) -> dict[str, Any]:
    from firmware_host.core import config as configuration
    from firmware_host.core.store import Store
    from firmware_host.runtime.device import Device
    from games.workloads import PLAIN

    loop = asyncio.get_running_loop()
    config = configuration.parse(
        {
            "voice": {"enabled": True, "speaker": "alsa", "device": "bench", "calls": "results"},
            "web": {"enabled": False},
        },
        "bench",
    ).with_sim()
    with tempfile.TemporaryDirectory() as tmp:
        device = Device(config, Store(Path(tmp)), seed=1)
        task = asyncio.create_task(device.run())
        await device.ready.wait()
        worst = [0.0, 0.0]  # the loop's longest block since the press: wall time, its own CPU time
        ticking = [True]

        async def tick() -> None:
            while ticking[0]:
                start, cpu = time.perf_counter(), time.thread_time()
                await asyncio.sleep(0.001)
                worst[0] = max(worst[0], time.perf_counter() - start - 0.001)
                worst[1] = max(worst[1], time.thread_time() - cpu)

        from bench.pixels import preempted

        latencies: list[float] = []
        blocks: list[float] = []
        quiet: list[bool] = []
        cpu_blocks: list[float] = []
        said: list[str] = []
        alone: list[float] = []
        apart = [0.0, 0.0]  # CPU and wall time of the engine alone's runs
        cpu0, wall0 = _cpu(), time.perf_counter()
        ticker = asyncio.create_task(tick())
        speaker = device.door.voice.speaker
        calls: list[Any] = []
        real_say = speaker.say

        def say(*args: Any, **kwargs: Any) -> Any:
            utterance = real_say(*args, **kwargs)
            calls.append(utterance)
            return utterance

        speaker.say = say
        try:
            while len(latencies) < presses:
                device.door.start_named(PLAIN.game, list(PLAIN.players))
                await asyncio.sleep(0.2)
                for action in PLAIN.actions[:-1]:  # the last would end the game
                    if len(latencies) >= presses:
                        break
                    speaker.cache.clear()
                    calls.clear()
                    before = preempted()
                    t0 = loop.time()
                    assert device.door.apply(action)
                    worst[:] = [0.0, 0.0]  # from here the loop serves the press's frame and its speech
                    await asyncio.wait_for(_said(calls), 30)
                    u = calls[0]
                    if u.outcome == "said" and u.sounding is not None:
                        latencies.append(u.sounding - t0)
                        blocks.append(worst[0])
                        cpu_blocks.append(worst[1])
                        quiet.append(preempted() == before)
                        said.append(u.text)
                        # the engine alone on the same words, now: the same machine, the same load
                        aside = _cpu(), time.perf_counter()
                        alone.append(first_sample(u.text, u.voice)[0])
                        await asyncio.sleep(0.005)  # the ticker's late wake is not the next press's
                        apart[0] += _cpu() - aside[0]  # not counted as the table's CPU while speaking
                        apart[1] += time.perf_counter() - aside[1]
        finally:
            speaker.say = real_say
            ticking[0] = False
            await ticker
            cpu1, wall1 = _cpu(), time.perf_counter()
            device.stop()
            await task
    calm = [b for b, q in zip(blocks, quiet, strict=True) if q]
    return {
        "latencies": latencies,
        "alone": alone,
        "quiet_latencies": [x for x, q in zip(latencies, quiet, strict=True) if q],
        "phrases": said,
        "block_ms": max(blocks) * 1e3 if blocks else 0.0,
        "block_p95_ms": _q(blocks, 0.95) * 1e3 if blocks else 0.0,
        "quiet_block_ms": max(calm) * 1e3 if calm else float("nan"),
        "cpu_block_ms": max(cpu_blocks) * 1e3 if cpu_blocks else 0.0,
        "cpu_block_p95_ms": _q(cpu_blocks, 0.95) * 1e3 if cpu_blocks else 0.0,
        "cpu_percent": 100 * (cpu1 - cpu0 - apart[0]) / (wall1 - wall0 - apart[1]),
    }


async def _said(calls: list[Any]) -> None:
    while not calls:
        await asyncio.sleep(0.001)
    await calls[0].wait()


def press_to_sound(presses: int = 40) -> dict[str, Any]:
    """Press → first sample handed to ALSA over ``presses`` moves, the loop's longest block and
    the CPU while speaking (see the module's docstring)."""
    with bench_home():
        return asyncio.run(_press_to_sound(presses))


def rss_with_voice(seconds: float = 3.0) -> float:
    """Resident MB of ``tablemate run --sim`` with the voice on and the page up, once idle."""
    from firmware_host.cli.bench.idle import _memory_mb
    from firmware_host.cli.bench.process import running_device

    with bench_home() as home:
        config = home / "config.toml"
        config.write_text('[voice]\nenabled = true\ndevice = "bench"\n[web]\nenabled = true\n', encoding="utf-8")
        with running_device(home / "state", home, config) as (proc, _):
            time.sleep(seconds)
            return _memory_mb(proc.pid)[0]


def bench(presses: int = 40, runs: int = 5) -> int:
    """Print the table's voice figures beside the engine's; exit 1 when a target is missed."""
    if not available():
        print(f"voice: {PROGRAM} is not installed", file=sys.stderr)
        return 1
    table = press_to_sound(presses)
    phrases = tuple(dict.fromkeys(table["phrases"]))
    apart = synthesis_alone(runs, {"en": phrases})["all"]
    ours = sorted(table["latencies"])
    p50, p95 = _q(ours, 0.5) * 1e3, _q(ours, 0.95) * 1e3
    paired = table["alone"]
    alone_p50, alone_p95 = _q(paired, 0.5) * 1e3, _q(paired, 0.95) * 1e3
    ratio = p95 / alone_p95
    rss = rss_with_voice()
    print(f"{engine_version()}, aplay to an ALSA file device on /dev/null; {len(ours)} presses, none cached")
    print(f"  press -> first sample to ALSA: p50 {p50:.1f} ms, p95 {p95:.1f} ms")
    calm = sorted(table["quiet_latencies"])
    if calm:
        print(
            f"  same, the {len(calm)} presses during which no other process took the loop's CPU: "
            f"p50 {_q(calm, 0.5) * 1e3:.1f} ms, p95 {_q(calm, 0.95) * 1e3:.1f} ms"
        )
    print(
        f"  the engine alone on each press's words, run right after it: first sample p50 {alone_p50:.1f} ms, "
        f"p95 {alone_p95:.1f} ms; ratio of p95s {ratio:.2f} (target <= {TARGET_RATIO:g})"
    )
    print(
        f"  the engine alone, the same {len(phrases)} phrases x {runs} in a row afterwards: first sample "
        f"p50 {apart['first_p50_ms']:.1f} ms, p95 {apart['first_p95_ms']:.1f} ms"
    )
    print(
        f"  loop's longest block while speaking: {table['block_ms']:.2f} ms (target <= {TARGET_BLOCK_MS:g}), "
        f"p95 over the presses {table['block_p95_ms']:.2f} ms"
    )
    if table["quiet_latencies"]:
        print(f"  same, over the presses not preempted: {table['quiet_block_ms']:.2f} ms")
    print(
        f"  the loop thread's own CPU time in its longest step while speaking (what it did, not how "
        f"long others held the CPU): {table['cpu_block_ms']:.2f} ms, p95 over the presses "
        f"{table['cpu_block_p95_ms']:.2f} ms"
    )
    print(f"  CPU while speaking (the device, espeak-ng and aplay): {table['cpu_percent']:.1f} % of one core")
    print(f"  run --sim with the voice on, the page up, idle: RSS {rss:.1f} MB (target <= {TARGET_RSS_MB:g})")
    met = ratio <= TARGET_RATIO and table["cpu_block_ms"] <= TARGET_BLOCK_MS and rss <= TARGET_RSS_MB
    return 0 if met else 1


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
