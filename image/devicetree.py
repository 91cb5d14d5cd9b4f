"""The image's device tree for Debian's kernel, and the check that reads it as the Pi's firmware will.

**Why overlays of our own.** The image boots Debian's arm64 kernel with the mainline device
trees Debian ships (``linux-image-*-arm64``: ``bcm2837-rpi-3-b.dtb`` and the like), copied to
the FAT partition by ``raspi-firmware``'s hook, which writes ``upstream_kernel=1`` into
``config.txt``: the firmware loads those upstream trees. They have no ``__symbols__`` node, so an
overlay whose fragments name their target by label (all of Raspberry Pi OS's) cannot be applied,
and no ``__overrides__`` node, so every ``dtparam=`` of Raspberry Pi OS (``i2c_arm``,
``i2c_arm_baudrate``, ``spi``) is ignored; and ``raspi-firmware`` ships no ``overlays/`` at all.
So the image brings its own (``image/overlays/*.dts``): every fragment names its target by path
(``target-path = "/soc/spi@7e215080"``), which needs nothing of the base tree, compiled with
Debian's ``dtc`` at build time into the FAT partition's ``overlays/`` and named by ``dtoverlay=``
lines in ``/etc/default/raspi-firmware-custom``, which the hook appends to the ``config.txt`` it
writes again at every kernel or firmware upgrade. The hook copies the device trees again then and
never touches ``overlays/``: an ``apt upgrade`` keeps all of it. (Patching the trees instead
would need a hook of our own after Debian's at every upgrade, and a failed one would leave a card
without them.)

**The check** (:func:`check_card`) takes a FAT partition's files and, for each board the image
supports, does what the firmware does: reads ``config.txt`` as that board reads it (its
filters, :mod:`firmware_host.core.boot_config`), picks the tree the firmware loads
(``upstream_kernel``, ``os_prefix``, ``device_tree``), applies every ``dtoverlay=`` with
``fdtoverlay`` (Debian's ``device-tree-compiler``, the same merge), and reads the result: SPI1
on with a spidev device on CE0 and the HX711's pins, bus number 1; I2C1 at 400 kHz as bus 1; the
UART off GPIO 14/15; no button's or lamp's line taken by a device; every overlay named on the
card; no ``dtparam=`` the tree it lands on cannot honour. ``dev.py image`` runs it on the card it
built; the suite runs it on Debian's trees and the overlays' sources.

Adding an overlay is one source file in ``image/overlays/`` and its name in
:data:`image.bootfiles.OVERLAYS`.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from firmware_host.core.boot_config import BOARDS, Board, active_lines, dtparams, overlay_name
from image import fdt

ROOT = Path(__file__).resolve().parent.parent
SOURCES = ROOT / "image" / "overlays"
"""The overlays' sources, one ``NAME.dts`` each, compiled to ``overlays/NAME.dtbo`` on the card."""
TREES = {
    "Pi 3B": ("bcm2837-rpi-3-b.dtb", "bcm2710-rpi-3-b.dtb"),
    "Pi 3B+": ("bcm2837-rpi-3-b-plus.dtb", "bcm2710-rpi-3-b-plus.dtb"),
    "Pi 4B": ("bcm2711-rpi-4-b.dtb", "bcm2711-rpi-4-b.dtb"),
    "Pi Zero 2 W": ("bcm2837-rpi-zero-2-w.dtb", "bcm2710-rpi-zero-2-w.dtb"),
}
"""The boards the image supports (all boot the 64-bit kernel) and the tree each loads: the upstream
name (``upstream_kernel=1``), then Raspberry Pi's own."""
SPIDEV_COMPATIBLES = (
    "cisco,spi-petra",
    "dh,dhcom-board",
    "elgin,jg10309-01",
    "lineartechnology,ltc2488",
    "lwn,bk4",
    "menlo,m53cpld",
    "micron,spi-authenta",
    "rohm,bh2228fv",
    "rohm,dh2228fv",
    "semtech,sx1301",
)
"""The names spidev binds to in Debian's 6.1 kernel (``drivers/spi/spidev.c``'s match table, read
from ``linux-image-6.1.0-57-arm64``'s image). A mainline kernel refuses ``compatible = "spidev"``
(Raspberry Pi's kernel patches it back in): a node so named gets no ``/dev/spidev*``."""
SPI1 = "/soc/spi@7e215080"
SPI0 = "/soc/spi@7e204000"
SPI_NODES = {1: (SPI1, "alt4"), 0: (SPI0, "alt0")}
"""Each SPI bus the HX711 may use: its node and the function its pins take."""
I2S = "/soc/i2s@7e203000"
I2C1 = "/soc/i2c@7e804000"
MINI_UART = "/soc/serial@7e215040"
FSEL = {0: "input", 1: "output", 4: "alt0", 5: "alt1", 6: "alt2", 7: "alt3", 3: "alt4", 2: "alt5"}
"""The BCM283x pin functions by their ``brcm,function`` number."""


