"""Full disks, read-only folders and damaged files: each named on the panel, nothing lost, the
damaged file kept beside a fresh one, and the device always boots."""

from __future__ import annotations

import asyncio
import errno
import json
import os

import pytest

from firmware_host.core import config as configuration
from firmware_host.core import fsio
from firmware_host.core.journal import Journal
from firmware_host.core.session import Session
from firmware_host.core.store import Store
from tests.crashkit import Faults, injected
from tests.devicekit import presses, run_device, screen

JUMP = {"type": "jump", "jumper": "rascal", "special": False, "result": "A"}
PRIOR = '{"id": "earlier", "game": "bomb", "players": ["Ann", "Jürgen"], "reason": "over"}\n'


async def jump(dev) -> None:
    """The player whose turn it is jumps: ``ok`` on the first choice of each menu until the jump is an action."""
    count = len(dev.session.actions)
    for _ in range(4):
        await presses(dev, "ok")
        if dev.session is None or len(dev.session.actions) > count:  # an action, or the game filed
            return
    raise AssertionError("no jump after four presses of ok")


def failing(code: int, *ops: str) -> Faults:
    """Every call of ``ops`` fails with ``code`` (a full disk, a read-only remount)."""
    return Faults(fail_at=1, fail_errno=code, only=ops or ("write", "rename", "truncate"))


def ended_game(root, players=("Ann", "Jürgen")) -> str:
    """A game over and ended in ``game.jsonl``, not yet filed (the power went while filing)."""
    store = Store(root)
    session = Session.start(store, "arschbombe", list(players), seed=1, wall=lambda: 1000.0)
    session.journal.append({"a": JUMP, "t": 1001.0})
    session.journal.append({"end": "over", "t": 1060.0, "extra": {}})
    return session.journal.header["id"]


@pytest.mark.parametrize(
    ("code", "message"), [(errno.ENOSPC, "Cannot save: disk full"), (errno.EROFS, "State folder is read-only")]
)
def test_a_failed_save_refuses_the_action_with_its_reason_and_play_goes_on_when_saving_works(tmp_path, code, message):
    async def body(dev):
        dev.start_named("arschbombe", ["Ann", "Ben"])
        await jump(dev)  # Ann jumps: 3 points
        with injected(failing(code)):
            await presses(dev, "ok", "ok")  # Ben's jump cannot be saved
            text = await screen(dev)
            refused = dict(dev.session.summary["scores"])
        await jump(dev)  # the disk is back: Ben jumps again
        return text, refused, dev.session.summary

    text, refused, after = run_device(tmp_path, body)
    assert message in " ".join(text.split()) and "F!" in text.splitlines()[0]  # the message may wrap
    assert "Internal error" not in text
    assert refused == {"Ann": 3, "Ben": 0}  # refused, not half-done
    assert after["scores"] == {"Ann": 3, "Ben": 3}
    assert Session.resume(Store(tmp_path)).summary == after  # nothing acknowledged lost


def test_a_game_that_could_not_be_filed_is_filed_with_its_result_before_the_next_one(tmp_path):
    async def body(dev):
        dev.start_named("arschbombe", ["Ann", "Ben"])
        for _ in range(11):
            await jump(dev)
        await jump(dev)  # the last jump ends the game: its result shows, filed when the table leaves it
        with injected(failing(errno.EROFS, "rename")):  # the end record is written, the move is not
            dev.start_named("bomb", ["Ann", "Ben"])  # leaving the result files it, and fails
            text = await screen(dev)
        assert dev.store.game_path.exists()
        dev.start_named("bomb", ["Ann", "Ben"])
        return text, dev.session.summary["game"]

    text, game = run_device(tmp_path, body)
    assert "State folder is read-only" in " ".join(text.split()) and game == "bomb"  # it may wrap
    assert "Winner" in text or "Shared" in text  # the result stays on the panel
    history = Store(tmp_path).history()
    assert [e["game"] for e in history] == ["arschbombe"] and history[0]["reason"] == "over"


def test_a_game_over_without_its_end_record_is_filed_with_its_winners_at_boot(tmp_path):
    store = Store(tmp_path)
    session = Session.start(store, "arschbombe", ["Ann", "Ben"], seed=1)
    for i in range(12):  # Ann and Ben alternate, the same jumps each: a tie
        session.apply(JUMP if i < 6 else {"type": "jump", "jumper": "diver", "result": "clean"})
    assert session.over  # the power goes before the end record
    expected = session.summary
    assert Session.resume(Store(tmp_path)) is None
    (entry,) = Store(tmp_path).history()
    assert entry["reason"] == "over" and entry["winners"] == expected["winners"] == ["Ann", "Ben"]
    assert entry["scores"] == expected["scores"]


