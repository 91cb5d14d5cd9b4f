"""The Pi install: the unit passes systemd-analyze, the installer is idempotent and undoes itself."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from firmware_host.cli.install import Installer, panel_on_spi
from tests.conftest import ROOT

UNIT = ROOT / "systemd" / "tablemate.service"


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="systemd-analyze is not installed")
def test_unit_passes_systemd_analyze_verify(tmp_path):
    # verify insists that ExecStart exists: point it at this Python, everything else unchanged
    text = UNIT.read_text().replace("/opt/tablemate/venv/bin/tablemate", sys.executable)
    unit = tmp_path / "tablemate.service"
    unit.write_text(text)
    result = subprocess.run(["systemd-analyze", "verify", str(unit)], capture_output=True, text=True)
    assert result.returncode == 0 and result.stderr == "" and result.stdout == ""


def test_unit_has_what_the_device_relies_on():
    text = UNIT.read_text()
    for line in (
        "Type=notify",
        "WatchdogSec=",
        "Restart=on-failure",
        "RestartPreventExitStatus=2",
        "User=tablemate",
        "SupplementaryGroups=gpio i2c dialout audio",
        "StateDirectory=tablemate",
        "ProtectSystem=strict",
    ):
        assert line in text


def test_a_slow_start_is_waited_for_not_killed_into_a_restart_loop():
    """Fixed: on the emulated board READY came after 87 s; systemd's default 90 s start limit
    killed such starts and each restart began again from nothing."""
    import re

    [limit] = re.findall(r"^TimeoutStartSec=(\d+)min$", UNIT.read_text(), re.M)
    assert int(limit) * 60 > 90


class FakeSystem:
    """Answers the installer's commands like a Pi would, remembering users, groups and units."""

    def __init__(self) -> None:
        self.users: dict[str, set[str]] = {}
        self.groups = {"gpio", "i2c"}
        self.enabled = self.active = False
        self.log: list[str] = []

    def __call__(self, cmd) -> int:
        self.log.append(" ".join(cmd))
        match list(cmd):
            case ["id", "-u", user]:
                return 0 if user in self.users else 1
            case ["useradd", *_, user]:
                self.users[user] = set()
            case ["getent", "group", group]:
                return 0 if group in self.groups else 2
            case ["groupadd", _, group]:
                self.groups.add(group)
            case ["sh", "-c", script]:
                user, group = script.split()[2], script.split()[-1]
                return 0 if group in self.users.get(user, set()) else 1
            case ["usermod", "-aG", group, user]:
                self.users[user].add(group)
            case ["systemctl", "is-enabled", *_]:
                return 0 if self.enabled else 1
            case ["systemctl", "is-active", *_]:
                return 0 if self.active else 3
            case ["systemctl", "enable", _]:
                self.enabled = True
            case ["systemctl", "start" | "restart", _]:
                self.active = True
            case ["systemctl", "disable", "--now", _]:
                self.enabled = self.active = False
            case ["userdel", user]:
                del self.users[user]
        return 0


def pi_root(tmp_path: Path) -> Path:
    root = tmp_path / "pi"
    (root / "boot" / "firmware").mkdir(parents=True)
    (root / "boot" / "firmware" / "config.txt").write_text("[all]\ndtparam=audio=on\n")
    return root


def test_install_sets_everything_up_and_a_second_run_changes_nothing(tmp_path):
    root, system = pi_root(tmp_path), FakeSystem()
    done = Installer(ROOT, root, system).install()
    assert "create system user tablemate" in done and "start tablemate" in done
    assert system.users["tablemate"] == {"gpio", "i2c", "dialout", "audio", "spi"}  # spi: the HX711 on SPI1
    assert system.enabled and system.active
    assert (root / "etc/systemd/system/tablemate.service").read_bytes() == UNIT.read_bytes()
    assert (root / "etc/tablemate/config.toml").read_bytes() == (ROOT / "hardware/config.toml").read_bytes()
    assert "dtparam=i2c_arm=on" in (root / "boot/firmware/config.txt").read_text()
    assert (root / "etc/modules-load.d/tablemate.conf").read_text() == "i2c-dev\n"
    assert Installer(ROOT, root, system).install() == []


def test_install_keeps_an_edited_config_and_restarts_on_a_new_unit(tmp_path):
    root, system = pi_root(tmp_path), FakeSystem()
    Installer(ROOT, root, system).install()
    (root / "etc/tablemate/config.toml").write_text("[table]\nseats = ['p1', 'p2']\n")
    (root / "etc/systemd/system/tablemate.service").write_text("old unit")
    done = Installer(ROOT, root, system).install()
    assert done == ["write /etc/systemd/system/tablemate.service", "systemctl daemon-reload", "restart tablemate"]
    assert "p2" in (root / "etc/tablemate/config.toml").read_text()


def test_uninstall_keeps_history_and_config_unless_purged(tmp_path):
    root, system = pi_root(tmp_path), FakeSystem()
    Installer(ROOT, root, system).install()
    (root / "var/lib/tablemate").mkdir(parents=True)
    (root / "var/lib/tablemate/history.jsonl").write_text("{}\n")
    Installer(ROOT, root, system).uninstall()
    assert not (root / "etc/systemd/system/tablemate.service").exists() and not system.active
    assert (root / "var/lib/tablemate/history.jsonl").exists() and (root / "etc/tablemate/config.toml").exists()
    assert Installer(ROOT, root, system).uninstall() == []
    Installer(ROOT, root, system).uninstall(purge=True)
    assert not (root / "var/lib/tablemate").exists() and "tablemate" not in system.users


def test_dry_run_changes_nothing(cli, tmp_path):
    root = pi_root(tmp_path)
    result = cli("install", "--root", root, "--source", ROOT, "--dry-run")
    assert result.status == 0 and "would write /etc/tablemate/config.toml" in result.out
    assert not (root / "etc").exists()


