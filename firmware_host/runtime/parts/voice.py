"""The voice part: says what the table's events bring, through an optional speaker.

Its whole interface is a handler per event of the table (:mod:`firmware_host.runtime.events`: a
durable action and its effects, a refused press, an undo, a turn passed, a game over, the turn
timer's warning, countdown and time-out, the table ready and stopping), the hub's hooks
(:meth:`VoicePart.setup` subscribes the handlers, :meth:`~VoicePart.start`,
:meth:`~VoicePart.close`, :meth:`~VoicePart.state`) and its settings (:meth:`~VoicePart.configure`).
Of the device it knows one door, ``table``: the game in play (or on screen) and its players, for
the events whose payload does not name them.

Never a backlog, never a wait: a handler renders the words (microseconds) and hands them to the
speaker (:class:`drivers.voice.speaker.Speaker`), which returns at once; a newer call of the same
kind makes an older one stale, a call whose moment passed is dropped. Each kind of call has its
priority and its patience (:data:`CALLS_OF`): the time-out cuts a move's words, a new move cuts
the last one's, the next player's name waits for the move's words but not for long.

Voice off costs nothing: no speaker is made, so no child process, no task and no timer exist;
each handler returns on its first line. With the voice on and nothing said, nothing runs either
(the speaker keeps no task between phrases).
"""

from __future__ import annotations

import logging
import math
import struct
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from functools import cache
from typing import Any

from drivers.voice import LOST, OK, UNKNOWN, Utterance, Voice
from drivers.voice.names import Pronunciations
from firmware_host.core.i18n import language
from firmware_host.runtime.events import (
    ActionAccepted,
    ActionDurable,
    ActionRefused,
    ActionUndone,
    Event,
    GameOver,
    SpeakerStatus,
    TableReady,
    TableStop,
    TimerCountdown,
    TimerExpired,
    TimerWarning,
    TurnPassed,
)
from firmware_host.ui.speech import Speech
from games.core import T, join

log = logging.getLogger(__name__)


MOVE, UNDO, OVER, TURN, REFUSED, TIMER = "move", "undo", "over", "turn", "refused", "timer"
SAID_UNDER: dict[str, frozenset[str]] = {
    "all": frozenset({MOVE, UNDO, OVER, TURN, REFUSED, TIMER}),
    "results": frozenset({MOVE, UNDO, OVER}),
    "turns": frozenset({TURN, TIMER, OVER}),
    "beeps": frozenset(),
}
"""The calls said in words under each :data:`~firmware_host.core.config.VOICE_CALLS` setting."""
BEEPED = frozenset({TURN, TIMER, REFUSED})
"""The calls that beep under ``beeps``."""


@dataclass(frozen=True)
class Call:
    """How one kind of call is made: the speaker's kind (a newer call of the same kind replaces
    an older), its priority (a higher one cuts a lower) and its patience (seconds it may wait)."""

    kind: str
    priority: int
    within: float


CALLS_OF: dict[str, Call] = {
    MOVE: Call("move", 1, 4.0),
    UNDO: Call("move", 1, 3.0),  # an undo makes the undone move's words stale
    OVER: Call("over", 1, 8.0),
    TURN: Call("turn", 0, 2.5),
    REFUSED: Call("refused", 2, 1.5),
    TIMER: Call("timer", 3, 1.0),
}

BEEP = "beep"
"""The words a beep stands for (on a status line, in a recording's ``.txt``)."""


# -- the settings ---------------------------------------------------------------------------------------
@dataclass(frozen=True)
class VoiceOptions:
    """The voice's settings: ``[voice]`` of the config with the table's changes over it."""

    enabled: bool = False
    speaker: str = "alsa"
    device: str = "default"
    rate: int = 175
    volume: int = 100
    """Percent of the voice's own loudness, 0..200."""
    calls: str = "all"
    game_calls: Mapping[str, str] = field(default_factory=dict)
    """Game id → its own :data:`~firmware_host.core.config.VOICE_CALLS` setting, over ``calls``."""
    say_as: Mapping[str, str] = field(default_factory=dict)
    """Player name → how it is said."""

    def calls_for(self, game: str | None) -> str:
        """The calls made for ``game``."""
        return self.game_calls.get(game, self.calls) if game else self.calls


