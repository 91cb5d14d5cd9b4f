"""ALSA through ``aplay`` (Debian's ``alsa-utils``): one child process per phrase, fed through its
stdin from the loop, cut by a signal.

Why a process and not a library in our own process: ``aplay`` blocks on the device, we never do —
the loop only writes to a pipe, and the process's exit tells us the sound is over or the device
failed. A newer call cuts the sound by closing the pipe (a player still waiting for its header
reads the end and leaves) and sending ``SIGTERM`` (``aplay`` aborts the PCM and exits at once);
one that does not leave within ``cut_grace`` (stuck opening a device) gets ``SIGKILL``. The next
sound starts only once the last process has exited, so a device that takes one stream at a time
(``hw:``) is never found busy by our own previous call. Nothing stays running between phrases:
no thread, no open device, no timer.

The command: ``aplay -q -t wav -D DEVICE -``. ``DEVICE`` is any ALSA name: ``default``, a USB
speaker by card name (``plughw:CARD=Device``, ``aplay -L`` lists them), or in tests a ``file``
plugin device (``file:'/tmp/said.wav',wav``) or one defined in ``~/.asoundrc``.

A missing device makes ``aplay`` exit with ``audio open error`` at once; a device unplugged in
the middle of a phrase, with a write error. Both raise :class:`drivers.voice.DeviceError` with the
player's own last line; :meth:`AplayPlayer.probe` opens the device with a 20 ms silence to find
out whether it is back.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import subprocess

from drivers.voice import DeviceError, Utterance, wav

PROGRAM = "aplay"
BYTES_PER_SECOND = wav.RATE * 2
PROBE_SOUND = wav.silence(0.02)


class AplayPlayback:
    """One ``aplay`` process playing one sound."""

    def __init__(self, proc: asyncio.subprocess.Process, cut_grace: float, margin: float) -> None:
        self._proc = proc
        self._cut_grace = cut_grace
        self._margin = margin
        self._written = 0

    @property
    def pid(self) -> int:
        """The player's process id."""
        return self._proc.pid

    def write(self, chunk: bytes) -> None:
        """Queue ``chunk`` on the player's stdin (the loop writes it as the pipe takes it)."""
        stdin = self._proc.stdin
        if stdin is None or stdin.is_closing() or self._proc.returncode is not None:
            return  # the player has gone: finish() says why
        stdin.write(chunk)
        self._written += len(chunk)

    async def finish(self) -> None:
        """End the stream and wait for the player to have played it."""
        if self._proc.stdin is not None:
            self._proc.stdin.close()  # after what is queued has been written
        longest = self._written / BYTES_PER_SECOND + self._margin
        try:
            returncode = await asyncio.wait_for(self._proc.wait(), longest)
        except TimeoutError:
            await self.cut()
            raise DeviceError(f"{PROGRAM}: no end after {longest:.1f} s (device stuck)") from None
        if returncode != 0:
            raise DeviceError(await self._failure(returncode))

    async def cut(self) -> None:
        """Stop now: the stream closed, ``SIGTERM``, ``SIGKILL`` after ``cut_grace``; returns once
        the process has exited."""
        if self._proc.returncode is not None:
            return
        if self._proc.stdin is not None:
            self._proc.stdin.transport.abort()  # drop what is queued; a player reading its header ends
        with contextlib.suppress(ProcessLookupError):
            self._proc.send_signal(signal.SIGTERM)
        try:
            await asyncio.wait_for(asyncio.shield(self._proc.wait()), self._cut_grace)
        except TimeoutError:
            with contextlib.suppress(ProcessLookupError):
                self._proc.kill()
            await self._proc.wait()

    async def _failure(self, returncode: int) -> str:
        said = b""
        if self._proc.stderr is not None:
            with contextlib.suppress(Exception):
                said = await asyncio.wait_for(self._proc.stderr.read(4096), 1.0)
        lines = said.decode("utf-8", "replace").strip().splitlines()
        how = f"ended by signal {-returncode}" if returncode < 0 else f"exited with {returncode}"
        return f"{PROGRAM} {how}" + (f": {lines[-1]}" if lines else "")


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

    async def open(self, utterance: Utterance | None = None) -> AplayPlayback:
        """Start a player; it opens the device while the sound is being made."""
        try:
            proc = await asyncio.create_subprocess_exec(
                *self.command(), stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
            )
        except OSError as exc:
            raise DeviceError(f"{self.program}: {exc.strerror or exc}") from None
        return AplayPlayback(proc, self.cut_grace, self.margin)

    async def probe(self) -> None:
        """Play 20 ms of silence: :class:`DeviceError` if the device does not take it."""
        playback = await self.open()
        try:
            playback.write(PROBE_SOUND)
            await playback.finish()
        finally:
            await playback.cut()