@dataclass(frozen=True)
class Finding:
    """One check on one board."""

    board: str
    name: str
    ok: bool
    detail: str

    def line(self) -> str:
        """``ok BOARD: NAME detail`` / ``FAIL ...``."""
        return f"{'ok' if self.ok else 'FAIL'} {self.board}: {self.name} {self.detail}"


@dataclass
class Boot:
    """What the firmware loads on one board from one card: the tree, the overlays and the
    parameters in the order ``config.txt`` gives them."""

    board: Board
    tree: Path | None
    overlay_dir: Path
    overlays: list[str] = field(default_factory=list)
    params: list[tuple[str | None, str, str]] = field(default_factory=list)
    """``(overlay or None for the base tree, name, value)`` of each ``dtparam`` and overlay parameter."""


@dataclass(frozen=True)
class Expected:
    """What the table needs of the tree: the product's own numbers."""

    spi_pins: dict[str, int]
    spi_bus: int
    spi_device: int
    i2c_hz: int
    uart_pins: dict[int, str]
    lines: dict[int, str]
    """The GPIO lines the service takes (buttons, a GPIO tower's lamps), by pin, with their role."""
    amplifier_pins: dict[str, int] = field(default_factory=dict)
    """An I2S amplifier's pins by role (``[audio] amplifier``), empty without one."""

    @property
    def spi_node(self) -> str:
        """The HX711's SPI controller's path."""
        return SPI_NODES[self.spi_bus][0]

    @property
    def spi_function(self) -> str:
        """The function the HX711's SPI pins take there (``alt4`` on SPI1, ``alt0`` on SPI0)."""
        return SPI_NODES[self.spi_bus][1]


def expected(config_path: Path = ROOT / "hardware" / "config.toml") -> Expected:
    """The expectations from the product: the HX711's SPI1 pins and bus, the panel's bus speed, the
    UART's pins, and the lines the default configuration's buttons and GPIO tower use."""
    import tomllib

    from drivers.scale.hx711_spi import SPI_BUS, SPI_DEVICE
    from firmware_host.core.config import AMPLIFIER_PINS, SPI_BUS_PINS
    from firmware_host.core.pi_layout import I2C_BAUDRATE
    from firmware_host.core.serial_console import UART_PINS

    raw = tomllib.loads(config_path.read_text(encoding="utf-8"))
    buttons = {pin: f"button {name}" for name, pin in raw["buttons"].items() if isinstance(pin, int)}
    tower = {raw["tower"][lamp]: f"tower {lamp}" for lamp in ("red", "yellow", "green", "buzzer")}
    bus = raw.get("scale", {}).get("spi_bus", SPI_BUS)
    amp = raw.get("audio", {}).get("amplifier", "none") != "none"
    return Expected(
        dict(SPI_BUS_PINS[bus]),
        bus,
        SPI_DEVICE,
        I2C_BAUDRATE,
        dict(UART_PINS),
        buttons | tower,
        dict(AMPLIFIER_PINS) if amp else {},
    )


