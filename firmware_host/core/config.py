"""The device's configuration: a TOML file, checked key by key.

Read from ``/etc/tablemate/config.toml`` or ``--config``. Every problem becomes one
:class:`ConfigError` line that names the file, the key and the form expected, so a typo on the
device shows as a sentence on the OLED instead of a crash loop. ``hardware/config.toml`` is the
documented default, with every key.
"""

from __future__ import annotations

import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from drivers.panels import PANELS, Wiring, display_size
from firmware_host.core.i18n import LANGUAGES
from firmware_host.core.limits import (
    MAX_FILE_BYTES,
    MAX_NAME_CHARS,
    InputError,
    check_name,
    check_tree,
    one_line,
    quote,
)
from firmware_host.core.pi_layout import TOWER_LINK
from firmware_host.core.validators import ValidatorError, check_address, check_port
from firmware_host.timers.clocks import Preset

DEFAULT_PATH = Path("/etc/tablemate/config.toml")

SEATS = ("p1", "p2", "p3", "p4", "p5", "p6")
TIMER_SOUNDS = ("all", "timeout", "off")
"""The turn timer's beeps: every warning, only the time-out, none."""
VOICE_CALLS = ("all", "results", "turns", "beeps")
"""Which calls the voice makes: everything; what moves brought (with undo and game over); whose
turn it is (with the turn timer); a short beep instead of words (turns, the timer, refusals)."""
VOICE_SPEAKERS = ("alsa", "print")
"""The voice's speaker: eSpeak NG to an ALSA device, or words printed (the simulator's recorder,
``"sim"``, is set by ``sim --script``, never by the file: it keeps what it records)."""
NAV = ("prev", "next", "ok", "back")
BUTTONS = SEATS + NAV
PANEL_KINDS = tuple(PANELS)
WEB_PORT, SIM_WEB_PORT = 80, 8080
"""The companion page's port when ``[web] port`` is not set: on the device, in the simulator."""
LAYOUT_WIDTH = 128
"""The narrowest picture the screens fit (their layout is 128×64)."""


class ConfigError(ValueError):
    """One line naming the file, the key and what was expected."""


Check = Callable[[Any], Any]
"""Returns the value (possibly normalised) or raises ValueError with the expected form."""


def _int(lo: int, hi: int, what: str = "") -> Check:
    def check(v: Any) -> int:
        if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
            raise ValueError(what or f"an integer from {lo} to {hi}")
        return v

    return check


def _num(lo: float, hi: float, unit: str) -> Check:
    def check(v: Any) -> float:
        if isinstance(v, bool) or not isinstance(v, int | float) or not lo <= v <= hi:
            raise ValueError(f"a number of {unit} from {lo:g} to {hi:g}")
        return float(v)

    return check


def _choice(*choices: str) -> Check:
    def check(v: Any) -> str:
        if v not in choices:
            raise ValueError("one of " + ", ".join(f'"{c}"' for c in choices))
        return v

    return check


def _one_of(*values: int) -> Check:
    def check(v: Any) -> int:
        if isinstance(v, bool) or v not in values:
            raise ValueError(", ".join(map(str, values[:-1])) + f" or {values[-1]}")
        return v

    return check


def _str(v: Any) -> str:
    if not isinstance(v, str) or not v.strip():
        raise ValueError("a non-empty string")
    return v


def _bool(v: Any) -> bool:
    if not isinstance(v, bool):
        raise ValueError("true or false")
    return v


_pin = _int(0, 27, "a BCM GPIO number from 0 to 27")


def _seat_list(v: Any) -> list[str]:
    if not isinstance(v, list) or not v or not all(s in SEATS for s in v) or len(set(v)) != len(v):
        raise ValueError('a list of different seats like ["p1", "p2", "p3"]')
    return list(v)


def _names(v: Any) -> dict[str, str]:
    if not isinstance(v, dict) or not all(k in SEATS and isinstance(n, str) and n.strip() for k, n in v.items()):
        raise ValueError('a table of seat = "name", like { p1 = "Ann" }')
    for seat, name in v.items():
        try:
            check_name(name)
        except InputError:
            raise ValueError(f"names of 1 to {MAX_NAME_CHARS} printable characters ({seat} is not)") from None
    if len({n.strip() for n in v.values()}) != len(v):
        raise ValueError("different names for different seats")
    return {k: n.strip() for k, n in v.items()}


