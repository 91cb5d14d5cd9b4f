"""The game in play: engine, state and journal, and the one function every action goes through.

:meth:`Session.apply` is the single door for actions, whatever brought them (a button, the scale,
a turn timer, a script line): the engine checks the action, the journal makes it durable, and only
then does the new state (and its effects) become visible.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable
from typing import Any

from firmware_host.core.journal import Journal
from firmware_host.core.replay import Script, run_actions
from firmware_host.core.store import Store
from games.core import Action, Effect, Engine, Prompt, Task, View


class Session:
    """One game on the device, journaled in a :class:`~firmware_host.core.store.Store`."""

    def __init__(
        self,
        store: Store,
        journal: Journal,
        wall: Callable[[], float] = time.time,
        started: tuple[Engine, Any] | None = None,
    ) -> None:
        self.store = store
        self.journal = journal
        self.wall = wall
        header = journal.header
        self.base = Script(header["game"], list(header["players"]), header["seed"], dict(header.get("options", {})))
        self.engine: Engine
        self.engine, self._start = started or self.base.start()
        self._asked: tuple[tuple[int, int], Prompt | None] | None = None
        """The last prompt asked, and for which (state version, jobs confirmed)."""
        self._seen: tuple[int, View] | None = None
        self._version = 0
        """Counts changes of ``state``: what the prompt and view caches are keyed on."""
        self._tasks_done = 0
        """Counts table jobs confirmed (they change the prompt, not the state)."""
        self.actions: list[Action] = []
        self._state: Any = self._start
        self.skipped: str | None = None
        """Why replaying the journal stopped early (an action the engine now refuses), if it did."""
        self._rebuild(journal.actions())

    # -- making one ---------------------------------------------------------------------------
    @classmethod
    def start(
        cls,
        store: Store,
        game: str,
        players: list[str],
        options: dict[str, Any] | None = None,
        seed: int | None = None,
        wall: Callable[[], float] = time.time,
    ) -> Session:
        """Start and journal a new game; raises ScriptError for a game it cannot start."""
        seed = secrets.randbits(31) if seed is None else seed
        script = Script(game, list(players), seed, dict(options or {}))
        started = script.start()  # validate before anything is written
        now = wall()
        header = {
            "id": time.strftime("%Y%m%dT%H%M%S", time.gmtime(now)) + f"-{secrets.token_hex(3)}",
            "game": game,
            "players": list(players),
            "seed": seed,
            "options": dict(options or {}),
            "started": now,
        }
        return cls(store, store.new_game(header), wall, started)

    @classmethod
    def resume(cls, store: Store, wall: Callable[[], float] = time.time) -> Session | None:
        """The unfinished game of ``store``, exactly as it was, or ``None``."""
        journal = store.open_game()
        if journal is None:
            return None
        session = cls(store, journal, wall)
        if journal.ended:  # ended, but the power went before it was filed
            end = journal.last("end") or {}
            session._file(journal.ended, end.get("t", wall()), end.get("extra", {}))
            return None
        # Actions the engine now refuses were dropped from play: take them back in the journal
        # too, so new actions follow what is in play and undo takes back what the table sees.
        for _ in range(len(journal.actions()) - len(session.actions)):
            session.journal.append({"undo": 1, "t": wall()})
        return session

    def _rebuild(self, actions: list[Action]) -> None:
        state, index, reason = run_actions(self.engine, self._start, actions)
        self.skipped = None if index is None else f"action {index} refused on resume: {reason}"
        self.state, self.actions = state, actions[: len(actions) if index is None else index]

    # -- the door -----------------------------------------------------------------------------
    def apply(self, action: Action) -> list[Effect]:
        """Check, journal durably, then make ``action`` visible; raises Refused."""
        state, effects = self.engine.apply(self.state, action)
        self.journal.append({"a": action, "t": self.wall()})
        self.state = state
        self.actions.append(action)
        return effects

    def undo(self) -> bool:
        """Take the last action back (replaying one action fewer); False when there is none."""
        if not self.actions:
            return False
        self.journal.append({"undo": 1, "t": self.wall()})
        self._rebuild(self.actions[:-1])
        return True

    def note(self, key: str, value: dict[str, Any]) -> None:
        """Journal runtime bookkeeping the engine never sees (``draft``, ``meta``, ``task``)."""
        self.journal.append({key: value, "t": self.wall()})

    def save_draft(self, answers: dict[str, str], locked: list[str]) -> None:
        """Journal the answers given so far to a simultaneous prompt (a power cut loses none)."""
        self.note("draft", {"answers": answers, "locked": locked})

    def draft(self) -> dict[str, Any] | None:
        """The answers of an unfinished simultaneous prompt, as :meth:`save_draft` left them."""
        return self.journal.draft()

    def confirm_task(self, key: str) -> None:
        """Journal that the table did the job of the :class:`Task` ``key`` (a note, not an action).

        The note holds the number of actions in effect, so it counts for this very point of the
        game: an undo back to it keeps the job done, a later job with the same key is new.
        """
        self.note("task", {"done": key, "at": len(self.actions)})
        self._tasks_done += 1

    def _confirmed(self, key: str) -> bool:
        at = len(self.actions)
        for record in reversed(self.journal.records):
            task = record.get("task")
            if isinstance(task, dict) and task.get("done") == key and task.get("at") == at:
                return True
        return False

    def finish(self, reason: str = "over", extra: dict[str, Any] | None = None) -> dict[str, Any]:
        """End the game (``"over"`` or ``"abandoned"``), file it in the history, return the entry."""
        now = self.wall()
        self.journal.append({"end": reason, "t": now, "extra": extra or {}})
        return self._file(reason, now, extra or {})

    def _file(self, reason: str, now: float, extra: dict[str, Any]) -> dict[str, Any]:
        summary = self.summary
        started = self.journal.header.get("started", now)
        entry = {
            "id": self.journal.header.get("id"),
            "game": self.base.game,
            "started": started,
            "ended": now,
            "duration_s": round(now - started, 1),
            "players": list(summary["players"]),
            "scores": summary["scores"],
            "winners": summary["winners"] if reason == "over" else [],
            "reason": reason,
        }
        entry.update(extra)
        self.store.archive(self.journal, entry)
        return entry

    # -- reading ------------------------------------------------------------------------------
    @property
    def state(self) -> Any:
        """The game state in play."""
        return self._state

    @state.setter
    def state(self, state: Any) -> None:
        self._state = state
        self._version += 1

    @property
    def over(self) -> bool:
        """Whether the rules say the game is finished."""
        return bool(self.state.over)

    @property
    def summary(self) -> dict[str, Any]:
        """The replay summary of the current state."""
        return self.engine.summary(self.state)

    def script(self) -> Script:
        """The replay SCRIPT that rebuilds this game."""
        return Script(self.base.game, self.base.players, self.base.seed, self.base.options, list(self.actions))

    def prompt(self) -> Prompt | None:
        """What the game waits for: the engine's prompt, past table jobs already confirmed.

        Asked once per state and journal length (the screen, the timer and the scale all ask).
        """
        key = (self._version, self._tasks_done)
        if self._asked is None or self._asked[0] != key:
            prompt = self.engine.prompt(self.state)
            while isinstance(prompt, Task) and self._confirmed(prompt.key):
                prompt = prompt.then
            self._asked = (key, prompt)
        return self._asked[1]

    def view(self) -> View:
        """What the screen shows of the game (made once per state)."""
        if self._seen is None or self._seen[0] != self._version:
            self._seen = (self._version, self.engine.view(self.state))
        return self._seen[1]
