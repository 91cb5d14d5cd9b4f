"""The voice part on a whole simulated device: what the table hears of its events, a newer call
replacing stale ones, a press that never waits for speech, a failing audio device marked and
reopened while the game goes on, the settings round-tripped (config file, OLED, page), and the
voice off costing nothing.

The words expected are rendered from the games' catalogues (:class:`firmware_host.ui.speech.Speech`),
never written here."""

from __future__ import annotations

import asyncio
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from devicekit import presses, run_device
from webkit import page, pair

from drivers.voice import LOST, OK
from firmware_host.core import config as configuration
from firmware_host.core.store import Store
from firmware_host.runtime.device import Device
from firmware_host.runtime.events import TimerCountdown, TurnPassed
from firmware_host.runtime.parts.voice import VoiceOptions, VoicePart, options_from
from firmware_host.ui.speech import Speech
from games import get_engine
from games.core import T
from tests.waits import scaled

ROOT = Path(__file__).resolve().parents[2]


def voice_config(tmp_path: Path, text: str) -> configuration.Config:
    """The config file ``text``; a voice enabled there speaks into the simulator's recorder (as
    ``sim --script`` makes it) unless the file names its speaker."""
    path = tmp_path / "config.toml"
    path.write_text(text, encoding="utf-8")
    config = configuration.load(path)
    if "speaker" not in text:
        config.sections["voice"]["speaker"] = "sim"
    return config


SIM_VOICE = '[voice]\nenabled = true\nsay_as = { Siobhan = "Shivawn" }\n'
REVEAL = {"type": "reveal", "cards": {"Ann": "2", "Siobhan": "5", "Cy": "9"}}


def heard(game: str, text, players=("Ann", "Siobhan", "Cy")) -> str:
    """What the voice says for ``text`` of ``game`` (from the catalogues)."""
    return Speech(get_engine(game).ear, lambda n: "Shivawn" if n == "Siobhan" else n, players)(text)


def test_a_move_is_said_then_whose_turn_it_is_and_names_as_the_table_spelt_them(tmp_path):
    async def body(dev):
        dev.door.start_named("bomb", ["Ann", "Siobhan", "Cy"])
        effects = dev.door.session.engine.apply(dev.door.session.state, REVEAL)[1]
        assert dev.door.apply(REVEAL)
        await asyncio.sleep(15)
        session = dev.door.session
        return [r.words for r in dev.door.voice.speaker.player.said], effects, session.engine.turn(session.state)

    said, effects, turn = run_device(tmp_path, body, voice_config(tmp_path, SIM_VOICE))
    move = " ".join(heard("bomb", e.value) for e in effects if e.kind == "say")
    assert said[0] == move
    assert said[1] == heard("bomb", T("{player}'s turn", player=turn)) and turn in ("Ann", "Siobhan", "Cy")


def test_a_newer_move_replaces_the_words_it_makes_stale_and_a_press_never_waits(tmp_path):
    async def body(dev):
        loop = asyncio.get_running_loop()
        dev.door.start_named("bomb", ["Ann", "Siobhan", "Cy"])
        await asyncio.sleep(1)
        speaker = dev.door.voice.speaker
        before = loop.time()
        assert dev.door.apply(REVEAL)  # the move's words start, the turn's wait behind them
        await asyncio.sleep(0.2)
        first = speaker.speaking
        waiting = speaker.waiting
        roll = {"type": "roll", "player": dev.door.session.engine.turn(dev.door.session.state)}
        pressed = loop.time()
        assert dev.door.apply(roll)  # returns at once: nothing of the press waits for the speech
        assert loop.time() == pressed
        await asyncio.sleep(0.05)
        outcomes = (first.outcome, waiting.outcome if waiting is not None else None)
        await asyncio.sleep(20)
        return outcomes, [(r.words, r.outcome) for r in speaker.player.said], speaker.idle, before

    (first, waiting), said, idle, _ = run_device(tmp_path, body, voice_config(tmp_path, SIM_VOICE))
    assert first == "cut" and waiting in ("stale", None)
    assert said[0][1] == "cut" and said[-1][1] == "said"
    assert not [w for w, o in said[1:] if o == "cut" and w == said[0][0]], "the stale words came back"
    assert idle, "something still runs once everything is said"