def _web(check: Callable[[Any], Any]) -> Check:
    """A ``[web]`` key checked by the API's own validator (:mod:`firmware_host.core.validators`)."""

    def run(v: Any) -> Any:
        try:
            return check(v)
        except ValidatorError as exc:
            raise ValueError(str(exc).split(": expected ", 1)[-1]) from None

    return run


def _revision(v: Any) -> str:
    """``"auto"`` (the Pi's own revision) or a Raspberry Pi board revision code gpiozero knows,
    in hex (``"a02082"``: a Pi 3B), for a board whose GPIO chip is not a Pi's."""
    if v == "auto":
        return v
    hint = 'expected "auto" or a Pi board revision code in hex, like "a02082" (a Pi 3B) or "c03111" (a Pi 4B)'
    text = v.lower().removeprefix("0x") if isinstance(v, str) else ""
    if not 3 <= len(text) <= 8 or any(c not in "0123456789abcdef" for c in text):
        raise ValueError(hint.removeprefix("expected "))
    from gpiozero import pi_info  # only for a code given: the default reads nothing

    try:
        pi_info(int(text, 16))
    except Exception:
        raise ValueError(f'a revision code gpiozero knows ({text} is none), like "a02082" (a Pi 3B)') from None
    return text


def _pin_list(v: Any) -> list[int]:
    if not isinstance(v, list) or not all(isinstance(p, int) and not isinstance(p, bool) and 0 <= p <= 27 for p in v):
        raise ValueError("a list of BCM GPIO numbers from 0 to 27")
    return list(v)


def _game_calls(v: Any) -> dict[str, str]:
    from games import ENGINES

    if not isinstance(v, dict) or not all(g in ENGINES and c in VOICE_CALLS for g, c in v.items()):
        calls = "|".join(VOICE_CALLS)
        raise ValueError(
            f'a table of game = "{calls}" for the games {", ".join(ENGINES)}, like {{ trottel = "results" }}'
        )
    return dict(v)


def _say_as(v: Any) -> dict[str, str]:
    from drivers.voice.names import Pronunciations

    if not isinstance(v, dict):
        raise ValueError('a table of name = "how it is said", like { Siobhan = "Shivawn" }')
    try:
        return dict(Pronunciations(v).say_as)
    except ValueError as exc:
        raise ValueError(f'a table of name = "how it is said" ({exc})') from None


