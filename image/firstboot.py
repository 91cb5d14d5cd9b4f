"""The image's first boot: what the owner wrote in ``tablemate-firstboot.toml`` on the card's FAT
partition (``/boot/firmware``) before the first boot, applied on the Pi.

Copied into the image as ``/usr/local/lib/tablemate/firstboot.py`` and run by
``tablemate-firstboot.service`` before the network, SSH and tablemate start, with the system's
Python 3.11 (standard library only). The file, every key optional::

    hostname = "tablemate"                 # the name on the network (tablemate.local with mDNS)
    [wifi]
    country = "DE"                         # the regulatory domain: the Wi-Fi stays off without it
    ssid = "Home"
    password = "at least 8 characters"
    [ssh]
    authorized_keys = ["ssh-ed25519 AAAA... you@laptop"]   # root logs in with these keys only
    [config.table]                         # the device's /etc/tablemate/config.toml: any of
    names = { p1 = "Ann", p2 = "Ben" }     # hardware/config.toml's sections, as [config.SECTION]

A file with a mistake changes nothing: the reason (the key and the file named) is written beside
it as ``tablemate-firstboot.error.txt``, readable on any computer. A good file is applied once and
renamed ``tablemate-firstboot.done``, the Wi-Fi password left out. Without a file the first boot
still makes this card's own SSH host keys (the image carries none) and grows the root partition
to the card.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

NAME = "tablemate-firstboot.toml"
STEP_SECONDS = 300
"""The longest any one first-boot command may take (an RSA host key on a Zero 2 W takes seconds)."""
HOSTNAME = re.compile(r"^(?!-)[a-z0-9-]{1,63}(?<!-)$")
KEY = re.compile(
    r"^(ssh-(ed25519|rsa|dss)|ecdsa-sha2-nistp\d+|sk-(ssh-ed25519|ecdsa-sha2-nistp256)@openssh\.com)"
    r" [A-Za-z0-9+/=]+( .*)?$"
)
KNOWN = {"hostname": None, "wifi": {"country", "ssid", "password"}, "ssh": {"authorized_keys"}, "config": None}
"""The keys and each table's keys (``config``: the device's configuration, its sections as tables)."""


class FirstBootError(ValueError):
    """One line naming the file, the key and what was expected."""


@dataclass
class FirstBoot:
    """What the owner asked for."""

    hostname: str | None = None
    wifi_country: str | None = None
    wifi_ssid: str | None = None
    wifi_password: str | None = None
    authorized_keys: list[str] = field(default_factory=list)
    config: str | None = None


def parse(text: str, where: str = NAME) -> FirstBoot:
    """Check the first-boot file's text; raise :class:`FirstBootError` naming ``where`` and the key."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise FirstBootError(f"{where}: invalid TOML: {exc}") from None
    for key, value in data.items():
        if key not in KNOWN:
            raise FirstBootError(f"{where}: unknown key {key!r} (known: {', '.join(KNOWN)})")
        sub = KNOWN[key]
        if key == "config" and not isinstance(value, dict):
            raise FirstBootError(f"{where}: config: expected tables like [config.table]")
        if sub is not None:
            if not isinstance(value, dict):
                raise FirstBootError(f"{where}: [{key}] must be a table")
            for inner in value:
                if inner not in sub:
                    raise FirstBootError(f"{where}: [{key}] unknown key {inner!r} (known: {', '.join(sorted(sub))})")
    fb = FirstBoot()
    if "hostname" in data:
        name = data["hostname"]
        if not isinstance(name, str) or not HOSTNAME.match(name):
            raise FirstBootError(
                f"{where}: hostname: expected 1-63 lower-case letters, digits and inner dashes, got {name!r}"
            )
        fb.hostname = name
    wifi = data.get("wifi", {})
    if wifi:
        ssid, password, country = wifi.get("ssid"), wifi.get("password"), wifi.get("country")
        if not isinstance(ssid, str) or not 1 <= len(ssid.encode()) <= 32:
            raise FirstBootError(f"{where}: [wifi] ssid: expected the network's name (1-32 bytes), got {ssid!r}")
        if password is not None and (
            not isinstance(password, str)
            or not (8 <= len(password) <= 63 or re.fullmatch(r"[0-9a-fA-F]{64}", password))
            or any(ord(c) < 32 or ord(c) > 126 for c in password)
        ):
            raise FirstBootError(f"{where}: [wifi] password: expected 8-63 printable ASCII characters (WPA2)")
        if not isinstance(country, str) or not re.fullmatch(r"[A-Z]{2}", country):
            raise FirstBootError(
                f'{where}: [wifi] country: expected a two-letter country code like "DE", got {country!r}'
            )
        fb.wifi_ssid, fb.wifi_password, fb.wifi_country = ssid, password, country
    keys = data.get("ssh", {}).get("authorized_keys", [])
    if not isinstance(keys, list) or not all(isinstance(k, str) and KEY.match(k.strip()) for k in keys):
        raise FirstBootError(
            f'{where}: [ssh] authorized_keys: expected a list of public keys like "ssh-ed25519 AAAA... you@laptop"'
        )
    fb.authorized_keys = [k.strip() for k in keys]
    if "config" in data:
        for section, table in data["config"].items():
            if not isinstance(table, dict):
                raise FirstBootError(f"{where}: [config.{section}] must be a table (the config's [{section}])")
        fb.config = to_toml(data["config"])
    return fb


