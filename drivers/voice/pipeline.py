"""One phrase's child processes, off the loop: eSpeak NG piped into ``aplay`` by a thread of the
phrase's own.

The loop only hands the phrase over (the engine's command, or the sound already kept) and hears
the outcome through ``call_soon_threadsafe``: the thread starts both programs with plain
:class:`subprocess.Popen` (see :meth:`Phrase._pipe` for which first), pumps the engine's
WAV into the player's stdin as it comes, waits for the player to have played it and reaps both.
Nothing of a phrase's process handling runs on the loop's thread — asyncio's child processes did
(``fork``/``exec`` there, and on Python 3.11 a waiting thread per child whose start the loop waits
for), which held the loop up to 30–50 ms per phrase on a busy machine (``tablemate bench voice``).

The thread is started with :func:`_thread.start_new_thread`, which returns at once
(:meth:`threading.Thread.start` waits until the new thread runs, the very wait the loop must not
do), and ends with its phrase: no thread stays between phrases. It therefore never logs nor asks
:mod:`threading` who it is; everything it has to say goes to the loop.

A held phrase (its words not yet on disk) runs the same way but keeps the engine's sound from the
player until the loop releases it by another byte on the same pipe: the engine synthesises while
the journal is written, and nothing sounds before it is.

A newer call cuts the phrase from the loop by one byte on a wake-up pipe: the thread sends the
player ``SIGTERM`` (``aplay`` aborts the PCM and exits at once) and closes its stdin (a player still
waiting for its header reads the end and leaves), ``SIGKILL`` after ``cut_grace`` (a player stuck
opening its device), kills the engine and reaps both; the
loop's await ends once they are gone. On the virtual-time loop (``inline_io``) the whole phrase
runs inline on the loop's thread instead, so a scripted session stays deterministic.
"""

from __future__ import annotations

import _thread
import asyncio
import contextlib
import os
import selectors
import signal
import subprocess
import time
from collections.abc import Callable

from drivers.voice import DeviceError, EngineError

CHUNK = 64 * 1024
SAID_MAX = 4096
"""Bytes of a program's complaints kept for the error message."""


def inline_io(loop: asyncio.AbstractEventLoop) -> bool:
    """Whether ``loop`` runs blocking work inline (the virtual-time loop says so of itself)."""
    return bool(getattr(loop, "inline_io", False))


class _Cut(Exception):
    """The loop asked the phrase to stop."""


def _failure(program: str, returncode: int, said: bytes) -> str:
    lines = said.decode("utf-8", "replace").strip().splitlines()
    how = f"ended by signal {-returncode}" if returncode < 0 else f"exited with {returncode}"
    return f"{program} {how}" + (f": {lines[-1]}" if lines else "")


def _start(command: list[str], error: type[Exception], stdin: int, stdout: int) -> subprocess.Popen[bytes]:
    """``command`` running (its complaints kept on a pipe), or ``error`` saying why it cannot."""
    try:
        return subprocess.Popen(command, stdin=stdin, stdout=stdout, stderr=subprocess.PIPE)
    except OSError as exc:
        raise error(f"{command[0]}: {exc.strerror or exc}") from None


def _stop(proc: subprocess.Popen[bytes], grace: float) -> None:
    """End ``proc`` if it still runs (``SIGTERM``, its stdin closed, ``SIGKILL`` after ``grace``)
    and reap it. The signal goes first: a player that read the end of its stdin before it would
    play out what it holds, padded with silence (this thread may wait for the GIL in between)."""
    running = proc.poll() is None
    if running:
        with contextlib.suppress(ProcessLookupError):
            proc.send_signal(signal.SIGTERM)
    if proc.stdin is not None:
        with contextlib.suppress(OSError):
            proc.stdin.close()
    if running:
        try:
            proc.wait(grace)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                proc.kill()
            proc.wait()
    for pipe in (proc.stdout, proc.stderr):
        if pipe is not None:
            pipe.close()


def _end_engine(engine: subprocess.Popen[bytes], grace: float) -> None:
    """Kill the engine if it still runs (its sound is no longer wanted) and reap it."""
    if engine.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            engine.kill()
    _stop(engine, grace)


