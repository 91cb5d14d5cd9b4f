"""The Debian 12 arm64 root the image starts from, made once by ``mmdebstrap`` and cached.

mmdebstrap (Debian's own package) installs Debian's packages for another architecture through
qemu-user-static and binfmt_misc, in one apt run, and honours ``SOURCE_DATE_EPOCH``: the same
mirror state and the same package list give the same files. The result is cached as a directory
under ``~/.cache/tablemate-image`` (``TABLEMATE_IMAGE_CACHE``), keyed on every input
(:func:`cache_key`): a changed package list or snapshot makes a new one, an unchanged one is
reused (a cold build took 49 min here, on 2 cores shared with other work, mostly dpkg and mkinitramfs under emulation).

The mirror: ``snapshot.debian.org`` at :data:`SNAPSHOT` when it answers (the exact archive of
that date: reproducible), else ``deb.debian.org`` as it is today (Bookworm's point release moves,
so the versions are recorded in ``packages.txt`` beside the image instead).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import urllib.request
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path

SUITE = "bookworm"
SNAPSHOT = "20250520T000000Z"
"""The Debian archive's date the image is built from when snapshot.debian.org is reachable."""
PACKAGES = (
    # Booting a Pi: Debian's arm64 kernel (it also boots QEMU's virt board), the Pi firmware and
    # its boot-partition hooks (config.txt, cmdline.txt, the kernel and DTBs copied to
    # /boot/firmware), an initramfs that finds the root by its label.
    "linux-image-arm64",
    "raspi-firmware",
    "initramfs-tools",
    "systemd-sysv",
    "udev",
    "kmod",
    # tablemate: Python 3.11 with venv (install.sh makes /opt/tablemate/venv), the I2C tools the
    # doctor names, Debian's spidev (no wheel of it exists).
    "python3",
    "python3-venv",
    "python3-spidev",
    "i2c-tools",
    # What the first-boot file sets: Wi-Fi (the Pi 3B+/4/Zero 2 W's Broadcom chip), an SSH key,
    # the root partition grown to the card.
    "wpasupplicant",
    "firmware-brcm80211",
    "openssh-server",
    "fdisk",
    "e2fsprogs",
)
EXTRA = (
    # The network's basics: `ip`, and the clock from the network (a Pi has no clock of its own:
    # the service dates its games only once timesyncd says the clock is synced).
    "iproute2",
    "systemd-timesyncd",
    # The voice: eSpeak NG (English and German) renders each phrase, ALSA's aplay plays it; arecord
    # (also alsa-utils) lets `dev.py vm` hear it on a loopback card.
    "espeak-ng",
    "alsa-utils",
)
"""Packages added on top of the cached root by apt in a chroot, cached as a layer of their own
(a change here costs a few minutes, not a new root)."""
MMDEBSTRAP_VERSION_CMD = ("mmdebstrap", "--version")
PACKAGE_LIST = 'chroot "$1" dpkg-query -W -f \'${Package} ${Version} ${Architecture}\\n\' > "$1/.packages.txt"'
"""The customize hook recording every package's version (``packages.txt`` beside the image)."""


def cache_root() -> Path:
    """Where built roots and images are kept between runs (outside the checkout)."""
    env = os.environ.get("TABLEMATE_IMAGE_CACHE")
    return Path(env) if env else Path.home() / ".cache" / "tablemate-image"


def snapshot_reachable(date: str = SNAPSHOT, timeout: float = 10.0) -> bool:
    """Whether snapshot.debian.org serves the archive of ``date``."""
    url = f"http://snapshot.debian.org/archive/debian/{date}/dists/{SUITE}/Release"
    try:
        with urllib.request.urlopen(url, timeout=timeout) as answer:
            return answer.status == 200
    except OSError:
        return False


@dataclass(frozen=True)
class RootSpec:
    """Everything the cached root depends on."""

    mirrors: tuple[str, ...]
    packages: tuple[str, ...] = PACKAGES
    suite: str = SUITE
    arch: str = "arm64"
    components: str = "main,non-free-firmware"
    source_date_epoch: int = 0
    tool: str = ""
    extra: dict[str, str] = field(default_factory=dict)

    def key(self) -> str:
        """A short hash of every input: the cache folder's name."""
        text = json.dumps(asdict(self), sort_keys=True)
        return hashlib.sha256(text.encode()).hexdigest()[:16]


def mirrors(snapshot: bool, date: str = SNAPSHOT) -> tuple[str, ...]:
    """The apt source lines: the snapshot of ``date``, or today's Debian mirrors."""
    comps = "main non-free-firmware"
    if snapshot:
        base, sec = (f"http://snapshot.debian.org/archive/{a}/{date}" for a in ("debian", "debian-security"))
    else:
        base, sec = "http://deb.debian.org/debian", "http://deb.debian.org/debian-security"
    return (
        f"deb {base} {SUITE} {comps}",
        f"deb {base} {SUITE}-updates {comps}",
        f"deb {sec} {SUITE}-security {comps}",
    )


def snapshot_epoch(date: str = SNAPSHOT) -> int:
    """``SOURCE_DATE_EPOCH`` for a snapshot date (``20250520T000000Z``)."""
    import datetime as dt

    return int(dt.datetime.strptime(date, "%Y%m%dT%H%M%SZ").replace(tzinfo=dt.UTC).timestamp())


def spec(snapshot: bool | None = None) -> RootSpec:
    """The root to build here and now (asks snapshot.debian.org unless told)."""
    if snapshot is None:
        snapshot = snapshot_reachable()
    tool = subprocess.run(MMDEBSTRAP_VERSION_CMD, capture_output=True, text=True, check=False).stdout.strip()
    return RootSpec(mirrors(snapshot), source_date_epoch=snapshot_epoch(), tool=tool)


