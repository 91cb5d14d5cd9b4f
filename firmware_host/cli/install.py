"""``tablemate install``: make a Raspberry Pi boot into tablemate (``--uninstall`` undoes it).

``systemd/install.sh`` makes the virtual environment under /opt and then runs this. Every step
looks before it acts, so running it again changes nothing and says so:

1. the ``tablemate`` system user, in the ``gpio``, ``i2c``, ``dialout`` and ``audio`` groups (and ``spi``
   for a panel or an HX711 on SPI);
2. ``/etc/tablemate/config.toml`` from ``hardware/config.toml`` (an existing one is kept);
3. I2C on at 400 kHz: ``dtparam=i2c_arm=on`` and ``dtparam=i2c_arm_baudrate=400000`` in the boot
   config (under ``[all]``, so no model filter hides them), ``i2c-dev`` loaded at boot. A full
   frame to the OLED takes ~93 ms of bus time at the default 100 kHz, ~23 ms at 400 kHz;
4. SPI on when the configuration's ``[display]`` panel is on SPI (the 3.12" SSD1322 always, any
   other with ``interface = "spi"``): ``dtparam=spi=on`` in the boot config the same way (a
   ``spi=off`` turned on in place), the user in the ``spi`` group that owns ``/dev/spidev0.*``,
   and a drop-in (``tablemate.service.d/spi.conf``) giving the service that group. A panel on
   I2C leaves SPI as it is;
4b. the boot lines the ``[scale]`` path needs (:func:`drivers.scale.hx711_open.boot_config_lines`:
   ``dtoverlay=spi1-1cs`` for an HX711 on SPI1, the default) loaded for sure on every board, the
   same way, and the ``spi`` group and drop-in as for a panel on SPI;
5. the systemd unit, enabled and (re)started: a running service is restarted when its unit, its
   code (``systemd/install.sh`` sets ``TABLEMATE_CODE_CHANGED=1`` when pip changed the package) or
   its user's groups changed -- it would run the old code, without the new group, until a reboot.

``--uninstall`` stops and removes the unit; the user, the configuration and the state folder
(the history!) stay unless ``--purge`` is given. ``--root`` and ``--dry-run`` exist for tests and
for looking before leaping.

Every file is written atomically (:func:`write_atomic`): a power cut while the installer edits
``config.txt`` leaves the old file or the new one, never half of one -- a Pi whose boot config is
cut short may not boot.
"""

from __future__ import annotations

import contextlib
import re
import shutil
import subprocess
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from firmware_host.core import boot_config, fsio
from firmware_host.core.folder_lock import writing
from firmware_host.core.pi_layout import (
    BOOT_CONFIGS,
    DEBIAN_REBOOT_MARKER,
    I2C_BAUDRATE,
    REBOOT_MARKER,
    SERVICE_GROUPS,
    SERVICE_USER,
    SPI_DROP_IN,
    SPI_GROUP,
    UDEV_RULES,
    UNIT,
)

CONFIG = "etc/tablemate/config.toml"
SOCKET = "etc/systemd/system/tablemate.socket"
"""The companion page's port 80, opened by systemd and handed to the service (no capability needed)."""
MODULES = "etc/modules-load.d/tablemate.conf"
I2C_LINE = "dtparam=i2c_arm=on"
SPI_LINE = "dtparam=spi=on"
SPI_DROP_IN_TEXT = (
    "# Written by tablemate install: the panel or the HX711 is on SPI (/dev/spidev*, group spi).\n"
    "[Service]\nSupplementaryGroups=spi\n"
)
BAUD_LINE = f"dtparam=i2c_arm_baudrate={I2C_BAUDRATE}"
STATE = "var/lib/tablemate"
VENV = "opt/tablemate"

Runner = Callable[[Sequence[str]], int]

QUERIES = ("id", "getent", "sh")
"""Commands the installer runs only to ask (is there such a user, group, membership?): their
answer is the exit status and what they print is noise (``id: 'tablemate': no such user``)."""


def is_query(cmd: Sequence[str]) -> bool:
    """Whether ``cmd`` only asks (:data:`QUERIES`, ``systemctl is-enabled``/``is-active``)."""
    return cmd[0] in QUERIES or (cmd[0] == "systemctl" and len(cmd) > 1 and cmd[1].startswith("is-"))