# section -> key -> (check, default)
SCHEMA: dict[str, dict[str, tuple[Check, Any]]] = {
    "buttons": {
        "backend": (_choice("gpio", "sim"), "gpio"),
        "p1": (_pin, 5),
        "p2": (_pin, 6),
        "p3": (_pin, 13),
        "p4": (_pin, 24),
        "p5": (_pin, 26),
        "p6": (_pin, 25),
        "prev": (_pin, 14),
        "next": (_pin, 16),
        "ok": (_pin, 12),
        "back": (_pin, 4),
        "long_press": (_num(0.2, 5.0, "seconds"), 0.8),
        "debounce": (_num(0.0, 0.2, "seconds"), 0.03),
    },
    # The GPIO chip's board: "auto" reads the Pi's revision; another board (QEMU's virt, a
    # generic single-board computer) names the Pi whose header layout its chip follows.
    "gpio": {
        "revision": (_revision, "auto"),
    },
    "display": {
        "kind": (_choice(*PANEL_KINDS, "sim", "none"), "ssd1306"),
        "sim_panel": (_choice(*PANEL_KINDS), "ssd1306"),
        "interface": (_choice("auto", "i2c", "spi"), "auto"),
        "i2c_port": (_int(0, 10), 1),
        "address": (_int(0x03, 0x77, "an I2C address from 0x03 to 0x77, like 0x3C"), 0x3C),
        "spi_device": (_int(0, 1, "0 (CE0, GPIO 8) or 1 (CE1, GPIO 7)"), 0),
        "dc": (_pin, 23),
        "reset": (_pin, 15),
        "rotation": (_one_of(0, 90, 180, 270), 0),
        "language": (_choice(*LANGUAGES), "en"),
        "brightness": (_int(1, 255), 200),
        "dim_after": (_num(10, 3600, "seconds"), 180.0),
        "dim_brightness": (_int(0, 255), 10),
    },
    "tower": {
        "backend": (_choice("serial", "gpio", "sim", "none"), "serial"),
        "port": (_str, TOWER_LINK),
        "red": (_pin, 17),
        "yellow": (_pin, 27),
        "green": (_pin, 22),
        "buzzer": (_pin, 23),  # not 18: SPI1's CE0, which the default scale's overlay takes
        "bar": (_pin_list, []),
        "sound": (_bool, True),
    },
    "scale": {
        "backend": (_choice("hx711", "sim", "none"), "hx711"),
        "interface": (_choice("spi", "iio", "gpio"), "spi"),
        "data": (_pin, 19),
        "clock": (_pin, 20),
        "sps": (_one_of(10, 80), 10),
        "gain": (_one_of(128, 64, 32), 128),
        # "spi"'s bus: 1 (SPI1, GPIO 18-21), or 0 (SPI0, GPIO 8-11) when an I2S amplifier takes SPI1's pins
        "spi_bus": (_one_of(1, 0), 1),
    },
    # What is wired to the Pi's PCM/I2S pins (GPIO 18, 19, 21) for the voice: "none", or a MAX98357A
    # amplifier (hardware/wiring.md), which the boot config's overlay turns into an ALSA card.
    "audio": {
        "amplifier": (_choice("none", "max98357a"), "none"),
    },
    "table": {
        "seats": (_seat_list, ["p1", "p2", "p3", "p4"]),
        "names": (_names, {}),
    },
    # per-game presets live in [timers.<game>] (firmware_host/timers/presets.py)
    "timers": {
        "sound": (_choice(*TIMER_SOUNDS), "all"),
        "save_every": (_num(1, 60, "seconds"), 5.0),
    },
    # the table's voice (firmware_host/runtime/parts/voice.py, docs/voice.md)
    "voice": {
        "enabled": (_bool, False),
        "speaker": (_choice(*VOICE_SPEAKERS), "alsa"),
        "device": (_str, "default"),
        "rate": (_int(80, 450, "words per minute from 80 to 450"), 175),
        "volume": (_int(0, 200, "a percent of the voice's own loudness from 0 to 200"), 100),
        "calls": (_choice(*VOICE_CALLS), "all"),
        "game_calls": (_game_calls, {}),
        "say_as": (_say_as, {}),
    },
    # the companion page (firmware_host/web): port None is 80 on the device, 8080 in the simulator
    "web": {
        "enabled": (_bool, True),
        "port": (_web(check_port), None),
        "bind": (_web(check_address), "0.0.0.0"),
    },
}


@dataclass
class Config:
    """The checked configuration: ``sections[section][key]``, plus per-game options and timers."""

    path: Path | None
    sections: dict[str, dict[str, Any]]
    games: dict[str, dict[str, Any]] = field(default_factory=dict)
    timers: dict[str, Preset] = field(default_factory=dict)
    """Turn-timer preset per game id (``[timers.<game>]``); a game not listed has none."""

    def __getitem__(self, section: str) -> dict[str, Any]:
        return self.sections[section]

    def seat_name(self, seat: str) -> str:
        """The player name configured for a seat, else ``P1``…"""
        return self.sections["table"]["names"].get(seat, seat.upper())

    def with_sim(self) -> Config:
        """The same configuration on simulated hardware (``run --sim``, ``sim``)."""
        sections = {k: dict(v) for k, v in self.sections.items()}
        sections["buttons"]["backend"] = "sim"
        if sections["display"]["kind"] in PANELS:  # simulate the panel the file names, at its size
            sections["display"]["sim_panel"] = sections["display"]["kind"]
        sections["display"]["kind"] = "sim"
        sections["tower"]["backend"] = "sim"
        sections["scale"]["backend"] = "sim"
        if sections["web"]["port"] is None:
            sections["web"]["port"] = SIM_WEB_PORT
        return Config(self.path, sections, {k: dict(v) for k, v in self.games.items()}, dict(self.timers))


def defaults() -> Config:
    """Every key at its default."""
    return Config(None, {s: {k: d for k, (_, d) in keys.items()} for s, keys in SCHEMA.items()})