def test_a_history_line_cut_inside_a_letter_neither_crashes_the_boot_nor_loses_a_game(tmp_path, cli):
    game_id = ended_game(tmp_path)
    cut = '{"id": "cut", "players": ["Jürgen"]}'.encode()
    (tmp_path / "history.jsonl").write_bytes(PRIOR.encode() + cut[: cut.index(b"\xbc")])

    async def body(dev):
        return await screen(dev)

    run_device(tmp_path, body)
    assert [e["id"] for e in Store(tmp_path).history()] == ["earlier", game_id]
    assert list(tmp_path.glob("history.jsonl.torn-*"))  # the cut bytes are kept
    result = cli("history", "--state-dir", tmp_path)
    assert result.status == 0 and "Jürgen" in result.out


def test_a_read_only_folder_holding_a_game_to_file_boots_and_says_so(tmp_path):
    ended_game(tmp_path)

    async def body(dev):
        text = await screen(dev)
        await presses(dev, "ok")  # leave the message: the menus work
        return text, await screen(dev)

    with injected(failing(errno.EROFS)):
        text, after = run_device(tmp_path, body)
    assert "Cannot resume" in text and "read-only" in text
    assert "New game" in after
    assert Store(tmp_path).game_path.exists()  # still there, filed once the folder is writable
    assert Session.resume(Store(tmp_path)) is None and len(Store(tmp_path).history()) == 1


@pytest.mark.parametrize(
    "header",
    [
        {"game": "arschbombe", "seed": 1},  # players missing
        {"game": "arschbombe", "players": "Ann", "seed": 1},
        {"game": "arschbombe", "players": ["Ann", "Ben"], "seed": "one"},
        {"game": 7, "players": ["Ann", "Ben"], "seed": 1},
        {"game": "arschbombe", "players": ["Ann", "Ben"], "seed": 1, "started": "noon"},
        {"game": "nope", "players": ["Ann", "Ben"], "seed": 1},
    ],
)
def test_a_journal_header_missing_or_mistyping_a_field_is_kept_aside_and_a_new_game_starts(tmp_path, header, cli):
    Journal.create(tmp_path / "game.jsonl", header)  # a good checksum over a bad header

    async def body(dev):
        text = await screen(dev)
        await presses(dev, "ok")
        dev.start_named("arschbombe", ["Ann", "Ben"])
        return text, dev.session is not None

    text, started = run_device(tmp_path, body)
    assert "Cannot resume" in text and started
    kept = list(tmp_path.glob("game.jsonl.damaged-*"))
    assert len(kept) == 1 and json.loads(kept[0].read_bytes().split(b"\n")[0])["seed"] == header["seed"]
    result = cli("state", "--state-dir", tmp_path)
    assert result.status == 0 and result.json()["summary"]["game"] == "arschbombe"
    assert "damaged" in result.err and kept[0].name in result.err


def test_a_journal_damaged_in_the_middle_is_kept_never_overwritten(tmp_path, cli):
    store = Store(tmp_path)
    session = Session.start(store, "arschbombe", ["Ann", "Ben"], seed=1)
    session.apply(JUMP)
    session.apply(JUMP)
    lines = store.game_path.read_bytes().split(b"\n")
    lines[1] = lines[1].replace(b"rascal", b"rasca1")  # the first of two actions
    damaged = b"\n".join(lines)
    store.game_path.write_bytes(damaged)
    result = cli("state", "--state-dir", tmp_path)
    assert result.status == 2 and "line 2" in result.err and result.out == ""

    async def body(dev):
        text = await screen(dev)
        await presses(dev, "ok")
        dev.start_named("bomb", ["Ann", "Ben"])
        return text

    text = run_device(tmp_path, body)
    assert "Cannot resume" in text and "line 2" in text
    (kept,) = tmp_path.glob("game.jsonl.damaged-*")
    assert kept.read_bytes() == damaged  # the evidence, whole
    assert Session.resume(Store(tmp_path)).summary["game"] == "bomb"  # a fresh journal beside it


@pytest.mark.parametrize("brightness", ['"high"', "null", "1e400", "-3", "true"])
def test_settings_with_an_unusable_brightness_are_named_and_the_device_runs(tmp_path, brightness):
    (tmp_path / "settings.json").write_text(f'{{"brightness": {brightness}, "sound": false}}')

    async def body(dev):
        return await screen(dev), dict(dev.settings)

    text, settings = run_device(tmp_path, body)
    assert "brightness" in text and "unusable" in text and settings["sound"] is False
    assert settings["brightness"] == configuration.defaults()["display"]["brightness"]


def test_a_saved_timer_beeps_choice_is_kept_at_the_next_start(tmp_path):
    (tmp_path / "settings.json").write_text('{"timer_sound": "timeout"}')

    async def body(dev):
        return await screen(dev), dict(dev.settings)

    text, settings = run_device(tmp_path, body)
    assert settings["timer_sound"] == "timeout" and "unusable" not in text


