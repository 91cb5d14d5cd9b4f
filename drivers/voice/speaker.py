"""The speaker: says one thing at a time, keeps no backlog, never makes its caller wait.

Every call is made on the event loop's thread: ``say`` returns at once with an
:class:`drivers.voice.Utterance`; the speech runs in one task while it lasts. At most one call
speaks and one waits, by these rules, applied when a call arrives:

- a call of the same ``kind`` as the one speaking or waiting makes it stale: the waiting one is
  dropped (``stale``), the speaking one cut (``cut``) — a newer "whose turn" replaces an older;
- a call of higher ``priority`` than the one speaking cuts it;
- otherwise the call waits for the one speaking to end, in the single waiting place, which it
  takes from a waiting call of no higher priority (that one is ``stale``); a more important call
  already waiting keeps its place and the newcomer is dropped (``outranked``);
- the same words of the same kind in the same voice while they are being said are not started
  again: ``say`` returns the utterance already speaking;
- a waiting call whose deadline (``within`` seconds after it was asked; ``None``: none) has
  passed when its turn comes is dropped (``late``): its moment is gone;
- a ``held`` call (what it says is not on disk yet) takes its place by the same rules and its
  sound is made, but nothing of it reaches the player until :meth:`Speaker.release`;
  :meth:`Speaker.withdraw` drops it instead, and one neither released nor withdrawn within its
  patience is dropped as ``late``.

The sound of a phrase comes from the cache (:mod:`drivers.voice.cache`) or from the renderer,
streamed to the player as it is made and kept once complete; a :class:`drivers.voice.Piper`
(ALSA) is handed the kept sound or the engine's command and pipes it off the loop. A device that fails marks the speaker
``lost``: calls fail at once (the game goes on) while the device is tried again after
:class:`drivers.backoff.Backoff` delays on the loop's clock, and ``ok`` again when it answers.
Between phrases nothing runs: no task, no timer, no child process (while lost, only the retry's
timer).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator

from drivers.backoff import Backoff
from drivers.voice import (
    CUT,
    FAILED,
    LATE,
    LOST,
    MAX_TEXT,
    OK,
    OUTRANKED,
    SAID,
    STALE,
    UNKNOWN,
    DeviceError,
    EngineError,
    Piper,
    Player,
    Renderer,
    StatusHandler,
    Utterance,
    Voice,
    wav,
)
from drivers.voice.cache import SoundCache
from drivers.voice.pipeline import Phrase

log = logging.getLogger(__name__)

DEFAULT_KIND = "say"
DEFAULT_WITHIN = 3.0
"""Seconds a call may wait for its turn unless it says otherwise."""


class Speaker:
    """Says texts through ``player``, their sound made by ``renderer`` (``None``: no sound, the
    player shows words) and kept in ``cache``."""

    def __init__(
        self,
        player: Player | Piper,
        renderer: Renderer | None = None,
        voice: Voice | None = None,
        *,
        cache: SoundCache | None = None,
        on_status: StatusHandler | None = None,
        backoff: tuple[float, float] = (0.5, 30.0),
    ) -> None:
        self.player = player
        self.renderer = renderer
        self.voice = voice or Voice()
        """The voice of calls that name none (the table's language, rate and loudness)."""
        self.cache = cache if cache is not None else SoundCache()
        self.status = UNKNOWN
        """:data:`drivers.voice.OK`, :data:`~drivers.voice.LOST` or :data:`~drivers.voice.UNKNOWN`."""
        self.detail: str | None = None
        """Why the device is lost."""
        self.tries = 0
        """Failed attempts on the device since it was last found (a status line may show them)."""
        self._on_status = on_status or (lambda status, detail: None)
        self._backoff = Backoff(*backoff)
        self._speaking: Utterance | None = None
        self._task: asyncio.Task[None] | None = None
        self._phrase: Phrase | None = None
        self._go: asyncio.Future[None] | None = None
        """Set when the held call being made is released (players that are not a Piper)."""
        self._holds: dict[Utterance, asyncio.TimerHandle] = {}
        """Each held call's patience: withdrawn as ``late`` unless released in time."""
        self._cut_reason: str | None = None
        self._waiting: Utterance | None = None
        self._retry: asyncio.TimerHandle | None = None
        self._probing: asyncio.Task[None] | None = None
        self._closed = False

    # -- what the device calls --------------------------------------------------------------------
    @property
    def name(self) -> str:
        """The player's backend (``"alsa"``, ``"sim"``, ``"print"``)."""
        return self.player.name

    @property
    def speaking(self) -> Utterance | None:
        """The call being said now."""
        return self._speaking

    @property
    def waiting(self) -> Utterance | None:
        """The call waiting for its turn."""
        return self._waiting

    @property
    def idle(self) -> bool:
        """Nothing runs: no speech, no retry timer, no probe."""
        return self._task is None and self._retry is None and self._probing is None and not self._holds

    def start(self) -> None:
        """Try the device now, so its status is known before the first call (optional)."""
        if not self._closed and self.status == UNKNOWN and self._probing is None and self._task is None:
            self._probing = asyncio.get_running_loop().create_task(self._probe())

    def say(
        self,
        text: str,
        *,
        kind: str = DEFAULT_KIND,
        priority: int = 0,
        within: float | None = DEFAULT_WITHIN,
        voice: Voice | None = None,
        held: bool = False,
    ) -> Utterance:
        """Say ``text`` (returns at once). ``kind`` names what the call is about (a newer call of
        the same kind makes an older stale), ``priority`` how much it matters (a higher one cuts a
        lower), ``within`` how many seconds it may wait for its turn (``None``: as long as it
        takes), ``voice`` another voice than the speaker's; ``held``: make its sound now but play
        none of it before :meth:`release`."""
        loop = asyncio.get_running_loop()
        text = " ".join(str(text).split())
        if not text or len(text) > MAX_TEXT:
            raise ValueError(f"a call says 1 to {MAX_TEXT} characters, not {len(text)}")
        if not isinstance(priority, int) or isinstance(priority, bool):
            raise ValueError(f"priority must be an integer, not {priority!r}")
        now = loop.time()
        u = Utterance(text, voice or self.voice, str(kind), priority, None if within is None else now + within, now)
        u.held = held
        if self._closed:
            u.end(FAILED, "speaker closed")
            return u
        if self.status == LOST:
            u.end(FAILED, self.detail)
            return u
        speaking = self._speaking
        if (
            speaking is not None
            and not speaking.done()
            and self._cut_reason is None
            and (speaking.kind, speaking.text, speaking.voice) == (u.kind, u.text, u.voice)
        ):
            return speaking
        waiting = self._waiting
        if waiting is not None:
            if waiting.kind != u.kind and waiting.priority > u.priority:
                u.end(OUTRANKED, f"a {waiting.kind!r} call waits")
                return u
            waiting.end(STALE, f"replaced by a {u.kind!r} call")
            self._unhold(waiting)
            self._waiting = None
        if held:
            patience = DEFAULT_WITHIN if within is None else within
            self._holds[u] = loop.call_later(patience, self.withdraw, u, "never released", LATE)
        if speaking is None and self._probing is None:
            self._start(u)
            return u
        self._waiting = u
        if speaking is not None and (speaking.kind == u.kind or u.priority > speaking.priority):
            self._cut(f"cut by a {u.kind!r} call")
        return u

    def release(self, u: Utterance) -> None:
        """A held call may sound now (what it says is on disk); no-op for any other."""
        if not u.held:
            return
        u.held = False
        self._unhold(u)
        if u is self._speaking:
            if self._phrase is not None:
                self._phrase.release()
            if self._go is not None and not self._go.done():
                self._go.set_result(None)

    def withdraw(self, u: Utterance, reason: str = "withdrawn", outcome: str = STALE) -> None:
        """Drop a held call (what it would say never reached the disk): cut if it is being made,
        dropped if it waits."""
        self._unhold(u)
        if u.done():
            return
        if u is self._waiting:
            self._waiting = None
            u.end(outcome, reason)
        elif u is self._speaking:
            u.end(outcome, reason)  # its outcome, not "cut": nothing of it was ever heard
            self._cut(reason)

    def _unhold(self, u: Utterance) -> None:
        timer = self._holds.pop(u, None)
        if timer is not None:
            timer.cancel()

    def hush(self, reason: str = "hushed") -> None:
        """Stop speaking now and drop the waiting call (the voice turned off, a game left)."""
        if self._waiting is not None:
            self._waiting.end(STALE, reason)
            self._unhold(self._waiting)
            self._waiting = None
        self._cut(reason)

    def close(self) -> None:
        """Hush, stop retrying the device, say nothing more; safe to call twice.
        :meth:`wait_closed` waits until every child process has exited."""
        self._closed = True
        self.hush("speaker closed")
        for timer in self._holds.values():
            timer.cancel()
        self._holds.clear()
        if self._retry is not None:
            self._retry.cancel()
            self._retry = None
        if self._probing is not None:
            self._probing.cancel()

    async def wait_closed(self) -> None:
        """Wait for the last speech and probe to end (after :meth:`close`)."""
        for task in (self._task, self._probing):
            if task is not None:
                with contextlib.suppress(asyncio.CancelledError):
                    await task
        if self._phrase is not None:
            await self._phrase.ended()

    # -- one call ---------------------------------------------------------------------------------
    def _start(self, u: Utterance) -> None:
        loop = asyncio.get_running_loop()
        u.started = loop.time()
        self._speaking, self._cut_reason = u, None
        failure: Exception | None = None
        try:
            self._phrase = self._begin(u)
        except Exception as exc:  # said by the task, as every failure of a call is
            self._phrase, failure = None, exc
        self._task = loop.create_task(self._run(u, failure), name="speaker")
        self._task.add_done_callback(lambda _: self._after(u))

    def _begin(self, u: Utterance) -> Phrase | None:
        """A :class:`Piper`'s phrase, started here and now rather than when the speech's task first
        runs: the engine then synthesises while the loop still shows the press (its frame, the
        page), which is most of the way to the first sample (``tablemate bench voice``)."""
        if not isinstance(self.player, Piper):
            return None
        kept = self.cache.get(u.voice, u.text)
        if kept is not None:
            u.cached = True
        command = getattr(self.renderer, "command", None)
        if kept is None and command is None:
            return None
        return self.player.begin(u, None if kept is not None else command(u.text, u.voice), kept)

    def _cut(self, reason: str) -> None:
        if self._task is not None and self._cut_reason is None:
            self._cut_reason = reason
            self._task.cancel()
            if self._phrase is not None:
                self._phrase.cut()  # at once, even if the task is cancelled before it ever ran

    async def _run(self, u: Utterance, failure: Exception | None = None) -> None:
        try:
            if failure is not None:
                raise failure
            await self._speak(u)
        except asyncio.CancelledError:
            u.end(CUT, self._cut_reason)
        except DeviceError as exc:
            u.end(FAILED, str(exc))
            self._lose(str(exc))
        except EngineError as exc:
            log.warning("speech engine failed: %s", exc)
            u.end(FAILED, str(exc))
        except Exception as exc:  # a bug in a backend must not leave the speaker stuck
            log.exception("speaker failed on %r", u.text)
            u.end(FAILED, f"{type(exc).__name__}: {exc}")
        else:
            u.end(SAID)
            self._found()

    def _after(self, u: Utterance) -> None:
        """The call's task is over (a task cancelled before its first step never ran ``_run``).
        The next call starts once the phrase's programs are gone too: a device that takes one
        stream at a time is never found busy by our own last call."""
        u.end(CUT, self._cut_reason)
        self._unhold(u)
        phrase = self._phrase
        if phrase is not None and not phrase.over:
            phrase.cut()
            phrase.when_over(lambda: self._after(u))
            return
        self._phrase = None
        self._speaking = self._task = self._cut_reason = None
        self._next()

    async def _speak(self, u: Utterance) -> None:
        threaded = self._phrase is not None and self._phrase.started  # its thread keeps a held sound
        if u.held and not threaded:  # the others make and sound in one go: they wait for the release
            self._go = asyncio.get_running_loop().create_future()
            try:
                await self._go
            finally:
                self._go = None
        if isinstance(self.player, Piper):
            await self._pipe(u)
        else:
            await self._stream(u)

    async def _pipe(self, u: Utterance) -> None:
        """The player took the phrase's whole way itself (off the loop, started by :meth:`_begin`):
        the kept sound, or the engine's command, whose sound comes back whole to be kept."""
        if self._phrase is None:
            return
        made = await self._phrase.play()
        if made is not None:
            try:
                self.cache.put(u.voice, u.text, wav.sealed(made))
            except ValueError as exc:
                raise EngineError(f"the engine's sound is no WAV: {exc}") from None

    async def _stream(self, u: Utterance) -> None:
        """The engine is started first and the player while it synthesises (``tablemate bench
        voice``: starting ``aplay`` first kept it on the way to the first sample)."""
        loop = asyncio.get_running_loop()
        assert not isinstance(self.player, Piper)
        async with contextlib.aclosing(self._sound(u)) as sound:
            first = loop.create_task(anext(sound, None))  # its first step starts the engine
            await asyncio.sleep(0)
            try:
                playback = await self.player.open(u)
            except BaseException:
                first.cancel()
                with contextlib.suppress(BaseException):
                    await first
                raise
            try:
                piece = await first
                while piece is not None:
                    if u.sounding is None:
                        u.sounding = loop.time()
                    playback.write(piece)
                    piece = await anext(sound, None)
                await playback.finish()
            except BaseException:
                if not first.done():
                    first.cancel()
                    with contextlib.suppress(BaseException):
                        await first
                await playback.cut()
                raise

    async def _sound(self, u: Utterance) -> AsyncIterator[bytes]:
        """The phrase's WAV: kept, or made now (and kept once whole)."""
        kept = self.cache.get(u.voice, u.text)
        if kept is not None:
            u.cached = True
            yield kept
            return
        if self.renderer is None:
            return
        pieces: list[bytes] = []
        async with contextlib.aclosing(self.renderer.render(u.text, u.voice)) as made:
            async for piece in made:
                pieces.append(piece)
                yield piece
        try:
            self.cache.put(u.voice, u.text, wav.sealed(b"".join(pieces)))
        except ValueError as exc:
            raise EngineError(f"the engine's sound is no WAV: {exc}") from None

    def _next(self) -> None:
        """Start the waiting call, if its moment has not gone."""
        while self._waiting is not None and self._task is None and self._probing is None:
            u, self._waiting = self._waiting, None
            if self._closed:
                u.end(FAILED, "speaker closed")
            elif self.status == LOST:
                u.end(FAILED, self.detail)
            elif u.deadline is not None and asyncio.get_running_loop().time() > u.deadline:
                u.end(LATE, "its moment had passed")
            else:
                self._start(u)
            if u.done():
                self._unhold(u)

    # -- the device -------------------------------------------------------------------------------
    def _found(self) -> None:
        self._backoff.reset()
        self.tries = 0
        if self.status != OK:
            if self.status == LOST:
                log.info("speaker %s works again", self.player.name)
            self.status, self.detail = OK, None
            self._report()

    def _lose(self, detail: str) -> None:
        first = self.status != LOST
        self.tries += 1
        self.status, self.detail = LOST, detail
        if first:
            log.error("speaker %s lost: %s (retrying)", self.player.name, detail)
            self._report()
        if not self._closed and self._retry is None and self._probing is None:
            self._retry = asyncio.get_running_loop().call_later(self._backoff.next(), self._try_again)

    def _try_again(self) -> None:
        self._retry = None
        if not self._closed:
            self._probing = asyncio.get_running_loop().create_task(self._probe())

    async def _probe(self) -> None:
        try:
            await self.player.probe()
        except DeviceError as exc:
            self._probing = None
            self._lose(str(exc))
        except Exception as exc:  # as above: a backend's bug counts as a failing device
            self._probing = None
            self._lose(f"{type(exc).__name__}: {exc}")
        else:
            self._probing = None
            self._found()
        finally:
            self._probing = None
            self._next()

    def _report(self) -> None:
        with contextlib.suppress(Exception):  # a status hook must never break the speaker
            self._on_status(self.status, self.detail)