def tool(name: str) -> str:
    """The path of ``dtc``/``fdtoverlay``/``fdtput``; a clear stop when Debian's
    ``device-tree-compiler`` is missing."""
    found = shutil.which(name)
    if found is None:
        raise SystemExit(f"{name} is missing (apt-get install device-tree-compiler)")
    return found


def compile_overlays(dest: Path, sources: Path = SOURCES) -> list[str]:
    """Every ``sources/NAME.dts`` compiled to ``dest/NAME.dtbo``; returns the names."""
    dest.mkdir(parents=True, exist_ok=True)
    names = []
    for source in sorted(sources.glob("*.dts")):
        out = dest / f"{source.stem}.dtbo"
        done = subprocess.run(
            [tool("dtc"), "-q", "-I", "dts", "-O", "dtb", "-o", str(out), str(source)],
            capture_output=True,
            text=True,
        )
        if done.returncode != 0:
            raise SystemExit(f"dtc failed on {source.name}: {done.stderr.strip()}")
        names.append(source.stem)
    return names


def board(name: str) -> Board:
    """The board of :mod:`firmware_host.core.boot_config` named ``name``."""
    return next(b for b in BOARDS if b.name == name)


def firmware_boot(fat: Path, on: Board) -> Boot:
    """What the firmware loads on board ``on`` from the FAT partition's files at ``fat``.

    ``upstream_kernel=1`` makes the firmware prefer the upstream tree's name and sets ``os_prefix``
    to ``upstream/`` unless given; a prefix under which the files are not found is ignored.
    Overlays come from ``os_prefix`` + ``overlay_prefix`` (``overlays/``). A ``dtparam=`` after a
    ``dtoverlay=`` sets that overlay's parameter; ``dtoverlay=`` alone returns to the base tree."""
    text = (fat / "config.txt").read_text(encoding="utf-8", errors="replace")
    upstream, os_prefix, overlay_prefix, device_tree = False, None, "overlays/", None
    boot = Boot(on, None, fat / overlay_prefix)
    current: str | None = None
    for _, line in active_lines(text, on):
        key, _, value = line.partition("=")
        key, value = key.strip(), value.split("#", 1)[0].strip()
        if key == "upstream_kernel":
            upstream = value == "1"
        elif key == "os_prefix":
            os_prefix = value
        elif key == "overlay_prefix":
            overlay_prefix = value
        elif key == "device_tree":
            device_tree = value
        elif key == "dtoverlay":
            current = overlay_name(line)
            if current:
                boot.overlays.append(current)
                for item in value.split(",")[1:]:
                    name, has, val = item.strip().partition("=")
                    boot.params.append((current, name, val if has else "on"))
        elif key == "dtparam":
            boot.params.extend((current, name, val) for name, val in dtparams(line))
    upstream_name, downstream_name = TREES[on.name]
    prefix = os_prefix if os_prefix is not None else ("upstream/" if upstream else "")
    names = [device_tree] if device_tree else ([upstream_name] if upstream else []) + [downstream_name]
    if prefix and not any((fat / prefix / n).is_file() for n in names):
        prefix = ""
    boot.tree = next((fat / prefix / n for n in names if (fat / prefix / n).is_file()), None)
    boot.overlay_dir = fat / prefix / overlay_prefix
    return boot


def missing_overlays(boot: Boot) -> list[str]:
    """The overlays ``config.txt`` names that are not on the card (the firmware skips each)."""
    return [n for n in boot.overlays if not (boot.overlay_dir / f"{n}.dtbo").is_file()]


