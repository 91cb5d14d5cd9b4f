"""Turn timers on the device: tower, buzzer, hard timeouts, pause, power loss, statistics.

Every session runs on the virtual-time loop through the simulator's script runner; a minute of
play takes milliseconds and nothing sleeps.
"""

from __future__ import annotations

import asyncio
import json
import shutil
import time
from pathlib import Path

import pytest

from drivers.tower import BLINK, OFF, ON, TowerState
from firmware_host.core import config as configuration
from firmware_host.core.store import Store
from firmware_host.runtime.device import Device
from firmware_host.runtime.vtime import run_virtual
from firmware_host.sim.script import ScriptRunner, parse, run_script
from games import ENGINES

JUMP = 'action {"type":"jump","jumper":"rascal","result":"B"}'


@pytest.fixture
def tick(monkeypatch: pytest.MonkeyPatch) -> None:
    """Register the test-only game ``tick`` (tests/timer_game.py), which takes hard timeouts."""
    monkeypatch.setitem(ENGINES, "tick", "tests.timer_game")


def load_config(tmp_path: Path, text: str) -> configuration.Config:
    path = tmp_path / "config.toml"
    path.write_text(text, encoding="utf-8")
    return configuration.load(path)


def sim(tmp_path: Path, config: str, script: str, state: str = "state", frames: Path | None = None) -> Device:
    """Run a simulator script with this config; the device afterwards (stopped)."""
    return run_script(load_config(tmp_path, config), Store(tmp_path / state), parse(script), frames, seed=1)


def kind(state: TowerState) -> str:
    """What a player reads off the tower: the timer's states, else ``other``."""
    lights = (state.red, state.yellow, state.green)
    return {
        (OFF, OFF, ON): "green",
        (OFF, BLINK, ON): "yellow",
        (BLINK, BLINK, OFF): "red",
        (OFF, ON, ON): "paused",
    }.get(lights, "other")


def sequence(history: list[TowerState]) -> list[tuple[str, bool]]:
    """The tower's history as (timer state, buzzing), repeats dropped."""
    out: list[tuple[str, bool]] = []
    for state in history:
        item = (kind(state), state.buzzer == ON)
        if not out or out[-1] != item:
            out.append(item)
    return out


def appears_in_order(seq: list, wanted: list) -> bool:
    it = iter(seq)
    return all(any(item == w for item in it) for w in wanted)


