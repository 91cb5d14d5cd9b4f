"""The saving part on its own (a real store and its inline writer, the message line and the
screens real): what waits for a write, a failed write, the state folder's documents."""

from __future__ import annotations

import errno

from drivers.buttons import Press
from firmware_host.core.store import Store
from firmware_host.runtime.vtime import run_virtual
from tests.partkit import lower, turn


def disk_full() -> None:
    raise OSError(errno.ENOSPC, "No space left on device")


def test_what_waits_for_a_write_runs_once_it_is_durable_and_presses_come_in_order(tmp_path):
    async def main():
        parts = lower(tmp_path)
        saving = parts.saving
        order = []
        saving.when_durable(lambda: order.append("at once"))
        saving.watch(saving.store.writer.submit(lambda: None))  # in flight until it is back on the loop
        saving.when_durable(lambda: order.append("effects"))
        saving.handle = lambda press: order.append(press.button)
        saving.hold(Press("next", False, 0.0, 0.1))
        saving.hold(Press("ok", False, 0.2, 0.3))
        waiting = list(order)
        await turn()
        return waiting, order, saving.inflight

    waiting, order, inflight = run_virtual(main)
    assert waiting == ["at once"]
    assert order == ["at once", "effects", "next", "ok"]
    assert inflight == 0


def test_a_failed_journal_write_is_counted_named_and_handed_to_the_game_part(tmp_path):
    async def main():
        parts = lower(tmp_path)
        saving = parts.saving
        failures = []
        saving.on_failure = failures.append
        later = []
        saving.when_durable(lambda: later.append("never"))  # nothing in flight: runs now
        future = saving.store.writer.submit(disk_full)
        saving.watch(future)
        saving.when_durable(lambda: later.append("dropped"))
        saving.hold(Press("ok", False, 0.0, 0.1))
        await turn()
        return failures, saving.storage_fault, saving.storage_faults, later, saving.held

    failures, fault, count, later, held = run_virtual(main)
    assert failures == [fault] and "Cannot save" in fault
    assert count == 1
    assert later == ["never"]  # what waited for the failed write is dropped
    assert held == []


def test_a_document_is_written_on_the_writer_and_a_failure_is_said_not_refused(tmp_path, monkeypatch):
    async def main():
        parts = lower(tmp_path)
        saving = parts.saving
        saving.save_doc("settings", {"sound": False})
        await turn()
        kept = Store(tmp_path).read_doc("settings")
        monkeypatch.setattr(saving.store, "write_doc", lambda name, doc: disk_full())
        saving.save_doc("settings", {"sound": True})
        await turn()
        return kept, saving.storage_faults, parts.message.toast_text(), parts.signals.lights.showing.yellow

    kept, faults, said, yellow = run_virtual(main)
    assert kept == {"sound": False}
    assert faults == 1 and "Cannot save" in said
    assert yellow != "blink"  # a settings save failing is said, without the refusal signal


def test_damaged_files_found_are_shown_once_on_a_screen_of_their_own(tmp_path):
    (tmp_path / "settings.json").write_text("{not json", encoding="utf-8")

    async def main():
        parts = lower(tmp_path)
        parts.screens.stack = []
        parts.saving.show_problems()
        parts.saving.show_problems()
        return [s.frame().title for s in parts.screens.stack]

    assert run_virtual(main) == ["Files checked"]
