"""Turn-timer presets per game: checked from the config file and the settings menu.

In the config file (``hardware/config.toml`` documents every key)::

    [timers]
    sound = "all"        # timer beeps: "all", "timeout" (only when time runs out) or "off"
    save_every = 5       # seconds between saves of the clocks while one runs (power loss)

    [timers.arschbombe]
    mode = "bank"        # "off", "turn", "hourglass", "bank" or "countup"
    seconds = 300        # turn length / sand per player / bank per player / count-up par (0: none)
    increment = 5        # bank only: Fischer increment, added after each turn
    delay = 0            # bank only: Bronstein delay (time used, up to this, is given back);
                         # both together: the give-back, then the increment
    timeout = "soft"     # "soft" (tower only) or "hard" (the game gets a timeout action)
    warn = "20%"         # yellow from this much time left: seconds (10) or a share ("20%")
    phase = 30           # seconds for a simultaneous choice (reveals, bets); 0: untimed

Every game's default is ``off``: none of the five games' rules has a timer. A preset changed in
the settings menu is saved in the state folder and wins over the config file.
"""

from __future__ import annotations

import logging
from typing import Any

from firmware_host.timers.clocks import MODES, TIMEOUTS, Preset

log = logging.getLogger(__name__)

KEYS = ("mode", "seconds", "increment", "delay", "timeout", "warn", "phase")
DEFAULT_SECONDS = {"off": 60.0, "turn": 60.0, "hourglass": 300.0, "bank": 600.0, "countup": 0.0}
"""Seconds a mode starts from when the preset does not say."""
MAX_SECONDS = 86400.0


class PresetError(ValueError):
    """One line naming the preset's table, the key and the form expected."""


def _shown(value: Any, limit: int = 60) -> str:
    """A value as an error line quotes it: ``repr`` (line breaks escaped), cut at ``limit``."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _number(value: Any, lo: float, hi: float) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float) or not lo <= value <= hi:
        return None
    return float(value)


def _warn(value: Any) -> float | str | None:
    if isinstance(value, str) and value.endswith("%"):
        try:
            share = float(value[:-1])
        except ValueError:
            return None
        return f"{share:g}%" if 0 < share < 100 else None
    return _number(value, 0, MAX_SECONDS)


def allows_hard(game: str) -> bool | None:
    """Whether ``game`` gives a hard timeout a consequence (``None``: the game is not built here)."""
    from games import ENGINES, get_engine

    if game not in ENGINES:
        return None
    return bool(get_engine(game).timeout_action)


def parse_preset(game: str, table: Any) -> Preset:
    """A preset from a table of the config file (or the settings); raises :class:`PresetError`."""
    from games import TITLES

    where = f"[timers.{game}]"
    if not isinstance(table, dict):
        raise PresetError(f"{where} must be a table of timer keys ({', '.join(KEYS)})")
    for key in table:
        if key not in KEYS:
            raise PresetError(f"{where} unknown key {_shown(key)} (known: {', '.join(KEYS)})")

    def bad(key: str, expected: str) -> PresetError:
        return PresetError(f"{where} {key}: expected {expected}, got {_shown(table[key])}")

    mode = table.get("mode", "off")
    if mode not in MODES:
        raise bad("mode", "one of " + ", ".join(f'"{m}"' for m in MODES))
    values: dict[str, Any] = {"mode": mode, "seconds": DEFAULT_SECONDS[mode]}
    if "seconds" in table:
        lo = 0.0 if mode == "countup" else 1.0
        values["seconds"] = _number(table["seconds"], lo, MAX_SECONDS)
        if values["seconds"] is None:
            raise bad("seconds", f"a number of seconds from {lo:g} to {MAX_SECONDS:g}")
    for key in ("increment", "delay"):
        if key in table:
            values[key] = _number(table[key], 0, 3600)
            if values[key] is None:
                raise bad(key, "a number of seconds from 0 to 3600")
            if values[key] and mode != "bank":
                raise bad(key, f'0 unless mode = "bank" (mode is "{mode}")')
    if "timeout" in table:
        values["timeout"] = table["timeout"]
        if values["timeout"] not in TIMEOUTS:
            raise bad("timeout", '"soft" or "hard"')
        if values["timeout"] == "hard" and allows_hard(game) is False:
            title = TITLES.get(game, game)
            raise bad("timeout", f'"soft" ({title} gives running out of time no consequence)')
    if "warn" in table:
        values["warn"] = _warn(table["warn"])
        if values["warn"] is None:
            raise bad("warn", 'seconds left like 10, or a share of the time like "20%"')
    if "phase" in table:
        values["phase"] = _number(table["phase"], 0, 3600)
        if values["phase"] is None:
            raise bad("phase", "a number of seconds from 0 to 3600 (0: untimed)")
    return Preset(**values)


def parse_timers(table: Any, where: str) -> tuple[dict[str, Preset], dict[str, Any]]:
    """Split a ``[timers]`` table into per-game presets and the section's own keys.

    Raises :class:`PresetError` whose text begins with ``where``.
    """
    from games import TITLES

    if not isinstance(table, dict):
        raise PresetError(f"{where}: [timers] must be a table")
    presets: dict[str, Preset] = {}
    flat: dict[str, Any] = {}
    for key, value in table.items():
        if not isinstance(value, dict):
            flat[key] = value
            continue
        if key not in TITLES:
            shown = key if key.isidentifier() else _shown(key)
            raise PresetError(f"{where}: [timers.{shown}] unknown game (known: {', '.join(TITLES)})")
        try:
            presets[key] = parse_preset(key, value)
        except PresetError as exc:
            raise PresetError(f"{where}: {exc}") from None
    return presets, flat


def saved_presets(settings: dict[str, Any]) -> dict[str, Preset]:
    """The presets the settings menu saved (``settings.json``); a bad one is skipped and logged."""
    out: dict[str, Preset] = {}
    saved = settings.get("timers")
    if not isinstance(saved, dict):
        return out
    for game, table in saved.items():
        try:
            out[game] = parse_preset(game, table)
        except PresetError as exc:
            log.warning("settings: ignoring a saved timer: %s", exc)
    return out


def to_table(preset: Preset) -> dict[str, Any]:
    """A preset as the table :func:`parse_preset` reads back (the keys that matter for its mode)."""
    table: dict[str, Any] = {"mode": preset.mode}
    if preset.mode == "off":
        return table
    table.update(seconds=preset.seconds, timeout=preset.timeout, warn=preset.warn, phase=preset.phase)
    if preset.mode == "bank":
        table.update(increment=preset.increment, delay=preset.delay)
    return table