def test_the_voice_off_costs_nothing_no_speaker_no_process_no_thread(tmp_path):
    """The default configuration: no speaker is made, its modules are not even loaded, and moves
    start no thread, task or child process (checked in a process of its own)."""
    script = f"""
import asyncio, sys, threading
sys.path.insert(0, {str(ROOT / "tests")!r})
from pathlib import Path
from devicekit import run_device
async def body(dev):
    threads = threading.active_count()
    dev.door.start_named("bomb", ["Ann", "Ben"])
    dev.door.apply({{"type": "reveal", "cards": {{"Ann": "2", "Ben": "5"}}}})
    await asyncio.sleep(30)
    tasks = [t.get_name() for t in asyncio.all_tasks() if t.get_name() == "speaker"]
    kids = open(f"/proc/self/task/{{threading.get_native_id()}}/children").read().split()
    return (dev.door.voice.speaker, dev.door.voice.status, tasks, threading.active_count() - threads, kids)
print(run_device(Path({str(tmp_path)!r}), body))
print(sorted(m for m in sys.modules if m.startswith("drivers.voice.") and m != "drivers.voice.names"))  # noqa
"""
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT, timeout=scaled(120))
    assert out.returncode == 0, out.stderr
    state, modules = out.stdout.strip().splitlines()[-2:]
    assert state == "(None, 'off', [], 0, [])"
    assert modules == "[]", "the speaker's modules were loaded with the voice off"


def test_handlers_of_a_voice_off_make_nothing():
    part = VoicePart(VoiceOptions(enabled=False))
    part.start()
    assert part.on_turn_passed(TurnPassed("Ann", "p1", "bomb")) is None
    assert part.on_timer_countdown(TimerCountdown("p1", "Ann", 3.0)) is None
    assert part.speaker is None and part.state()["status"] == "off"


def test_the_turn_timer_warns_counts_down_and_says_the_time_is_up(tmp_path):
    text = SIM_VOICE + '[timers.arschbombe]\nmode = "turn"\nseconds = 20\nwarn = 10\n'

    async def body(dev):
        dev.door.start_named("arschbombe", ["Ann", "Siobhan"])
        await asyncio.sleep(25)
        return [r.words for r in dev.door.voice.speaker.player.said]

    said = run_device(tmp_path, body, voice_config(tmp_path, text))
    warning = heard("arschbombe", T("{player}, your time is running out", player="Ann"))
    up = heard("arschbombe", T("{player}, your time is up", player="Ann"))
    assert warning in said and up in said
    assert said.index(warning) < said.index("3") < said.index("1") < said.index(up)


def test_the_settings_round_trip_through_the_oled_and_a_restart(tmp_path):
    async def change(dev):
        await presses(dev, "next", "next", "ok")  # Settings
        for _ in range(5):
            await presses(dev, "next")  # Voice (below Phones)
        await presses(dev, "ok", "ok", "next", "ok", "next", "ok")  # on, louder, calls: results
        return dev.door.voice.options, dev.store.read_doc("settings")

    options, saved = run_device(tmp_path, change, voice_config(tmp_path, "[voice]\n"))
    assert options.enabled and options.volume == 150 and options.calls == "results"
    assert saved["voice"] is True and saved["voice_volume"] == 150 and saved["voice_calls"] == "results"

    async def again(dev):
        return dev.door.voice.options

    assert run_device(tmp_path, again, voice_config(tmp_path, "[voice]\n")) == options


