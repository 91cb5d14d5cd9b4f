"""The speaker's rules on virtual time (the simulated recorder), its pieces (WAV, cache, names,
the engine's command line), and the simulated and printing backends."""

from __future__ import annotations

import asyncio
import struct

import pytest

from drivers.voice import CUT, FAILED, LATE, OUTRANKED, SAID, STALE, Voice, espeak, wav
from drivers.voice.backends import open_speaker
from drivers.voice.cache import SoundCache
from drivers.voice.printing import PrintPlayer
from drivers.voice.sim import RecordingPlayer, spoken_seconds, write_files
from drivers.voice.speaker import Speaker

needs_engine = pytest.mark.skipif(not espeak.available(), reason="needs espeak-ng")

LONG = "Anna rolls the dice and loses two lives, so Ben defuses next with the red die in play."
"""A phrase of 18 words: about six seconds at 175 words a minute."""


def words_speaker() -> tuple[Speaker, RecordingPlayer]:
    """A simulated speaker without an engine: words recorded, each held for its words' time."""
    player = RecordingPlayer()
    return Speaker(player), player


def test_a_newer_call_of_the_same_kind_cuts_the_one_speaking(virtual):
    async def main():
        speaker, player = words_speaker()
        first = speaker.say("Anna's turn, then the long rest of a sentence", kind="turn")
        await asyncio.sleep(0.5)
        assert speaker.speaking is first
        second = speaker.say("Ben's turn", kind="turn")
        assert await first.wait() == CUT and first.detail == "cut by a 'turn' call"
        assert await second.wait() == SAID
        assert player.words == ["Anna's turn, then the long rest of a sentence", "Ben's turn"]
        assert [r.outcome for r in player.said] == [CUT, SAID]

    virtual(main)


def test_a_call_cut_before_its_task_first_ran_is_over_and_the_next_one_speaks(virtual):
    async def main():
        speaker, player = words_speaker()
        first = speaker.say("Anna's turn", kind="turn")
        second = speaker.say("Ben's turn", kind="turn")  # in the same step of the loop
        assert await asyncio.wait_for(first.wait(), 60) == CUT  # (it once never ended)
        assert await second.wait() == SAID
        assert player.words == ["Ben's turn"] and speaker.idle

    virtual(main)


def test_a_higher_priority_cuts_a_lower_one_and_an_equal_one_waits_its_turn(virtual):
    async def main():
        speaker, player = words_speaker()
        result = speaker.say(LONG, kind="result", priority=1)
        refused = speaker.say("Not your turn", kind="refused", priority=1, within=None)
        assert speaker.speaking is result and speaker.waiting is refused
        await result.wait()
        assert result.outcome == SAID  # a call of another kind and no higher priority waits
        assert await refused.wait() == SAID
        loop = asyncio.get_running_loop()
        result = speaker.say(LONG, kind="result", priority=1)
        await asyncio.sleep(1)
        alarm = speaker.say("Time is up", kind="timer", priority=3)
        assert await result.wait() == CUT
        assert await alarm.wait() == SAID
        assert alarm.started == pytest.approx(loop.time() - spoken_seconds(alarm.text, alarm.voice))
        assert player.words[-2:] == [LONG, "Time is up"]

    virtual(main)


def test_one_waiting_place_the_newer_call_takes_it_unless_a_more_important_one_holds_it(virtual):
    async def main():
        speaker, player = words_speaker()
        speaking = speaker.say(LONG, kind="result", priority=2)
        turn_a = speaker.say("Anna's turn", kind="turn", priority=1, within=None)
        turn_b = speaker.say("Ben's turn", kind="turn", priority=1, within=None)
        assert turn_a.outcome == STALE and speaker.waiting is turn_b
        refused = speaker.say("Not your turn", kind="refused", priority=0)
        assert refused.outcome == OUTRANKED and refused.detail == "a 'turn' call waits"
        over = speaker.say("Game over, Ben wins", kind="over", priority=1, within=None)
        assert turn_b.outcome == STALE and speaker.waiting is over  # equal priority: the newer
        await over.wait()
        assert speaking.outcome == SAID and over.outcome == SAID
        assert player.words == [LONG, "Game over, Ben wins"]

    virtual(main)


def test_a_waiting_call_whose_moment_has_passed_is_dropped(virtual):
    async def main():
        speaker, player = words_speaker()
        speaker.say(LONG, kind="result", priority=1)
        late = speaker.say("Anna's turn", kind="turn", within=2.0)
        await late.wait()
        assert late.outcome == LATE and late.started is None
        speaker.say(LONG, kind="result", priority=1)
        patient = speaker.say("Game over", kind="over", within=None)
        assert await patient.wait() == SAID
        assert player.words == [LONG, LONG, "Game over"]

    virtual(main)


