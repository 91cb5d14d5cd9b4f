"""eSpeak NG behind its command line: a child process per phrase, its WAV read from its stdout.

The command (Debian's ``espeak-ng``, in main, with English and German voices)::

    espeak-ng --stdout -z -v en -s 175 -p 50 -a 100 -- "Ann is on."

``--stdout`` writes a WAV stream (22,050 Hz, 16-bit mono) as it is synthesised, in the 4 KiB
pieces of stdio's buffer, so the first samples arrive well before the last are made; ``-z`` drops
the pause after the last sentence; ``--`` ends the options, so a name that starts with a dash is
said, not parsed. eSpeak NG reads ``[[...]]`` as phoneme codes even without ``-m``: square
brackets are taken out of every text (:func:`speakable`), so no name can speak phonemes.

Running it as a program keeps its GPL at a process boundary from this MIT project. Two renderers:
:class:`Espeak`, whose :meth:`Espeak.command` ALSA's player runs and pipes on a thread of the
phrase's own (:mod:`drivers.voice.pipeline`; its :meth:`Espeak.render`, an asyncio child process
streamed to the loop, serves any other player); and :class:`EspeakInline`, the same command run to its end in
the loop's default executor, which the virtual-time loop runs inline, so a scripted simulator
session is deterministic.
"""

from __future__ import annotations

import asyncio
import contextlib
import shutil
import subprocess
from collections.abc import AsyncIterator

from drivers.voice import EngineError, Voice

PROGRAM = "espeak-ng"
VOICES = {"en": "en", "de": "de"}
"""eSpeak NG's voice for each language (``en`` is its British English, ``de`` Standard German)."""
CHUNK = 64 * 1024
TIMEOUT = 10.0
"""Seconds an inline render may take before it counts as failed."""


def available(program: str = PROGRAM) -> bool:
    """Whether the engine is installed (a laptop may not have it)."""
    return shutil.which(program) is not None


def speakable(text: str) -> str:
    """``text`` as the engine should get it: control characters and square brackets (eSpeak NG's
    ``[[phonemes]]``) become spaces, runs of spaces one."""
    cleaned = "".join(" " if c in "[]" or not c.isprintable() else c for c in text)
    return " ".join(cleaned.split())


def command(text: str, voice: Voice, program: str = PROGRAM) -> list[str]:
    """The command line that writes the WAV of ``text`` in ``voice`` to stdout."""
    return [
        program,
        "--stdout",
        "-z",
        "-v",
        VOICES[voice.language],
        "-s",
        str(voice.rate),
        "-p",
        str(voice.pitch),
        "-a",
        str(voice.amplitude),
        "--",
        speakable(text),
    ]


def _failure(returncode: int, stderr: bytes) -> str:
    said = stderr.decode("utf-8", "replace").strip().splitlines()
    return f"{PROGRAM} exited with {returncode}" + (f": {said[-1]}" if said else "")


class Espeak:
    """The engine as an asyncio child process, its sound streamed as it is made."""

    def __init__(self, program: str = PROGRAM) -> None:
        self.program = program

    def command(self, text: str, voice: Voice) -> list[str]:
        """The command line that writes the WAV of ``text`` in ``voice`` to stdout."""
        return command(text, voice, self.program)

    async def render(self, text: str, voice: Voice) -> AsyncIterator[bytes]:
        """The WAV bytes of ``text``, piece by piece; closing the generator early kills the engine."""
        try:
            proc = await asyncio.create_subprocess_exec(
                *command(text, voice, self.program),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
            )
        except OSError as exc:
            raise EngineError(f"{self.program}: {exc.strerror or exc}") from None
        assert proc.stdout is not None and proc.stderr is not None
        try:
            while chunk := await proc.stdout.read(CHUNK):
                yield chunk
            returncode = await proc.wait()
            if returncode != 0:
                raise EngineError(_failure(returncode, await proc.stderr.read()))
        finally:
            if proc.returncode is None:
                with contextlib.suppress(ProcessLookupError):
                    proc.kill()
                await proc.wait()


def render_now(text: str, voice: Voice, program: str = PROGRAM) -> bytes:
    """The whole WAV of ``text``, made by a blocking run of the engine."""
    try:
        done = subprocess.run(command(text, voice, program), capture_output=True, timeout=TIMEOUT, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise EngineError(f"{program}: {getattr(exc, 'strerror', None) or exc}") from None
    if done.returncode != 0:
        raise EngineError(_failure(done.returncode, done.stderr))
    return done.stdout


class EspeakInline:
    """The engine run to its end in the loop's default executor (inline on virtual time)."""

    def __init__(self, program: str = PROGRAM) -> None:
        self.program = program

    async def render(self, text: str, voice: Voice) -> AsyncIterator[bytes]:
        """The whole WAV of ``text`` as one piece."""
        yield await asyncio.get_running_loop().run_in_executor(None, render_now, text, voice, self.program)
