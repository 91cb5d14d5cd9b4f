"""Install and update with no network: ``tablemate wheelhouse`` locks every wheel the Pi needs,
and ``systemd/install.sh --wheelhouse`` installs from it with no index at all.

The install runs for real against a fake root: a venv under it, pip with ``PIP_NO_INDEX`` and an
index address that answers nothing -- inside a network namespace with no network where the
machine allows one -- and the system's commands (useradd, systemctl, udevadm) stand-ins on PATH
that remember what they were told. The wheelhouse is this venv's own distributions packed back
into wheels beside the project's wheel made from the checkout (``tests/wheelkit.py``: no build
backend, no index).
"""

from __future__ import annotations

import dataclasses
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from firmware_host.cli import wheelhouse
from firmware_host.cli.wheelhouse import TARGETS, Target, lock, project_requirements
from firmware_host.core.pi_layout import REBOOT_MARKER, UDEV_RULES
from tests.conftest import ROOT
from tests.waits import scaled
from tests.wheelkit import closure, project_wheel, repack

INSTALL_SH = ROOT / "systemd" / "install.sh"
BOOKWORM, TRIXIE = TARGETS

STUB = r"""#!/bin/sh
# The system's commands as the installer uses them, remembered in files under $STUB_STATE.
name=$(basename "$0")
echo "$name $*" >> "$STUB_STATE/log"
S=$STUB_STATE
case "$name" in
id)
    case "$1" in
    -u) [ "$#" = 1 ] && exec /usr/bin/id -u; [ -e "$S/user-$2" ]; exit $? ;;
    -nG) cat "$S/groups-$2" 2>/dev/null; exit 0 ;;
    esac
    exec /usr/bin/id "$@" ;;
useradd) eval "touch \"$S/user-\${$#}\"" ;;
getent) [ -e "$S/group-$2" ]; exit $? ;;
groupadd) eval "touch \"$S/group-\${$#}\"" ;;
usermod) echo "$2" >> "$S/groups-$3" ;;
systemctl)
    case "$1" in
    is-active) [ -e "$S/active" ]; exit $? ;;
    is-enabled) [ -e "$S/enabled" ]; exit $? ;;
    start | restart) touch "$S/active" ;;
    enable) touch "$S/enabled" ;;
    esac ;;
esac
exit 0
"""


OFF_PI = {"platform_machine": "x86_64"}
"""The test's wheelhouse is this venv's own distributions, the ``pi`` extra's judged as off a Pi:
the same house on every machine (on an aarch64 one the extra's markers are true, and Debian's
python3-spidev there has no ``WHEEL`` file to pack a wheel from)."""


@dataclasses.dataclass(frozen=True)
class ThisPython(Target):
    """This interpreter's tags, with the markers of a machine that is not a Pi."""

    def environment(self) -> dict[str, str]:
        """This machine's marker values, ``platform_machine`` a PC's."""
        return {**super().environment(), **OFF_PI}


@pytest.fixture(scope="module")
def house(tmp_path_factory) -> Path:
    """A wheelhouse for this machine's Python, made with no network."""
    dest = tmp_path_factory.mktemp("wheelhouse")
    for dist in closure(["tablemate[pi]"], OFF_PI):
        if dist.metadata["Name"] != "tablemate":
            repack(dist, dest)
    wheel = project_wheel(ROOT, dest)
    written = wheelhouse.write_lock(dest, ThisPython.this(), project_requirements(wheel, ["pi"]))
    assert written.missing == []
    return dest


def _no_network() -> list[str]:
    """``unshare -n`` where this machine lets us have a network namespace of our own."""
    for prefix in (["unshare", "-n"], ["unshare", "-rn"]):
        if shutil.which(prefix[0]) and subprocess.run([*prefix, "true"], capture_output=True).returncode == 0:
            return prefix
    return []