def run_command(cmd: Sequence[str]) -> int:
    """Run a system command, returning its exit status; a query's output is not shown."""
    quiet = subprocess.DEVNULL if is_query(cmd) else None
    return subprocess.run(list(cmd), check=False, stdout=quiet, stderr=quiet).returncode


class CommandFailed(RuntimeError):
    """A command the installer runs to change the system failed: the install stops there."""

    def __init__(self, cmd: Sequence[str], status: int) -> None:
        super().__init__(f"`{' '.join(cmd)}` failed with exit status {status}")
        self.cmd, self.status = list(cmd), status


def systemd_running(root: Path) -> bool:
    """Whether systemd runs the system being installed (``/run/systemd/system``, as
    ``sd_booted`` asks): not in a chroot, an image being built or a container without it. Only
    the running system's ``/`` is asked; another ``--root`` is taken as running (tests)."""
    return str(root) != "/" or Path("/run/systemd/system").is_dir()


def find_source(start: Path) -> Path | None:
    """The project checkout holding ``systemd/tablemate.service``: ``start`` or one of its parents."""
    for folder in (start, *start.parents):
        if (folder / "systemd" / "tablemate.service").is_file() and (folder / "hardware" / "config.toml").is_file():
            return folder
    return None


def write_atomic(path: Path, data: bytes, mode: int | None = None) -> None:
    """Replace ``path`` with ``data`` as the store replaces its files (:func:`fsio.write_atomic`),
    making its folder first; a boot partition that cannot fsync a folder is let pass."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fsio.write_atomic(path, data, mode, folder_sync=False)


DEBIAN_BOOT_CONFIG = (
    "left as it is: Debian's raspi-firmware writes it again at every kernel upgrade, for the mainline "
    "device trees (upstream_kernel=1), which take no dtparam= -- the tablemate SD-card image turns "
    "I2C1 to 400 kHz and SPI1 on with overlays of its own (README, 'The SD-card image')"
)
"""The note when the boot config is Debian's: the installer's ``dtparam=`` lines would do nothing."""
_SECTION = re.compile(r"^\s*\[([^\]]*)\]")


def _satisfied(name: str, value: str | None) -> bool:
    if name == "i2c_arm_baudrate":
        return value is not None and value.isdigit() and int(value) == I2C_BAUDRATE
    return boot_config.is_on(value)


def _unsure_boards(text: str, name: str, boards: Sequence[boot_config.Board]) -> list[str]:
    """The boards on which ``name`` is not for sure as the device wants it."""
    return [b.name for b in boards if not _satisfied(name, boot_config.param_for_sure(text, b, name))]


def _unconditional(text: str, boards: Sequence[boot_config.Board]) -> set[int]:
    """The indexes of the lines every board applies, whatever the other filters decide."""
    sets = [{i for i, _ in boot_config.active_lines(text, b, u)} for b in boards for u in (False, True)]
    return set.intersection(*sets) if sets else set()


def _rewrite(line: str, name: str, value: str) -> tuple[str, str | None]:
    """``line`` with dtparam ``name`` (or its alias) set to ``value`` in place, and the value it
    had (``None`` when the line does not set it)."""
    head, sep, tail = line.partition("=")
    body, hash_, comment = tail.partition("#")
    items = body.split(",")
    old = None
    for k, item in enumerate(items):
        key, has_value, current = item.partition("=")
        if boot_config.ALIASES.get(key.strip(), key.strip()) == name:
            old = current.strip() if has_value else "on"
            if old != value:
                lead = key[: len(key) - len(key.lstrip())]
                items[k] = f"{lead}{key.strip()}={value}" + (" " if item.endswith(" ") else "")
    return head + sep + ",".join(items) + hash_ + comment, old


def boot_config_edit(
    text: str,
    spi: bool = False,
    boards: Sequence[boot_config.Board] = boot_config.BOARDS,
    overlays: Sequence[str] = (),
) -> tuple[str, list[str]]:
    """The boot config with I2C on at 400 kHz (and SPI on, if ``spi``) and each ``dtoverlay=``
    line of ``overlays`` loaded on every board in ``boards``, and what changed (nothing when
    already so).

    The file is read as the firmware reads it (:mod:`firmware_host.core.boot_config`): a line in a
    section whose filter another board fails (``[cm5]``, ``[pi4]``, ``[none]``) does not count, a
    later ``dtparam`` overrides an earlier one. A line every board applies that sets another value
    (``i2c_arm_baudrate=100000``, ``spi=off``) is rewritten in place; what is still missing is
    appended, after an ``[all]`` when the file ends inside a filter. Every board, not only the one
    running: an SD card moves from a Pi 4 to a Pi 5 without running the installer again.

    An overlay counts as loaded when a line every board applies loads it, with any parameters
    (``dtoverlay=spi1-1cs,cs0_pin=18``); a missing one is appended after the ``dtparam`` lines.
    """
    want = {"i2c_arm": "on", "i2c_arm_baudrate": str(I2C_BAUDRATE)} | ({"spi": "on"} if spi else {})
    lines = text.splitlines()
    changes: list[str] = []
    current = text
    unconditional = _unconditional(text, boards)
    for name, value in want.items():
        if not _unsure_boards(current, name, boards):
            continue
        for i in sorted(unconditional):
            rewritten, old = _rewrite(lines[i], name, value)
            if old is not None and not _satisfied(name, old):
                lines[i] = rewritten
                changes.append(_change_text(name, old))
        current = "\n".join(lines) + "\n"
    add = [f"dtparam={name}={value}" for name, value in want.items() if _unsure_boards(current, name, boards)]
    changes.extend(_change_text(line.split("=")[1], None) for line in add)
    for line in dict.fromkeys(overlays):
        name = boot_config.overlay_name(line)
        if name and not all(boot_config.overlay_for_sure(current, b, name) for b in boards):
            add.append(line)
            changes.append(f"add {line}")
    if add:
        sections = [m.group(1).strip().lower() for m in map(_SECTION.match, lines) if m]
        if sections and sections[-1] != "all":
            add.insert(0, "[all]")
        lines.extend(add)
    return ("\n".join(lines) + "\n" if changes else text), changes


def _change_text(name: str, old: str | None) -> str:
    if name == "i2c_arm_baudrate":
        was = f" (was {int(old) // 1000} kHz)" if old and old.isdigit() else ""
        return f"set the I2C bus to {I2C_BAUDRATE // 1000} kHz{was}"
    what = "I2C" if name == "i2c_arm" else "SPI"
    return f"enable {what}" + (f" (was {old})" if old else "")


def panel_on_spi(path: Path) -> bool:
    """Whether the configuration file at ``path`` puts its ``[display]`` panel on SPI: the SSD1322
    always, another panel kind when ``interface = "spi"``. A file that is not a usable
    configuration says no (``tablemate run`` and ``tablemate doctor`` name what is wrong with it)."""
    from firmware_host.core.config import ConfigError, load, panel_bus  # the panel table only: no driver

    try:
        return panel_bus(load(path)) == "spi"
    except ConfigError:
        return False


def _scale_section(path: Path) -> dict[str, Any] | None:
    """The ``[scale]`` section of the configuration at ``path``, or ``None`` for a file that is not
    a usable configuration (``tablemate run`` and ``tablemate doctor`` name what is wrong)."""
    from firmware_host.core.config import ConfigError, load

    try:
        return dict(load(path)["scale"])
    except ConfigError:
        return None


def scale_boot_lines(path: Path) -> list[str]:
    """The boot config lines the configuration at ``path`` needs for its ``[scale]``
    (``["dtoverlay=spi1-1cs"]`` for an HX711 on SPI1); none for a file that is not usable."""
    from drivers.scale.hx711_open import boot_config_lines

    s = _scale_section(path)
    return boot_config_lines(s) if s is not None else []


def audio_boot_lines(path: Path) -> list[str]:
    """The boot config lines the configuration at ``path`` needs for its ``[audio]`` amplifier
    (``["dtoverlay=max98357a"]``); none for a file that is not usable."""
    from drivers.voice.i2s import boot_config_lines
    from firmware_host.core.config import ConfigError, load

    try:
        return boot_config_lines(load(path)["audio"])
    except ConfigError:
        return []


def scale_on_spi(path: Path) -> bool:
    """Whether the configuration at ``path`` clocks an HX711 through SPI (``/dev/spidev1.0``)."""
    s = _scale_section(path)
    return s is not None and s.get("backend") == "hx711" and s.get("interface") == "spi"


@dataclass
class Installer:
    """Installs into ``root`` (``/`` on the Pi), running commands through ``run``."""

    source: Path
    root: Path = Path("/")
    run: Runner = run_command
    dry_run: bool = False
    code_changed: bool = False
    """The package in the venv changed in this run (``systemd/install.sh`` says so): a running
    service keeps the old code until it is restarted."""
    booted: bool | None = None
    """systemd runs the target (:func:`systemd_running`; ``None``: asked). When not (a chroot,
    an image build), nothing is started, reloaded or loaded now: the units are enabled and start
    at the next boot, and the notes say so."""
    done: list[str] = field(default_factory=list)
    reboot: list[str] = field(default_factory=list)
    """Why the Pi must reboot before the change works (the boot config changed in this run)."""
    kept: list[str] = field(default_factory=list)
    """What was left as it is, and why (Debian's generated boot config)."""

    def __post_init__(self) -> None:
        if self.booted is None:
            self.booted = systemd_running(self.root)

    def must(self, cmd: Sequence[str]) -> None:
        """Run a command that changes the system; raise :class:`CommandFailed` when it fails."""
        status = self.run(cmd)
        if status != 0:
            raise CommandFailed(cmd, status)

    def path(self, relative: str) -> Path:
        """A path under the install root."""
        return self.root / relative

    def step(self, text: str) -> bool:
        """Record a change; ``False`` when only looking (``--dry-run``)."""
        self.done.append(text)
        return not self.dry_run

    # -- install ----------------------------------------------------------------------------------
    def install(self) -> list[str]:
        """Every step, idempotent; returns what changed."""
        spi = self.wants_spi()
        spi_group = spi or scale_on_spi(self.config_in_force())
        groups_changed = self.ensure_user(SERVICE_GROUPS + ((SPI_GROUP,) if spi_group else ()))
        self.ensure_config()
        self.ensure_udev()
        from drivers.scale.hx711_open import SPI0_LINE

        lines = scale_boot_lines(self.config_in_force()) + audio_boot_lines(self.config_in_force())
        # the HX711 on SPI0 (beside an I2S amplifier) turns SPI0 on as a panel on SPI does
        self.ensure_i2c(spi or SPI0_LINE in lines, [line for line in lines if line != SPI0_LINE])
        spi_changed = spi_group and self.ensure_spi()
        unit_changed = self.ensure_unit() | self.ensure_unit(SOCKET) | spi_changed
        self.ensure_service(unit_changed, restart=groups_changed or self.code_changed)
        return self.done

    def ensure_user(self, groups: tuple[str, ...] = SERVICE_GROUPS) -> bool:
        """The system user and its ``groups`` (``spi`` too for a panel or a scale on SPI); ``True`` when the
        user joined a group (a running service gets its groups only when restarted)."""
        joined = False
        if self.run(["id", "-u", SERVICE_USER]) != 0 and self.step(f"create system user {SERVICE_USER}"):
            self.must(["useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", SERVICE_USER])
        for group in groups:
            if self.run(["getent", "group", group]) != 0 and self.step(f"create group {group}"):
                self.must(["groupadd", "--system", group])
            if self.run(["sh", "-c", f"id -nG {SERVICE_USER} | grep -qw {group}"]) != 0 and self.step(
                f"add {SERVICE_USER} to {group}"
            ):
                self.must(["usermod", "-aG", group, SERVICE_USER])
                joined = True
        return joined

    def ensure_udev(self) -> None:
        """The udev rule (``systemd/60-tablemate.rules``): the tower as ``/dev/tablemate-tower``
        by its USB ids, ``/dev/gpiochip*``, ``/dev/i2c-*`` and ``/dev/spidev*`` to the service's
        groups -- at every boot and plug-in, where a ``chgrp`` lasts until the next reboot (udev
        passes over a group that does not exist: ``spi`` is made for a panel on SPI only). udev is
        told at once: the rule needs no reboot."""
        rules = self.path(UDEV_RULES)
        want = (self.source / "systemd" / "60-tablemate.rules").read_bytes()
        if rules.exists() and rules.read_bytes() == want:
            return
        if self.step(f"write /{UDEV_RULES}"):
            write_atomic(rules, want, 0o644)
            if self.booted:  # else udev reads the rule when it starts, at the next boot
                self.must(["udevadm", "control", "--reload"])
                matches = ("tty", "gpio", "*gpiomem*", "i2c-dev", "spidev")
                self.must(["udevadm", "trigger", *(f"--subsystem-match={m}" for m in matches)])

    def notes(self) -> list[str]:
        """What to tell after the steps: the reboot the boot config's change needs."""
        notes = []
        if not self.booted:
            notes.append(
                "systemd is not running here (a chroot or an image being built): nothing was started; "
                "tablemate.socket and tablemate start at the next boot"
            )
        notes.extend(self.kept)
        if self.reboot:
            would = "would need" if self.dry_run else "needs"
            notes.append(
                f"the Pi {would} a reboot for the boot config's change to work ({'; '.join(self.reboot)}): sudo reboot"
            )
        return notes

    def ensure_config(self) -> None:
        """The default configuration, unless one is there."""
        path = self.path(CONFIG)
        if not path.exists() and self.step(f"write /{CONFIG}"):
            write_atomic(path, (self.source / "hardware" / "config.toml").read_bytes(), 0o644)

    def config_in_force(self) -> Path:
        """The configuration the service will run with: the installed one, or the one about to be written."""
        config = self.path(CONFIG)
        return config if config.exists() else self.source / "hardware" / "config.toml"

    def wants_spi(self) -> bool:
        """Whether the configuration in force (or the one about to be written) has its panel on SPI."""
        return panel_on_spi(self.config_in_force())

    def ensure_spi(self) -> bool:
        """For a panel or a scale on SPI, the unit's drop-in giving the service the ``spi`` group
        (the user joins it in :meth:`ensure_user`; ``dtparam=spi=on`` and the scale's overlay are
        :meth:`ensure_i2c`'s edit of the boot config). ``True`` when the drop-in changed
        (systemd must reload, the service restart)."""
        drop_in = self.path(SPI_DROP_IN)
        if drop_in.exists() and drop_in.read_text(encoding="utf-8") == SPI_DROP_IN_TEXT:
            return False
        if self.step(f"write /{SPI_DROP_IN}"):
            write_atomic(drop_in, SPI_DROP_IN_TEXT.encode("utf-8"), 0o644)
        return True

    def ensure_i2c(self, spi: bool = False, overlays: Sequence[str] = ()) -> None:
        """I2C on at 400 kHz in the boot config (rewritten atomically), SPI on too for a panel on
        SPI (``spi``), the ``dtoverlay=`` lines of ``overlays`` (the scale's), and i2c-dev loaded
        at boot."""
        boot = next((self.path(b) for b in BOOT_CONFIGS if self.path(b).exists()), None)
        if boot is not None and boot_config.upstream_trees(boot.read_text(encoding="utf-8")):
            self.kept.append(f"/{boot.relative_to(self.root)} {DEBIAN_BOOT_CONFIG}")
        elif boot is not None:
            where = boot.relative_to(self.root)
            text, changes = boot_config_edit(boot.read_text(encoding="utf-8"), spi=spi, overlays=overlays)
            for change in changes:
                self.step(f"{change} in /{where}")
            self.reboot.extend(changes)
            if changes and not self.dry_run:
                write_atomic(boot, text.encode("utf-8"))
                self.mark_reboot(changes)
        modules = self.path(MODULES)
        if not (modules.exists() and "i2c-dev" in modules.read_text(encoding="utf-8")) and self.step(
            "load i2c-dev at boot"
        ):
            write_atomic(modules, b"i2c-dev\n")
            if self.booted:  # and now: with I2C already on, no reboot is needed for it
                self.must(["modprobe", "i2c-dev"])

    def mark_reboot(self, reasons: list[str]) -> None:
        """Leave word on /run that the Pi must reboot (``tablemate doctor`` reads it): the reboot
        empties /run, so the word goes with the need. Debian's own flag is raised too."""
        marker = self.path(REBOOT_MARKER)
        old = marker.read_text(encoding="utf-8").splitlines() if marker.exists() else []
        text = "".join(f"{line}\n" for line in dict.fromkeys([*old, *reasons]))
        write_atomic(marker, text.encode("utf-8"), 0o644)
        debian = self.path(DEBIAN_REBOOT_MARKER)
        if not debian.exists():
            write_atomic(debian, b"*** System restart required ***\n", 0o644)

    def ensure_unit(self, unit: str = UNIT) -> bool:
        """A systemd unit of ``systemd/`` (the service's, or the page's socket) installed as
        ``unit``; ``True`` when it changed."""
        path = self.path(unit)
        want = (self.source / "systemd" / Path(unit).name).read_bytes()
        if path.exists() and path.read_bytes() == want:
            return False
        if self.step(f"write /{unit}"):
            write_atomic(path, want, 0o644)
        return True

    def ensure_service(self, unit_changed: bool, restart: bool = False) -> None:
        """systemd knows the unit, starts it at boot, and runs it now; a running service is
        restarted when its unit changed or ``restart`` (new code, new groups). The page's socket
        is listening before the service starts, so the service is handed it."""
        socket = "tablemate.socket"
        if not self.booted:  # systemctl enables offline (symlinks); it cannot start anything
            for unit in (socket, "tablemate"):
                if self.run(["systemctl", "is-enabled", "--quiet", unit]) != 0 and self.step(f"enable {unit}"):
                    self.must(["systemctl", "enable", unit])
            return
        if unit_changed and self.step("systemctl daemon-reload"):
            self.must(["systemctl", "daemon-reload"])
        if self.run(["systemctl", "is-enabled", "--quiet", socket]) != 0 and self.step(f"enable {socket}"):
            self.must(["systemctl", "enable", "--now", socket])
        if self.run(["systemctl", "is-enabled", "--quiet", "tablemate"]) != 0 and self.step("enable tablemate"):
            self.must(["systemctl", "enable", "tablemate"])
        active = self.run(["systemctl", "is-active", "--quiet", "tablemate"]) == 0
        if not active and self.step("start tablemate"):
            self.must(["systemctl", "start", "tablemate"])
        elif active and (unit_changed or restart) and self.step("restart tablemate"):
            self.must(["systemctl", "restart", "tablemate"])

    # -- uninstall --------------------------------------------------------------------------------
    def uninstall(self, purge: bool = False) -> list[str]:
        """Stop and remove the service; ``purge`` also removes config, state, user and /opt."""
        unit = self.path(UNIT)
        drop_in = self.path(SPI_DROP_IN)
        if drop_in.exists() and self.step(f"remove /{SPI_DROP_IN}"):
            drop_in.unlink()
            with contextlib.suppress(OSError):  # the folder, if nothing else is in it
                drop_in.parent.rmdir()
        socket = self.path(SOCKET)
        if socket.exists():
            if self.step("stop and disable tablemate.socket"):
                self.must(["systemctl", "disable", "--now", "tablemate.socket"])
            if self.step(f"remove /{SOCKET}"):
                socket.unlink()
        if unit.exists():
            if self.step("stop and disable tablemate"):
                self.must(["systemctl", "disable", "--now", "tablemate"])
            if self.step(f"remove /{UNIT}"):
                unit.unlink()
                if self.booted:
                    self.must(["systemctl", "daemon-reload"])
        for relative in (MODULES, UDEV_RULES):
            if self.path(relative).exists() and self.step(f"remove /{relative}"):
                self.path(relative).unlink()
        if purge:
            for relative in (CONFIG, STATE, VENV):
                target = self.path(relative)
                if target.exists() and self.step(f"remove /{relative}"):
                    if relative == STATE and target.is_dir():  # one writer: not while a sim writes it
                        with writing(target):
                            shutil.rmtree(target)
                    elif target.is_dir():
                        shutil.rmtree(target)
                    else:
                        target.unlink()
            if self.run(["id", "-u", SERVICE_USER]) == 0 and self.step(f"remove user {SERVICE_USER}"):
                self.must(["userdel", SERVICE_USER])
        return self.done