def test_the_same_words_of_the_same_kind_are_not_started_again(virtual):
    async def main():
        speaker, player = words_speaker()
        first = speaker.say("Anna's turn", kind="turn")
        await asyncio.sleep(0.2)
        again = speaker.say("Anna's  turn", kind="turn")
        assert again is first
        await first.wait()
        assert player.words == ["Anna's turn"]

    virtual(main)


def test_the_same_words_just_after_they_were_said_are_said_again(virtual):
    async def main():
        speaker, player = words_speaker()
        first = speaker.say("Anna's turn", kind="turn")
        asked = []
        first._done = asyncio.get_running_loop().create_future()  # heard in the step the phrase ends,
        first._done.add_done_callback(lambda _: asked.append(speaker.say("Anna's turn", kind="turn")))
        await first.wait()  # before the speaker has tidied up after it
        again = asked[0]
        assert again is not first and await again.wait() == SAID
        assert player.words == ["Anna's turn", "Anna's turn"]

    virtual(main)


def test_say_returns_at_once_and_refuses_what_is_not_a_phrase(virtual):
    async def main():
        speaker, _ = words_speaker()
        loop = asyncio.get_running_loop()
        before = loop.time()
        u = speaker.say(LONG)
        assert loop.time() == before and u.outcome is None  # nothing awaited
        for bad in ("", "   ", "x" * 601):
            with pytest.raises(ValueError, match="1 to 600 characters"):
                speaker.say(bad)
        with pytest.raises(ValueError, match="priority"):
            speaker.say("hi", priority=1.5)
        await u.wait()

    virtual(main)


def test_hush_cuts_and_drops_and_close_says_nothing_more(virtual):
    async def main():
        speaker, _ = words_speaker()
        speaking = speaker.say(LONG, priority=2)
        waiting = speaker.say("Anna's turn", kind="turn")
        await asyncio.sleep(0.1)
        speaker.hush()
        assert waiting.outcome == STALE
        assert await speaking.wait() == CUT and speaking.detail == "hushed"
        speaker.close()
        speaker.close()
        after = speaker.say("Anything")
        assert after.outcome == FAILED and after.detail == "speaker closed"
        await speaker.wait_closed()
        assert speaker.idle

    virtual(main)


def test_nothing_runs_between_phrases(virtual):
    async def main():
        speaker, _ = words_speaker()
        loop = asyncio.get_running_loop()
        await speaker.say(LONG).wait()
        assert speaker.idle and speaker.speaking is None and speaker.waiting is None
        assert asyncio.all_tasks() == {asyncio.current_task()}
        assert not loop._scheduled  # no timer left behind

    virtual(main)


@needs_engine
def test_the_simulated_speaker_records_words_and_sound_and_keeps_the_sound(virtual, tmp_path):
    written = []

    def keep(recorded):
        written.extend(write_files(tmp_path, recorded))

    async def main():
        speaker, why = open_speaker("sim", voice=Voice("de"), on_said=keep)
        assert why is None and speaker.name == "sim"
        loop = asyncio.get_running_loop()
        first = speaker.say("Anna verliert zwei Leben.")
        await first.wait()
        recorded = speaker.player.said[0]
        assert first.outcome == SAID and not first.cached
        assert recorded.sound is not None and wav.samples(recorded.sound)
        assert loop.time() - first.started == pytest.approx(wav.duration(recorded.sound))  # played as long as it sounds
        again = speaker.say("Anna verliert zwei Leben.")
        await again.wait()
        assert again.cached and speaker.player.said[1].sound == recorded.sound
        english = speaker.say("Anna verliert zwei Leben.", voice=Voice("en"))
        await english.wait()
        assert not english.cached  # another voice, another sound

    virtual(main)
    assert [p.name for p in written] == [f"voice-000{i}.{e}" for i in (1, 2, 3) for e in ("txt", "wav")]
    assert (tmp_path / "voice-0001.txt").read_text(encoding="utf-8") == "Anna verliert zwei Leben.\n"
    sound = (tmp_path / "voice-0001.wav").read_bytes()
    assert struct.unpack_from("<I", sound, 4)[0] == len(sound) - 8  # a file with its true sizes