def merge(boot: Boot, out: Path) -> str | None:
    """The tree with every overlay on the card applied, as the firmware applies them, written to
    ``out``; ``None``, or why it failed."""
    if boot.tree is None:
        return "no device tree for this board on the card"
    missing = missing_overlays(boot)
    overlays = [str(boot.overlay_dir / f"{n}.dtbo") for n in boot.overlays if n not in missing]
    if not overlays:  # fdtoverlay wants one at least: the tree as it is
        shutil.copyfile(boot.tree, out)
        return None
    done = subprocess.run(
        [tool("fdtoverlay"), "-i", str(boot.tree), "-o", str(out), *overlays], capture_output=True, text=True
    )
    return None if done.returncode == 0 else f"fdtoverlay failed: {done.stderr.strip()[:300]}"


def _gpio_controller(tree: fdt.Tree) -> fdt.Node | None:
    return tree.get("/soc/gpio@7e200000")


def group_pins(group: fdt.Node) -> dict[int, str]:
    """The pins a pin-configuration node sets and the function each gets: Broadcom's binding
    (``brcm,pins``, ``brcm,function``) or the generic one (``pins = "gpio40"``, ``function``),
    in the node or its children."""
    found: dict[int, str] = {}
    for node in (group, *group.children.values()):
        pins, functions = node.cells("brcm,pins"), node.cells("brcm,function")
        for i, pin in enumerate(pins):
            code = functions[i] if i < len(functions) else (functions[0] if functions else -1)
            found[pin] = FSEL.get(code, str(code))
        function = node.string("function") or "?"
        for name in node.strings("pins"):
            if name.startswith("gpio") and name[4:].isdigit():
                found[int(name[4:])] = function
    return found


APPLIED_STATES = ("default", "init")
"""The pin states Linux sets when it probes a device (the others, ``sleep`` and ``idle``, only
when power management asks)."""


def applied_states(node: fdt.Node) -> list[str]:
    """The ``pinctrl-N`` properties of ``node`` that Linux applies at probe, by ``pinctrl-names``."""
    names = node.strings("pinctrl-names")
    return [f"pinctrl-{i}" for i, name in enumerate(names) if name in APPLIED_STATES and f"pinctrl-{i}" in node.props]


def claims(tree: fdt.Tree) -> dict[int, list[tuple[str, str]]]:
    """Every GPIO pin an enabled node takes at boot, and by what: the pin groups of the states
    Linux applies at its probe, and its ``*-gpios`` on the SoC's GPIO controller, as ``(node's path,
    what)`` (``("/soc/serial@7e215040", "uart1_gpio14, alt5")``)."""
    gpio = _gpio_controller(tree)
    gpio_phandle = gpio.cells("phandle")[0] if gpio is not None and gpio.cells("phandle") else None
    taken: dict[int, list[tuple[str, str]]] = {}
    for node in tree.enabled_nodes():
        for state in applied_states(node):
            for ph in node.cells(state):
                group = tree.by_phandle.get(ph)
                for pin, function in (group_pins(group) if group else {}).items():
                    taken.setdefault(pin, []).append((node.path, f"{group.name}, {function}"))
        for prop in node.props:
            if (prop == "gpios" or prop.endswith("-gpios") or prop.endswith("-gpio")) and gpio_phandle:
                cells = node.cells(prop)
                for i in range(0, len(cells) - 2, 3):  # <&gpio PIN FLAGS>: two cells a line on the SoC's controller
                    if cells[i] == gpio_phandle:
                        taken.setdefault(cells[i + 1], []).append((node.path, prop))
    return taken


def empty_controller_states(tree: fdt.Tree) -> list[str]:
    """The pin states of a pin controller's own node that are empty (``pinctrl-0;``): Debian's
    6.1 kernel oopses on one at boot (``create_pinctrl`` compares a hog's dummy state's NULL
    controller name), as the image's first try at freeing the Zero 2 W's GPIO 4-6 showed on the
    emulated BCM2837."""
    gpio = _gpio_controller(tree)
    if gpio is None:
        return []
    return [f"{gpio.path} {s}" for s in applied_states(gpio) if not gpio.props[s]]


def _alias(tree: fdt.Tree, name: str) -> str | None:
    aliases = tree.get("/aliases")
    return aliases.string(name) if aliases is not None else None


