"""The speaker on the real engine and the real player: eSpeak NG's ``espeak-ng`` and ALSA's
``aplay``, on ALSA devices of the test's own (no sound card is needed).

ALSA reads ``~/.asoundrc`` at every open, so each test gets a home of its own where it defines
(or leaves undefined) a device ``speaker``: alsa-lib's ``file`` plugin writing what is played to a
file, or to a named pipe — a device that plays only as fast as the test reads it, as a sound card
plays in real time, and that is "unplugged" by closing the pipe. Waits are on the real child
processes, bounded by :func:`tests.waits.scaled`.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import threading
import time
from pathlib import Path

import pytest

from drivers.voice import CUT, FAILED, LATE, LOST, OK, SAID, STALE, wav
from drivers.voice.alsa import AplayPlayer
from drivers.voice.espeak import Espeak, render_now
from drivers.voice.speaker import Speaker
from tests.waits import scaled

pytestmark = pytest.mark.skipif(
    shutil.which("espeak-ng") is None or shutil.which("aplay") is None, reason="needs espeak-ng and aplay"
)

LONG = (
    "Anna rolls the dice and loses two lives, so Ben defuses next with the red die in play, "
    "and whoever lights the fuse after him takes a card from the pile."
)
"""About ten seconds of speech, far more than a pipe holds (64 KiB, under a second)."""


class Devices:
    """ALSA devices defined in the test's own ``~/.asoundrc``."""

    def __init__(self, home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        self.home = home
        monkeypatch.setenv("HOME", str(home))
        monkeypatch.delenv("ALSA_CONFIG_PATH", raising=False)

    def define(self, name: str, file: Path, fmt: str) -> None:
        """``name`` writes what it plays to ``file`` (``raw`` samples or a ``wav``)."""
        rc = self.home / ".asoundrc"
        rc.write_text(
            f'pcm.{name} {{\n type file\n slave.pcm null\n file "{file}"\n format {fmt}\n}}\n', encoding="utf-8"
        )


class Pipe:
    """A named pipe a device plays into: it takes sound only as fast as the test reads it."""

    def __init__(self, path: Path) -> None:
        self.path = path
        os.mkfifo(path)
        self._fds: list[int] = []

    def plug(self) -> None:
        """Listen: a reader, and a writer of our own so no player's exit reads as the end."""
        reader = os.open(self.path, os.O_RDONLY | os.O_NONBLOCK)
        self._fds = [reader, os.open(self.path, os.O_WRONLY | os.O_NONBLOCK)]

    def unplug(self) -> None:
        """Close both ends: a player writing now gets a broken pipe, as from a pulled USB plug."""
        for fd in self._fds:
            os.close(fd)
        self._fds = []

    def take(self) -> bytes:
        """What has been played since the last take."""
        got = bytearray()
        with contextlib.suppress(BlockingIOError):
            while chunk := os.read(self._fds[0], 65536):
                got += chunk
        return bytes(got)


@pytest.fixture
def devices(tmp_path, monkeypatch) -> Devices:
    return Devices(tmp_path, monkeypatch)


@pytest.fixture
def pipe(tmp_path, devices) -> Pipe:
    pipe = Pipe(tmp_path / "speaker.pipe")
    devices.define("speaker", pipe.path, "raw")
    yield pipe
    pipe.unplug()


async def until(condition, timeout: float = 10.0) -> None:
    """Wait (bounded) for ``condition``: on real child processes and the speaker's own timers."""
    async with asyncio.timeout(scaled(timeout)):
        while not condition():
            await asyncio.sleep(0.002)


async def played(pipe: Pipe, condition, timeout: float = 20.0) -> bytes:
    """Read what the device plays until ``condition`` holds, then the rest."""
    got = bytearray()

    def heard() -> bool:
        got.extend(pipe.take())
        return condition()

    await until(heard, timeout)
    got += pipe.take()
    return bytes(got)


def children() -> list[str]:
    """The programs this process has started and not yet reaped."""
    pids = []
    for task in Path("/proc/self/task").iterdir():
        with contextlib.suppress(OSError):  # a thread that ended since the folder was listed
            pids += (task / "children").read_text().split()
    names = []
    for pid in pids:
        with contextlib.suppress(OSError):
            names.append(Path(f"/proc/{pid}/comm").read_text().strip())
    return names


def samples(speaker: Speaker, u) -> bytes:
    """The samples of what ``u`` says, from the speaker's cache."""
    return wav.samples(speaker.cache.get(u.voice, u.text))


def ends_with(stream: bytes, sound: bytes) -> int:
    """Where ``sound`` begins in ``stream`` when the stream ends with it, then only the silence
    ``aplay`` fills its last period with; -1 when it does not."""
    at = stream.rfind(sound)
    return at if at >= 0 and not stream[at + len(sound) :].strip(b"\0") else -1


def test_said_on_a_real_device_kept_as_sound_and_said_again_from_the_cache(devices, tmp_path):
    out = tmp_path / "said.wav"
    devices.define("speaker", out, "wav")

    async def main():
        speaker = Speaker(AplayPlayer("speaker"), Espeak())
        first = speaker.say("Anna verliert zwei Leben.")
        assert await first.wait() == SAID and not first.cached and speaker.status == OK
        heard = wav.samples(out.read_bytes())
        assert ends_with(heard, samples(speaker, first)) == 0 and wav.duration(out.read_bytes()) > 1.0
        out.unlink()
        again = speaker.say("Anna verliert zwei Leben.")
        assert await again.wait() == SAID and again.cached
        assert wav.samples(out.read_bytes()) == heard  # the same sound, no engine run

    asyncio.run(main())


def test_a_newer_call_of_the_same_kind_cuts_the_real_player(pipe):
    async def main():
        pipe.plug()
        speaker = Speaker(AplayPlayer("speaker"), Espeak())
        older = speaker.say(LONG, kind="turn")
        await until(lambda: older.sounding is not None)
        newer = speaker.say("Ben's turn.", kind="turn")
        stream = await played(pipe, newer.done)
        assert older.outcome == CUT and newer.outcome == SAID
        whole = wav.samples(render_now(older.text, older.voice))  # cut while being made: not kept
        cut_at = ends_with(stream, samples(speaker, newer))
        assert 0 <= cut_at < len(whole) // 2 and stream[:cut_at] == whole[:cut_at]  # the older stopped early
        assert children() == []

    asyncio.run(main())


def test_a_call_whose_moment_passed_while_the_real_player_spoke_is_dropped(pipe):
    async def main():
        pipe.plug()
        speaker = Speaker(AplayPlayer("speaker"), Espeak())
        result = speaker.say(LONG, kind="result", priority=1)
        await until(lambda: result.sounding is not None)
        turn = speaker.say("Anna's turn.", kind="turn", within=0.0)  # now or never
        assert speaker.waiting is turn
        stream = await played(pipe, lambda: result.done() and turn.done())
        assert result.outcome == SAID and turn.outcome == LATE
        assert ends_with(stream, samples(speaker, result)) == 0  # not a sample of the late call reached the device
        assert speaker.cache.get(turn.voice, turn.text) is None  # nor did the engine make it

    asyncio.run(main())


def test_a_missing_device_is_marked_lost_then_reopened_with_backoff(devices, tmp_path):
    out = tmp_path / "said.wav"
    statuses = []

    async def main():
        speaker = Speaker(
            AplayPlayer("speaker"), Espeak(), backoff=(0.05, 0.2), on_status=lambda *s: statuses.append(s)
        )
        first = speaker.say("Anna's turn.")
        assert await first.wait() == FAILED and "audio open error" in first.detail
        assert speaker.status == LOST and speaker.detail == first.detail
        meanwhile = speaker.say("Ben's turn.")
        assert meanwhile.outcome == FAILED and children() == []  # refused at once, nothing started
        assert not speaker.idle  # only the retry's timer
        await until(lambda: speaker.tries == 3)  # tried again after 0.05 s, then 0.1 s, in vain
        assert speaker.status == LOST and len(statuses) == 1
        devices.define("speaker", out, "wav")  # the speaker is plugged in
        await until(lambda: speaker.status == OK)
        assert speaker.idle
        back = speaker.say("Carla's turn.")
        assert await back.wait() == SAID
        assert ends_with(wav.samples(out.read_bytes()), samples(speaker, back)) == 0

    asyncio.run(main())
    assert [s for s, _ in statuses] == [LOST, OK]
    assert "audio open error" in statuses[0][1] and statuses[1][1] is None


def test_a_device_failing_in_the_middle_of_a_phrase_is_lost_and_reopened(pipe):
    async def main():
        pipe.plug()
        speaker = Speaker(AplayPlayer("speaker"), Espeak(), backoff=(0.05, 0.2))
        speaking = speaker.say(LONG)
        await until(lambda: bool(pipe.take()))  # the device plays it…
        pipe.unplug()  # …and is pulled out
        assert await speaking.wait() == FAILED and speaking.detail.startswith("aplay ")
        assert speaker.status == LOST
        pipe.plug()
        await until(lambda: speaker.status == OK)
        back = speaker.say("Ben's turn.")
        stream = await played(pipe, back.done)
        assert back.outcome == SAID and ends_with(stream, samples(speaker, back)) >= 0

    asyncio.run(main())


def test_a_player_stuck_opening_its_device_is_killed_when_cut(pipe):
    async def main():
        speaker = Speaker(AplayPlayer("speaker", cut_grace=0.1), Espeak())
        stuck = speaker.say(LONG, kind="turn")  # nobody listens: the player hangs opening the pipe
        await until(lambda: stuck.sounding is not None)
        newer = speaker.say("Ben's turn.", kind="turn")
        await until(stuck.done)
        assert stuck.outcome == CUT
        pipe.plug()
        stream = await played(pipe, newer.done)
        assert newer.outcome == SAID and ends_with(stream, samples(speaker, newer)) == 0

    asyncio.run(main())


def threads() -> int:
    """The process's threads, as the kernel counts them (a thread started without
    :mod:`threading` too)."""
    return len(os.listdir("/proc/self/task"))


def test_nothing_runs_once_a_phrase_is_said(devices, tmp_path):
    devices.define("speaker", tmp_path / "said.wav", "wav")

    async def main():
        before = threads()
        speaker = Speaker(AplayPlayer("speaker"), Espeak())
        await speaker.say("Anna's turn.").wait()
        assert speaker.idle and children() == []
        assert asyncio.all_tasks() == {asyncio.current_task()}
        assert not asyncio.get_running_loop()._scheduled
        await until(lambda: threads() == before)  # the phrase's thread ended with it


def test_the_loop_thread_starts_no_program_while_the_table_speaks(pipe):
    """Starting a child process holds its thread up (fork, exec, and asyncio's waiting thread):
    the phrase's programs are the children of a thread of its own, never of the loop's."""
    loop_thread = Path(f"/proc/self/task/{threading.get_native_id()}/children")

    async def main():
        pipe.plug()
        speaker = Speaker(AplayPlayer("speaker"), Espeak())
        speaking = speaker.say(LONG)
        await until(lambda: speaking.sounding is not None)
        assert {"aplay", "espeak-ng"} & set(children())  # the phrase's programs run (another test's
        # child may be alive beside them in a whole suite's process)
        assert loop_thread.read_text().split() == []
        speaker.hush()
        await speaking.wait()
        await until(lambda: children() == [])

    asyncio.run(main())


def parked(speaker: Speaker) -> bool:
    """Whether the held call being made has sound for the player and waits for its release."""
    return speaker._phrase is not None and speaker._phrase.parked


def nothing_played(out: Path) -> bool:
    """Whether the ``file`` device wrote no sample (at most a WAV header)."""
    return not out.exists() or out.stat().st_size <= len(wav.header(0))


def test_a_held_call_is_made_but_reaches_the_device_only_once_released(devices, tmp_path):
    out = tmp_path / "said.wav"
    devices.define("speaker", out, "wav")

    async def main():
        speaker = Speaker(AplayPlayer("speaker"), Espeak())
        held = speaker.say("Anna verliert zwei Leben.", held=True)
        # the engine has made sound and the player, started, waits for it
        await until(lambda: parked(speaker))
        assert held.sounding is None and nothing_played(out)
        speaker.release(held)
        assert await held.wait() == SAID and held.sounding is not None
        assert ends_with(wav.samples(out.read_bytes()), samples(speaker, held)) == 0
        soon = speaker.say("Ben verliert ein Leben.", held=True)
        speaker.release(soon)  # released before the engine's first sound: it sees it then
        assert await soon.wait() == SAID
        assert ends_with(wav.samples(out.read_bytes()), samples(speaker, soon)) == 0

    asyncio.run(main())


def test_a_held_call_withdrawn_or_never_released_is_never_heard(devices, tmp_path):
    out = tmp_path / "said.wav"
    devices.define("speaker", out, "wav")

    async def main():
        speaker = Speaker(AplayPlayer("speaker"), Espeak())
        withdrawn = speaker.say("Anna verliert zwei Leben.", held=True)
        waiting = speaker.say("Ben ist dran.", kind="turn", held=True)
        await until(lambda: parked(speaker))
        speaker.withdraw(waiting)
        speaker.withdraw(withdrawn)
        assert await withdrawn.wait() == STALE and waiting.outcome == STALE
        forgotten = speaker.say("Carla ist dran.", held=True, within=0.05)
        assert await forgotten.wait() == LATE
        await until(lambda: speaker.idle)  # the phrase's programs gone too (the next call waits for them)
        assert forgotten.sounding is None and withdrawn.sounding is None
        assert nothing_played(out)

    asyncio.run(main())


def test_a_moves_words_are_made_while_it_is_saved_and_heard_only_once_it_is_on_disk(devices, tmp_path, monkeypatch):
    """The voice starts the engine as the game takes a move, while its journal write is in flight,
    and hands nothing to the device until the write is durable — here held back by the test."""
    from firmware_host.core import config as configuration
    from firmware_host.core.store import Store
    from firmware_host.core.writer import ThreadWriter
    from firmware_host.runtime import device as device_module
    from firmware_host.runtime.events import ActionDurable
    from games.workloads import PLAIN

    out = tmp_path / "said.wav"
    devices.define("speaker", out, "wav")
    gate = threading.Event()
    gate.set()

    written: list[float] = []  # when each journal write was on disk (the loop's clock: monotonic)

    class GatedWriter(ThreadWriter):
        def submit(self, job):
            def held():
                gate.wait(scaled(30))
                result = job()
                written.append(time.monotonic())
                return result

            return super().submit(held)

    monkeypatch.setattr(device_module, "ThreadWriter", GatedWriter)
    config = configuration.parse(
        {"voice": {"enabled": True, "speaker": "alsa", "device": "speaker", "calls": "results"}}, "test"
    ).with_sim()

    async def main():
        loop = asyncio.get_running_loop()
        dev = device_module.Device(config, Store(tmp_path / "state"), seed=1)
        task = asyncio.create_task(dev.run())
        await dev.ready.wait()
        durable = []
        dev.hub.subscribe(ActionDurable, lambda e: durable.append(loop.time()))
        try:
            dev.door.start_named(PLAIN.game, list(PLAIN.players))
            await until(lambda: dev.door.session is not None and dev.store.writer.drain(0))
            speaker = dev.door.voice.speaker
            await until(lambda: speaker.status == OK and speaker.idle)  # its first probe of the device over
            before = len(written)
            gate.clear()  # the disk stalls
            assert dev.door.apply(PLAIN.actions[0])
            words = speaker.speaking
            assert words is not None and words.held
            await until(lambda: parked(speaker))  # sound made, waiting
            assert words.sounding is None and not durable and "aplay" in children()
            gate.set()  # the write reaches the disk
            assert await words.wait() == SAID
            return written[before], words.sounding  # the move's own write
        finally:
            gate.set()
            dev.stop()
            await task

    on_disk, sounding = asyncio.run(main())
    assert sounding > on_disk
