"""A move is one undo, the move that ends a game can be undone, storage errors clear themselves,
a failed save is one line, and a scripted run is linear in its lines."""

from __future__ import annotations

import asyncio
import errno
import json
import shutil
import subprocess
import sys
from pathlib import Path

from firmware_host.core.session import Session
from firmware_host.core.store import Store
from firmware_host.runtime.parts import game as game_part
from firmware_host.runtime.parts import message as message_part
from firmware_host.sim.script import parse, run_script
from games.workloads import LONG_GAMES, PLAIN, long_session
from tests.crashkit import Faults, injected
from tests.devicekit import presses, run_device, screen
from tests.waits import scaled

ROOT = Path(__file__).resolve().parents[2]
FOUR = ["Ann", "Ben", "Cy", "Dora"]


def test_a_draw_that_passes_for_three_bettors_is_taken_back_by_one_undo(tmp_path):
    async def body(dev):
        dev.start_named("antartik", FOUR)
        await presses(dev, "ok")  # Ann draws: Ben, Cy and Dora pass, then the draw
        assert [a["type"] for a in dev.session.actions] == ["pass", "pass", "pass", "draw"]
        await presses(dev, "back!")
        assert "Take back" in await screen(dev)
        await presses(dev, "ok")
        return list(dev.session.actions), dev.toast_text()

    actions, told = run_device(tmp_path, body)
    assert actions == []  # one undo: the draw and the passes it made
    assert told.startswith("Undone: Ann turns")  # says what was undone
    resumed = Session.resume(Store(tmp_path))
    assert resumed is not None and resumed.actions == []


def test_an_undo_takes_back_one_move_only(tmp_path):
    async def body(dev):
        dev.start_named("antartik", FOUR)
        await presses(dev, "ok")  # a draw (and three passes)
        first = len(dev.session.actions)
        await presses(dev, "ok")  # the next decision: another move
        assert len(dev.session.actions) > first
        await presses(dev, "back!", "ok")
        return first, len(dev.session.actions)

    first, after = run_device(tmp_path, body)
    assert after == first


def _end_arschbombe(dev) -> None:
    dev.start_named(PLAIN.game, list(PLAIN.players))
    for action in PLAIN.actions:
        dev.apply(action)


def test_the_move_that_ends_a_game_can_be_undone_and_the_game_is_not_filed(tmp_path):
    async def body(dev):
        _end_arschbombe(dev)
        text = await screen(dev)
        assert "back undo" in text  # the hint says so
        assert Store(tmp_path).history() == []  # filed when the table leaves the result
        await presses(dev, "back!", "ok")  # asked, then yes
        assert dev.session is not None and not dev.session.over
        assert len(dev.session.actions) == len(PLAIN.actions) - 1
        dev.apply(PLAIN.actions[-1])  # played again: over again
        await asyncio.sleep(0.1)
        await presses(dev, "ok!")  # leaves the result: filed now
        return Store(tmp_path).history()

    history = run_device(tmp_path, body)
    assert [e["reason"] for e in history] == ["over"]


def test_undoing_the_move_that_ended_a_game_takes_its_result_off_the_companion_page(tmp_path):
    async def body(dev):
        _end_arschbombe(dev)
        await screen(dev)
        ended = dev.last_result, dev.snapshot()["finished"]
        await presses(dev, "back!", "ok")  # the last move taken back: in play again
        undone = dev.last_result, dev.snapshot()["finished"]
        dev.apply(PLAIN.actions[-1])  # played again: over again
        await asyncio.sleep(0.1)
        again = dev.last_result
        await presses(dev, "ok!")  # leaves the result: filed now
        return ended, undone, again, Store(tmp_path).history()

    (entry, shown), undone, again, history = run_device(tmp_path, body)
    assert entry is not None and shown is not None and shown["reason"] == "over"
    assert undone == (None, None)  # the page no longer shows a result the table took back
    assert again is not None and [e["id"] for e in history] == [again["id"]]


def test_a_power_cut_on_the_result_screen_loses_nothing(tmp_path):
    cut = tmp_path / "cut"

    async def body(dev):
        _end_arschbombe(dev)
        await screen(dev)
        shutil.copytree(tmp_path / "live", cut)  # the folder as the power cut leaves it

    run_device(tmp_path / "live", body)
    assert Session.resume(Store(cut)) is None  # the boot files it, with its winners
    history = Store(cut).history()
    assert [e["reason"] for e in history] == ["over"] and history[0]["winners"]
    assert len(Store(tmp_path / "live").history()) == 1  # the stop filed it once


def test_a_script_that_ends_on_the_result_screen_files_the_game_when_it_stops(tmp_path):
    from firmware_host.core import config as configuration

    lines = [f"start {PLAIN.game} {' '.join(PLAIN.players)}"] + [f"action {json.dumps(a)}" for a in PLAIN.actions]
    device = run_script(configuration.defaults(), Store(tmp_path), parse("\n".join([*lines, "wait 1"])), None, seed=1)
    assert device.result_on_screen is None  # never left by a press: filed by the stop
    history = Store(tmp_path).history()
    assert [e["reason"] for e in history] == ["over"] and history[0]["winners"]
    assert Session.resume(Store(tmp_path)) is None  # and not filed again by the next start
    assert len(Store(tmp_path).history()) == 1


