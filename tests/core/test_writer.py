"""The journal's writer: writes in order off the loop; the loop keeps serving while the SD card
takes its time, and an action shows only once it is durable."""

from __future__ import annotations

import asyncio
import errno
import threading

import pytest

from firmware_host.core import config as configuration
from firmware_host.core import fsio
from firmware_host.core.store import Store
from firmware_host.core.writer import Broken, ThreadWriter, Writer
from firmware_host.runtime.device import Device
from tests.waits import scaled

JUMP = {"type": "jump", "jumper": "rascal", "special": False, "result": "A"}


@pytest.mark.parametrize("kind", [Writer, ThreadWriter])
def test_a_failed_write_fails_the_writes_behind_it_until_reset(kind):
    writer = kind()
    done: list[int] = []

    def fail() -> None:
        raise OSError(errno.ENOSPC, "full")

    first = writer.submit(lambda: done.append(1))
    broken = writer.submit(fail)
    behind = writer.submit(lambda: done.append(3))
    writer.drain()
    assert first.result() is None and isinstance(broken.exception(), OSError)
    assert isinstance(behind.exception(), Broken) and behind.exception().errno == errno.ENOSPC
    writer.reset()
    again = writer.submit(lambda: done.append(4))
    writer.drain()
    assert again.result() is None and done == [1, 4]
    writer.close()


def held_fsync():
    """An fsync that says when it has begun (``in_fsync``) and waits for ``gate``: an SD card
    that is busy until the test lets it go."""
    gate, in_fsync = threading.Event(), threading.Event()
    real = fsio.fsync

    def slow_fsync(fd: int) -> None:
        in_fsync.set()
        gate.wait(scaled(10))
        real(fd)

    return gate, in_fsync, slow_fsync


def test_while_an_action_is_made_durable_the_loop_serves_input_and_its_effects_wait(tmp_path, monkeypatch):
    gate, in_fsync, slow_fsync = held_fsync()

    async def until(condition) -> None:
        for _ in range(5000):
            if condition():
                return
            await asyncio.sleep(0.001)
        raise AssertionError("timed out")

    async def main():
        device = Device(configuration.defaults().with_sim(), Store(tmp_path), seed=1)
        task = asyncio.create_task(device.run())
        await device.ready.wait()
        assert isinstance(device.store.writer, ThreadWriter)  # a real loop: the writer thread
        device.start_named("arschbombe", ["Ann", "Ben"])
        await until(lambda: not device.saving.inflight)
        await device.flush()
        sent = device.display.frames_sent
        monkeypatch.setattr(fsio, "fsync", slow_fsync)
        assert device.apply(JUMP)
        await until(in_fsync.is_set)
        # the SD card is busy: the loop still runs timers and takes button edges
        buttons = device.hw.buttons
        buttons.press("next")
        await asyncio.sleep(0.12)
        buttons.release("next")
        await asyncio.sleep(0.06)
        during = (device.display.frames_sent, len(device.saving.held), device.lights.showing.green)
        gate.set()
        await until(lambda: not device.saving.inflight and not device.saving.held)
        await device.flush()
        after = (device.display.frames_sent, device.session.summary["scores"], device.screens[-1].frame())
        device.stop()
        await task
        return sent, during, after

    try:
        sent, during, after = asyncio.run(main())
    finally:
        gate.set()
    frames, held, _ = during
    assert frames == sent and held == 1  # nothing shown, the press waits its turn
    frames_after, scores, frame = after
    assert frames_after > sent and scores == {"Ann": 3, "Ben": 0}
    assert "Rascal special" in " ".join(" ".join(r.cells) for r in frame.rows)  # the held next was served, in order


def test_a_changed_setting_is_saved_off_the_loop_and_a_failed_save_leaves_the_journal_writing(tmp_path, monkeypatch):
    gate, in_fsync, slow_fsync = held_fsync()
    real = fsio.fsync

    async def main():
        device = Device(configuration.defaults().with_sim(), Store(tmp_path), seed=1)
        task = asyncio.create_task(device.run())
        await device.ready.wait()
        monkeypatch.setattr(fsio, "fsync", slow_fsync)
        device.change_setting("sound", False)  # returns at once: the SD card is the writer's business
        for _ in range(5000):
            if in_fsync.is_set():
                break
            await asyncio.sleep(0.001)
        beat = asyncio.get_running_loop().time()
        await asyncio.sleep(0.02)  # the loop still runs while the fsync waits
        served = asyncio.get_running_loop().time() - beat
        saved_meanwhile = (tmp_path / "settings.json").exists()
        gate.set()
        await asyncio.to_thread(device.store.writer.drain, 5)
        monkeypatch.setattr(fsio, "fsync", real)

        def full(fd: int) -> None:
            raise OSError(errno.ENOSPC, "No space left on device")

        monkeypatch.setattr(fsio, "fsync", full)
        device.change_setting("sound", True)  # cannot be saved: said on the panel
        await asyncio.to_thread(device.store.writer.drain, 5)
        await asyncio.sleep(0.01)
        monkeypatch.setattr(fsio, "fsync", real)
        failed_then = device.store.writer.failed
        device.stop()
        await task
        return served, saved_meanwhile, device.last_storage_fault, failed_then

    served, saved_meanwhile, fault, failed_then = asyncio.run(main())
    assert served < 1.0 and not saved_meanwhile
    assert fault == "Cannot save: disk full"
    assert failed_then is None  # the settings' failure does not stop the journal's writes
    assert '"sound": false' in (tmp_path / "settings.json").read_text()  # the last good save stands