def parse(data: dict[str, Any], where: str) -> Config:
    """Check a parsed TOML document; ``where`` names it in errors."""
    config = defaults()
    config.path = Path(where)
    for section, table in data.items():
        if section == "games":
            config.games = _parse_games(table, where)
            continue
        if section == "timers":
            from firmware_host.timers.presets import PresetError, parse_timers

            try:
                config.timers, table = parse_timers(table, where)
            except PresetError as exc:
                raise ConfigError(str(exc)) from None
        if section not in SCHEMA:
            raise ConfigError(f"{where}: unknown section [{_key(section)}] (known: {', '.join([*SCHEMA, 'games'])})")
        if not isinstance(table, dict):
            raise ConfigError(f"{where}: [{section}] must be a table")
        for key, value in table.items():
            if key not in SCHEMA[section]:
                known = ", ".join(SCHEMA[section])
                raise ConfigError(f"{where}: [{section}] unknown key {quote(key)} (known: {known})")
            check, _ = SCHEMA[section][key]
            try:
                config.sections[section][key] = check(value)
            except ValueError as exc:
                got = one_line(repr(value), 60)
                raise ConfigError(f"{where}: [{section}] {key}: expected {exc}, got {got}") from None
    _cross_checks(config, where)
    return config


def _parse_games(table: Any, where: str) -> dict[str, dict[str, Any]]:
    """Per-game option tables: the game must exist and know each key; values are the game's to
    check when it starts (some name players, who are known only then)."""
    from games import ENGINES, get_engine

    if not isinstance(table, dict):
        raise ConfigError(f"{where}: [games] must hold one table per game, like [games.bomb]")
    for game, options in table.items():
        if game not in ENGINES:
            raise ConfigError(f"{where}: [games.{_key(game)}] unknown game (known: {', '.join(ENGINES)})")
        if not isinstance(options, dict):
            raise ConfigError(f"{where}: [games.{game}] must be a table of game options")
        known = get_engine(game).option_keys
        for key in options:
            if key not in known:
                names = ", ".join(sorted(known)) or "none"
                raise ConfigError(f"{where}: [games.{game}] unknown option {quote(key)} (known: {names})")
        try:
            check_tree(options)
        except InputError as exc:
            raise ConfigError(f"{where}: [games.{game}]: {exc}") from None
    return {g: dict(o) for g, o in table.items()}


def _key(name: str) -> str:
    """A section or key name as a message shows it: escaped and cut when it is not a plain word."""
    return name if name.isidentifier() and len(name) <= 40 else quote(name)


SCALE_SPI_PINS = {"MISO": 19, "MOSI": 20, "SCLK": 21, "CE0": 18}
"""SPI1's pins (BCM), which ``[scale] interface = "spi"`` takes: DOUT on MISO, PD_SCK on MOSI."""
SPI0_PINS = {"MISO": 9, "MOSI": 10, "SCLK": 11, "CE0": 8}
"""SPI0's pins (BCM), the HX711's with ``spi_bus = 0``: DOUT on MISO, PD_SCK on MOSI."""
SPI_BUS_PINS = {1: SCALE_SPI_PINS, 0: SPI0_PINS}
AMPLIFIER_PINS = {"PCM_CLK": 18, "PCM_FS": 19, "PCM_DOUT": 21}
"""The pins (BCM) an I2S amplifier (``[audio] amplifier``) takes: PCM's, ALT0 of SPI1's pins."""


def _claim_scale(config: Config, where: str, claim: Callable[[int, str], None]) -> None:
    """The HX711's pins: SPI1's four for ``interface = "spi"``, else ``data`` and ``clock``."""
    s = config["scale"]
    if s["interface"] != "spi":
        for k in ("data", "clock"):
            claim(s[k], f"[scale] {k}")
        return
    bus = s["spi_bus"]
    wires = {"MISO": "data", "MOSI": "clock"}
    for what, pin in SPI_BUS_PINS[bus].items():
        key = wires.get(what)
        if key and s[key] != pin:
            raise ConfigError(
                f"{where}: [scale] {key}: the SPI interface has the HX711's "
                f"{'DOUT' if key == 'data' else 'PD_SCK'} on SPI{bus} {what}, GPIO {pin}, not {s[key]}; "
                f'set {key} = {pin} or interface = "gpio"'
            )
        claim(pin, f'[scale] interface "spi" (SPI{bus} {what})')