def test_a_running_service_restarts_when_its_code_or_its_groups_changed(tmp_path):
    # `sudo systemd/install.sh` is also how the device is updated: the new package in the venv, or
    # a group the service's user just joined, means nothing to a service that is already running.
    root, system = pi_root(tmp_path), FakeSystem()
    Installer(ROOT, root, system).install()
    assert Installer(ROOT, root, system, code_changed=True).install() == ["restart tablemate"]
    system.users["tablemate"].discard("gpio")
    assert Installer(ROOT, root, system).install() == ["add tablemate to gpio", "restart tablemate"]


def test_the_installer_asks_the_configuration_itself_whether_the_panel_is_on_spi(tmp_path):
    # bug: the installer read config.toml on its own, and a [display] kind that is not a name
    # (kind = ["x"]) crashed it where its docstring said a bad file says no
    cases = {
        'display = { kind = "ssd1322" }': True,
        'display = { kind = "ssd1306", interface = "spi" }': True,
        'display = { kind = "ssd1306" }': False,
        'display = { kind = ["x"] }': False,
        "display = [": False,
    }
    for n, (text, spi) in enumerate(cases.items()):
        path = tmp_path / f"config{n}.toml"
        path.write_text(text + "\n", encoding="utf-8")
        assert panel_on_spi(path) is spi, text


def test_the_companion_pages_port_80_is_opened_by_systemd_and_answers_the_local_network_only():
    unit, socket = UNIT.read_text(), (ROOT / "systemd" / "tablemate.socket").read_text()
    allow = "IPAddressAllow=localhost link-local 10.0.0.0/8 172.16.0.0/12 192.168.0.0/16 fc00::/7\n"
    for line in ("CapabilityBoundingSet=\n", "AmbientCapabilities=\n", "IPAddressDeny=any\n", allow):
        assert line in unit
    assert "RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6\n" in unit
    for line in ("ListenStream=80\n", "IPAddressDeny=any\n", allow):
        assert line in socket


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="systemd-analyze is not installed")
def test_the_socket_unit_passes_systemd_analyze_verify_beside_its_service(tmp_path):
    (tmp_path / "tablemate.service").write_text(
        UNIT.read_text().replace("/opt/tablemate/venv/bin/tablemate", sys.executable)
    )
    (tmp_path / "tablemate.socket").write_bytes((ROOT / "systemd" / "tablemate.socket").read_bytes())
    result = subprocess.run(
        ["systemd-analyze", "verify", str(tmp_path / "tablemate.socket"), str(tmp_path / "tablemate.service")],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0 and result.stderr == "" and result.stdout == ""


def test_install_writes_and_enables_the_pages_socket_and_uninstall_removes_it(tmp_path):
    root, system = pi_root(tmp_path), FakeSystem()
    done = Installer(ROOT, root, system).install()
    assert "write /etc/systemd/system/tablemate.socket" in done and "enable tablemate.socket" in done
    assert done.index("enable tablemate.socket") < done.index("start tablemate")  # listening before the service
    assert "systemctl enable --now tablemate.socket" in system.log
    Installer(ROOT, root, system).uninstall()
    assert not (root / "etc/systemd/system/tablemate.socket").exists()
    assert "systemctl disable --now tablemate.socket" in system.log


# -- a command that fails stops the install, loudly; a chroot is said to be one ----------------------
def test_a_failing_start_stops_the_install_and_names_the_command(tmp_path):
    from firmware_host.cli import install

    system = FakeSystem()

    def start_fails(cmd):
        return 1 if list(cmd) == ["systemctl", "start", "tablemate"] else system(cmd)

    root = pi_root(tmp_path)
    with pytest.raises(install.CommandFailed) as err:
        Installer(ROOT, root, start_fails).install()
    assert "`systemctl start tablemate` failed with exit status 1" in str(err.value)


def test_the_cli_exits_non_zero_naming_the_command_that_failed(cli, tmp_path, monkeypatch):
    from firmware_host.cli import install

    system = FakeSystem()
    real_init = install.Installer.__init__

    def with_a_failing_udevadm(self, *args, **kwargs):
        real_init(self, *args, **kwargs)
        self.run = lambda cmd: 1 if cmd[0] == "udevadm" else system(cmd)

    monkeypatch.setattr(install.Installer, "__init__", with_a_failing_udevadm)
    result = cli("install", "--root", pi_root(tmp_path), "--source", ROOT)
    assert result.status == 1
    (line,) = result.err.strip().splitlines()
    assert line == (
        "tablemate install: write /etc/udev/rules.d/60-tablemate.rules: "
        "`udevadm control --reload` failed with exit status 1"
    )
    assert "start tablemate" not in result.out


def test_in_a_chroot_nothing_is_started_the_units_are_enabled_and_the_notes_say_so(tmp_path):
    root, system = pi_root(tmp_path), FakeSystem()
    installer = Installer(ROOT, root, system, booted=False)
    done = installer.install()
    assert "enable tablemate.socket" in done and system.enabled  # (one flag for both units here)
    assert "start tablemate" not in done and not system.active
    ran = {line.split()[0] + " " + line.split()[1] for line in system.log}
    assert not ran & {"udevadm control", "modprobe i2c-dev", "systemctl start", "systemctl daemon-reload"}
    assert any("systemd is not running here" in note and "next boot" in note for note in installer.notes())


def test_asking_whether_the_user_exists_prints_nothing(capfd):
    from firmware_host.cli.install import run_command

    assert run_command(["id", "-u", "no-such-user-tablemate-test"]) != 0
    out, err = capfd.readouterr()
    assert out == err == ""