def test_without_the_engine_the_device_speaker_prints_and_says_why(virtual, monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))
    lines = []

    async def main():
        speaker, why = open_speaker("alsa", line=lines.append)
        assert speaker.name == "print" and why == "espeak-ng and aplay not installed: the words are printed"
        first = speaker.say("Anna's turn", kind="turn")
        await asyncio.sleep(0.1)
        speaker.say("Ben's turn", kind="turn")
        await first.wait()
        assert first.outcome == CUT  # the printed phrase is held as long as saying it would take
        await asyncio.sleep(5)
        assert speaker.idle

    virtual(main)
    assert lines == ["Anna's turn", "Ben's turn"]


def test_print_player_holds_each_phrase_for_its_words(virtual):
    async def main():
        loop = asyncio.get_running_loop()
        speaker = Speaker(PrintPlayer(lambda text: None))
        u = speaker.say("one two three four five six seven")
        await u.wait()
        assert loop.time() == pytest.approx(7 * 60 / 175)

    virtual(main)


def test_an_unknown_backend_is_refused():
    with pytest.raises(ValueError, match=r"unknown speaker 'bluetooth' \(known: alsa, sim, print\)"):
        open_speaker("bluetooth")


# -- voices, sounds, the cache ----------------------------------------------------------------------
@pytest.mark.parametrize(
    ("changes", "error"),
    [
        ({"language": "fr"}, "no voice for language 'fr'"),
        ({"rate": 79}, "rate must be an integer from 80 to 450"),
        ({"rate": 175.0}, "rate must be an integer"),
        ({"pitch": 100}, "pitch must be an integer from 0 to 99"),
        ({"amplitude": -1}, "amplitude must be an integer from 0 to 200"),
        ({"amplitude": True}, "amplitude must be an integer"),
    ],
)
def test_a_voice_outside_the_engine_ranges_is_refused(changes, error):
    with pytest.raises(ValueError, match=error):
        Voice(**changes)


def test_a_streamed_wav_gets_its_true_sizes():
    streamed = bytearray(wav.header(0x7FFFF000)) + bytes(4410)  # eSpeak NG's "unknown length"
    sealed = wav.sealed(bytes(streamed))
    assert struct.unpack_from("<I", sealed, 4)[0] == 36 + 4410
    assert struct.unpack_from("<I", sealed, 40)[0] == 4410
    assert wav.duration(sealed) == pytest.approx(0.1)
    assert wav.samples(sealed) == bytes(4410)
    assert wav.duration(wav.silence(0.02)) == pytest.approx(0.02)
    for bad in (b"", b"RIFF\0\0\0\0WAVX", wav.header(10)[:36]):
        with pytest.raises(ValueError):
            wav.sealed(bad)


def test_the_cache_is_bounded_drops_the_least_recent_and_keys_on_the_voice():
    cache = SoundCache(max_bytes=100)
    en, de, fast = Voice("en"), Voice("de"), Voice("en", rate=250)
    cache.put(en, "a", b"x" * 40)
    cache.put(de, "a", b"y" * 40)
    assert cache.get(en, "a") == b"x" * 40  # now the most recent
    cache.put(fast, "a", b"z" * 40)
    assert cache.get(de, "a") is None and cache.get(en, "a") and cache.get(fast, "a")
    assert cache.bytes == 80 and len(cache) == 2
    cache.put(en, "b", b"w" * 101)  # larger than the whole cache: not kept, nothing dropped for it
    assert cache.get(en, "b") is None and len(cache) == 2
    cache.put(en, "a", b"v" * 10)
    assert cache.bytes == 50
    cache.clear()
    assert cache.bytes == 0 and len(cache) == 0


# -- the engine's command line ---------------------------------------------------------------------
def test_the_command_ends_its_options_before_the_text_and_the_text_speaks_no_phonemes():
    cmd = espeak.command("-v [[h@l'oU]]\x07 Ann", Voice("de", rate=200, pitch=40, amplitude=150))
    options = ["--stdout", "-z", "-v", "de", "-s", "200", "-p", "40", "-a", "150"]
    assert cmd == ["espeak-ng", *options, "--", "-v h@l'oU Ann"]


@needs_engine
def test_the_engine_says_a_name_that_looks_like_an_option(virtual):
    async def main():
        pieces = [p async for p in espeak.Espeak().render("-v", Voice())]
        sound = b"".join(pieces)
        assert wav.duration(sound) > 0.1

    virtual(main)


@needs_engine
def test_a_failing_engine_fails_the_call_not_the_device(virtual, tmp_path):
    async def main():
        speaker = Speaker(RecordingPlayer(), espeak.EspeakInline(program=str(tmp_path / "no-espeak")))
        u = speaker.say("Anna")
        assert await u.wait() == FAILED and "no-espeak" in u.detail
        assert speaker.status != "lost"

    virtual(main)
