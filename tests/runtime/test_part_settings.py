"""The settings part on its own (a real store, the saving part, the dimmer and the tower's
signals real): what ``settings.json`` may hold, and a change kept over a restart."""

from __future__ import annotations

import json

from firmware_host.core import config as configuration
from firmware_host.core.store import Store
from firmware_host.runtime.parts.settings import TableSettings
from firmware_host.runtime.vtime import run_virtual
from tests.partkit import lower, turn


def wired(tmp_path):
    parts = lower(tmp_path)
    parts.prefs.wire(parts.saving, parts.message, parts.screens, parts.dimmer, parts.signals, None)
    return parts


def test_a_saved_setting_that_is_unusable_is_named_and_the_default_kept(tmp_path):
    (tmp_path / "settings.json").write_text(json.dumps({"brightness": 999, "sound": False}), encoding="utf-8")
    store = Store(tmp_path)
    prefs = TableSettings(configuration.defaults(), store)
    assert prefs.settings["brightness"] == configuration.defaults()["display"]["brightness"]
    assert prefs.settings["sound"] is False  # the good one is used
    assert any("brightness" in str(p) and "999" in str(p) for p in store.problems)
    assert "brightness" not in prefs.saved  # not written back as it was


def test_seat_names_from_a_phone_are_over_the_config_files_and_bad_ones_dropped(tmp_path):
    (tmp_path / "settings.json").write_text(json.dumps({"names": {"p1": "Ann"}}), encoding="utf-8")
    prefs = TableSettings(configuration.defaults(), Store(tmp_path))
    assert prefs.seat_name("p1") == "Ann"
    assert prefs.seat_name("p2") == configuration.defaults().seat_name("p2")
    (tmp_path / "settings.json").write_text(json.dumps({"names": {"p1": 7}}), encoding="utf-8")
    store = Store(tmp_path)
    prefs = TableSettings(configuration.defaults(), store)
    assert prefs.names == {} and any("names" in str(p) for p in store.problems)


def test_a_change_is_written_to_settings_json_and_reaches_the_tower_and_the_panel(tmp_path):
    async def main():
        parts = wired(tmp_path)
        parts.prefs.change_setting("sound", False)
        parts.prefs.change_setting("brightness", 77)
        await turn()
        return parts.signals.lights.sound, parts.screens.display._wanted_contrast

    sound, contrast = run_virtual(main)
    assert (sound, contrast) == (False, 77)
    again = TableSettings(configuration.defaults(), Store(tmp_path))  # the next start
    assert (again.settings["sound"], again.settings["brightness"]) == (False, 77)


def test_names_set_from_a_phone_are_said_on_the_panel_and_kept(tmp_path):
    async def main():
        parts = wired(tmp_path)
        parts.prefs.set_names({"p2": "Ben", "p1": "Ann"})
        await turn()
        return parts.message.toast_text()

    assert run_virtual(main) == "Names: Ann, Ben"
    assert TableSettings(configuration.defaults(), Store(tmp_path)).names == {"p1": "Ann", "p2": "Ben"}