def run_install(root: Path, house: Path, state: Path, *args: str) -> subprocess.CompletedProcess[str]:
    stubs = state.parent / "stubs"
    if not stubs.exists():
        stubs.mkdir()
        (stubs / "stub").write_text(STUB)
        (stubs / "stub").chmod(0o755)
        for name in ("id", "getent", "systemctl", "useradd", "groupadd", "usermod", "udevadm", "modprobe"):
            (stubs / name).symlink_to("stub")
    env = {
        "PATH": f"{stubs}:{os.environ['PATH']}",
        "HOME": str(state),
        "STUB_STATE": str(state),
        "PYTHON": sys.executable,
        "PIP_NO_INDEX": "1",  # any look at an index fails...
        "PIP_INDEX_URL": "http://127.0.0.1:9/simple",  # ...and there is none to look at
        "PIP_CONFIG_FILE": os.devnull,  # nor this machine's pip configuration
        "PIP_NO_CACHE_DIR": "1",
    }
    command = [*_no_network(), "sh", str(INSTALL_SH), "--root", str(root), "--wheelhouse", str(house), *args]
    return subprocess.run(command, env=env, capture_output=True, text=True, timeout=scaled(300), cwd=state)


def test_install_sh_installs_and_updates_from_the_wheelhouse_with_no_index(tmp_path, house):
    root, state = tmp_path / "pi", tmp_path / "state"
    state.mkdir()
    (root / "boot/firmware").mkdir(parents=True)
    (root / "boot/firmware/config.txt").write_text("[all]\ndtparam=audio=on\n")

    first = run_install(root, house, state)
    assert first.returncode == 0, first.stderr
    venv = root / "opt/tablemate/venv"
    check = "import firmware_host, gpiozero, luma.oled, adafruit_hx711, serial; print(firmware_host.__file__)"
    imported = subprocess.run([venv / "bin/python", "-c", check], capture_output=True, text=True, cwd=state)
    assert imported.returncode == 0 and str(venv) in imported.stdout, imported.stderr
    assert "start tablemate" in first.stdout and "needs a reboot" in first.stdout
    assert (root / UDEV_RULES).exists() and (root / REBOOT_MARKER).exists()
    assert "dtparam=i2c_arm=on" in (root / "boot/firmware/config.txt").read_text()
    log = (state / "log").read_text()
    assert "useradd --system --no-create-home --shell /usr/sbin/nologin tablemate" in log
    assert "modprobe i2c-dev" in log and "udevadm control --reload" in log

    again = run_install(root, house, state)  # nothing new: nothing to do, the service left running
    assert again.returncode == 0 and again.stdout == "nothing to do: already installed\n", again.stdout + again.stderr

    # an update: the same version number, other code -- installed, and the service restarted
    (wheel,) = house.glob("tablemate-*.whl")
    newer = tmp_path / wheel.name
    with zipfile.ZipFile(wheel) as old, zipfile.ZipFile(newer, "w") as new:
        for item in old.infolist():
            data = old.read(item)
            new.writestr(item, data + b"# updated\n" if item.filename == "firmware_host/__init__.py" else data)
    update = tmp_path / "update"
    shutil.copytree(house, update)
    shutil.copy(newer, update / wheel.name)
    updated = run_install(root, update, state)
    assert updated.returncode == 0 and updated.stdout == "restart tablemate\n", updated.stdout + updated.stderr
    site = next((venv / "lib").glob("python3*/site-packages"))
    assert (site / "firmware_host/__init__.py").read_text().endswith("# updated\n")


def test_install_sh_refuses_a_wheelhouse_without_this_pythons_lock_before_touching_anything(tmp_path, house):
    partial = tmp_path / "partial"
    shutil.copytree(house, partial)
    for lockfile in partial.glob("requirements-*.txt"):
        lockfile.unlink()
    (tmp_path / "state").mkdir()
    result = run_install(tmp_path / "pi", partial, tmp_path / "state")
    assert result.returncode == 1 and f"no requirements-{Target.this().name}.txt" in result.stderr
    assert not (tmp_path / "pi/opt").exists()


def test_install_sh_never_upgrades_pip_and_reads_no_index_with_a_wheelhouse():
    text = INSTALL_SH.read_text()
    assert "--upgrade pip" not in text and "-U pip" not in text
    wheel_branch = text.split('if [ -n "$WHEELHOUSE" ]; then\n    # Exactly')[1].split("else")[0]
    installs = [line for line in wheel_branch.splitlines() if "pip install" in line]
    assert len(installs) == 2 and all("--no-index" in line and "--no-deps" in line for line in installs)
    assert "python3-lgpio" in text and "import lgpio" in text  # lgpio from apt, checked, never built


