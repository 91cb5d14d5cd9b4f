"""A simulated speaker: records each phrase's words and sound, and "plays" it on the loop's clock.

Product code, like the simulated tower and scale: the simulator and the tests use it. A phrase
takes as long as its sound (or, with no engine, as its words at the voice's rate), waited on the
event loop's clock, so on the virtual-time loop a newer call cuts an older one exactly as on the
table. :func:`write_files` writes one recorded phrase as ``voice-NNNN.txt`` (the words) and
``voice-NNNN.wav`` (the sound) beside the simulator's frames.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from drivers.voice import CUT, SAID, Utterance, Voice, wav

SHORTEST = 0.3
"""Seconds the shortest phrase takes when its length is estimated from its words."""


def spoken_seconds(text: str, voice: Voice) -> float:
    """How long ``text`` takes to say at the voice's rate (words per minute), for a speaker with no
    sound to measure."""
    return max(SHORTEST, len(text.split()) * 60.0 / voice.rate)


@dataclass
class Recorded:
    """One phrase the simulated speaker began to say."""

    index: int
    """1 for the first phrase of the session, then 2, 3…"""
    words: str
    voice: Voice
    kind: str
    sound: bytes | None
    """The WAV (sizes sealed), or ``None`` when no engine made one."""
    seconds: float
    outcome: str | None = None
    """:data:`drivers.voice.SAID` or :data:`drivers.voice.CUT` once it is over."""


class _Take:
    """One phrase going into the recorder."""

    def __init__(self, player: RecordingPlayer, utterance: Utterance | None) -> None:
        self._player = player
        self._utterance = utterance
        self._parts: list[bytes] = []
        self.recorded: Recorded | None = None

    def write(self, chunk: bytes) -> None:
        self._parts.append(chunk)

    async def finish(self) -> None:
        u = self._utterance
        if u is None:  # a probe
            return
        sound = wav.sealed(b"".join(self._parts)) if self._parts else None
        seconds = wav.duration(sound) if sound else spoken_seconds(u.text, u.voice)
        self.recorded = self._player.record(u, sound, seconds)
        await asyncio.sleep(seconds)
        self.recorded.outcome = SAID

    async def cut(self) -> None:
        if self.recorded is not None and self.recorded.outcome is None:
            self.recorded.outcome = CUT


class RecordingPlayer:
    """Keeps the last ``keep`` phrases it was given, in order, and tells ``on_said`` of each one
    as it begins (with its whole sound)."""

    name = "sim"

    def __init__(self, on_said: Callable[[Recorded], None] | None = None, keep: int = 1000) -> None:
        self.said: deque[Recorded] = deque(maxlen=keep)
        self.count = 0
        """Phrases begun since the start (more than ``said`` holds after ``keep``)."""
        self._on_said = on_said

    def record(self, utterance: Utterance, sound: bytes | None, seconds: float) -> Recorded:
        """Note a phrase beginning."""
        self.count += 1
        recorded = Recorded(self.count, utterance.text, utterance.voice, utterance.kind, sound, seconds)
        self.said.append(recorded)
        if self._on_said is not None:
            self._on_said(recorded)
        return recorded

    @property
    def words(self) -> list[str]:
        """The words of every phrase kept, in order."""
        return [r.words for r in self.said]

    async def open(self, utterance: Utterance | None = None) -> _Take:
        """Take a phrase (a recorder is always there)."""
        return _Take(self, utterance)

    async def probe(self) -> None:
        """A recorder is always there."""


def write_files(directory: Path, recorded: Recorded) -> list[Path]:
    """Write ``voice-NNNN.txt`` (the words, one line) and, when there is a sound,
    ``voice-NNNN.wav``; returns the paths written."""
    directory.mkdir(parents=True, exist_ok=True)
    stem = directory / f"voice-{recorded.index:04d}"
    written = [stem.with_suffix(".txt")]
    written[0].write_text(recorded.words + "\n", encoding="utf-8")
    if recorded.sound is not None:
        written.append(stem.with_suffix(".wav"))
        written[1].write_bytes(recorded.sound)
    return written