def journal(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def actions(path: Path) -> list[dict]:
    """The actions in effect in a journal (undone ones left out)."""
    out: list[dict] = []
    for r in journal(path):
        if "a" in r:
            out.append(r["a"])
        elif "undo" in r:
            out.pop()
    return out


# -- the tower in every mode ------------------------------------------------------------------------
MODES = {
    "turn": 'mode = "turn"\nseconds = 20',
    "hourglass": 'mode = "hourglass"\nseconds = 20',
    "bank-fischer": 'mode = "bank"\nseconds = 20\nincrement = 5',
    "bank-bronstein": 'mode = "bank"\nseconds = 20\ndelay = 3',
    "countup-par": 'mode = "countup"\nseconds = 20',
}


@pytest.mark.parametrize("mode", list(MODES))
def test_tower_goes_green_yellow_red_with_the_buzzer_in_every_mode(tmp_path, mode):
    config = f"[timers.arschbombe]\n{MODES[mode]}\n"
    dev = sim(tmp_path, config, f"start arschbombe Ann Ben\nwait 14\nwait 11\n{JUMP}\nwait 3\n")
    seq = sequence(dev.hw.tower.history)
    # green while comfortable, yellow with one beep, red with the buzzer; Ben's turn: green again
    assert appears_in_order(seq, [("green", False), ("yellow", True), ("yellow", False), ("red", True)])
    after_red = seq[seq.index(("red", True)) :]
    assert ("green", False) in after_red
    # each state distinct by beeps too: 1 for the warning, 3 for the timeout
    assert sum(1 for s in dev.hw.tower.history if kind(s) == "red" and s.buzzer == ON) == 3
    assert sum(1 for s in dev.hw.tower.history if kind(s) == "yellow" and s.buzzer == ON) == 1


def test_warning_and_timeout_come_at_the_right_second(tmp_path):
    dev_warn = sim(
        tmp_path, '[timers.arschbombe]\nmode = "turn"\nseconds = 20\n', "start arschbombe Ann Ben\nwait 15.9"
    )
    assert kind(dev_warn.hw.tower.history[-2]) == "green"
    dev_yellow = sim(
        tmp_path, '[timers.arschbombe]\nmode = "turn"\nseconds = 20\n', "start arschbombe Ann Ben\nwait 16.1"
    )
    assert kind(dev_yellow.hw.tower.history[-2]) == "yellow"
    dev_red = sim(
        tmp_path, '[timers.arschbombe]\nmode = "turn"\nseconds = 20\nwarn = 10\n', "start arschbombe Ann Ben\nwait 10.1"
    )
    assert kind(dev_red.hw.tower.history[-2]) == "yellow"  # warn = 10 s: yellow from 10 s left


def test_timer_beeps_can_be_silenced_and_the_lights_still_show(tmp_path):
    config = '[timers]\nsound = "off"\n[timers.arschbombe]\nmode = "turn"\nseconds = 20\n'
    dev = sim(tmp_path, config, "start arschbombe Ann Ben\nwait 25")
    seq = sequence(dev.hw.tower.history)
    assert appears_in_order(seq, [("green", False), ("yellow", False), ("red", False)])
    assert not any(buzz for _, buzz in seq)


def test_timers_are_off_by_default(tmp_path):
    dev = sim(tmp_path, "", "start arschbombe Ann Ben\nwait 100")
    assert dev.timers.clocks is None
    assert {kind(s) for s in dev.hw.tower.history} <= {"green", "other"}
    assert not any("meta" in r and "clock" in r["meta"] for r in journal(tmp_path / "state" / "game.jsonl"))


def test_the_oled_shows_seconds_and_a_time_bar(tmp_path, cli):
    (tmp_path / "c.toml").write_text('[timers.arschbombe]\nmode = "turn"\nseconds = 20\n', encoding="utf-8")
    script = tmp_path / "s.txt"
    script.write_text(
        "start arschbombe Ann Ben\nsnap start\nwait 10\nsnap half\nwait 12\nsnap over\n", encoding="utf-8"
    )
    frames = tmp_path / "frames"
    r = cli(
        "sim", "--script", script, "--frames", frames, "--config", tmp_path / "c.toml", "--state-dir", tmp_path / "s"
    )
    assert r.status == 0, r.err
    from PIL import Image

    from firmware_host.ui.render import Frame, render

    def bar_pixels(name: str) -> int:
        img = Image.open(frames / f"{name}.png").convert("1")
        return sum(1 for y in range(64) for x in range(123, 128) if img.getpixel((x, y)))

    assert bar_pixels("start") > bar_pixels("half") > bar_pixels("over")
    # the title bar carries the clock: the same picture as a frame titled with it
    shown = Image.open(frames / "half.png").convert("1")
    title = render(Frame("Arschbombe", (), "0:10", 0.5)).crop((0, 0, 100, 8))
    assert shown.crop((0, 0, 100, 8)).tobytes() == title.tobytes()


# -- hard timeouts ----------------------------------------------------------------------------------
def test_hard_timeouts_reach_the_engine_as_journaled_actions(tmp_path, tick, cli):
    config = '[timers.tick]\nmode = "turn"\nseconds = 10\ntimeout = "hard"\n'
    dev = sim(tmp_path, config, "start tick Ann Ben\nwait 25")
    game = tmp_path / "state" / "game.jsonl"
    assert actions(game) == [{"type": "timeout", "player": "Ann"}, {"type": "timeout", "player": "Ben"}]
    t0 = journal(game)[0]["started"]
    times = [r["t"] - t0 for r in journal(game) if "a" in r]
    assert times == pytest.approx([10.0, 20.0], abs=0.001)  # each turn restarts its 10 s
    seq = sequence(dev.hw.tower.history)
    assert appears_in_order(seq, [("red", True), ("other", True), ("green", False)])  # beeps, the penalty, next turn
    state = cli("state", "--state-dir", tmp_path / "state").json()
    assert state["summary"]["scores"] == {"Ann": -1, "Ben": -1}
    assert state["script"]["actions"][0] == {"type": "timeout", "player": "Ann"}
    path = tmp_path / "replay.json"
    path.write_text(json.dumps(state["script"]), encoding="utf-8")
    assert cli("replay", path).json() == state["summary"]


def test_a_game_without_a_timeout_rule_refuses_hard_mode(tmp_path, cli):
    (tmp_path / "c.toml").write_text('[timers.arschbombe]\nmode = "turn"\ntimeout = "hard"\n', encoding="utf-8")
    (tmp_path / "s.txt").write_text("start arschbombe Ann Ben\n", encoding="utf-8")
    r = cli("sim", "--script", tmp_path / "s.txt", "--config", tmp_path / "c.toml", "--state-dir", tmp_path / "st")
    assert r.status == 2
    assert r.err.count("\n") == 1
    assert '[timers.arschbombe] timeout: expected "soft" (Arschbombe gives running out of time no consequence)' in r.err


def test_a_hard_phase_timeout_names_those_who_had_not_answered(tmp_path, tick):
    config = '[games.tick]\nphase = true\n[timers.tick]\nmode = "turn"\nseconds = 60\nphase = 30\ntimeout = "hard"\n'
    script = 'start tick Ann Ben\naction {"type":"move"}\naction {"type":"move"}\npress p1\nhold p1 1\nwait 40\n'
    dev = sim(tmp_path, config, script)
    game = tmp_path / "state" / "game.jsonl"
    assert actions(game)[-1] == {"type": "timeout", "players": ["Ben"]}
    phase = next(r for r in dev.timers.stats.records if "phase" in r)
    assert phase["ms"] == 30_000
    assert phase["answers"]["Ann"] == pytest.approx(1_150, abs=1)  # tap (0.15 s) and a 1 s hold


def test_an_each_phase_keeps_one_clock_while_answers_come_in(tmp_path, tick):
    config = (
        '[games.tick]\nphase = true\neach = true\n[timers.tick]\nmode = "turn"\nseconds = 60\nphase = 30\n'
        'timeout = "hard"\n'
    )
    script = 'start tick Ann Ben Cy\naction {"type":"move"}\naction {"type":"move"}\naction {"type":"move"}\n'
    script += "wait 5\npress p2\nhold p2 1\nwait 40\n"
    sim(tmp_path, config, script)
    game = tmp_path / "state" / "game.jsonl"
    records = journal(game)
    assert actions(game)[-2:] == [
        {"type": "pick", "player": "Ben", "value": "0"},
        {"type": "timeout", "players": ["Ann", "Cy"]},
    ]
    picks = [r["t"] for r in records if r.get("a", {}).get("type") == "move"]
    timeout = next(r["t"] for r in records if r.get("a", {}).get("type") == "timeout")
    assert timeout - picks[-1] == pytest.approx(30.0, abs=0.001)  # Ben's answer did not restart the phase
    done = [t for r in records if "turn_done" in r.get("meta", {}) for t in r["meta"]["turn_done"]]
    assert done[-1]["phase"] == ["Ann", "Ben", "Cy"] and done[-1]["answers"] == {"Ben": pytest.approx(6_150, abs=1)}


# -- pause ------------------------------------------------------------------------------------------------
def test_a_long_ok_pauses_and_resumes_and_never_picks(tmp_path):
    config = '[timers.arschbombe]\nmode = "bank"\nseconds = 60\n'
    dev = sim(tmp_path, config, "start arschbombe Ann Ben\nwait 5\nhold ok 1\nwait 100\nhold ok 1\nwait 4")
    c = dev.timers.clocks
    # ran 6 s up to the release that paused, then from the release that resumed: 4.05 s
    assert 60_000 - c.banks["Ann"] == pytest.approx(6_000 + 4_050, abs=2)
    assert actions(tmp_path / "state" / "game.jsonl") == []
    seq = sequence(dev.hw.tower.history)
    assert appears_in_order(seq, [("green", False), ("paused", True), ("paused", False), ("green", False)])
    assert sum(1 for s in dev.hw.tower.history if kind(s) == "paused" and s.buzzer == ON) == 2


def test_a_short_ok_still_picks_and_a_long_ok_pauses_in_the_game_menu_too(tmp_path):
    config = '[timers.arschbombe]\nmode = "turn"\nseconds = 60\n'
    dev = sim(tmp_path, config, "start arschbombe Ann Ben\npress back\nhold ok 1\npress ok\nwait 30")
    assert dev.timers.paused
    assert dev.timers.clocks.used == pytest.approx(1_150, abs=2)


def test_with_timers_off_a_long_ok_only_says_so(tmp_path):
    dev = sim(tmp_path, "", "start arschbombe Ann Ben\nhold ok 1\n")
    assert not dev.timers.paused
    assert actions(tmp_path / "state" / "game.jsonl") == []


# -- power loss ------------------------------------------------------------------------------------------
def run_and_cut(tmp_path: Path, config: configuration.Config, script: str, cut_at: Path) -> None:
    """Run a script, copy the state folder as a power cut would leave it, then stop."""
    state = tmp_path / "state"

    async def main() -> None:
        loop = asyncio.get_running_loop()
        base = time.time()
        device = Device(config.with_sim(), Store(state), seed=1, wall=lambda: base + loop.time())
        task = asyncio.create_task(device.run())
        await device.ready.wait()
        await ScriptRunner(device, None).run(parse(script))
        shutil.copytree(state, cut_at)  # everything journaled is on the card; nothing else is
        device.stop()
        await task

    run_virtual(main)


def test_a_game_resumed_after_a_power_cut_gives_everyone_the_time_they_had(tmp_path):
    config = load_config(tmp_path, '[timers.arschbombe]\nmode = "bank"\nseconds = 120\n')
    cut = tmp_path / "cut"
    run_and_cut(tmp_path, config, f"start arschbombe Ann Ben\nwait 30\n{JUMP}\nwait 17.5\n", cut)
    # at the cut: Ann used 30 s, Ben 17.5 s; the clocks were saved at most 5 s before
    dev = run_script(config, Store(cut), parse("wait 600\npress p6\nhold ok 1\nwait 4"), None, seed=1)
    banks = dev.timers.clocks.banks
    assert banks["Ann"] == pytest.approx(90_000, abs=5)
    # 600 s switched on but paused, then 4 s running; the cut itself lost at most save_every
    ben_at_cut = 120_000 - 17_500
    assert ben_at_cut - 4_000 <= banks["Ben"] <= ben_at_cut - 4_000 + 5_000


def test_resumed_after_a_cut_the_timer_waits_for_the_table(tmp_path):
    config = load_config(tmp_path, '[timers.arschbombe]\nmode = "turn"\nseconds = 60\n')
    cut = tmp_path / "cut"
    run_and_cut(tmp_path, config, "start arschbombe Ann Ben\nwait 12.5\n", cut)
    dev = run_script(config, Store(cut), parse("wait 3600"), None, seed=1)
    assert dev.timers.paused
    assert dev.timers.clocks.used == pytest.approx(10_000, abs=5)  # the last save, 2.5 s before the cut
    assert kind(dev.hw.tower.history[-2]) == "paused"


def test_a_clean_stop_keeps_the_clocks_to_the_millisecond(tmp_path):
    config = '[timers.arschbombe]\nmode = "hourglass"\nseconds = 100\n'
    sim(tmp_path, config, "start arschbombe Ann Ben\nwait 12.345")
    dev = sim(tmp_path, config, "hold ok 1\nwait 1")
    # resumed paused; it runs from the release of the long ok: 1.05 s more
    assert dev.timers.clocks.banks == {"Ann": pytest.approx(86_605, abs=2), "Ben": pytest.approx(113_395, abs=2)}


# -- statistics ----------------------------------------------------------------------------------------------
def test_history_keeps_time_per_player_and_per_turn(tmp_path, cli):
    config = '[timers.arschbombe]\nmode = "countup"\n'
    lines = ["start arschbombe Ann Ben"]
    for i in range(12):
        jumper = "rascal" if i < 6 else "diver"
        lines += [f"wait {2 + i}", f'action {{"type":"jump","jumper":"{jumper}","result":"out"}}']
    lines += ["snap over", "press next", "snap times"]
    frames = tmp_path / "frames"
    dev = sim(tmp_path, config, "\n".join(lines), frames=frames)
    entry = cli("history", "--json", "--state-dir", tmp_path / "state").json()[-1]
    ann = entry["timer"]["players"]["Ann"]
    assert ann["turns"] == 6
    assert ann["total_s"] == pytest.approx(2 + 4 + 6 + 8 + 10 + 12, abs=0.1)
    assert ann["fastest_s"] == pytest.approx(2, abs=0.1) and ann["slowest_s"] == pytest.approx(12, abs=0.1)
    assert ann["average_s"] == pytest.approx(7, abs=0.1)
    assert [t["player"] for t in entry["timer"]["turns"]] == ["Ann", "Ben"] * 6
    assert entry["timer"]["preset"]["mode"] == "countup"
    assert (frames / "times.png").exists()
    frame = dev.screens[-2].frame()  # (the top one is the stop message)
    assert frame.title == "Time used"
    assert (frame.rows[0].cells, frame.rows[0].right) == (("Ann 0:42",), "2/7/12s")
    table = cli("history", "--state-dir", tmp_path / "state").out
    assert "Ann 0:42, Ben 0:48" in table  # the plain table shows time per player too


# -- settings ---------------------------------------------------------------------------------------------------
def test_the_settings_menu_sets_the_timer_of_the_game_in_play(tmp_path):
    # game menu: Continue, What happened, Undo, Settings; settings: Brightness, Sound, Turn timer
    script = "start arschbombe Ann Ben\npress back\npress next\npress next\npress next\npress ok\n"
    script += "press next\npress next\npress ok\n"
    script += "press ok\n"  # Mode: off -> per turn
    script += "press next\npress ok\n"  # Turn time: 1:00 -> 1:30
    script += "press next\npress next\npress next\npress ok\n"  # Timeout: soft only for Arschbombe
    script += "press back\nwait 10\n"
    dev = sim(tmp_path, "", script)
    saved = json.loads((tmp_path / "state" / "settings.json").read_text())["timers"]["arschbombe"]
    assert saved["mode"] == "turn" and saved["seconds"] == 90 and saved["timeout"] == "soft"
    assert dev.timers.preset.mode == "turn"
    assert dev.timers.clocks.used == pytest.approx(10_000, abs=300)
    last = journal(tmp_path / "state" / "game.jsonl")
    assert any(r.get("meta", {}).get("timer", {}).get("seconds") == 90 for r in last)


def test_a_saved_preset_wins_over_the_config_file_until_forgotten(tmp_path):
    config = '[timers.arschbombe]\nmode = "bank"\nseconds = 300\n'
    (tmp_path / "state").mkdir()
    settings = {"timers": {"arschbombe": {"mode": "turn", "seconds": 15}}}
    (tmp_path / "state" / "settings.json").write_text(json.dumps(settings))
    dev = sim(tmp_path, config, "start arschbombe Ann Ben\n")
    assert dev.timers.preset.mode == "turn"
    # Settings > Turn timer > (Mode, Turn time, Yellow at, Together, Timeout, Use config file)
    script = "press back\npress next\npress next\npress next\npress ok\npress next\npress next\npress ok\n"
    script += "press prev\npress ok\npress back\n"
    dev = sim(tmp_path, config, script)
    assert dev.timers.preset.mode == "bank"
    assert "arschbombe" not in json.loads((tmp_path / "state" / "settings.json").read_text())["timers"]


def test_undo_gives_the_turn_back_with_its_clock_afresh_and_keeps_the_time_spent(tmp_path):
    config = '[timers.arschbombe]\nmode = "turn"\nseconds = 20\n'
    dev = sim(tmp_path, config, f"start arschbombe Ann Ben\nwait 5\n{JUMP}\nwait 3\nhold back 1\npress ok\nwait 2")
    assert actions(tmp_path / "state" / "game.jsonl") == []  # undone
    c = dev.timers.clocks
    assert c.key == ("turn", "Ann")
    assert c.remaining() == pytest.approx(20_000 - 2_050, abs=2)
    assert [r["player"] for r in dev.timers.stats.records] == ["Ann", "Ben"]
    assert dev.timers.stats.records[1]["ms"] == pytest.approx(4_150, abs=2)  # Ben's time up to the undo


def test_an_action_costs_one_fsync_the_timer_saves_its_turns_later(tmp_path):
    config = '[timers.arschbombe]\nmode = "bank"\nseconds = 60\n'
    script = 'start arschbombe Ann Ben\nwait 3\naction {"type":"jump","jumper":"rascal","result":"A"}\nwait 1\n'
    sim(tmp_path, config, script)
    records = journal(tmp_path / "state" / "game.jsonl")
    i = next(n for n, r in enumerate(records) if "a" in r)
    assert records[i + 1]["t"] - records[i]["t"] >= 0.99  # nothing written with the action: the next is the stop's
    sim(tmp_path, config, script + "wait 10\n", state="b")
    records = journal(tmp_path / "b" / "game.jsonl")
    done = [t for r in records if "turn_done" in r.get("meta", {}) for t in r["meta"]["turn_done"]]
    assert done and done[0]["player"] == "Ann"  # saved with the next save, within save_every


def test_emptying_and_refilling_the_bin_runs_nobodys_clock(tmp_path):
    config = '[timers.tonne]\nmode = "bank"\nseconds = 300\n'
    script = (
        'start tonne Ann Ben\naction {"type":"reveal","cards":{"Ann":1,"Ben":2}}\naction {"type":"fall"}\nwait 60\n'
    )
    dev = sim(tmp_path, config, script)
    assert dev.timers.clocks.banks == {"Ann": 300_000, "Ben": 300_000}


# -- checked against FIDE clock rules and Shared Game Timer ------------------------------------------------
def test_undo_takes_back_the_increment_of_the_undone_turn_on_the_device(tmp_path):
    config = '[timers.arschbombe]\nmode = "bank"\nseconds = 60\nincrement = 5\n'
    # Ann thinks 10 s and jumps (+5 s), Ben thinks 4 s, the table undoes Ann's jump
    dev = sim(tmp_path, config, f"start arschbombe Ann Ben\nwait 10\n{JUMP}\nwait 4\nhold back 1\npress ok\n")
    assert dev.session is not None and dev.session.actions == []
    banks = dev.timers.clocks.banks
    assert banks["Ann"] <= 50_000  # her increment went with her jump (it was 55 s with it)
    assert 54_800 <= banks["Ben"] <= 56_000  # Ben's cut-short turn earned none either
    again = sim(tmp_path, config, "wait 1")  # the same after a restart
    assert again.timers.clocks.banks["Ann"] <= 50_000 and again.timers.clocks.credits == []


def test_an_hourglass_resumed_after_a_cut_gives_the_waiting_player_no_less_than_at_the_cut(tmp_path):
    config = load_config(tmp_path, '[timers.arschbombe]\nmode = "hourglass"\nseconds = 100\n')
    cut = tmp_path / "cut"
    run_and_cut(tmp_path, config, "start arschbombe Ann Ben\nwait 12.5\n", cut)  # saved at 10 s
    dev = run_script(config, Store(cut), parse("wait 60"), None, seed=1)  # resumed paused
    banks = dev.timers.clocks.banks
    assert banks["Ben"] >= 112_500  # what Ben had at the cut (the save alone gave 110 s)
    assert banks["Ann"] >= 87_500


def test_an_empty_hourglass_shows_zero_not_a_stuck_overtime(tmp_path):
    dev = sim(tmp_path, '[timers.arschbombe]\nmode = "hourglass"\nseconds = 10\n', "start arschbombe Ann Ben\nwait 15")
    assert dev.timers.clocks.banks["Ann"] == 0
    assert dev.timers.title_text() == "0:00"


def test_the_timer_lights_differ_from_every_mood_of_the_table():
    from firmware_host.runtime.lights import MOODS, TIMER

    assert TIMER["warning"] != MOODS["waiting"]  # the table's job (empty and refill the bin)
    for level in ("warning", "timeout", "paused"):  # running is green: play on, like the playing mood
        assert TIMER[level] not in MOODS.values(), level
