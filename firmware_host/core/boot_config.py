"""The Raspberry Pi's boot configuration (``config.txt``) read as the firmware reads it.

The firmware applies a line only when every conditional filter in force matches the board:

* ``[all]`` ends every filter; ``[none]`` stops everything until the next ``[all]``;
* a model filter (``[pi4]``, ``[pi5]``, ``[cm5]``, ``[pi02]``, ``[pi3+]``, ...) replaces the model
  filter before it, and matches the models Raspberry Pi's documentation lists for it -- some boards
  see several (a Pi 400 sees ``[pi4]`` and ``[pi400]``, a CM5 ``[pi5]`` and ``[cm5]``, a Zero 2 W
  ``[pi0]``, ``[pi0w]`` and ``[pi02]``); ``[board-type=0x11]`` matches a revision code's type;
* filters of other kinds (``[EDID=...]``, ``[gpio4=1]``, ``[0x12345678]`` for a serial number,
  ``[tryboot]``) combine with the model filter; ``[HDMI:n]`` only picks an HDMI port.

Later ``dtparam`` values override earlier ones. :func:`params` gives the values a board ends up
with; a filter this code cannot decide from the board alone (a monitor, a GPIO level, a serial
number) is taken both ways, and a value counts only when both ways agree -- what the installer
needs to know is whether I2C is on *for sure*.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

ALIASES = {"i2c": "i2c_arm", "i2c_baudrate": "i2c_arm_baudrate"}
"""dtparam names the Pi's base device tree treats as the same parameter."""


@dataclass(frozen=True)
class Board:
    """A Raspberry Pi as the firmware's filters see it: its revision code's type and the model
    filters it matches."""

    name: str
    board_type: int
    filters: frozenset[str]


def _board(name: str, board_type: int, *filters: str) -> Board:
    return Board(name, board_type, frozenset(filters))


BOARDS: tuple[Board, ...] = (
    _board("Pi 2B", 0x04, "pi2"),
    _board("Pi 3B", 0x08, "pi3"),
    _board("Pi Zero", 0x09, "pi0"),
    _board("CM3", 0x0A, "pi3", "cm3"),
    _board("Pi Zero W", 0x0C, "pi0", "pi0w"),
    _board("Pi 3B+", 0x0D, "pi3", "pi3+"),
    _board("Pi 3A+", 0x0E, "pi3", "pi3+"),
    _board("CM3+", 0x10, "pi3", "pi3+", "cm3+"),
    _board("Pi 4B", 0x11, "pi4"),
    _board("Pi Zero 2 W", 0x12, "pi0", "pi0w", "pi02"),
    _board("Pi 400", 0x13, "pi4", "pi400"),
    _board("CM4", 0x14, "pi4", "cm4"),
    _board("CM4S", 0x15, "pi4", "cm4s"),
    _board("Pi 5", 0x17, "pi5"),
    _board("CM5", 0x18, "pi5", "cm5"),
    _board("Pi 500", 0x19, "pi5", "pi500"),
    _board("CM5 Lite", 0x1A, "pi5", "cm5"),
)
"""The boards tablemate may meet (Bookworm runs on the 3B and newer; older ones for reading only),
by the type field of their revision code, with the model filters each matches."""

MODEL_FILTERS = frozenset().union(*(b.filters for b in BOARDS)) | {"pi1", "cm1", "cm0"}
"""Every model filter name the firmware knows (``[pi1]`` and ``[cm1]``/``[cm0]`` never match the
boards above, but are model filters all the same)."""

_SECTION = re.compile(r"^\s*\[([^\]]*)\]")


def board_of_revision(revision: int) -> Board | None:
    """The board of a new-style revision code (``/proc/cpuinfo``'s ``Revision``), or ``None``."""
    if not revision & (1 << 23):  # old-style codes: the original Pi 1 boards only
        return None
    board_type = (revision >> 4) & 0xFF
    return next((b for b in BOARDS if b.board_type == board_type), None)


def running_board(root: Path = Path("/")) -> Board | None:
    """The board this system runs on, from the device tree's ``linux,revision`` (a 4-byte
    big-endian cell), or ``None`` off a Pi or when it cannot be read."""
    try:
        raw = (root / "proc/device-tree/system/linux,revision").read_bytes()
    except OSError:
        return None
    return board_of_revision(int.from_bytes(raw[:4], "big")) if len(raw) >= 4 else None


def _section_kind(name: str) -> tuple[str, str] | None:
    """``(kind, value)`` of a section header's filter; ``None`` for one that applies to all."""
    low = name.strip().lower()
    if low in ("all", "none"):
        return (low, low)
    if low in MODEL_FILTERS:
        return ("model", low)
    if low.startswith("board-type="):
        return ("board-type", low.partition("=")[2].strip())
    if low.startswith("hdmi:"):
        return None  # picks the port later HDMI lines are for; every board still reads them
    if low.startswith("edid="):
        return ("edid", low)
    if low.startswith("gpio"):
        return ("gpio", low)
    if low == "tryboot":
        return ("tryboot", low)
    if low.startswith("0x"):
        return ("serial", low)
    return ("unknown", low)