def mmdebstrap_command(root: RootSpec, out: Path) -> list[str]:
    """The mmdebstrap call making ``out`` (a directory) for ``root``."""
    hook = 'mkdir -p "$1/boot/firmware"'
    return [
        "mmdebstrap",
        f"--arch={root.arch}",
        "--variant=apt",
        f"--components={root.components}",
        f"--include={','.join(root.packages)}",
        "--aptopt=Acquire::Check-Valid-Until false",
        "--aptopt=Acquire::Retries 3",
        "--dpkgopt=path-exclude=/usr/share/doc/*",
        "--dpkgopt=path-include=/usr/share/doc/*/copyright",
        "--dpkgopt=path-exclude=/usr/share/man/*",
        "--dpkgopt=path-exclude=/usr/share/locale/*",
        f"--setup-hook={hook}",
        f"--customize-hook={PACKAGE_LIST}",
        "--format=directory",
        root.suite,
        str(out),
        *root.mirrors,
    ]


def build(root: RootSpec, log: Callable[[str], None] = print) -> Path:
    """The cached root directory of ``root``, made when missing; returns its path.
    ``TABLEMATE_IMAGE_ROOTFS`` names a root to use instead (development)."""
    if os.environ.get("TABLEMATE_IMAGE_ROOTFS"):
        return Path(os.environ["TABLEMATE_IMAGE_ROOTFS"])
    folder = cache_root() / f"rootfs-{root.key()}"
    done = folder / "root"
    if done.is_dir():
        log(f"root filesystem from the cache ({folder})")
        return done
    if shutil.which("mmdebstrap") is None:
        raise SystemExit("image: mmdebstrap is missing (apt-get install mmdebstrap qemu-user-static binfmt-support)")
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "spec.json").write_text(json.dumps(asdict(root), indent=1, sort_keys=True))
    partial = folder / "root.partial"
    if partial.exists():
        shutil.rmtree(partial)
    env = dict(os.environ, SOURCE_DATE_EPOCH=str(root.source_date_epoch), LC_ALL="C.UTF-8")
    log(f"building the Debian {root.suite} {root.arch} root (cold: 49 min measured on 2 shared cores) into {folder}")
    subprocess.run(mmdebstrap_command(root, partial), check=True, env=env)
    partial.rename(done)
    return done


def in_chroot(root: Path, script: str, network: bool = False, env: dict[str, str] | None = None) -> None:
    """Run ``script`` (sh) chrooted in ``root`` with /proc, /dev, and a fresh /run and /tmp, in a
    mount namespace of its own (the mounts go with it: nothing stays mounted) and, unless
    ``network``, a network namespace with no network at all."""
    outer = (
        f'mount -t proc proc "{root}/proc" && mount --rbind /dev "{root}/dev" && '
        f'mount -t tmpfs tmpfs "{root}/run" && mount -t tmpfs tmpfs "{root}/tmp" && '
        f'exec chroot "{root}" /bin/sh -c "$0"'
    )
    namespaces = ["--mount", "--propagation", "private"] + ([] if network else ["--net"])
    # this machine's pip settings (an index, a folder of wheels) are not the image's
    clean = {k: v for k, v in os.environ.items() if not k.startswith("PIP_")}
    done = subprocess.run(["unshare", *namespaces, "sh", "-c", outer, script], env={**clean, **(env or {})})
    if done.returncode != 0:
        raise SystemExit(f"image: the script in the chroot {root} failed with exit status {done.returncode}")


def with_extra(base: Path, root: RootSpec, extra: tuple[str, ...] = EXTRA, log: Callable[[str], None] = print) -> Path:
    """``base`` with ``extra`` installed by apt in a chroot (the mirrors of ``root``), cached by
    both; returns the layer's root directory."""
    if not extra:
        return base
    key = hashlib.sha256(json.dumps([root.key(), list(extra)]).encode()).hexdigest()[:16]
    folder = cache_root() / f"rootfs-{key}"
    done = folder / "root"
    if done.is_dir():
        log(f"root with {', '.join(extra)} from the cache ({folder})")
        return done
    partial = folder / "root.partial"
    if partial.exists():
        shutil.rmtree(partial)
    folder.mkdir(parents=True, exist_ok=True)
    log(f"adding {', '.join(extra)} to the root (apt in a chroot) into {folder}")
    subprocess.run(["cp", "-a", "--reflink=auto", f"{base}/.", str(partial)], check=True)
    (partial / "etc/apt/sources.list").write_text("".join(line + "\n" for line in root.mirrors))
    script = (
        "set -e; export DEBIAN_FRONTEND=noninteractive LC_ALL=C.UTF-8; "
        "apt-get -qq -o Acquire::Check-Valid-Until=false update; "
        f"apt-get -qq -y --no-install-recommends install {' '.join(extra)}; "
        "dpkg-query -W -f '${Package} ${Version} ${Architecture}\\n' > /.packages.txt; "
        "apt-get clean; rm -rf /var/lib/apt/lists/*"
    )
    resolv = partial / "etc/resolv.conf"
    resolv.unlink(missing_ok=True)
    shutil.copy("/etc/resolv.conf", resolv)  # apt's names, for this step only
    in_chroot(partial, script, network=True, env={"SOURCE_DATE_EPOCH": str(root.source_date_epoch)})
    resolv.unlink()
    partial.rename(done)
    return done


if __name__ == "__main__":
    print(with_extra(build(spec()), spec()))