def _overrides(path: Path | None) -> set[str]:
    """The parameters a tree or overlay honours: its ``__overrides__`` node's properties."""
    if path is None or not path.is_file():
        return set()
    node = fdt.load(path).get("/__overrides__")
    return set(node.props) if node is not None else set()


def check_params(boot: Boot) -> tuple[bool, str]:
    """Every ``dtparam=`` (and overlay parameter) names a parameter of the tree it lands on."""
    if not boot.params:
        return True, "none"
    refused, honoured = [], []
    for target, name, value in boot.params:
        known = _overrides(boot.overlay_dir / f"{target}.dtbo" if target else boot.tree)
        where = f"overlay {target}" if target else (boot.tree.name if boot.tree else "the tree")
        (honoured if name in known else refused).append(f"{name}={value} ({where})")
    if refused:
        return False, f"no such parameter where they land (ignored by the firmware): {', '.join(refused)}"
    return True, f"honoured by the firmware, not applied by fdtoverlay: {', '.join(honoured)}"


def state_pins(tree: fdt.Tree, node: fdt.Node, state: str = "pinctrl-0") -> dict[int, str]:
    """The pins ``node``'s pin state sets (its default, ``pinctrl-0``), with their functions."""
    groups = [tree.by_phandle.get(ph) for ph in node.cells(state)]
    return {pin: function for g in groups if g is not None for pin, function in group_pins(g).items()}


def _status(node: fdt.Node) -> str:
    return f"status {node.string('status') or 'okay'}"


def check_spi(tree: fdt.Tree, want: Expected) -> list[tuple[str, bool, str]]:
    """The HX711's SPI (SPI1, or SPI0 beside an I2S amplifier) on with its pins in its function
    (the HX711's DOUT on MISO, PD_SCK on MOSI), and a device spidev binds to on CE0, on bus number
    ``want.spi_bus``."""
    name, path, function = f"spi{want.spi_bus}", want.spi_node, want.spi_function
    spi = tree.get(path)
    if spi is None:
        return [(name, False, f"no {path} in the tree"), ("spidev", False, f"no {path} in the tree")]
    pins = state_pins(tree, spi)
    wrong = {role: pin for role, pin in want.spi_pins.items() if pins.get(pin) != function}
    detail = f"{_status(spi)}, pins {dict(sorted(pins.items())) or 'none'}"
    detail += f"; not {name.upper()}'s ({function}): {wrong}" if wrong else ""
    found = [(name, spi.enabled() and not wrong, detail)]
    device = next((c for c in spi.children.values() if c.cells("reg")[:1] == [want.spi_device]), None)
    alias = _alias(tree, f"spi{want.spi_bus}")
    compatible = device.strings("compatible") if device is not None else []
    binds = any(c in SPIDEV_COMPATIBLES for c in compatible)
    if device is None or not device.enabled():
        why = f"no device on CE{want.spi_device}"
    elif not binds:
        why = f"compatible {compatible}: spidev binds to none of them"
    elif alias != path:
        why = f"alias spi{want.spi_bus} is {alias!r}: the bus gets another number"
    else:
        why = f"{device.name} ({compatible[0]}) on CE{want.spi_device}, alias spi{want.spi_bus}"
    ok = device is not None and device.enabled() and binds and alias == path
    return [*found, ("spidev", ok, f"/dev/spidev{want.spi_bus}.{want.spi_device}: {why}")]


def check_i2c(tree: fdt.Tree, want: Expected) -> tuple[str, bool, str]:
    """I2C1 on GPIO 2/3 at the panel's speed, as bus number 1."""
    i2c = tree.get(I2C1)
    if i2c is None:
        return ("i2c1", False, f"no {I2C1} in the tree")
    hz = (i2c.cells("clock-frequency") or [100_000])[0]  # the driver's default without one
    alias, pins = _alias(tree, "i2c1"), state_pins(tree, i2c)
    ok = i2c.enabled() and hz == want.i2c_hz and alias == I2C1 and pins.get(2) == pins.get(3) == "alt0"
    return ("i2c1", ok, f"{_status(i2c)}, {hz} Hz (want {want.i2c_hz}), pins {pins}, alias i2c1 {alias!r}")