def _matches(kind: str, value: str, board: Board, undecided: bool) -> bool:
    if kind == "model":
        return value in board.filters
    if kind == "board-type":
        try:
            return int(value, 0) == board.board_type
        except ValueError:
            return False
    if kind == "tryboot":
        return False  # a normal boot
    return undecided  # a monitor, a GPIO level, a serial number: not known from the board


def active_lines(text: str, board: Board, undecided: bool = False) -> list[tuple[int, str]]:
    """The ``(index, line)`` pairs the firmware applies on ``board`` (comments and headers left
    out); filters that depend on more than the board count as ``undecided``."""
    filters: dict[str, tuple[str, str]] = {}
    out = []
    for index, line in enumerate(text.splitlines()):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        header = _SECTION.match(line)
        if header:
            kind = _section_kind(header.group(1))
            if kind is None:
                continue
            if kind[0] == "all":
                filters.clear()
            else:
                filters[kind[0]] = kind
            continue
        if "none" in filters:
            continue
        if all(_matches(kind, value, board, undecided) for kind, value in filters.values()):
            out.append((index, stripped))
    return out


def dtparams(line: str) -> list[tuple[str, str]]:
    """The ``(name, value)`` pairs of a ``dtparam=`` line (a bare name means ``on``), names
    unaliased (``i2c`` is ``i2c_arm``); ``[]`` for any other line."""
    key, sep, rest = line.partition("=")
    if not sep or key.strip() != "dtparam":
        return []
    pairs = []
    for item in rest.split("#", 1)[0].split(","):
        name, has_value, value = item.strip().partition("=")
        if name:
            pairs.append((ALIASES.get(name, name), value.strip() if has_value else "on"))
    return pairs


def params(text: str, board: Board, undecided: bool = False) -> dict[str, str]:
    """The base device tree's parameters as the firmware leaves them on ``board``: the last value
    of each (``{"i2c_arm": "on", "i2c_arm_baudrate": "400000"}``)."""
    values: dict[str, str] = {}
    for _, line in active_lines(text, board, undecided):
        values.update(dtparams(line))
    return values


def param_for_sure(text: str, board: Board, name: str) -> str | None:
    """The value of dtparam ``name`` on ``board`` whatever a monitor, a GPIO or a serial filter
    decides; ``None`` when that changes it (or nothing sets it)."""
    values = {params(text, board, undecided).get(name) for undecided in (False, True)}
    return values.pop() if len(values) == 1 else None


def is_on(value: str | None) -> bool:
    """Whether a dtparam value turns its switch on (``on``, ``true``, ``yes``, ``okay``, ``1``)."""
    return value is not None and value.lower() in ("on", "true", "yes", "okay", "1")


def overlay_name(line: str) -> str | None:
    """The overlay a ``dtoverlay=`` line loads (``dtoverlay=spi1-1cs,cs0_pin=18`` loads
    ``spi1-1cs``), or ``None`` for any other line and for ``dtoverlay=`` alone (which loads none)."""
    key, sep, rest = line.partition("=")
    if not sep or key.strip() != "dtoverlay":
        return None
    name = rest.split("#", 1)[0].split(",", 1)[0].strip().removesuffix(".dtbo")
    return name or None


def overlays(text: str, board: Board, undecided: bool = False) -> set[str]:
    """The overlays the firmware loads on ``board`` (``{"vc4-kms-v3d", "spi1-1cs"}``)."""
    return {name for _, line in active_lines(text, board, undecided) if (name := overlay_name(line))}


def overlay_for_sure(text: str, board: Board, name: str) -> bool:
    """Whether ``board`` loads overlay ``name`` whatever a monitor, a GPIO or a serial filter decides."""
    return all(name in overlays(text, board, undecided) for undecided in (False, True))


def setting(text: str, board: Board, name: str, undecided: bool = False) -> str | None:
    """The last value of a plain ``name=value`` line (``enable_uart=1``) the firmware applies on
    ``board``, or ``None`` when no applied line sets it."""
    value = None
    for _, line in active_lines(text, board, undecided):
        key, sep, rest = line.partition("=")
        if sep and key.strip() == name:
            value = rest.split("#", 1)[0].strip()
    return value


def upstream_trees(text: str, boards: tuple[Board, ...] = BOARDS) -> bool:
    """Whether every board boots the mainline device trees: ``upstream_kernel=1``, which Debian's
    ``raspi-firmware`` writes into the ``config.txt`` it generates. Those trees have no
    ``__overrides__`` (every ``dtparam=`` of Raspberry Pi OS is ignored) nor ``__symbols__``
    (Raspberry Pi OS's overlays do not apply)."""
    return all(setting(text, b, "upstream_kernel") == "1" for b in boards)
