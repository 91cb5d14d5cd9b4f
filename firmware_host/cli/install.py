"""``tablemate install``: make a Raspberry Pi boot into tablemate (``--uninstall`` undoes it).

``systemd/install.sh`` makes the virtual environment under /opt and then runs this. Every step
looks before it acts, so running it again changes nothing and says so:

1. the ``tablemate`` system user, in the ``gpio``, ``i2c`` and ``dialout`` groups;
2. ``/etc/tablemate/config.toml`` from ``hardware/config.toml`` (an existing one is kept);
3. I2C on: ``dtparam=i2c_arm=on`` in the boot config, ``i2c-dev`` loaded at boot;
4. the systemd unit, enabled and (re)started.

``--uninstall`` stops and removes the unit; the user, the configuration and the state folder
(the history!) stay unless ``--purge`` is given. ``--root`` and ``--dry-run`` exist for tests and
for looking before leaping.
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

USER = "tablemate"
GROUPS = ("gpio", "i2c", "dialout")
UNIT = "etc/systemd/system/tablemate.service"
CONFIG = "etc/tablemate/config.toml"
MODULES = "etc/modules-load.d/tablemate.conf"
BOOT_CONFIGS = ("boot/firmware/config.txt", "boot/config.txt")
I2C_LINE = "dtparam=i2c_arm=on"
STATE = "var/lib/tablemate"
VENV = "opt/tablemate"

Runner = Callable[[Sequence[str]], int]


def run_command(cmd: Sequence[str]) -> int:
    """Run a system command, returning its exit status."""
    return subprocess.run(list(cmd), check=False).returncode


def find_source(start: Path) -> Path | None:
    """The project checkout holding ``systemd/tablemate.service``: ``start`` or one of its parents."""
    for folder in (start, *start.parents):
        if (folder / "systemd" / "tablemate.service").is_file() and (folder / "hardware" / "config.toml").is_file():
            return folder
    return None


@dataclass
class Installer:
    """Installs into ``root`` (``/`` on the Pi), running commands through ``run``."""

    source: Path
    root: Path = Path("/")
    run: Runner = run_command
    dry_run: bool = False
    done: list[str] = field(default_factory=list)

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
        self.ensure_user()
        self.ensure_config()
        self.ensure_i2c()
        unit_changed = self.ensure_unit()
        self.ensure_service(unit_changed)
        return self.done

    def ensure_user(self) -> None:
        """The system user and its groups."""
        if self.run(["id", "-u", USER]) != 0 and self.step(f"create system user {USER}"):
            self.run(["useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", USER])
        for group in GROUPS:
            if self.run(["getent", "group", group]) != 0 and self.step(f"create group {group}"):
                self.run(["groupadd", "--system", group])
            if self.run(["sh", "-c", f"id -nG {USER} | grep -qw {group}"]) != 0 and self.step(f"add {USER} to {group}"):
                self.run(["usermod", "-aG", group, USER])

    def ensure_config(self) -> None:
        """The default configuration, unless one is there."""
        path = self.path(CONFIG)
        if not path.exists() and self.step(f"write /{CONFIG}"):
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes((self.source / "hardware" / "config.toml").read_bytes())

    def ensure_i2c(self) -> None:
        """I2C on in the boot config, and i2c-dev loaded at boot."""
        boot = next((self.path(b) for b in BOOT_CONFIGS if self.path(b).exists()), None)
        if boot is not None:
            lines = boot.read_text(encoding="utf-8").splitlines()
            where = boot.relative_to(self.root)
            if I2C_LINE not in (line.strip() for line in lines) and self.step(f"enable I2C in /{where}"):
                boot.write_text("\n".join([*lines, I2C_LINE]) + "\n", encoding="utf-8")
        modules = self.path(MODULES)
        if not (modules.exists() and "i2c-dev" in modules.read_text(encoding="utf-8")) and self.step(
            "load i2c-dev at boot"
        ):
            modules.parent.mkdir(parents=True, exist_ok=True)
            modules.write_text("i2c-dev\n", encoding="utf-8")

    def ensure_unit(self) -> bool:
        """The systemd unit; ``True`` when it changed."""
        unit = self.path(UNIT)
        want = (self.source / "systemd" / "tablemate.service").read_bytes()
        if unit.exists() and unit.read_bytes() == want:
            return False
        if self.step(f"write /{UNIT}"):
            unit.parent.mkdir(parents=True, exist_ok=True)
            unit.write_bytes(want)
        return True

    def ensure_service(self, unit_changed: bool) -> None:
        """systemd knows the unit, starts it at boot, and runs it now."""
        if unit_changed and self.step("systemctl daemon-reload"):
            self.run(["systemctl", "daemon-reload"])
        if self.run(["systemctl", "is-enabled", "--quiet", "tablemate"]) != 0 and self.step("enable tablemate"):
            self.run(["systemctl", "enable", "tablemate"])
        active = self.run(["systemctl", "is-active", "--quiet", "tablemate"]) == 0
        if not active and self.step("start tablemate"):
            self.run(["systemctl", "start", "tablemate"])
        elif active and unit_changed and self.step("restart tablemate"):
            self.run(["systemctl", "restart", "tablemate"])

    # -- uninstall --------------------------------------------------------------------------------
    def uninstall(self, purge: bool = False) -> list[str]:
        """Stop and remove the service; ``purge`` also removes config, state, user and /opt."""
        unit = self.path(UNIT)
        if unit.exists():
            if self.step("stop and disable tablemate"):
                self.run(["systemctl", "disable", "--now", "tablemate"])
            if self.step(f"remove /{UNIT}"):
                unit.unlink()
                self.run(["systemctl", "daemon-reload"])
        modules = self.path(MODULES)
        if modules.exists() and self.step(f"remove /{MODULES}"):
            modules.unlink()
        if purge:
            for relative in (CONFIG, STATE, VENV):
                target = self.path(relative)
                if target.exists() and self.step(f"remove /{relative}"):
                    if target.is_dir():
                        shutil.rmtree(target)
                    else:
                        target.unlink()
            if self.run(["id", "-u", USER]) == 0 and self.step(f"remove user {USER}"):
                self.run(["userdel", USER])
        return self.done
