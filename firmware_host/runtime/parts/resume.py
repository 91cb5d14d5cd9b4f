"""Resuming: the game left in the state folder, rebuilt off the loop at start (the panel says
"Resuming…" meanwhile), and a game rebuilt from a snapshot checked against its whole replay."""

from __future__ import annotations

import asyncio
import gc
import logging
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

from firmware_host.core.journal_lines import JournalError
from firmware_host.core.replay import ScriptError
from firmware_host.core.session import Session
from firmware_host.core.store import Store, StoreError
from firmware_host.runtime.parts.game import GameLife
from firmware_host.ui.base import Message
from games.core import T

log = logging.getLogger(__name__)


class Resume:
    """Brings back the game in play after a start (or a kill -9)."""

    def __init__(self, store: Store, game: GameLife, wall: Callable[[], float], stopping: Callable[[], bool]) -> None:
        self.store = store
        self.game = game
        self.wall = wall
        self.stopping = stopping
        """Whether the device is stopping (a long replay check gives up then)."""
        self.checked = asyncio.Event()
        """Set once a game resumed from a snapshot has been checked against its replay (at once
        when there is none to check)."""
        self.tasks: list[asyncio.Task] = []
        """The replay check, while it runs (the device cancels it at the stop)."""

    async def resume(self) -> None:
        """Resume the game left in the state folder, off the loop (the panel says so meanwhile)."""
        game, message, screens = self.game, self.game.message, self.game.screens
        loop = asyncio.get_running_loop()
        game.busy = T("Resuming…")
        message.toast(game.busy, until_input=True)
        try:
            session = await loop.run_in_executor(None, Session.resume, self.store, self.wall, loop.time)
        except (StoreError, ScriptError) as exc:
            self.store.writer.reset()  # a write the resume needed failed: the next start tries afresh
            log.error("cannot resume: %s", exc)
            game.saving.shown_problems.add(str(exc))
            screens.push(Message(game.table, T("Cannot resume"), str(exc), on_ok=game.home))
            return
        except Exception as exc:  # the boot goes on whatever the files hold
            log.exception("cannot resume")
            text = f"{type(exc).__name__}: {exc}"[:200]
            screens.push(Message(game.table, T("Cannot resume"), text, on_ok=game.home))
            return
        finally:
            game.busy = None
            message.clear_message()
        if session is not None and not getattr(loop, "inline_io", False):
            gc.freeze()  # the journal read lives as long as the game: later collections skip it
        if session is not None:
            game.enter(session)
            if session.skipped:
                message.toast(session.skipped)
            if session.unchecked is not None:
                self.tasks.append(asyncio.create_task(self._check(session), name="resume-check"))
                return
        self.checked.set()

    async def _check(self, session: Session) -> None:
        """A game rebuilt from a snapshot: replay its actions from the first, off the loop (on a
        thread of its own: undos and the page keep the default one) and compare. A snapshot is
        only a shortcut: where they differ the replay's state is kept, and a fresh snapshot saved."""
        at = session.snapshot_used
        game = self.game
        loop = asyncio.get_running_loop()
        try:
            if getattr(loop, "inline_io", False):  # virtual time stays deterministic: inline
                replay = session.replay_whole(lambda: False)
            else:
                with ThreadPoolExecutor(1, thread_name_prefix="resume-check") as pool:
                    replay = await loop.run_in_executor(pool, session.replay_whole, self.stopping)
            await game.idle()  # an undo being worked out must not see the game change
            if replay is None or session.unchecked is None or game.session is not session:
                return
            if not session.agrees(replay):
                log.warning("the snapshot resumed at action %d is not what its actions lead to: replayed instead", at)
                game.events = game.past_events(session)
                game.after_change()
        except JournalError as exc:  # the snapshot's point is not what its lines hold: read them all
            log.warning("%s: the game is read again from every line", exc)
            await self._again(session)
        except Exception:  # the check is a safeguard: it never stops the table
            log.exception("checking the resumed game failed")
        finally:
            self.checked.set()

    async def _again(self, old: Session) -> None:
        """Resume the game once more from every line of its journal (none left for later)."""
        loop = asyncio.get_running_loop()

        def read() -> Session | None:
            self.store.writer.drain()  # what the table did since is on disk first
            old.journal.close()
            return Session.resume(self.store, self.wall, loop.time, defer=False)

        try:
            fresh = await loop.run_in_executor(None, read)
        except (StoreError, ScriptError, OSError) as exc:
            log.error("cannot resume: %s", exc)
            return
        if fresh is not None and self.game.session is old:
            self.game.enter(fresh)
            self.game.after_change()