def test_the_settings_round_trip_through_the_page(tmp_path):
    async def body(dev):
        async with page(dev) as (_, session, base):
            await pair(dev, session, base)
            change = {"voice": True, "voice_calls": "turns", "voice_game_calls": {"trottel": "beeps"}}
            change["say_as"] = {"Siobhan": "Shivawn"}
            async with session.post(f"{base}/api/settings", json=change, headers={"Origin": base}) as r:
                assert r.status == 200, await r.text()
            bad = []
            for wrong in ({"voice_calls": "some"}, {"voice_volume": 999}, {"say_as": {"Ann": "!!"}}):
                async with session.post(f"{base}/api/settings", json=wrong, headers={"Origin": base}) as r:
                    bad.append((r.status, (await r.json())["result"]["error_msg"]))
            async with session.get(f"{base}/api/state") as r:
                shown = (await r.json())["settings"]
        return dev.door.voice.options, shown, bad

    options, shown, bad = run_device(tmp_path, body, voice_config(tmp_path, "[voice]\n"))  # turned on: recorded
    assert options.enabled and options.calls == "turns" and options.calls_for("trottel") == "beeps"
    assert options.say_as == {"Siobhan": "Shivawn"} and shown["say_as"] == {"Siobhan": "Shivawn"}
    assert [status for status, _ in bad] == [400, 400, 400]
    assert "voice_calls" in bad[0][1] and "voice_volume" in bad[1][1] and "say_as" in bad[2][1]


def test_the_config_files_voice_becomes_the_voices_options(tmp_path):
    config = voice_config(
        tmp_path,
        '[voice]\nenabled = true\nrate = 150\nvolume = 50\ncalls = "results"\n'
        'game_calls = { trottel = "turns" }\nsay_as = { "Jörg" = "Yurg" }\n',
    )
    options = options_from(config["voice"])
    assert (options.enabled, options.rate, options.volume, options.calls) == (True, 150, 50, "results")
    assert options.calls_for("trottel") == "turns" and options.calls_for("bomb") == "results"
    assert VoicePart(options).names.spoken("jörg") == "Yurg"


@pytest.mark.parametrize(
    ("line", "key"),
    [
        ("enabled = 1", "enabled"),
        ('speaker = "usb"', "speaker"),
        ('speaker = "sim"', "speaker"),
        ("rate = 20", "rate"),
        ("volume = 201", "volume"),
        ('calls = "some"', "calls"),
        ('game_calls = { chess = "all" }', "game_calls"),
        ('game_calls = { bomb = "loud" }', "game_calls"),
        ('say_as = { Ann = "!!" }', "say_as"),
        ('say_as = "Ann"', "say_as"),
        ('device = ""', "device"),
    ],
)
def test_a_bad_voice_key_is_named_with_its_file(tmp_path, line, key):
    with pytest.raises(configuration.ConfigError) as caught:
        voice_config(tmp_path, f"[voice]\n{line}\n")
    assert str(caught.value).startswith(f"{tmp_path / 'config.toml'}: [voice] {key}: expected ")


# -- on the real engine and the real player -----------------------------------------------------------
needs_audio = pytest.mark.skipif(
    shutil.which("espeak-ng") is None or shutil.which("aplay") is None, reason="needs espeak-ng and aplay"
)