class Phrase:
    """One phrase played by ``player`` (a command reading a WAV on its stdin): the sound ``kept``,
    or what ``engine`` (a command writing a WAV on its stdout) makes of it."""

    def __init__(
        self,
        player: list[str],
        *,
        engine: list[str] | None = None,
        kept: bytes | None = None,
        bytes_per_second: int,
        margin: float,
        cut_grace: float,
        on_sounding: Callable[[float], None] | None = None,
        held: bool = False,
    ) -> None:
        self.player, self.engine, self.kept = player, engine, kept
        self._held = held
        """Nothing goes to the player yet (the engine runs, the player starts and waits)."""
        self._parked = False
        """(The thread) it has sound for the player and waits for the release to hand it over."""
        self.bytes_per_second, self.margin, self.cut_grace = bytes_per_second, margin, cut_grace
        self.on_sounding = on_sounding or (lambda when: None)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._future: asyncio.Future[bytes | None] | None = None
        self._wake: tuple[int, int] | None = None
        self._cut = False

    def start(self) -> Phrase:
        """(The loop) start the phrase's thread now, so the engine runs while the loop goes on
        with the press (its frame, the page); :meth:`play` then awaits it. On the virtual-time loop
        nothing starts here: :meth:`play` runs the phrase inline."""
        loop = self._loop = asyncio.get_running_loop()
        if self._future is None and not inline_io(loop):
            self._future = loop.create_future()
            self._wake = os.pipe()  # owned by the loop: closed there once the outcome is in
            _thread.start_new_thread(self._run, ())
        return self

    @property
    def parked(self) -> bool:
        """Whether a held phrase has sound made for the player and waits for its release."""
        return self._parked and self._held

    @property
    def started(self) -> bool:
        """Whether its thread runs (never on the virtual-time loop)."""
        return self._future is not None

    def release(self) -> None:
        """(The loop) a held phrase may sound now. The thread is woken only when it is parked
        with sound waiting for the release: otherwise it sees the release when the engine's
        sound next wakes it, and the loop makes no system call (one that gives the interpreter
        to the phrase's thread, 0.75 ms of the loop's step under ``tablemate bench voice``).
        The flag is set before ``_parked`` is read here, and the thread sets ``_parked`` before
        it reads the flag again: one of the two always sees the other."""
        if self._held:
            self._held = False
            if self._parked and self._wake is not None and self._future is not None and not self._future.done():
                with contextlib.suppress(OSError):
                    os.write(self._wake[1], b"g")

    @property
    def over(self) -> bool:
        """Whether both programs are gone (or the phrase never started a thread)."""
        return self._future is None or self._future.done()

    def cut(self) -> None:
        """(The loop) cut the phrase; :meth:`when_over` hears once its programs are gone."""
        self._stop_now()

    def when_over(self, then: Callable[[], None]) -> None:
        """Call ``then`` on the loop once the phrase is over (at once if it is); its outcome is
        taken as read (a phrase nobody awaits is cut, not news)."""
        if self._future is None:
            then()
            return

        def over(future: asyncio.Future[bytes | None]) -> None:
            if not future.cancelled():
                future.exception()
            then()

        self._future.add_done_callback(over)

    async def ended(self) -> None:
        """Wait until the phrase is over, whatever its outcome."""
        if self._future is not None:
            await asyncio.wait([self._future])

    async def play(self) -> bytes | None:
        """Play the phrase (started now unless :meth:`start` did); return the engine's whole WAV
        (``None`` when the sound was kept). :class:`DeviceError` when the player fails,
        :class:`EngineError` when the engine does; cancelled, the phrase is cut and this returns
        (re-raising) once both programs are gone."""
        self.start()
        if self._future is None:  # virtual time: the phrase runs to its end here, deterministically
            return self._pipe()
        try:
            return await asyncio.shield(self._future)
        except asyncio.CancelledError:
            self._stop_now()
            while not self._future.done():
                with contextlib.suppress(asyncio.CancelledError):
                    await asyncio.wait([self._future])
            self._future.exception()  # retrieved: the thread's _Cut is no news
            raise

    def _stop_now(self) -> None:
        """(The loop) tell the thread to cut."""
        self._cut = True
        if self._wake is not None and self._future is not None and not self._future.done():
            with contextlib.suppress(OSError):
                os.write(self._wake[1], b"x")

    # -- the phrase's thread ----------------------------------------------------------------------
    def _run(self) -> None:
        made: bytes | None = None
        error: BaseException | None = None
        try:
            made = self._pipe()
        except BaseException as exc:  # every outcome goes to the loop
            error = exc
        assert self._loop is not None
        with contextlib.suppress(RuntimeError):  # a loop closed meanwhile hears nothing
            self._loop.call_soon_threadsafe(self._settle, made, error)

    def _settle(self, made: bytes | None, error: BaseException | None) -> None:
        """(The loop) the outcome is in: the wake-up pipe closed, the awaiting call told."""
        if self._wake is not None:
            for fd in self._wake:
                os.close(fd)
            self._wake = None
        if self._future is not None and not self._future.done():
            if error is None:
                self._future.set_result(made)
            else:
                self._future.set_exception(error)

    def _sounding(self) -> None:
        assert self._loop is not None
        when = self._loop.time()  # the clock's reading only (monotonic on a real loop)
        if inline_io(self._loop):
            self.on_sounding(when)
        else:
            self._loop.call_soon_threadsafe(self.on_sounding, when)

    def _pipe(self) -> bytes | None:
        """Start both programs, pump, and end them (the later started first). A held phrase
        starts the player first: its start-up (ALSA's configuration) is done while the journal
        is written, so the loop drawing the move then shares the CPU with the engine alone; one
        not held starts the engine first, the player while it synthesises (``tablemate bench
        voice`` measured both)."""
        engine: subprocess.Popen[bytes] | None = None
        player: subprocess.Popen[bytes] | None = None
        with contextlib.ExitStack() as started:
            for step in ("player", "engine") if self._held else ("engine", "player"):
                if step == "player":
                    player = _start(self.player, DeviceError, subprocess.PIPE, subprocess.DEVNULL)
                    started.callback(_stop, player, self.cut_grace)
                elif self.engine is not None:
                    engine = _start(self.engine, EngineError, subprocess.DEVNULL, subprocess.PIPE)
                    started.callback(_end_engine, engine, self.cut_grace)
            assert player is not None
            return self._pump(engine, player)

    def _pump(self, engine: subprocess.Popen[bytes] | None, player: subprocess.Popen[bytes]) -> bytes | None:
        """The engine's sound (or the kept one) into the player until it has played it."""
        assert player.stdin is not None and player.stderr is not None
        stdin = player.stdin.fileno()
        os.set_blocking(stdin, False)
        pending = bytearray(self.kept or b"")
        pieces: list[bytes] = []
        said = bytearray()
        written = 0
        deadline: float | None = None
        stdin_open = True
        with selectors.DefaultSelector() as sel:
            if self._wake is not None:
                sel.register(self._wake[0], selectors.EVENT_READ, "wake")
            sel.register(player.stderr, selectors.EVENT_READ, "said")
            if engine is not None:
                assert engine.stdout is not None
                sel.register(engine.stdout, selectors.EVENT_READ, "sound")
            engine_done = engine is None
            watching_stdin = False
            while True:
                if self._cut:
                    raise _Cut
                held = self._held
                if held and pending and not self._parked:
                    self._parked = True  # from now on a release wakes us…
                    held = self._held  # …unless it came already
                if stdin_open and pending and not watching_stdin and not held:
                    sel.register(stdin, selectors.EVENT_WRITE, "feed")
                    watching_stdin = True
                elif watching_stdin and (not pending or not stdin_open):
                    sel.unregister(stdin)
                    watching_stdin = False
                if stdin_open and engine_done and not pending and not held:
                    player.stdin.close()  # the end of the sound: the player plays the rest and leaves
                    stdin_open = False
                    longest = written / self.bytes_per_second + self.margin
                    deadline = time.monotonic() + longest
                timeout = None if deadline is None else max(0.0, deadline - time.monotonic())
                events = sel.select(timeout)
                if not events and deadline is not None and time.monotonic() >= deadline:
                    raise DeviceError(f"{self.player[0]}: no end after {longest:.1f} s (device stuck)")
                for key, _ in events:
                    if key.data == "wake":  # a cut, or a held phrase released
                        os.read(key.fd, 64)
                        if self._cut:
                            raise _Cut
                        continue
                    if key.data == "sound":
                        assert engine is not None
                        chunk = os.read(key.fd, CHUNK)
                        if chunk:
                            pieces.append(chunk)
                            pending += chunk
                            continue
                        sel.unregister(key.fd)
                        engine_done = True
                        if engine.wait() != 0:
                            assert engine.stderr is not None
                            raise EngineError(_failure(self.engine[0], engine.returncode, engine.stderr.read()))
                    elif key.data == "feed":
                        try:
                            n = os.write(stdin, pending[:CHUNK])
                        except BlockingIOError:
                            continue
                        except BrokenPipeError:  # the player has gone: its exit says why
                            pending.clear()
                            continue
                        if written == 0 and n:
                            self._sounding()
                        written += n
                        del pending[:n]
                    elif key.data == "said":
                        chunk = os.read(key.fd, SAID_MAX)
                        if chunk:
                            said = (said + chunk)[-SAID_MAX:]
                            continue
                        sel.unregister(key.fd)  # the player has left
                        if player.wait() != 0:
                            raise DeviceError(_failure(self.player[0], player.returncode, bytes(said)))
                        return b"".join(pieces) if engine is not None and engine_done else None
