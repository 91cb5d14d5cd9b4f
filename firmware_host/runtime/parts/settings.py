"""The table's settings: brightness, sound, the timer's beeps, the language and the seat names,
from the config file with ``settings.json`` over it, changed by the settings menu or a paired
phone and written back on the store's writer."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from firmware_host.core.config import TIMER_SOUNDS, VOICE_CALLS, Config
from firmware_host.core.i18n import LANGUAGES, set_language
from firmware_host.core.store import Store
from firmware_host.runtime.hub import Hub
from firmware_host.runtime.parts.dimmer import Dimmer
from firmware_host.runtime.parts.message import TOAST_SECONDS, MessageLine
from firmware_host.runtime.parts.saving import Saving
from firmware_host.runtime.parts.screens import Screens
from firmware_host.runtime.parts.signals import Signals
from games.core import T

CHECKS: dict[str, Callable[[Any], bool]] = {
    "brightness": lambda v: isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= 255,
    "sound": lambda v: isinstance(v, bool),
    "timer_sound": lambda v: v in TIMER_SOUNDS,
    "language": lambda v: v in LANGUAGES,
    "voice": lambda v: isinstance(v, bool),
    "voice_volume": lambda v: isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= 200,
    "voice_calls": lambda v: v in VOICE_CALLS,
    "voice_game_calls": lambda v: (
        isinstance(v, dict) and all(isinstance(c, str) and c in VOICE_CALLS for c in v.values())
    ),
    "say_as": lambda v: isinstance(v, dict) and _say_as_ok(v),
}
"""What a saved setting must be to be used."""


def _say_as_ok(v: dict[str, Any]) -> bool:
    from drivers.voice.names import Pronunciations

    try:
        Pronunciations({k: s for k, s in v.items() if s is not None})
    except ValueError:
        return False
    return True


VOICE_KEYS = ("voice", "voice_volume", "voice_calls", "voice_game_calls", "say_as")
"""The settings the voice part takes (:func:`firmware_host.runtime.parts.voice.options_from`)."""


class TableSettings:
    """The settings in force and ``settings.json`` (the one writer of it). Read when built (before
    the other parts: a bad value is among the first problems named); :meth:`wire` gives it the
    parts a change reaches."""

    saving: Saving
    message: MessageLine
    screens: Screens
    dimmer: Dimmer
    signals: Signals
    timers: Any
    voice: Any = None

    def __init__(self, config: Config, store: Store) -> None:
        self.config = config
        self.store = store
        self.saved = store.read_doc("settings", repair=True)
        """``settings.json`` as read once at start; :meth:`save_settings` is its one writer."""
        self.settings: dict[str, Any] = {
            "brightness": config["display"]["brightness"],
            "sound": config["tower"]["sound"],
            "timer_sound": config["timers"]["sound"],
            "language": config["display"]["language"],
            "voice": config["voice"]["enabled"],
            "voice_volume": config["voice"]["volume"],
            "voice_calls": config["voice"]["calls"],
            "voice_game_calls": dict(config["voice"]["game_calls"]),
            "say_as": dict(config["voice"]["say_as"]),
        }
        self._take_settings()
        self.names: dict[str, str] = self._saved_names()
        """Seat names set from a paired phone (``settings.json``), over the config file's."""
        set_language(self.settings["language"])

    def setup(self, hub: Hub) -> None:
        """The parts a change reaches, found by name."""
        self.saving: Saving = hub.lookup("saving")
        self.message: MessageLine = hub.lookup("message")
        self.screens: Screens = hub.lookup("screens")
        self.dimmer: Dimmer = hub.lookup("dimmer")
        self.signals: Signals = hub.lookup("signals")
        self.timers: Any = hub.lookup("timers")
        self.voice = hub.get("voice")  # a table without a voice part has none

    def _take_settings(self) -> None:
        """The saved settings over the config's, each checked: a bad value is named, not used."""
        for key, ok in CHECKS.items():
            if key not in self.saved:
                continue
            value = self.saved[key]
            if ok(value):
                self.settings[key] = value
            else:
                shown = value if not isinstance(value, float) or math.isfinite(value) else "too big"
                self.store.problems.append(
                    T("settings.json: {key} {value} unusable, default kept", key=key, value=repr(shown))
                )
                del self.saved[key]

    def _saved_names(self) -> dict[str, str]:
        """The seat names of ``settings.json``, checked as the config file's are (else dropped, named)."""
        from firmware_host.core.validators import ValidatorError, check_seat_names

        saved = self.saved.get("names")
        if saved is None or saved == {}:
            return {}
        try:
            return check_seat_names(saved, {})
        except ValidatorError as exc:
            self.store.problems.append(
                T("settings.json: {key} {value} unusable, default kept", key="names", value=str(exc))
            )
            del self.saved["names"]
            return {}

    def seat_name(self, seat: str) -> str:
        """The name of a seat: set from a phone, else the config file's."""
        return self.names.get(seat) or self.config.seat_name(seat)

    def table_seats(self) -> list[str]:
        """The seats the config file puts at the table."""
        return list(self.config["table"]["seats"])

    def game_options(self, game: str) -> dict[str, Any]:
        """The config file's options of ``game``."""
        return dict(self.config.games.get(game, {}))

    def save_settings(self) -> None:
        """Write the saved settings (the settings menu's changes) to the state folder.

        Written on the store's writer (the loop never waits for the SD card), in order with the
        journal; when it cannot be written the change holds until the device stops, and the panel
        says so. A failure here is the settings' own: it does not stop the journal's writes.
        """
        self.saving.save_doc("settings", dict(self.saved))

    def change_setting(self, key: str, value: Any) -> None:
        """Change and save one setting of the settings menu."""
        self.settings[key] = value
        self.saved[key] = value
        self.save_settings()
        if key == "brightness":
            self.dimmer.brightness(value)
        if key == "sound":
            self.signals.set_sound(value)
        if key == "language":
            set_language(value)
        if key in VOICE_KEYS and self.voice is not None:
            from firmware_host.runtime.parts.voice import options_from

            self.voice.configure(options_from(self.config["voice"], self.saved))
        self.screens.redraw()

    def set_names(self, names: dict[str, str]) -> None:
        """Seat names from a paired phone (checked by the caller): kept in ``settings.json``, over
        the config file's, and shown on the panel at once. A game in play keeps its players' names."""
        self.names.update(names)
        self.saved["names"] = dict(self.names)
        self.save_settings()
        shown = ", ".join(name for _, name in sorted(names.items()))
        self.message.toast(T("Names: {names}", names=shown), seconds=2 * TOAST_SECONDS, now=True)

    def set_timer_preset(self, game: str, preset: Any) -> None:
        """A turn-timer preset from a paired phone (checked by the caller), as the settings menu saves it."""
        self.timers.set_preset(game, preset)
        self.screens.redraw()