@pytest.mark.parametrize("name", ["settings", "scale"])
def test_a_damaged_document_is_kept_aside_named_on_the_panel_and_a_fresh_one_saved(tmp_path, name):
    (tmp_path / f"{name}.json").write_bytes(b'{"brightness": 20, "sou')

    async def body(dev):
        text = await screen(dev)
        await presses(dev, "ok")
        dev.change_setting("sound", False)
        return text

    text = " ".join(run_device(tmp_path, body).split())
    assert f"{name}.json is damaged" in text
    (kept,) = tmp_path.glob(f"{name}.json.damaged-*")
    assert kept.read_bytes() == b'{"brightness": 20, "sou'
    assert Store(tmp_path).read_doc("settings") == {"sound": False}


def test_a_settings_change_that_cannot_be_saved_says_so_and_still_applies(tmp_path):
    async def body(dev):
        with injected(failing(errno.ENOSPC)):
            dev.change_setting("sound", False)
            return await screen(dev), dev.settings["sound"]

    text, sound = run_device(tmp_path, body)
    assert "Cannot save: disk full" in text and sound is False


def test_sim_script_on_a_full_disk_exits_2_with_one_line(tmp_path, cli, write_script):
    script = write_script("start arschbombe Ann Ben\npress ok\npress ok\npress ok\n", "s.sim")
    with injected(failing(errno.ENOSPC)):
        result = cli("sim", "--script", script, "--state-dir", tmp_path / "state", "--seed", "1")
    assert result.status == 2
    assert result.err.count("\n") == 1 and "disk full" in result.err and "Traceback" not in result.err


def test_history_names_damaged_lines_on_stderr_and_keeps_its_json_on_stdout(tmp_path, cli):
    (tmp_path / "history.jsonl").write_text(PRIOR + "{not json\n" + PRIOR.replace("earlier", "later"))
    result = cli("history", "--json", "--state-dir", tmp_path)
    assert result.status == 0 and [e["id"] for e in result.json()] == ["earlier", "later"]
    assert "line 2 damaged" in result.err


def test_a_running_turn_timer_pauses_with_the_reason_when_its_saves_fail(tmp_path):
    path = tmp_path / "config.toml"
    path.write_text('[timers.arschbombe]\nmode = "turn"\nseconds = 60\n', encoding="utf-8")
    config = configuration.load(path)

    async def body(dev):
        dev.start_named("arschbombe", ["Ann", "Ben"])
        await asyncio.sleep(1)
        before = dev.timers.title_text()
        with injected(failing(errno.ENOSPC)):
            await asyncio.sleep(30)  # the clocks are saved meanwhile: the save fails
            text = await screen(dev)
            paused = dev.timers.title_text()
            await asyncio.sleep(5)
            still = dev.timers.title_text()
        await presses(dev, "ok!")  # saving works again: the table goes on
        await asyncio.sleep(3)
        return before, text, paused, still, dev.timers.title_text()

    before, text, paused, still, after = run_device(tmp_path / "state", body, config)
    assert "||" in paused and paused == still and before != paused  # paused, not frozen unseen
    assert "F!" in text.splitlines()[0] and "Internal error" not in text
    assert "||" not in after and after != still  # counting again


def test_a_new_state_file_takes_the_umask_of_the_service(tmp_path):
    # bug: the installer's writes forced 0644 on every new file, the store's too, where the unit's
    # UMask=0027 kept the journal and the documents from other users of the Pi
    old = os.umask(0o027)
    try:
        fsio.write_atomic(tmp_path / "scale.json", b"{}")
        fsio.write_new(tmp_path / "game.jsonl", b"")
    finally:
        os.umask(old)
    assert (tmp_path / "scale.json").stat().st_mode & 0o777 == 0o640
    assert (tmp_path / "game.jsonl").stat().st_mode & 0o777 == 0o640
    fsio.write_atomic(tmp_path / "config.txt", b"x", 0o644)  # the installer says what it wants
    assert (tmp_path / "config.txt").stat().st_mode & 0o777 == 0o644


def test_a_replaced_file_keeps_its_mode_and_an_unsyncable_folder_fails_only_the_store(tmp_path, monkeypatch):
    path = tmp_path / "config.txt"
    path.write_bytes(b"old")
    path.chmod(0o600)
    fsio.write_atomic(path, b"new")
    assert path.read_bytes() == b"new" and path.stat().st_mode & 0o777 == 0o600
    assert not list(tmp_path.glob("*.tmp*"))

    def no_folder_sync(folder):
        raise OSError(22, "Invalid argument")

    monkeypatch.setattr(fsio, "fsync_dir", no_folder_sync)
    fsio.write_atomic(path, b"boot", folder_sync=False)  # a FAT boot partition: the file is written
    assert path.read_bytes() == b"boot"
    with pytest.raises(OSError):
        fsio.write_atomic(path, b"state")  # the store's own folder must sync or say so