def check_amplifier(tree: fdt.Tree, want: Expected) -> tuple[str, bool, str]:
    """The I2S amplifier as one ALSA card: the I2S on with PCM's pins in alt0 and DMA channels to
    feed it, a ``maxim,max98357a`` codec, and a ``simple-audio-card`` whose cpu is that I2S and
    whose codec is that amplifier, each reached by a phandle the tree resolves."""
    i2s = tree.get(I2S)
    if i2s is None:
        return ("amplifier", False, f"no {I2S} in the tree")
    pins = state_pins(tree, i2s)
    wrong = {role: pin for role, pin in want.amplifier_pins.items() if pins.get(pin) != "alt0"}
    codecs = [n for n in tree.enabled_nodes() if "maxim,max98357a" in n.strings("compatible")]
    cards = [n for n in tree.enabled_nodes() if "simple-audio-card" in n.strings("compatible")]

    def dai(card: fdt.Node, part: str) -> fdt.Node | None:
        node = card.children.get(f"simple-audio-card,{part}")
        cells = node.cells("sound-dai") if node is not None else []
        return tree.by_phandle.get(cells[0]) if cells else None

    joined = [c for c in cards if dai(c, "cpu") is i2s and dai(c, "codec") in codecs]
    problems = [
        *([f"I2S {_status(i2s)}"] if not i2s.enabled() else []),
        *([f"PCM's pins not in alt0: {wrong} (pins {dict(sorted(pins.items())) or 'none'})"] if wrong else []),
        *([] if i2s.cells("dmas") else ["the I2S has no DMA channels (the Pi 4's tree gives it none): no sound"]),
        *(["no maxim,max98357a codec"] if not codecs else []),
        *(["no simple-audio-card joining that I2S to that codec"] if codecs and not joined else []),
    ]
    if problems:
        return ("amplifier", False, "; ".join(problems))
    card = joined[0]
    return (
        "amplifier",
        True,
        f"card {card.string('simple-audio-card,name')!r} ({card.path}): I2S {I2S} pins "
        f"{dict(sorted(pins.items()))} -> {codecs[0].path} ({card.string('simple-audio-card,format')})",
    )


def shared_pins(taken: dict[int, list[tuple[str, str]]], own: str | None) -> dict[int, str]:
    """The pins two enabled devices both take at boot (the GPIO controller's own states aside): the
    second to probe gets none of them."""
    return {
        pin: _said(users) for pin, users in sorted(taken.items()) if len({path for path, _ in users if path != own}) > 1
    }


def _said(users: list[tuple[str, str]]) -> str:
    return "; ".join(f"{path} ({what})" for path, what in users)