@cache
def tone(volume: int, seconds: float = 0.12, hz: float = 880.0) -> bytes:
    """A short sine beep as a WAV at ``volume`` percent (of a third of full scale)."""
    from drivers.voice import wav

    n = int(wav.RATE * seconds)
    peak = min(32767, int(32767 / 3 * volume / 100))
    fade = max(1, n // 10)
    data = b"".join(
        struct.pack("<h", int(peak * min(1.0, i / fade, (n - i) / fade) * math.sin(2 * math.pi * hz * i / wav.RATE)))
        for i in range(n)
    )
    return wav.header(len(data)) + data


COUNTDOWN = 5
"""The last seconds of a turn the voice counts down (the timer tells every second of its warning)."""

Table = Callable[[], tuple[str | None, tuple[str, ...]]]
"""The voice's door: the game in play or on screen (its id) and its players, else ``(None, ())``."""

Opener = Callable[..., tuple[Any, str | None]]
""":func:`drivers.voice.backends.open_speaker`, or a stand-in with its signature."""


class VoicePart:
    """The table's voice (see the module's docstring). ``ears`` gives a game's spoken forms
    (:attr:`games.core.Engine.ear`); ``line`` shows printed words (the simulator's status line);
    ``on_said`` hears of each recorded phrase (the simulator's ``--frames``); ``on_status`` of the
    speaker found or lost."""

    def __init__(
        self,
        options: VoiceOptions,
        table: Table | None = None,
        *,
        ears: Callable[[str], Mapping[str, Any]] | None = None,
        line: Callable[[str], None] | None = None,
        on_said: Callable[[Any], None] | None = None,
        on_status: Callable[[str, str | None], None] | None = None,
        opener: Opener | None = None,
    ) -> None:
        self.options = options
        self._table = table or (lambda: (None, ()))
        self._ears = ears or _game_ear
        self._line = line
        self.on_said = on_said
        """Hears of each phrase the ``sim`` speaker records (set before :meth:`start`)."""
        self._on_status = on_status
        self._opener = opener
        self.speaker: Any = None
        """The speaker, while the voice is on and started (``None``: voice off, nothing made)."""
        self.fallback: str | None = None
        """Why the words are printed instead of said (no engine or no ``aplay``)."""
        self.shown: str | None = None
        """The last words printed (the simulator's status line shows them)."""
        self._started = False
        self.names = Pronunciations(dict(options.say_as))
        self.publish: Callable[[Event], None] = lambda event: None
        """Tells the other parts (the hub's, from :meth:`setup`): the speaker found or lost."""
        self._held: deque[tuple[Any, Utterance | None]] = deque()
        """Moves accepted and not yet durable, with their words being made held (in order)."""

    # -- life cycle -------------------------------------------------------------------------------------
    def start(self) -> None:
        """The table is up: open the speaker when the voice is on (on the loop)."""
        self._started = True
        if self.options.enabled and self.speaker is None:
            self._open()

    def close(self) -> None:
        """Say nothing more; the speaker's child processes end (safe to call twice)."""
        self._started = False
        self._held.clear()
        speaker, self.speaker = self.speaker, None
        if speaker is not None:
            speaker.close()
            self._closing = speaker

    async def wait_closed(self) -> None:
        """Wait until the last phrase's processes have ended (after :meth:`close`)."""
        speaker = getattr(self, "_closing", None)
        if speaker is not None:
            await speaker.wait_closed()

    def state(self) -> dict[str, Any]:
        """The voice as plain data (the page, the self-test): on/off, the speaker and its device."""
        s = self.speaker
        return {
            "enabled": self.options.enabled,
            "speaker": s.name if s is not None else None,
            "status": s.status if s is not None else ("off" if not self.options.enabled else UNKNOWN),
            "detail": (s.detail if s is not None else None) or self.fallback,
            "calls": self.options.calls,
        }

    @property
    def status(self) -> str:
        """``off``, or the speaker's :data:`~drivers.voice.OK` / :data:`~drivers.voice.LOST` /
        :data:`~drivers.voice.UNKNOWN`."""
        return self.state()["status"]

    def configure(self, options: VoiceOptions) -> None:
        """New settings, at once: turning the voice off hushes it and lets the speaker go."""
        before, self.options = self.options, options
        self.names = Pronunciations(dict(options.say_as))
        if not options.enabled:
            self.close()
            self._started = before.enabled or self._started
            return
        reopen = self.speaker is not None and (before.speaker, before.device) != (options.speaker, options.device)
        if reopen:
            self.close()
            self._started = True
        if self._started and self.speaker is None:
            self._open()

    def _open(self) -> None:
        try:
            self._make()
        except Exception as exc:  # a voice that cannot be made is named; the table goes on without it
            log.exception("voice: cannot open the speaker")
            self.speaker, self.fallback = None, f"{type(exc).__name__}: {exc}"

    def _make(self) -> None:
        opener: Opener | None = self._opener
        if opener is None:
            from drivers.voice.backends import open_speaker  # only with the voice on

            opener = open_speaker
        self.speaker, self.fallback = opener(
            self.options.speaker,
            device=self.options.device,
            voice=self.voice(),
            on_status=self._status,
            line=self._show,
            on_said=self.on_said,
        )
        if self.fallback:
            log.warning("voice: %s", self.fallback)
        self.speaker.start()

    def _status(self, status: str, detail: str | None) -> None:
        if status == LOST:
            log.warning("voice: the speaker is lost (%s); the game goes on", detail)
        elif status == OK:
            log.info("voice: the speaker works")
        if self._on_status is not None:
            self._on_status(status, detail)
        if status in (OK, LOST):
            self.publish(SpeakerStatus(status, detail))

    def _show(self, words: str) -> None:
        self.shown = words
        if self._line is not None:
            self._line(words)
        else:
            log.info("says: %s", words)

    def voice(self) -> Voice:
        """The voice calls are made in: the table's language, the rate and the volume."""
        return Voice(language(), rate=self.options.rate, amplitude=max(0, min(200, self.options.volume)))

    # -- the events -------------------------------------------------------------------------------------
    def setup(self, hub: Any) -> None:
        """Subscribe the handlers to the table's events (the hub's hook)."""
        for event, handler in HANDLERS.items():
            hub.subscribe(event, getattr(self, handler))
        self.publish = hub.publish

    def on_action_accepted(self, event: ActionAccepted) -> Utterance | None:
        """Start making what the move brought, held: the engine synthesises while the journal is
        written, and the words sound once :meth:`on_action_durable` of the same action releases
        them (a move's words never sound before it is on disk)."""
        said = event.spoken()
        u = self._call(MOVE, event.game, lambda speech: " ".join(speech(t) for t in said), held=True) if said else None
        if self.speaker is not None:
            self._held.append((event.action, u))
        return u

    def on_action_durable(self, event: ActionDurable) -> Utterance | None:
        """Say what the move brought: release the words made since it was accepted (or make them
        now, when they were not)."""
        speaker = self.speaker
        while self._held:
            action, u = self._held.popleft()
            if action is event.action:
                if u is not None and speaker is not None:
                    speaker.release(u)
                return u
            if u is not None and speaker is not None:  # its action never became durable
                speaker.withdraw(u, "its move was not kept")
        said = event.spoken()
        if not said:
            return None
        return self._call(MOVE, event.game, lambda speech: " ".join(speech(t) for t in said))

    def on_action_refused(self, event: ActionRefused) -> Utterance | None:
        """Say why a press was refused."""
        return self._call(REFUSED, None, lambda speech: speech(event.reason))

    def on_action_undone(self, event: ActionUndone) -> Utterance | None:
        """Say what was taken back."""
        what = T("Undone: {what}", what=join(list(event.said), " · ")) if event.said else event.description
        return self._call(UNDO, None, lambda speech: speech(what or T("Undone")))

    def on_turn_passed(self, event: TurnPassed) -> Utterance | None:
        """Say whose turn it is."""
        if not event.player:
            return None
        words = T("{player}'s turn", player=event.player)
        return self._call(TURN, event.game or None, lambda speech: speech(words))

    def on_game_over(self, event: GameOver) -> Utterance | None:
        """Say the game is over, and who won."""
        if event.winners:
            words = T("Game over. The winner: {players}.", players=join(list(event.winners)))
        else:
            words = T("Game over.")
        game = event.entry.get("game") if isinstance(event.entry.get("game"), str) else None
        return self._call(OVER, game, lambda speech: speech(words))

    def on_timer_warning(self, event: TimerWarning) -> Utterance | None:
        """Say the turn's time runs short."""
        words = T("{player}, your time is running out", player=event.player) if event.player else None
        words = words or T("Time is running out")
        return self._call(TIMER, None, lambda speech: speech(words))

    def on_timer_countdown(self, event: TimerCountdown) -> Utterance | None:
        """Say the seconds left, the last :data:`COUNTDOWN` of them."""
        seconds = round(event.seconds_left)
        if not 0 < seconds <= COUNTDOWN:
            return None
        return self._call(TIMER, None, lambda speech: str(seconds))

    def on_timer_expired(self, event: TimerExpired) -> Utterance | None:
        """Say the time is up."""
        words = T("{player}, your time is up", player=event.player) if event.player else T("Time is up")
        return self._call(TIMER, None, lambda speech: speech(words))

    def on_table_ready(self, event: TableReady) -> None:
        """The table is up."""
        self.start()

    def on_table_stop(self, event: TableStop) -> None:
        """The table stops: hush."""
        self.close()

    # -- making a call ----------------------------------------------------------------------------------
    def _call(
        self, what: str, game: str | None, words: Callable[[Speech], str], held: bool = False
    ) -> Utterance | None:
        speaker = self.speaker
        if speaker is None:  # voice off (or not started): nothing is made
            return None
        in_play, players = self._table()
        game = game or in_play
        calls = self.options.calls_for(game)
        voice = self.voice()
        how = CALLS_OF[what]
        if what in SAID_UNDER[calls]:
            speech = Speech(self._ears(game) if game else {}, self.names.spoken, players)
            text = words(speech)
        elif calls == "beeps" and what in BEEPED:
            if speaker.cache.get(voice, BEEP) is None:
                speaker.cache.put(voice, BEEP, tone(self.options.volume))
            text = BEEP
        else:
            return None
        if not text.strip():
            return None
        try:
            return speaker.say(
                text[:600], kind=how.kind, priority=how.priority, within=how.within, voice=voice, held=held
            )
        except ValueError as exc:  # a text the speaker refuses is not worth a crash
            log.warning("voice: %s", exc)
            return None


def _game_ear(game: str) -> Mapping[str, Any]:
    from games import UnknownGame, get_engine

    try:
        return get_engine(game).ear
    except UnknownGame:
        return {}


def options_from(section: Mapping[str, Any], saved: Mapping[str, Any] | None = None) -> VoiceOptions:
    """The voice's settings from the config's ``[voice]`` and the table's saved changes
    (``voice``, ``voice_volume``, ``voice_calls``, ``voice_game_calls``, ``say_as``)."""
    saved = saved or {}
    options = VoiceOptions(
        enabled=section["enabled"],
        speaker=section["speaker"],
        device=section["device"],
        rate=section["rate"],
        volume=section["volume"],
        calls=section["calls"],
        game_calls=dict(section["game_calls"]),
        say_as=dict(section["say_as"]),
    )
    changes: dict[str, Any] = {}
    if "voice" in saved:
        changes["enabled"] = saved["voice"]
    if "voice_volume" in saved:
        changes["volume"] = saved["voice_volume"]
    if "voice_calls" in saved:
        changes["calls"] = saved["voice_calls"]
    if "voice_game_calls" in saved:
        changes["game_calls"] = {**options.game_calls, **saved["voice_game_calls"]}
    if "say_as" in saved:
        merged = {**options.say_as, **saved["say_as"]}
        changes["say_as"] = {name: spelling for name, spelling in merged.items() if spelling}
    return replace(options, **changes)


HANDLERS: dict[type[Event], str] = {
    ActionAccepted: "on_action_accepted",
    ActionDurable: "on_action_durable",
    ActionRefused: "on_action_refused",
    ActionUndone: "on_action_undone",
    TurnPassed: "on_turn_passed",
    GameOver: "on_game_over",
    TimerWarning: "on_timer_warning",
    TimerCountdown: "on_timer_countdown",
    TimerExpired: "on_timer_expired",
    TableReady: "on_table_ready",
    TableStop: "on_table_stop",
}
"""Each event of the table → the voice's handler (what :meth:`VoicePart.setup` subscribes)."""
