"""``tablemate calibrate``: the load cell's calibration, step by step in the terminal.

The steps and the arithmetic are :mod:`firmware_host.scale.calibration` (the device's "Calibrate scale"
screen runs the same ones); this module only asks, gathers samples from the configured scale and
saves the result as ``scale.json`` in the state folder. With ``--sim`` the simulated scale stands
in, and the program puts each load on it itself, so the whole walk can be tried on a laptop
(on virtual time: it takes no real seconds).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from typing import Any

from firmware_host.core.config import Config
from firmware_host.core.store import Store
from firmware_host.runtime.hardware import open_scale
from firmware_host.runtime.vtime import run_virtual
from firmware_host.scale.calibration import (
    MEASURE_SECONDS,
    MIN_SAMPLES,
    SETTLE_SECONDS,
    Calibration,
    CalibrationError,
    CalibrationRun,
    Step,
)
from games import scale_kinds, scale_pieces

DEFAULT_WEIGHT = 100.0
NO_DATA_SECONDS = 3.0
"""How long past a window's end to wait for samples before giving up."""

Ask = Callable[[str], str]
Say = Callable[[str], None]


class Cancelled(Exception):
    """The person quit, or the input ended: nothing is saved."""


class SampleSource:
    """Samples from a scale driver (any thread), gathered on the loop."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.samples: list[tuple[float, int]] = []
        self.fault: str | None = None
        self._arrived = asyncio.Event()

    def on_sample(self, t: float, raw: int) -> None:
        """The driver's sample callback (may be called from the driver's thread)."""
        self.loop.call_soon_threadsafe(self._add, t, raw)

    def on_fault(self, reason: str) -> None:
        """The driver's fault callback."""
        self.loop.call_soon_threadsafe(self._fault, reason)

    def _add(self, t: float, raw: int) -> None:
        self.samples.append((t, raw))
        self.fault = None
        self._arrived.set()

    def _fault(self, reason: str) -> None:
        self.fault = reason
        self._arrived.set()

    async def collect(self, count: int, after: float, timeout: float) -> list[int]:
        """``count`` samples taken at ``after`` or later; CalibrationError when they do not come."""
        deadline = self.loop.time() + timeout
        while True:
            self.samples = [(t, raw) for t, raw in self.samples if t >= after]
            if len(self.samples) >= count:
                return [raw for _, raw in self.samples[:count]]
            left = deadline - self.loop.time()
            if left <= 0:
                why = f": {self.fault}" if self.fault else ": check the wiring"
                raise CalibrationError(f"no readings from the scale{why}")
            self._arrived.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._arrived.wait(), left)


def _sim_load(step: Step, weight: float) -> tuple[float | None, str]:
    """What the simulated table does before a step: (new load or None for +delta) and a note."""
    if step.name == "tare":
        return 0.0, "(sim) the bin is empty"
    if step.name == "weight":
        return weight, f"(sim) {weight:g} g goes in"
    if step.name == "unload":
        return -weight, f"(sim) the {weight:g} g comes out"
    piece = scale_pieces().get(step.kind or "")
    grams = piece.grams if piece is not None else 5.0
    return grams, f"(sim) one {piece.label if piece is not None else 'piece'} goes in ({grams:g} g)"


def ask_weight(ask: Ask, say: Say) -> float:
    """Ask for the known weight until a positive number of grams comes."""
    while True:
        text = _ask(ask, f"Known weight in grams [{DEFAULT_WEIGHT:g}]: ").strip()
        if not text:
            return DEFAULT_WEIGHT
        try:
            grams = float(text)
        except ValueError:
            grams = 0.0
        if grams > 0 and grams != float("inf"):
            return grams
        say("  a weight is a number of grams above 0, like 100")


def _ask(ask: Ask, prompt: str) -> str:
    try:
        answer = ask(prompt)
    except (EOFError, KeyboardInterrupt):
        raise Cancelled("cancelled: nothing saved") from None
    if answer.strip().lower() in ("q", "quit"):
        raise Cancelled("cancelled: nothing saved")
    return answer


async def walk(
    scale: Any,
    source: SampleSource,
    weight: float,
    ask: Ask,
    say: Say,
    sim: bool = False,
) -> Calibration:
    """Every step of a calibration: instructions out, Enter in, a window measured per step."""
    run = CalibrationRun(weight, scale_kinds())
    count = max(MIN_SAMPLES, round(scale.sps * MEASURE_SECONDS))
    loaded = -1
    while not run.done:
        step = run.step
        say(f"Step {run.index + 1}/{len(run.steps)}: {step.text}.")
        if sim and loaded != run.index:
            value, note = _sim_load(step, weight)
            scale.grams = value if step.name == "tare" else scale.grams + value
            loaded = run.index
            say(f"  {note}")
        _ask(ask, "  Enter to measure (q quits) ")
        say("  measuring, keep still...")
        after = source.loop.time() + SETTLE_SECONDS
        try:
            samples = await source.collect(count, after, SETTLE_SECONDS + MEASURE_SECONDS + NO_DATA_SECONDS)
            say(f"  {run.take(samples)}")
        except CalibrationError as exc:
            say(f"  refused: {exc}; again:")
    return run.result()


def calibrate(
    config: Config,
    store: Store,
    weight: float | None,
    sim: bool,
    ask: Ask = input,
    say: Say = print,
) -> Calibration:
    """Run the calibration on the configured scale (or the simulated one) and save it.

    Raises :class:`Cancelled` when the person quits and :class:`CalibrationError` when there is
    no scale to calibrate.
    """
    if sim:
        config = config.with_sim()

    async def main() -> Calibration:
        loop = asyncio.get_running_loop()
        scale, problems = open_scale(config, loop.time, loop.call_later)
        if scale is None:
            why = "; ".join(problems) or 'no scale configured ([scale] backend = "none")'
            raise CalibrationError(why)
        source = SampleSource(loop)
        try:
            scale.start(source.on_sample, source.on_fault)
            kind = "simulated scale" if sim else f"{config['scale']['backend']} scale"
            say(f"Calibrating the {kind} at {scale.sps} samples/s.")
            grams = weight if weight is not None else ask_weight(ask, say)
            if not grams > 0:
                raise CalibrationError("the known weight must be more than 0 g")
            return await walk(scale, source, grams, ask, say, sim)
        finally:
            scale.close()

    result = run_virtual(main) if sim else asyncio.run(main())
    store.write_doc("scale", result.to_json())
    labels = scale_kinds()
    pieces = ", ".join(f"{labels.get(k, k)} {g:.1f} g" for k, g in result.pieces.items())
    say(f"Saved {store.root / 'scale.json'}: {result.counts_per_gram:.2f} counts/g; {pieces}.")
    return result