@needs_audio
def test_a_missing_audio_device_is_marked_and_reopened_while_the_game_goes_on(tmp_path, monkeypatch):
    """ALSA's device ``speaker`` is not defined (a USB speaker not plugged in): the voice marks
    itself lost, every press is answered and the game goes on; once the device is defined (plugged
    in), the voice finds it again by itself and speaks."""
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("ALSA_CONFIG_PATH", raising=False)
    out = tmp_path / "played.wav"
    config = voice_config(tmp_path, '[voice]\nenabled = true\nspeaker = "alsa"\ndevice = "speaker"\n').with_sim()
    statuses = []

    async def until(condition, timeout=30.0):
        async with asyncio.timeout(scaled(timeout)):
            while not condition():
                await asyncio.sleep(0.01)

    async def main():
        device = Device(config, Store(tmp_path / "state"), seed=1)
        device.door.voice._on_status = lambda status, detail: statuses.append(status)
        task = asyncio.create_task(device.run())
        await asyncio.wait_for(device.ready.wait(), scaled(60))
        try:
            await until(lambda: device.door.voice.status == LOST)
            marks = [device.hub.lookup("health").title_note()]  # the title bar says so
            device.door.start_named("bomb", ["Ann", "Ben", "Cy"])
            assert device.door.apply({"type": "reveal", "cards": {"Ann": "2", "Ben": "5", "Cy": "9"}})
            await until(lambda: len(device.door.session.actions) == 1)  # the game went on, durable
            threads = threading.active_count()
            (tmp_path / ".asoundrc").write_text(
                f'pcm.speaker {{\n type file\n slave.pcm null\n file "{out}"\n format wav\n}}\n', encoding="utf-8"
            )
            await until(lambda: device.door.voice.status == OK)
            marks.append(device.hub.lookup("health").title_note())
            turn = device.door.session.engine.turn(device.door.session.state)
            assert device.door.apply({"type": "roll", "player": turn})
            await until(lambda: device.door.voice.speaker.idle and out.exists() and out.stat().st_size > 10_000)
            await until(lambda: threading.active_count() <= threads)  # nothing of the speech stays behind
            return marks
        finally:
            device.stop()
            await task

    marks = asyncio.run(main())
    assert statuses[:1] == [LOST] and statuses[-1] == OK  # told once lost, then found
    assert "V!" in marks[0].split() and "V!" not in marks[1].split()


def test_without_the_engine_the_simulator_shows_what_it_would_say_on_its_status_line(tmp_path, monkeypatch):
    from firmware_host.sim.terminal import Terminal

    monkeypatch.setenv("PATH", str(tmp_path))  # a laptop with neither espeak-ng nor aplay
    config = voice_config(tmp_path, '[voice]\nenabled = true\nspeaker = "alsa"\n')

    async def body(dev):
        dev.door.start_named("bomb", ["Ann", "Siobhan", "Cy"])
        effects = dev.door.session.engine.apply(dev.door.session.state, REVEAL)[1]
        dev.door.apply(REVEAL)
        await asyncio.sleep(0.5)
        return dev.door.voice.fallback, Terminal(dev).status(), effects

    fallback, status, effects = run_device(tmp_path, body, config)
    assert fallback == "espeak-ng and aplay not installed: the words are printed"
    move = " ".join(heard("bomb", e.value, ("Ann", "Siobhan", "Cy")) for e in effects if e.kind == "say")
    assert f"says: {move.replace('Shivawn', 'Siobhan')}" in status


def test_whose_turn_is_dropped_when_a_long_move_outlasts_its_moment(virtual):
    """The move's words take longer than a turn call may wait: the turn is not said late."""
    from firmware_host.runtime.events import ActionDurable
    from games.core import Effect

    engine = get_engine("bomb")
    view = engine.view(engine.new(["Ann", "Ben", "Cy"], 3, {}))
    long = T("{player}: B{bomb} F{fuse} C{card} -{lost}, out!", player="Ann", bomb=5, fuse=4, card=0, lost=3)

    async def main():
        part = VoicePart(VoiceOptions(enabled=True, speaker="sim"), lambda: ("bomb", ("Ann", "Ben", "Cy")))
        part.start()
        await asyncio.sleep(0.1)
        move = part.on_action_durable(ActionDurable({}, (Effect("say", long),), view, "bomb", "en"))
        turn = part.on_turn_passed(TurnPassed("Ben", "p2", "bomb"))
        outcomes = await move.wait(), await turn.wait()
        player = part.speaker.player
        part.close()
        await part.wait_closed()
        return outcomes, player.words

    (said_move, said_turn), words = virtual(main)
    assert said_move == "said" and said_turn == "late"
    assert words == [heard("bomb", long, ("Ann", "Ben", "Cy"))]
