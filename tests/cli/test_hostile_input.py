"""Each hostile input that once reached a traceback: now one clear line and the contract's status."""

from __future__ import annotations

import json

import pytest

from firmware_host.core.limits import MAX_NAME_CHARS
from firmware_host.runtime.device import TOAST_CHARS

LONG_NAME = "N" * (MAX_NAME_CHARS + 1)


def one_line(text: str) -> bool:
    return text.endswith("\n") and text.count("\n") == 1 and "Traceback" not in text


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ('{"game": "bomb", "players": ["Ann", "Ben"], "actions": ' + "[" * 100_000 + "]" * 100_000 + "}", "nested"),
        ('{"game": "bomb", "players": ["Ann", "Ben"], "seed": ' + "7" * 4301 + "}", "integer longer"),
        ('{"game": "bomb", "players": ["\\ud800", "Ben"]}', "surrogate"),
        ('{"game": "bomb", "players": ["Ann", "' + LONG_NAME + '"]}', f"longer than {MAX_NAME_CHARS} characters"),
        ('{"game": "bomb", "players": ["Ann", "Be\\nn"]}', "not printable"),
    ],
)
def test_a_hostile_replay_script_exits_2_with_one_line(cli, write_script, text, needle):
    path = write_script(text)
    result = cli("replay", path)
    assert result.status == 2 and result.out == ""
    assert one_line(result.err) and needle in result.err and str(path) in result.err


def test_an_engine_refusal_of_a_setup_names_the_script(cli, write_script):
    path = write_script({"game": "tonne", "players": ["Ann"]})
    result = cli("replay", path)
    assert result.status == 2 and str(path) in result.err and "2–5 players" in result.err


def test_a_lone_surrogate_in_an_action_is_not_text_exit_2_naming_the_file(cli, write_script):
    path = write_script('{"game": "arschbombe", "players": ["Ann", "Ben"], "actions": [{"type": "\\udfff"}]}')
    result = cli("replay", path)
    assert result.status == 2 and result.out == ""
    assert one_line(result.err) and str(path) in result.err and "\\udfff" in result.err


def test_a_refused_action_quoting_a_line_break_is_still_one_line_and_exit_3(cli, write_script):
    path = write_script({"game": "arschbombe", "players": ["Ann", "Ben"], "actions": [{"type": "a\nb\u2028c"}]})
    result = cli("replay", path)
    assert result.status == 3 and result.json()["players"] == ["Ann", "Ben"]
    assert one_line(result.err) and result.err.startswith("action 0:")


# -- the config file -----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("toml", "needle"),
    [
        ("[games.bomb]\nwhite = " + "[" * 5000 + "]" * 5000 + "\n", "nested"),
        ("[display]\nbrightness = " + "9" * 5000 + "\n", "invalid TOML"),
        ('[table]\n"na\nmes" = 1\n', "invalid TOML"),
        ('[table]\n"na\\nmes" = 1\n', "unknown key 'na\\nmes'"),
        ('["x\\ny"]\n', "unknown section ['x\\ny']"),
        (f'[table]\nnames = {{ p1 = "{LONG_NAME}" }}\n', f"names of 1 to {MAX_NAME_CHARS} printable characters"),
        ("[timers.bomb]\nmode = 'bank'\n\"in\\ncrement\" = 5\n", "unknown key 'in\\ncrement'"),
    ],
)
def test_a_hostile_config_is_one_line_naming_the_file_and_exit_2(cli, tmp_path, toml, needle):
    config = tmp_path / "config.toml"
    config.write_text(toml, encoding="utf-8")
    result = cli("sim", "--script", tmp_path / "none.txt", "--config", config)
    assert result.status == 2 and one_line(result.err), result.err
    assert "config error" in result.err and str(config) in result.err and needle in result.err


# -- sim --script ---------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "needle"),
    [
        (f"start bomb Ann {LONG_NAME}\n", f"line 1: start: player name '{LONG_NAME[:MAX_NAME_CHARS]}…'"),
        ("start bomb Ann Ben\nwait 1e300\n", "line 2: wait: bad number '1e300' (seconds from 0 to 86400)"),
        ("grams 1e300\n", "line 1: grams: bad number '1e300' (grams from -100000 to 100000)"),
        ("action " + "[" * 2000 + "]" * 2000 + "\n", "line 1: action: nested"),
        ("action " + "x" * 5000 + "\n", "line 1: longer than 4096 characters"),
    ],
)
def test_a_hostile_sim_line_exits_2_naming_it(cli, tmp_path, text, needle):
    script = tmp_path / "s.txt"
    script.write_text(text, encoding="utf-8")
    result = cli("sim", "--script", script, "--state-dir", tmp_path / "state")
    assert result.status == 2 and one_line(result.err) and needle in result.err, result.err