def check_tree(tree: fdt.Tree, want: Expected, board_name: str) -> list[Finding]:
    """What the merged tree gives the table: SPI1 and its spidev, I2C1, the UART's pins, the
    buttons' and lamps' lines, and a boot the kernel survives."""
    taken = claims(tree)
    gpio = _gpio_controller(tree)
    own = gpio.path if gpio is not None else None
    uart = {pin: _said(taken[pin]) for pin in want.uart_pins if pin in taken}
    mini = tree.get(MINI_UART)
    state = f"mini UART {_status(mini).removeprefix('status ')}" if mini is not None else "no mini UART"
    busy, preset = {}, {}
    for pin, role in sorted(want.lines.items()):
        devices = [u for u in taken.get(pin, []) if u[0] != own]
        if devices:
            busy[f"{pin} ({role})"] = _said(devices)
        elif pin in taken:  # the controller's own boot state: the service's request makes it an input
            preset[f"{pin} ({role})"] = "; ".join(what for _, what in taken[pin])
    lines = f"taken by a device: {busy}" if busy else f"{len(want.lines)} lines free of every device"
    if preset:
        lines += f"; set by the GPIO controller's own boot state until the service requests them: {preset}"
    crash = empty_controller_states(tree)
    shared = shared_pins(taken, own)
    results = [
        *check_spi(tree, want),
        check_i2c(tree, want),
        ("uart", not uart, f"{state}; GPIO 14/15 " + (f"taken: {uart}" if uart else "free")),
        ("lines", not busy, lines),
        (
            "pin-states",
            not crash,
            f"empty on the pin controller (Debian's 6.1 kernel oopses at boot): {crash}" if crash else "none empty",
        ),
        ("pins-shared", not shared, f"taken by two devices: {shared}" if shared else "no pin taken by two devices"),
        *([check_amplifier(tree, want)] if want.amplifier_pins else []),
    ]
    return [Finding(board_name, name, ok, detail) for name, ok, detail in results]


def check_board(fat: Path, on: Board, want: Expected, work: Path) -> list[Finding]:
    """Every check for one board, from the card's files."""
    boot = firmware_boot(fat, on)
    name = on.name
    missing = missing_overlays(boot)
    named = ", ".join(boot.overlays) or "none named"
    ok, params = check_params(boot)
    out = [
        Finding(name, "tree", boot.tree is not None, boot.tree.name if boot.tree else "no device tree on the card"),
        Finding(name, "overlays", not missing, f"not on the card: {', '.join(missing)}" if missing else named),
        Finding(name, "dtparams", ok, params),
    ]
    merged = work / f"{TREES[name][0].removesuffix('.dtb')}.merged.dtb"
    failure = merge(boot, merged)
    if failure is not None:
        return [*out, Finding(name, "merge", False, failure)]
    return out + check_tree(fdt.load(merged), want, name)


def check_card(fat: Path, work: Path, boards: Iterable[str] = TREES, want: Expected | None = None) -> list[Finding]:
    """Every check for every board, from the FAT partition's files at ``fat`` (scratch in ``work``)."""
    want = want or expected()
    work.mkdir(parents=True, exist_ok=True)
    return [f for name in boards for f in check_board(fat, board(name), want, work)]


def firmware_tree(fat: Path, board_name: str, out: Path, revision: int, serial: int) -> Path:
    """The tree the firmware hands the kernel on ``board_name``: the card's tree with its overlays
    applied, plus what the firmware itself adds, ``/system/linux,revision`` and
    ``/system/linux,serial`` (the doctor finds the board by the revision)."""
    boot = firmware_boot(fat, board(board_name))
    missing = missing_overlays(boot)
    failure = f"overlays not on the card: {', '.join(missing)}" if missing else merge(boot, out)
    if failure is not None:
        raise SystemExit(f"the {board_name}'s tree: {failure}")
    put = tool("fdtput")
    subprocess.run([put, "-c", str(out), "/system"], check=True)
    subprocess.run([put, "-t", "x", str(out), "/system", "linux,revision", f"{revision:x}"], check=True)
    hi, lo = serial >> 32, serial & 0xFFFFFFFF
    subprocess.run([put, "-t", "x", str(out), "/system", "linux,serial", f"{hi:x}", f"{lo:x}"], check=True)
    return out


def main(argv: list[str] | None = None) -> int:
    """``python3 -m image.devicetree FAT_DIR``: every check, one line each; 0 when all are ok."""
    import tempfile

    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print(__doc__.splitlines()[0])
        print("usage: python3 -m image.devicetree FAT_DIR   (the card's firmware partition's files)")
        return 2
    with tempfile.TemporaryDirectory(prefix="tablemate-dt-") as work:
        findings = check_card(Path(args[0]), Path(work))
    for f in findings:
        print(f.line())
    return 0 if all(f.ok for f in findings) else 1


if __name__ == "__main__":
    sys.exit(main())
