"""Saving: journal writes in flight, what waits for them, failed saves, the state folder's
documents and the damaged files found in it.

Every journal write is handed to the store's writer; its effects and the presses after it wait
until it is durable (:meth:`Saving.when_durable`). A failed write is counted and named, and the
game part's hook (:attr:`Saving.on_failure`) takes the table back to what is on disk.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any

from drivers.buttons import Press
from firmware_host.core.fsio import storage_message
from firmware_host.core.store import Store
from firmware_host.core.writer import Broken, ThreadWriter, Writer
from firmware_host.runtime.hub import Hub
from firmware_host.runtime.parts.message import MessageLine
from firmware_host.runtime.parts.screens import Screens
from firmware_host.ui.base import Message
from firmware_host.ui.table import Table
from games.core import T, join

log = logging.getLogger(__name__)


class Saving:
    """The journal's writes in flight and every other save's outcome, shown on the panel."""

    def __init__(
        self,
        store: Store,
        post: Callable[..., None],
        table: Table,
    ) -> None:
        self.store = store
        self.post = post
        self.table = table
        """The screens' door (for the "Files checked" screen)."""
        self.inflight = 0
        """Journal writes handed to the writer and not yet durable."""
        self.held: list[Press] = []
        """Presses that arrived while a write was in flight, in order."""
        self.storage_fault: str | None = None
        """Why the last save failed ("Cannot save: disk full"…), until one succeeds again."""
        self.storage_faults = 0
        """How many saves failed while running (``sim --script`` exits 2 when any did)."""
        self.last_storage_fault: str | None = None
        self.shown_problems: set[str] = set()
        """The state folder's problems already shown."""
        self.handle: Callable[[Press], None] = lambda press: None
        """Where a held press goes once the writes are durable (the presses part's, from :meth:`setup`)."""
        self.on_failure: Callable[[str], None] = lambda message: None
        """Back to what is on disk after a failed journal write (the game part's, from :meth:`setup`)."""
        self._when_saved: list[Callable[[], None]] = []

    def setup(self, hub: Hub) -> None:
        """A held press goes to the presses part; a failed write goes back to the game part;
        faults are said on the message line and screens."""
        self.message: MessageLine = hub.lookup("message")
        self.screens: Screens = hub.lookup("screens")
        self.handle = hub.lookup("presses").handle
        self.on_failure = hub.lookup("game").on_save_failed

    def watch(self, future: Future) -> None:
        """Take a journal write in flight: effects and presses wait until it is durable."""
        self.inflight += 1
        future.add_done_callback(lambda f: self.post(self._written, f))

    def when_durable(self, then: Callable[[], None]) -> None:
        """Run ``then`` once every write in flight is on disk (at once when none is)."""
        if self.inflight:
            self._when_saved.append(then)
        else:
            then()

    def hold(self, press: Press) -> None:
        """Keep ``press`` until the writes in flight are durable."""
        self.held.append(press)

    def _written(self, future: Future) -> None:
        self.inflight -= 1
        error = future.exception()
        if error is not None:
            self._save_failed(error)
        elif self.storage_fault is not None and not self.store.writer.failed and future.result() is not False:
            self.storage_fault = None
            self.message.toast(T("Saving again"))
        if any(p not in self.shown_problems for p in self.store.problems):  # a file kept aside meanwhile
            self.show_problems()
        if self.inflight:
            return
        waiting, self._when_saved = self._when_saved, []
        for then in waiting:
            then()
        while self.held and not self.inflight:
            self.handle(self.held.pop(0))
        self.screens.durable()

    def storage_error(self, exc: OSError, refuse: bool = True) -> None:
        """A save outside the journal failed: say why (refusing what needed it)."""
        message = storage_message(exc)
        log.error("save failed: %s", exc)
        self.last_storage_fault = message
        self.storage_faults += 1
        if refuse:
            self.message.refuse(message)
        else:
            self.message.toast(message, now=True)

    def count_fault(self, error: BaseException) -> str:
        """Log and count one failed save (``sim --script`` and ``run`` exit 2 when any did); its message."""
        cause = error.cause if isinstance(error, Broken) else error
        message = storage_message(cause)
        log.error("save failed: %s", cause)
        self.last_storage_fault = message
        self.storage_faults += 1
        return message

    def _save_failed(self, error: BaseException) -> None:
        """A write failed: count it, drop what waited for it; the game part goes back to what is
        on disk and refuses play until saving works (the next action tries again)."""
        if self.store.writer.failed is None:
            return  # a write given before the failure was handled: nothing new
        message = self.storage_fault = self.count_fault(error)
        self._when_saved.clear()
        self.held.clear()
        self.on_failure(message)

    def show_problems(self) -> None:
        """Damaged files found and kept aside (or settings not used): one message to read."""
        new = [p for p in self.store.problems if p not in self.shown_problems]
        if not new:
            return
        for problem in new:
            log.warning("state folder: %s", problem)
            self.shown_problems.add(problem)
        self.screens.push(Message(self.table, T("Files checked"), join(new, "\n"), on_ok=self.screens.pop))

    def save_doc(self, name: str, doc: dict[str, Any]) -> None:
        """Write the state folder's document ``name`` on the store's writer (the loop never waits
        for the SD card), in order with the journal; a failure is named on the panel and does not
        stop the journal's writes."""

        def write() -> OSError | None:
            try:
                self.store.write_doc(name, doc)
            except OSError as exc:
                return exc
            return None

        future = self.store.writer.submit(write)
        future.add_done_callback(lambda f: self.post(self._doc_saved, f))

    def _doc_saved(self, future: Future) -> None:
        error = future.exception() or future.result()
        if isinstance(error, OSError):
            self.storage_error(error, refuse=False)

    async def close(self, journal: Any | None) -> None:
        """Let the writes in flight finish (they were accepted), close ``journal`` and the writer."""
        writer = self.store.writer
        if journal is not None:
            writer.submit(journal.close)
        if isinstance(writer, ThreadWriter):
            drained = await asyncio.get_running_loop().run_in_executor(None, writer.drain, 5.0)
            if drained:  # else the storage hangs: leave its (daemon) thread rather than hang the stop
                writer.close()
            else:
                log.error("stopping with journal writes still in flight (the storage does not answer)")
        if writer.failed is not None:  # a save of the stop (the filing) failed: the exit status says so
            self.count_fault(writer.failed)
        self.store.writer = Writer()