def _claim_amplifier(config: Config, where: str, claim: Callable[[int, str], None]) -> None:
    """The I2S amplifier's pins, which are SPI1's: an HX711 left on SPI1 beside it is refused
    with the move that fixes it."""
    amp = config["audio"]["amplifier"]
    if amp == "none":
        return
    s = config["scale"]
    if s["backend"] == "hx711" and s["interface"] == "spi" and s["spi_bus"] == 1:
        raise ConfigError(
            f"{where}: [audio] amplifier: the {amp.upper()} takes GPIO 18, 19 and 21 (PCM), which are SPI1's, "
            f'where [scale] interface = "spi" has the HX711; move the HX711 to SPI0: [scale] spi_bus = 0, '
            f"data = 9, clock = 10 (hardware/wiring.md)"
        )
    for what, pin in AMPLIFIER_PINS.items():  # the MAX98357A's BCLK, LRC, DIN
        claim(pin, f'[audio] amplifier "{amp}" ({what})')


def _cross_checks(config: Config, where: str) -> None:
    used: dict[int, str] = {}

    def claim(pin: int, key: str) -> None:
        if pin in used:
            raise ConfigError(f"{where}: {used[pin]} and {key} both use GPIO {pin}; give each its own pin")
        used[pin] = key

    if config["buttons"]["backend"] == "gpio":
        for b in BUTTONS:
            claim(config["buttons"][b], f"[buttons] {b}")
    if config["tower"]["backend"] == "gpio":
        for k in ("red", "yellow", "green", "buzzer"):
            claim(config["tower"][k], f"[tower] {k}")
        for i, pin in enumerate(config["tower"]["bar"]):
            claim(pin, f"[tower] bar[{i}]")
    _claim_amplifier(config, where, claim)
    if config["scale"]["backend"] == "hx711":
        _claim_scale(config, where, claim)
    d = config["display"]
    kind = d["kind"]
    shown = PANELS[kind] if kind in PANELS else PANELS[d["sim_panel"]] if kind == "sim" else None
    if shown is not None:
        width, height = display_size(shown, d["rotation"])
        if width < LAYOUT_WIDTH:
            raise ConfigError(
                f"{where}: [display] rotation: {d['rotation']} turns the {shown.width}×{shown.height} panel "
                f"into a {width}×{height} portrait the screens do not fit; use 0 or 180"
            )
    if kind in PANELS:
        panel = PANELS[kind]
        bus = panel.bus(d["interface"])
        if bus not in panel.buses:
            raise ConfigError(
                f"{where}: [display] interface: the {kind} panel has no {bus.upper()} bus; use "
                + " or ".join(f'"{b}"' for b in panel.buses)
            )
        if bus == "spi":
            for pin, what in ((10, "MOSI"), (11, "SCLK"), (8 - d["spi_device"], f"CE{d['spi_device']}")):
                claim(pin, f"[display] SPI {what}")
            claim(d["dc"], "[display] dc")
            claim(d["reset"], "[display] reset")
            return
    for pin in (2, 3):
        if pin in used:
            raise ConfigError(f"{where}: {used[pin]}: GPIO {pin} is the I2C bus of the display")


def panel_bus(config: Config) -> str | None:
    """The bus of the configured panel (``"i2c"``, ``"spi"``), ``None`` for ``sim`` and ``none``."""
    d = config["display"]
    panel = PANELS.get(d["kind"])
    return panel.bus(d["interface"]) if panel is not None else None


def display_wiring(config: Config) -> Wiring:
    """How ``[display]`` says the panel is wired."""
    d = config["display"]
    return Wiring(d["interface"], d["i2c_port"], d["address"], d["spi_device"], d["dc"], d["reset"])


def load(path: Path | str | None) -> Config:
    """Read and check a config file; no file at the default path means all defaults."""
    if path is None:
        if not DEFAULT_PATH.exists():
            return defaults()
        path = DEFAULT_PATH
    path = Path(path)
    try:
        with open(path, "rb") as fh:
            raw = fh.read(MAX_FILE_BYTES + 1)
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read: {exc.strerror or exc}") from None
    if len(raw) > MAX_FILE_BYTES:
        raise ConfigError(f"{path}: larger than {MAX_FILE_BYTES:,} bytes")
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise ConfigError(f"{path}: not UTF-8 text") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: invalid TOML: {exc}") from None
    except RecursionError:  # tomllib parses nested arrays and tables recursively
        raise ConfigError(f"{path}: invalid TOML: nested too deeply") from None
    except ValueError as exc:  # an integer past Python's int/str conversion limit
        raise ConfigError(f"{path}: invalid TOML: {exc}") from None
    try:
        check_tree(data)
    except InputError as exc:
        raise ConfigError(f"{path}: {exc}") from None
    return parse(data, str(path))
