"""The load-cell event detector: raw samples in, ``place`` / ``fall`` / ``fault`` events out.

Pure: no clock, no I/O; the same code runs live and in ``tablemate scale detect``. This first
version fixes the interface (the full detector — spike rejection, stability windows, drift
tracking — replaces the inside of :class:`Detector`, not its shape).
"""

from __future__ import annotations

from dataclasses import dataclass

PLACE, FALL, FAULT = "place", "fall", "fault"
SETTLED, DISTURBED = "settled", "disturbed"


@dataclass(frozen=True)
class ScaleEvent:
    """A settled change of the pile (``place``, ``fall``) or a sensor ``fault``.

    ``t`` is the time of the sample at which the detector knew; ``grams`` the settled change
    (negative for a fall); ``pieces`` the whole number of pieces it stands for.
    """

    t: float
    event: str
    grams: float = 0.0
    pieces: int = 0
    reason: str = ""

    def to_json(self) -> dict:
        """The ``scale detect`` output object of the contract."""
        out: dict = {"t": round(self.t, 3), "event": self.event, "grams": round(self.grams, 1), "pieces": self.pieces}
        if self.reason:
            out["reason"] = self.reason
        return out


class Detector:
    """Follows one load cell's samples and reports settled changes."""

    def __init__(self, counts_per_gram: float, piece_grams: float | None = None, sps: float | None = None) -> None:
        if counts_per_gram == 0:
            raise ValueError("counts per gram cannot be 0")
        self.counts_per_gram = counts_per_gram
        self.piece_grams = piece_grams
        self.sps = sps
        self.state = DISTURBED
        self.settled_grams: float | None = None
        self._window: list[float] = []

    def feed(self, t: float, raw: int) -> list[ScaleEvent]:
        """One sample; returns the events it completes."""
        if raw in (-1, 0x7FFFFF, -0x800000):
            return []
        grams = raw / self.counts_per_gram
        self._window = [*self._window[-4:], grams]
        if len(self._window) < 5 or max(self._window) - min(self._window) > 2.0:
            self.state = DISTURBED
            return []
        self.state = SETTLED
        level = sorted(self._window)[2]
        if self.settled_grams is None:
            self.settled_grams = level
            return []
        step = level - self.settled_grams
        threshold = (self.piece_grams or 5.0) * 0.5
        if abs(step) < threshold:
            return []
        self.settled_grams = level
        pieces = round(abs(step) / self.piece_grams) if self.piece_grams else 0
        return [ScaleEvent(t, PLACE if step > 0 else FALL, step, pieces)]