def test_a_refusal_quoting_a_huge_input_is_cut_before_the_screen_fits_it(virtual, tmp_path):
    """A 4,000-character player in an action once made a refusal whose fitting took minutes."""
    from firmware_host.core.config import defaults
    from firmware_host.core.store import Store
    from firmware_host.runtime.device import Device

    async def main():
        device = Device(defaults().with_sim(), Store(tmp_path / "state"), seed=1)
        task = __import__("asyncio").create_task(device.run())
        await device.ready.wait()
        device.start_named("arschbombe", ["Ann", "Ben"])
        device.apply({"type": "jump", "player": "z" * 4000, "jumper": "diver", "result": "clean"})
        shown = device.toast_text()
        await device.flush()
        device.stop("Stopped")
        await task
        return shown

    shown = virtual(main)
    assert shown is not None and len(shown) <= TOAST_CHARS and shown.endswith("…")


# -- history --------------------------------------------------------------------------------------------
BAD_ENTRIES = [
    {"id": ["not", "a", "string"], "game": None, "started": "yesterday", "duration_s": "long", "players": "Ann"},
    {"game": 7, "started": 1e300, "duration_s": -315359724.7, "scores": ["Ann", 3], "winners": [1, None]},
    {"game": "bomb", "started": float("nan"), "duration_s": None, "timer": {"players": {"Ann": {"total_s": "x"}}}},
    {"game": "bomb\n\ud800", "players": ["A\nB"], "scores": {"A\nB": {"deep": [1]}}, "reason": "over"},
]


@pytest.mark.parametrize("form", [(), ("--csv",), ("--json",)])
def test_history_with_wrongly_typed_fields_prints_without_a_traceback(cli, tmp_path, form):
    state = tmp_path / "state"
    state.mkdir()
    lines = [json.dumps(e) for e in BAD_ENTRIES] + ["[" * 5000 + "]" * 5000, '{"seed": ' + "9" * 5000 + "}"]
    (state / "history.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    result = cli("history", *form, "--state-dir", state)
    # the two lines that are not entries (too deep, too long a number) are named, never skipped silently
    assert result.status == 0 and result.err == "tablemate history: note: history.jsonl: lines 5, 6 damaged, left out\n"
    if form == ("--json",):
        assert len(result.json()) == len(BAD_ENTRIES)
    elif form == ():
        body = result.out.splitlines()[1:]
        assert len(body) == len(BAD_ENTRIES) and "?" in body[0]  # the unreadable date and duration


def test_the_history_screen_opens_on_a_history_with_wrongly_typed_fields(tmp_path):
    from firmware_host.ui.menus import history_item

    for entry in BAD_ENTRIES:
        item = history_item(entry)
        assert isinstance(item.label, str)


def test_a_history_entry_with_wrongly_typed_fields_opens_and_draws():
    from firmware_host.ui.menus import HistoryEntry
    from firmware_host.ui.render import render, watch

    with watch() as found:
        for entry in BAD_ENTRIES:
            render(HistoryEntry(None, entry).frame())  # type: ignore[arg-type]
    assert [o for o in found if o.kind == "glyph"] == []  # unreadable fields show as "?"


# -- the journal ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("bad", ['{"a": ' + "[" * 100_000 + "]" * 100_000 + ', "c": 1}', '{"t": ' + "9" * 5000 + "}"])
def test_a_journal_line_nested_too_deep_or_with_a_huge_integer_is_damage_not_a_crash(cli, tmp_path, bad):
    from firmware_host.core.session import Session
    from firmware_host.core.store import Store

    state = tmp_path / "state"
    session = Session.start(Store(state), "arschbombe", ["Ann", "Ben"], seed=1)
    session.apply({"type": "jump", "jumper": "rascal", "result": "B"})
    path = state / "game.jsonl"
    lines = path.read_bytes().split(b"\n")
    path.write_bytes(b"\n".join([lines[0], bad.encode(), *lines[1:]]))
    result = cli("state", "--state-dir", state)
    assert result.status == 2 and one_line(result.err) and "line 2 is damaged" in result.err


def test_a_settings_file_nested_too_deep_is_not_a_boot_crash(tmp_path):
    from firmware_host.core.store import Store

    store = Store(tmp_path)
    (tmp_path / "settings.json").write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    assert store.read_doc("settings") == {}
