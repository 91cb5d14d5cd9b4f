"""The speaker: one small interface, its backends side by side.

What the rest of the device calls is :class:`drivers.voice.speaker.Speaker`: ``say(text, kind=,
priority=, within=)`` returns at once with an :class:`Utterance` that tells later what became of
it. The speaker keeps *no backlog*: at most one call speaks and one waits; a newer call of the same
kind, or a more important one, makes the older stale; a call that could not start before its
deadline is dropped. Phrases said once are kept as sound (:mod:`drivers.voice.cache`).

Behind it, small protocols, each with its backends in their own module:

- a :class:`Renderer` makes the sound of a text: eSpeak NG's command line, a child process per
  phrase (:class:`drivers.voice.espeak.Espeak`, whose command a :class:`Piper` runs itself), or
  the same command run inline (:class:`drivers.voice.espeak.EspeakInline`) for the simulator on virtual time;
- a :class:`Player` sends it out: a recorder of words and sound for the simulator and tests
  (:mod:`drivers.voice.sim`), or a line of text where no engine is installed
  (:mod:`drivers.voice.printing`); or a :class:`Piper` takes the whole way, engine to device:
  ALSA's ``aplay`` fed by eSpeak NG on a thread of the phrase's own, cut by a newer call
  (:mod:`drivers.voice.alsa`, :mod:`drivers.voice.pipeline`).

:func:`drivers.voice.backends.open_speaker` picks them by name (``"alsa"``, ``"sim"``, ``"print"``)
the way the tower and the panel are picked from the config. eSpeak NG is GPL: it is only ever run
as a program, so its licence stays at a process boundary from this MIT project.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol, runtime_checkable

if TYPE_CHECKING:
    from drivers.voice.pipeline import Phrase

LANGUAGES = ("en", "de")
"""The languages the speaker has a voice for (the device's catalogues)."""

SAID, CUT, STALE, LATE, OUTRANKED, FAILED = "said", "cut", "stale", "late", "outranked", "failed"
"""What became of a call: said to the end; cut off by a newer call (or by ``hush``); replaced
before it started; dropped because its deadline passed before it could start; dropped on arrival
because a more important call was already waiting; not said because the device or engine failed."""
OUTCOMES = (SAID, CUT, STALE, LATE, OUTRANKED, FAILED)

OK, LOST, UNKNOWN = "ok", "lost", "unknown"
"""The speaker's device: working, missing or failing (reopened with backoff), not yet tried."""

MAX_TEXT = 600
"""The longest text one call may say (characters): a few sentences, never a page."""


@dataclass(frozen=True)
class Voice:
    """How a text is said: the language's voice, words per minute, pitch and amplitude (eSpeak NG's
    ``-v``, ``-s``, ``-p``, ``-a``). Part of every cached sound's key."""

    language: str = "en"
    rate: int = 175
    """Words per minute, 80..450 (eSpeak NG's range; 175 is its default)."""
    pitch: int = 50
    """0..99 (50 is the voice's own)."""
    amplitude: int = 100
    """Loudness, 0..200 (100 is the voice's own; above it may clip)."""

    def __post_init__(self) -> None:
        if self.language not in LANGUAGES:
            raise ValueError(f"no voice for language {self.language!r} (known: {', '.join(LANGUAGES)})")
        for name, lo, hi in (("rate", 80, 450), ("pitch", 0, 99), ("amplitude", 0, 200)):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
                raise ValueError(f"voice {name} must be an integer from {lo} to {hi}, not {value!r}")


@dataclass(eq=False)
class Utterance:
    """One call to :meth:`Speaker.say <drivers.voice.speaker.Speaker.say>` and what became of it.

    Times are the event loop's (``loop.time()``): ``asked`` when ``say`` was called, ``started``
    when its sound began to be made or fetched, ``sounding`` when its first audio bytes were handed
    to the player (for ALSA: written to ``aplay``). ``outcome`` is one of :data:`OUTCOMES` once it
    is over (``None`` while it waits or speaks); ``detail`` says why it failed or was dropped.
    """

    text: str
    voice: Voice
    kind: str
    priority: int
    deadline: float | None
    asked: float
    started: float | None = None
    sounding: float | None = None
    cached: bool = False
    """Its sound came from the cache (no engine ran)."""
    held: bool = False
    """Its sound may be made, but nothing of it reaches the player until
    :meth:`~drivers.voice.speaker.Speaker.release` (what it says is not yet on disk)."""
    outcome: str | None = None
    detail: str | None = None
    _done: asyncio.Future[str] | None = field(default=None, repr=False)

    def done(self) -> bool:
        """Whether it is over (said, cut, dropped or failed)."""
        return self.outcome is not None

    async def wait(self) -> str:
        """Its outcome, once it is over. Callers of the device never need this: ``say`` never waits
        for speech; tests and benchmarks do."""
        if self.outcome is not None:
            return self.outcome
        if self._done is None:
            self._done = asyncio.get_running_loop().create_future()
        return await asyncio.shield(self._done)

    def end(self, outcome: str, detail: str | None = None) -> None:
        """Mark it over (the speaker's job; the first outcome stands)."""
        if self.outcome is not None:
            return
        self.outcome, self.detail = outcome, detail
        if self._done is not None and not self._done.done():
            self._done.set_result(outcome)


class DeviceError(Exception):
    """The audio device is missing or failed (the speaker marks itself lost and reopens it)."""


class EngineError(Exception):
    """The speech engine failed on one text (that call fails; the device is not blamed)."""


class Playback(Protocol):
    """One sound going out: fed as it is made, then finished or cut."""

    def write(self, chunk: bytes) -> None:
        """Hand the player the next bytes of the WAV stream (never blocks)."""

    async def finish(self) -> None:
        """The sound is complete: return once it has been played (:class:`DeviceError` if the
        device failed on the way)."""

    async def cut(self) -> None:
        """Stop at once and release the device; return once it is released. Safe to call twice."""


class Player(Protocol):
    """Where sound goes: ALSA, a recorder, a printed line."""

    name: str
    """Its backend's name, for status lines (``"alsa"``, ``"sim"``, ``"print"``)."""

    async def open(self, utterance: Utterance) -> Playback:
        """Start sending ``utterance`` out (:class:`DeviceError` if the device is missing)."""

    async def probe(self) -> None:
        """Check that the device opens (:class:`DeviceError` if not); used to reopen it."""


@runtime_checkable
class Piper(Protocol):
    """A player that takes a phrase's whole way itself, engine to device, off the loop (ALSA's
    ``aplay`` fed by eSpeak NG, :mod:`drivers.voice.pipeline`)."""

    name: str

    def begin(self, utterance: Utterance, engine: list[str] | None, kept: bytes | None) -> Phrase:
        """Start saying ``utterance`` now (on the loop's thread, returning at once) with the sound
        ``kept`` or the one the command ``engine`` writes; the phrase sets ``utterance.sounding``.
        A held utterance's phrase makes its sound but hands none to the device until its
        ``release()``. Its ``play()`` awaits the end and returns the engine's sound whole;
        cancelled, it cuts."""

    async def probe(self) -> None:
        """As :meth:`Player.probe`."""


class Renderer(Protocol):
    """What makes the sound of a text."""

    def render(self, text: str, voice: Voice) -> AsyncIterator[bytes]:
        """The WAV bytes of ``text`` as they are made (an async generator; :class:`EngineError`
        when the engine fails). Closing it early stops the engine."""


StatusHandler = Callable[[str, str | None], None]
"""Called with (:data:`OK` | :data:`LOST`, detail) when the speaker's device is found or lost."""