def test_a_start_refused_on_a_full_disk_works_once_there_is_room_again(tmp_path):
    async def body(dev):
        with injected(Faults(fail_at=1, fail_errno=errno.ENOSPC, only=("write", "rename"))):
            assert not dev.start_named("arschbombe", ["Ann", "Ben"])
            full = await screen(dev)
        assert dev.storage_fault == "Cannot save: disk full"  # the table sees it until a save works
        assert dev.start_named("arschbombe", ["Ann", "Ben"])  # room again: no restart needed
        await presses(dev, "ok", "ok", "ok")
        assert dev.storage_fault is None
        return " ".join(full.split()), dev.session.summary

    full, summary = run_device(tmp_path, body)
    assert "Cannot save: disk full" in full
    assert summary["scores"]["Ann"] == 3
    assert Session.resume(Store(tmp_path)).summary == summary  # nothing acknowledged lost


FAILING_SIM = """
import errno, sys
sys.path.insert(0, {root!r})
from tests.crashkit import Faults, injected
from firmware_host.cli.main import main
with injected(Faults(fail_at=1, fail_errno=errno.{code}, only=("write", "rename", "truncate"))):
    sys.exit(main(sys.argv[1:]))
"""


def test_a_scripted_run_on_a_full_or_read_only_folder_says_one_line(tmp_path):
    script = tmp_path / "s.txt"
    script.write_text("start arschbombe Ann Ben\npress ok\npress ok\npress ok\npress ok\nwait 1\n")
    for code in ("ENOSPC", "EROFS"):
        folder = tmp_path / code
        program = FAILING_SIM.format(root=str(ROOT), code=code)
        run = subprocess.run(
            [sys.executable, "-c", program, "sim", "--script", str(script), "--state-dir", str(folder)],
            capture_output=True,
            text=True,
            timeout=scaled(120),
            cwd=ROOT,
        )
        assert run.returncode == 2
        assert len(run.stderr.splitlines()) == 1, run.stderr
        assert run.stderr.startswith("tablemate sim: ")


def test_a_script_of_actions_at_one_instant_takes_work_linear_in_its_lines(tmp_path, monkeypatch):
    from firmware_host.core import config as configuration

    joined = [0]
    real = message_part.join

    def counting(parts, sep=", "):
        joined[0] += len(parts)
        return real(parts, sep)

    monkeypatch.setattr(message_part, "join", counting)
    players, fallback = LONG_GAMES["trottel"]
    actions = long_session("trottel", players, 400, 1, fallback).actions
    work = {}
    for count in (200, 400):
        lines = [f"start trottel {' '.join(players)}"] + [f"action {json.dumps(a)}" for a in actions[:count]]
        joined[0] = 0
        run_script(configuration.defaults(), Store(tmp_path / str(count)), parse("\n".join(lines)), None, seed=1)
        work[count] = joined[0]
    assert work[400] <= 2.5 * work[200], work  # twice the lines, about twice the work


def test_a_long_undo_runs_off_the_loop_saying_so_and_answers_presses_meanwhile(tmp_path, monkeypatch):
    from drivers.buttons import Press

    monkeypatch.setattr(game_part, "UNDO_ON_LOOP", -1)  # every undo counts as long

    async def body(dev):
        dev.start_named("antartik", FOUR)
        await presses(dev, "ok")  # a draw (and three passes)
        undone = dev.session.actions
        assert dev.undo()
        shown = dev.toast_text()
        dev.handle(Press("ok", False, dev.now(), 0.1))  # a press meanwhile: answered, not acted on
        answered = dev.toast_text()
        refused = dev.apply({"type": "draw"})
        await asyncio.sleep(0.1)
        return undone, shown, answered, refused, list(dev.session.actions), dev.toast_text()

    undone, shown, answered, refused, after, told = run_device(tmp_path, body)
    assert len(undone) == 4 and after == []
    assert shown == "Undoing…" and answered == "Undoing…" and not refused
    assert told.startswith("Undone: Ann turns")


def test_an_undo_that_fails_off_the_loop_says_so_and_leaves_the_game_as_it_was(tmp_path, monkeypatch):
    monkeypatch.setattr(game_part, "UNDO_ON_LOOP", -1)  # every undo counts as long

    def broken(self):
        raise RuntimeError("engine bug")

    async def body(dev):
        dev.start_named("antartik", FOUR)
        await presses(dev, "ok")  # a draw (and three passes)
        before = list(dev.session.actions)
        monkeypatch.setattr(Session, "prepare_undo", broken)
        monkeypatch.setattr(Session, "_replay", lambda self, actions: broken(self))  # nor on the loop
        assert dev.undo()
        await asyncio.sleep(0.1)
        return before, list(dev.session.actions), dev.toast_text(), dev.game.busy

    before, after, told, busy = run_device(tmp_path, body)
    assert after == before and busy is None  # nothing taken back, the table not stuck "Undoing…"
    assert told == "Cannot undo: RuntimeError: engine bug"
