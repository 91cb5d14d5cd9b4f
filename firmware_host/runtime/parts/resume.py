"""Resuming: the game left in the state folder, rebuilt off the loop at start (the panel says
"Resuming…" meanwhile), and a game rebuilt from a snapshot not proved yet checked against its
whole replay, in a process of its own."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import json
import logging
import os
import sys
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from firmware_host.core.journal_lines import JournalError
from firmware_host.core.replay import ScriptError
from firmware_host.core.session import Session
from firmware_host.core.store import Store, StoreError
from firmware_host.runtime.parts.game import GameLife
from firmware_host.runtime.vtime import inline_io
from firmware_host.ui.base import Message
from games.core import T

log = logging.getLogger(__name__)

CHECKING = "resume check"
"""How the log names the replay check when it starts (``tablemate bench resume`` waits for its end)."""
CHECKED = "resume checked"
"""How the log names the replay check's verdict, when it agrees."""


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
        self.apart = True
        """Whether the replay check runs in a process of its own (else on a thread here)."""

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
        if session is not None and not inline_io(loop):
            gc.freeze()  # the journal read lives as long as the game: later collections skip it
        if session is not None:
            game.enter(session)
            if session.skipped:
                message.toast(session.skipped)
            if session.unchecked is not None:
                log.info(
                    "%s: the game resumed at action %s is checked against its replay", CHECKING, session.snapshot_used
                )
                self.tasks.append(asyncio.create_task(self._check(session), name="resume-check"))
                return
        self.checked.set()

    async def _check(self, session: Session) -> None:
        """A game rebuilt from a snapshot not proved yet: replay its actions from the first, off
        the loop, and compare (:mod:`firmware_host.core.proof`). A snapshot is only a shortcut:
        where they differ the replay's state is kept, and a fresh snapshot saved; where they agree
        the verdict is kept in the journal (a sealed snapshot) and later starts trust it.

        The replay runs in a process of its own (:attr:`apart`): the loop shares neither the
        interpreter nor the collector with it. The replay made here, on a thread of its own, is
        what a process that could not run falls back to, and what takes the replay's states when
        the process found the snapshot wrong."""
        at = session.snapshot_used
        game = self.game
        loop = asyncio.get_running_loop()
        started = loop.time()
        try:
            if inline_io(loop):  # virtual time stays deterministic: inline
                replay = session.replay_whole(lambda: False)
            else:
                found = await self._prove_apart(session) if self.apart else None
                if found is not None and found.get("error") == "journal":
                    raise JournalError(found.get("message", ""))
                await game.idle()  # an undo being worked out must not see the game change
                if session.unchecked is None or game.session is not session:
                    return
                listed = found.get("proved") if found is not None else None
                proved = [k for k in listed if type(k) is int] if isinstance(listed, list) else []
                agrees = found is not None and found.get("agrees") is True
                if agrees and session.accept(found.get("n"), proved):  # type: ignore[union-attr, arg-type]  # accept checks n
                    self._kept(at, loop.time() - started)
                    return
                with ThreadPoolExecutor(1, thread_name_prefix="resume-check") as pool:
                    replay = await loop.run_in_executor(pool, session.replay_whole, self.stopping)
            await game.idle()  # an undo being worked out must not see the game change
            if replay is None or session.unchecked is None or game.session is not session:
                return
            if not session.agrees(replay):
                log.warning("the snapshot resumed at action %d is not what its actions lead to: replayed instead", at)
                game.events = game.past_events(session)
                game.after_change()
            else:
                self._kept(at, loop.time() - started)
        except JournalError as exc:  # the snapshot's point is not what its lines hold: read them all
            log.warning("%s: the game is read again from every line", exc)
            await self._again(session)
        except Exception:  # the check is a safeguard: it never stops the table
            log.exception("checking the resumed game failed")
        finally:
            self.checked.set()

    @staticmethod
    def _kept(at: int | None, seconds: float) -> None:
        log.info("%s: the snapshot at action %s is what its actions lead to (%.1f s)", CHECKED, at, seconds)

    async def _prove_apart(self, session: Session) -> dict[str, Any] | None:
        """The verdict of :mod:`firmware_host.core.proof` on the journal as the resume read it;
        ``None`` when the process could not run or said nothing readable (the device's stop
        ends it)."""
        try:
            fd = os.open(session.journal.path, os.O_RDONLY | os.O_CLOEXEC)
        except OSError as exc:
            log.warning("cannot hand the journal to the check: %s", exc)
            return None
        try:
            proc = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "firmware_host.core.proof", str(fd), str(session.read_size),
                "whole" if session.journal.head is None or session.journal.head.point is None else "deferred",
                stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE, pass_fds=(fd,),
            )  # fmt: skip
        except (OSError, ValueError, RuntimeError) as exc:  # no interpreter, no process allowed
            log.warning("the check cannot run in a process of its own (%s): it runs here", exc)
            return None
        finally:
            os.close(fd)
        try:
            out, err = await proc.communicate()
        except asyncio.CancelledError:  # the device stops: so does the check
            with contextlib.suppress(ProcessLookupError):
                proc.kill()
            await proc.wait()
            raise
        try:
            found = json.loads(out.decode("utf-8", "replace").strip().splitlines()[-1])
        except (ValueError, IndexError):
            found = None
        if not isinstance(found, dict) or proc.returncode != 0:
            tail = err.decode("utf-8", "replace").strip().splitlines()[-1:] or [f"exit status {proc.returncode}"]
            log.warning("the check's process said nothing readable (%s): it runs here", tail[0][:200])
            return None
        return found

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
            if fresh.unchecked is not None:  # rebuilt from an earlier snapshot not proved yet
                await self._check(fresh)
