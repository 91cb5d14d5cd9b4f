"""ALSA through ``aplay`` (Debian's ``alsa-utils``): one child process per phrase, fed the
engine's WAV through its stdin, cut by a signal.

Why a process and not a library in our own process: ``aplay`` blocks on the device, we never do —
the phrase's own thread (:mod:`drivers.voice.pipeline`) starts it and eSpeak NG, pipes the one into
the other and waits for the player's exit, which tells us the sound is over or the device failed;
the loop only hands the phrase over and hears the outcome. A newer call cuts the sound by sending
``SIGTERM`` (``aplay`` aborts the PCM and exits at once) and closing the pipe (a player still
waiting for its header reads the end and leaves); one that does not leave within ``cut_grace`` (stuck
opening a device) gets ``SIGKILL``. The next sound starts only once the last process has exited, so
a device that takes one stream at a time (``hw:``) is never found busy by our own previous call.
Nothing stays running between phrases: no thread, no open device, no timer.

The command: ``aplay -q -t wav -D DEVICE -``. ``DEVICE`` is any ALSA name: ``default``, a USB
speaker by card name (``plughw:CARD=Device``, ``aplay -L`` lists them), or in tests a ``file``
plugin device (``file:'/tmp/said.wav',wav``) or one defined in ``~/.asoundrc``.

A missing device makes ``aplay`` exit with ``audio open error`` at once; a device unplugged in
the middle of a phrase, with a write error. Both raise :class:`drivers.voice.DeviceError` with the
player's own last line; :meth:`AplayPlayer.probe` opens the device with a 20 ms silence to find
out whether it is back.
"""

from __future__ import annotations

from drivers.voice import Utterance, wav
from drivers.voice.pipeline import Phrase

PROGRAM = "aplay"
BYTES_PER_SECOND = wav.RATE * 2
PROBE_SOUND = wav.silence(0.02)


class AplayPlayer:
    """Sound to the ALSA device ``device`` through ``aplay``."""

    name = "alsa"

    def __init__(
        self, device: str = "default", program: str = PROGRAM, cut_grace: float = 0.5, margin: float = 5.0
    ) -> None:
        self.device = device
        self.program = program
        self.cut_grace = cut_grace
        """Seconds a cut player has to leave after ``SIGTERM`` before ``SIGKILL``."""
        self.margin = margin
        """Seconds a player may take beyond its sound's length before the device counts as stuck."""

    def command(self) -> list[str]:
        """The player's command line (the sound comes on its stdin)."""
        return [self.program, "-q", "-t", "wav", "-D", self.device, "-"]

    def begin(self, utterance: Utterance, engine: list[str] | None, kept: bytes | None) -> Phrase:
        """Start playing ``utterance`` now: the sound ``kept``, or what the engine's command
        ``engine`` makes (its :meth:`~drivers.voice.pipeline.Phrase.play` returns it whole, to be
        kept). A held one starts the player first (see :meth:`Phrase._pipe`)."""

        def sounding(when: float) -> None:
            if utterance.sounding is None:
                utterance.sounding = when

        return self._phrase(engine=engine, kept=kept, on_sounding=sounding, held=utterance.held).start()

    async def probe(self) -> None:
        """Play 20 ms of silence: :class:`DeviceError` if the device does not take it."""
        await self._phrase(kept=PROBE_SOUND).play()

    def _phrase(self, **what) -> Phrase:
        return Phrase(
            self.command(), bytes_per_second=BYTES_PER_SECOND, margin=self.margin, cut_grace=self.cut_grace, **what
        )