# -- the lock is made with the Pi's markers and wheel tags, not this machine's ----------------------
def test_the_lock_walks_the_dependencies_with_the_pis_markers_and_tags(house):
    (wheel,) = house.glob("tablemate-*.whl")
    roots = project_requirements(wheel, ["pi"])
    here = lock(house, ThisPython.this(), roots)
    assert here.missing == [] and "gpiod" not in here.pins  # the pi extra is for a Pi only
    pi = lock(house, BOOKWORM, roots)
    assert pi.from_apt == {"python3-lgpio", "python3-spidev"}  # apt's, never a wheel, never built
    assert "gpiod<3,>=2.2" in pi.missing  # the Pi needs it, this house has none: pip is asked for it...
    assert "pillow>=9.2.0" in pi.missing  # ...and for pillow, whose wheel here is no aarch64 wheel
    assert "adafruit-blinka" in pi.pins and "gpiozero" in pi.pins and "lgpio" not in pi.pins  # py3-none-any
    assert not any(";" in m for m in pi.missing)  # markers already evaluated: pip would judge them by this machine


def test_bookworm_and_trixie_on_a_64_bit_pi_take_manylinux_aarch64_wheels():
    assert (BOOKWORM.name, TRIXIE.name) == ("cp311-aarch64", "cp313-aarch64")
    assert "manylinux_2_36_aarch64" in BOOKWORM.platforms() and "manylinux_2_37_aarch64" not in BOOKWORM.platforms()
    assert "manylinux_2_41_aarch64" in TRIXIE.platforms() and "manylinux2014_aarch64" in TRIXIE.platforms()
    tags = {str(t) for t in BOOKWORM.tags()}
    assert "cp311-cp311-manylinux_2_28_aarch64" in tags and "py3-none-any" in tags
    assert "cp313-cp313-manylinux_2_28_aarch64" not in tags and not any("x86_64" in t for t in tags)
    assert BOOKWORM.environment()["platform_machine"] == "aarch64"
    assert BOOKWORM.environment()["python_version"] == "3.11"


def test_the_download_asks_pip_for_binary_wheels_of_the_pi_only(monkeypatch, tmp_path):
    commands = []
    monkeypatch.setattr(subprocess, "run", lambda cmd, **kw: commands.append(cmd))
    wheelhouse.download(tmp_path, TRIXIE, ["gpiod>=2.2,<3"])
    (command,) = commands
    assert "--only-binary=:all:" in command and "--platform=manylinux_2_17_aarch64" in command
    assert "--python-version=3.13" in command and "--abi=cp313" in command and command[-1] == "gpiod>=2.2,<3"


def test_lgpios_wheel_is_locked_where_the_pi_has_one_and_apt_is_left_for_spidev(house, tmp_path):
    # plain Debian has no python3-lgpio: Bookworm's Python on a 64-bit Pi takes PyPI's wheel
    with_lgpio = tmp_path / "house"
    shutil.copytree(house, with_lgpio)
    name = "lgpio-0.2.2.0"
    with zipfile.ZipFile(with_lgpio / f"{name}-cp311-cp311-manylinux_2_34_aarch64.whl", "w") as wheel:
        wheel.writestr(f"{name}.dist-info/METADATA", "Metadata-Version: 2.1\nName: lgpio\nVersion: 0.2.2.0\n")
    (wheel,) = house.glob("tablemate-*.whl")
    roots = project_requirements(wheel, ["pi"])
    bookworm = lock(with_lgpio, BOOKWORM, roots)
    assert bookworm.pins["lgpio"][0] == "0.2.2.0" and bookworm.from_apt == {"python3-spidev"}
    trixie = lock(with_lgpio, TRIXIE, roots)  # no cp313 wheel of it: Raspberry Pi OS's python3-lgpio
    assert "lgpio" not in trixie.pins and trixie.from_apt == {"python3-lgpio", "python3-spidev"}
    assert "lgpio" not in lock(with_lgpio, TRIXIE, roots, apt_fallback=False).from_apt  # a download is tried first