def _value(v: object) -> str:
    """A TOML value (tables inline: ``{ p1 = "Ann" }`` means what a sub-table means)."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int | float):
        return repr(v)
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False)
    if isinstance(v, list):
        return "[" + ", ".join(_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{json.dumps(k)} = {_value(x)}" for k, x in v.items()) + " }"
    raise FirstBootError(f"cannot write {v!r} as TOML")


def to_toml(sections: dict[str, dict[str, object]]) -> str:
    """The configuration file for ``[config.*]``'s tables: the same values when read back."""
    out = ["# Written at the first boot from tablemate-firstboot.toml's [config.*] tables."]
    for name, table in sections.items():
        out += ["", f"[{json.dumps(name)}]"]
        out += [f"{json.dumps(k)} = {_value(v)}" for k, v in table.items()]
    return "\n".join(out) + "\n"


def wpa_conf(fb: FirstBoot) -> str:
    """``wpa_supplicant-wlan0.conf`` for the network asked for."""

    def quoted(text: str) -> str:
        return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'

    lines = [
        "ctrl_interface=DIR=/run/wpa_supplicant GROUP=netdev",
        "update_config=0",
        f"country={fb.wifi_country}",
        "",
        "network={",
    ]
    lines.append(f"    ssid={quoted(fb.wifi_ssid or '')}")
    if fb.wifi_password is None:
        lines.append("    key_mgmt=NONE")
    elif len(fb.wifi_password) == 64:
        lines.append(f"    psk={fb.wifi_password}")
    else:
        lines.append(f"    psk={quoted(fb.wifi_password)}")
    lines += ["}", ""]
    return "\n".join(lines)


def done_text(fb: FirstBoot) -> str:
    """What the renamed file keeps: everything but the Wi-Fi password."""
    lines = ["# Applied at the first boot (the Wi-Fi password is not kept here)."]
    if fb.hostname:
        lines.append(f'hostname = "{fb.hostname}"')
    if fb.wifi_ssid:
        lines += ["[wifi]", f'country = "{fb.wifi_country}"', f"ssid = {fb.wifi_ssid!r}"]
    if fb.authorized_keys:
        lines += ["[ssh]", f"authorized_keys = {len(fb.authorized_keys)}  # keys installed for root"]
    return "\n".join(lines) + "\n"


def _write(path: Path, text: str, mode: int) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.new")
    tmp.write_text(text, encoding="utf-8")
    os.chmod(tmp, mode)
    os.replace(tmp, path)


def apply(fb: FirstBoot, root: Path = Path("/")) -> list[str]:
    """Write what ``fb`` asks for under ``root``; the units to enable."""
    enable = []
    if fb.hostname:
        _write(root / "etc/hostname", fb.hostname + "\n", 0o644)
        hosts = root / "etc/hosts"
        old = hosts.read_text(encoding="utf-8").splitlines() if hosts.exists() else ["127.0.0.1\tlocalhost"]
        kept = [line for line in old if not line.startswith("127.0.1.1")]
        _write(hosts, "\n".join([*kept, f"127.0.1.1\t{fb.hostname}"]) + "\n", 0o644)
    if fb.wifi_ssid:
        _write(root / "etc/wpa_supplicant/wpa_supplicant-wlan0.conf", wpa_conf(fb), 0o600)
        enable.append("wpa_supplicant@wlan0.service")
    if fb.authorized_keys:
        ssh = root / "root/.ssh"
        ssh.mkdir(parents=True, exist_ok=True)
        os.chmod(ssh, 0o700)
        _write(ssh / "authorized_keys", "\n".join(fb.authorized_keys) + "\n", 0o600)
    if fb.config is not None:
        _write(root / "etc/tablemate/config.toml", fb.config, 0o644)
    return enable


def grow_root(run=subprocess.run) -> None:
    """Grow the root partition (the card's second) to the end of the card, and its file system;
    each step bounded in time (a first boot must never hang the device on its way to the menu)."""

    def step(cmd: list[str], **kwargs) -> str:
        try:
            return run(cmd, capture_output=True, text=True, timeout=STEP_SECONDS, **kwargs).stdout.strip()
        except (OSError, subprocess.TimeoutExpired) as exc:
            print(f"first boot: {' '.join(cmd)}: {exc}", file=sys.stderr)
            return ""

    source = step(["findmnt", "-n", "-o", "SOURCE", "/"])
    disk = step(["lsblk", "-n", "-d", "-o", "PKNAME", source]) if source else ""
    if not source or not disk:
        return
    step(["sh", "-c", f"echo ', +' | sfdisk --no-reread --no-tell-kernel -N 2 /dev/{disk}"])
    step(["partx", "-u", f"/dev/{disk}"])
    step(["resize2fs", source])


def main(boot: Path = Path("/boot/firmware")) -> int:
    """The first boot's work; 0 even when the file has a mistake (the card still boots)."""
    try:  # this card's own host keys
        subprocess.run(["ssh-keygen", "-A"], check=False, timeout=STEP_SECONDS)
    except subprocess.TimeoutExpired:
        print("first boot: ssh-keygen -A took too long", file=sys.stderr)
    grow_root()
    path = boot / NAME
    if not path.exists():
        return 0
    try:
        fb = parse(path.read_text(encoding="utf-8"), f"{boot.name}/{NAME}")
    except (FirstBootError, UnicodeDecodeError) as exc:
        (boot / "tablemate-firstboot.error.txt").write_text(f"{exc}\nNothing was applied; fix it and boot again.\n")
        print(exc, file=sys.stderr)
        return 0
    for unit in apply(fb):
        subprocess.run(["systemctl", "enable", unit], check=False)
    if fb.hostname:
        subprocess.run(["hostname", fb.hostname], check=False)
    (boot / "tablemate-firstboot.done").write_text(done_text(fb), encoding="utf-8")
    path.unlink()
    (boot / "tablemate-firstboot.error.txt").unlink(missing_ok=True)
    print(f"first boot: applied {path}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
