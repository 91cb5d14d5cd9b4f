"""The speaker where no engine is installed (a laptop without ``espeak-ng``): each phrase becomes a
line of text, held for as long as saying it would take, so calls still replace each other and
expire as they would aloud."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from drivers.voice import Utterance
from drivers.voice.sim import spoken_seconds


def _print(text: str) -> None:
    print(f"(says) {text}", flush=True)


class _Pause:
    """A phrase shown as text: it "plays" for the time its words take."""

    def __init__(self, seconds: float) -> None:
        self._seconds = seconds

    def write(self, chunk: bytes) -> None:
        pass

    async def finish(self) -> None:
        await asyncio.sleep(self._seconds)

    async def cut(self) -> None:
        pass


class PrintPlayer:
    """Hands each phrase's words to ``line`` (the simulator's status line; stdout by default)."""

    name = "print"

    def __init__(self, line: Callable[[str], None] | None = None) -> None:
        self._line = line or _print

    async def open(self, utterance: Utterance | None = None) -> _Pause:
        """Show the words now."""
        if utterance is None:
            return _Pause(0.0)
        self._line(utterance.text)
        return _Pause(spoken_seconds(utterance.text, utterance.voice))

    async def probe(self) -> None:
        """A line of text is always there."""
