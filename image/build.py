"""``python3 dev.py image``: the flashable SD-card image for 64-bit Raspberry Pis (3B, 3B+, 4, Zero 2 W).

Steps, each said as it runs, with its time:

1. the Debian 12 arm64 root (:mod:`image.rootfs`: mmdebstrap, cached by its inputs);
2. the wheelhouse for Bookworm's Python on aarch64 (``tablemate wheelhouse``, its downloads
   cached), and the checkout's committed tree (``git archive HEAD``);
3. a copy of the root, configured as Debian's raspi images are (:mod:`image.bootfiles`: labels,
   fstab, raspi-firmware's defaults and custom lines) plus the first-boot service
   (:mod:`image.firstboot`) and the image's device-tree overlays compiled with ``dtc`` into
   ``/boot/firmware/overlays`` (:mod:`image.devicetree`), then, chrooted under qemu-user with no
   network (``unshare -n``): raspi-firmware's hook fills ``/boot/firmware`` as every upgrade
   does, ``systemd/install.sh --wheelhouse`` installs tablemate offline (``tablemate install``
   enables the service and its socket; with no running systemd it starts nothing and says so);
   the card's device tree is then checked as the firmware will read it, for every board;
4. every time stamp clamped to ``SOURCE_DATE_EPOCH``, the root made into ext4 (``mkfs.ext4 -d``,
   fixed UUID and hash seed), ``/boot/firmware`` into FAT32 (``mkfs.vfat --invariant``,
   ``mcopy``), both copied into the image at their offsets (:mod:`image.disk`);
5. ``xz`` and its SHA-256; the image's path printed last.

The chroot and ``mkfs.ext4 -d`` of a root-owned tree need root (as does mmdebstrap's root mode);
nothing else does, and nothing mounts a loop device. ``dtc`` and ``fdtoverlay`` come from Debian's
``device-tree-compiler``.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path

from image import bootfiles, devicetree, disk, rootfs, shell

ROOT = Path(__file__).resolve().parent.parent
FAT_BYTES = 256 * 1024 * 1024
"""The firmware partition: kernel, initrd and device trees take ~70 MB; two kernels fit."""
ROOT_HEADROOM = 384 * 1024 * 1024
"""Free space in the root as built (the first boot grows it to the card)."""
NAMESPACE = uuid.UUID("5d1c0d2e-7a3b-4c4e-9a51-7ab1e0de0026")
"""File system ids are derived from the inputs under this namespace: the same inputs, the same ids."""


def say(text: str) -> None:
    """A progress line on stderr."""
    shell.say("image", text)


def run(cmd: list, **kwargs) -> subprocess.CompletedProcess:
    """Run ``cmd``; fail loudly naming it."""
    return shell.run("image", cmd, **kwargs)


def source_epoch() -> int:
    """``SOURCE_DATE_EPOCH``: the environment's, else the checkout's last commit's time."""
    if os.environ.get("SOURCE_DATE_EPOCH"):
        return int(os.environ["SOURCE_DATE_EPOCH"])
    out = subprocess.run(["git", "log", "-1", "--format=%ct"], cwd=ROOT, capture_output=True, text=True, check=True)
    return int(out.stdout.strip())


def commit() -> str:
    """The checkout's commit (what ``git archive`` puts in the image), ``+dirty`` when it has changes."""
    head = subprocess.run(["git", "rev-parse", "--short=12", "HEAD"], cwd=ROOT, capture_output=True, text=True)
    dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=ROOT, capture_output=True)
    return head.stdout.strip() + ("+dirty" if dirty.stdout.strip() else "")


def wheelhouse(cache: Path) -> Path:
    """The wheelhouse for Bookworm on aarch64 (the downloads kept between builds)."""
    house = cache / "wheelhouse"
    house.mkdir(parents=True, exist_ok=True)
    for lock in house.glob("requirements-*.txt"):
        lock.unlink()
    run([sys.executable, "-m", "firmware_host.cli.main", "wheelhouse", str(house), "--python", "3.11"], cwd=ROOT)
    return house


def write(stage: Path, relative: str, text: str, mode: int = 0o644) -> None:
    """A file of the image's root."""
    path = stage / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    path.chmod(mode)


def configure(stage: Path, overlays: list[str]) -> None:
    """What Debian's raspi images configure, and the first-boot service."""
    write(stage, "etc/hostname", bootfiles.HOSTNAME + "\n")
    write(stage, "etc/hosts", bootfiles.hosts())
    write(stage, "etc/fstab", bootfiles.fstab())
    write(stage, "etc/default/raspi-firmware", bootfiles.raspi_firmware_defaults())
    write(stage, "etc/default/raspi-firmware-custom", bootfiles.raspi_firmware_custom(overlays))
    for relative, text in bootfiles.NETWORKS.items():
        write(stage, relative, text)
    write(stage, "etc/systemd/system/tablemate-firstboot.service", bootfiles.FIRSTBOOT_UNIT)
    write(stage, "usr/local/lib/tablemate/firstboot.py", (ROOT / "image" / "firstboot.py").read_text(), 0o755)
    write(stage, "etc/machine-id", "")  # made at the first boot: each card its own
    for key in (stage / "etc/ssh").glob("ssh_host_*"):
        key.unlink()  # each card makes its own at its first boot


def chroot_script(overlays: list[str]) -> str:
    """What runs inside the image's root (under qemu-user, no network)."""
    return "\n".join(
        [
            "set -eu",
            "export DEBIAN_FRONTEND=noninteractive LC_ALL=C.UTF-8 PATH=/usr/sbin:/usr/bin:/sbin:/bin SOURCE_DATE_EPOCH",
            # raspi-firmware's hook: kernel, initrd, device trees, config.txt and cmdline.txt
            "DEB_MAINT_PARAMS=configure sh /etc/kernel/postinst.d/z50-raspi-firmware",
            "PYTHON=python3 sh /opt/tablemate/source/systemd/install.sh --wheelhouse /opt/tablemate/wheelhouse",
            "systemctl enable systemd-networkd.service tablemate-firstboot.service",
            "rm -rf /var/cache/apt/archives/*.deb /var/lib/apt/lists/* /var/log/*.log /root/.cache",
        ]
    )


PYC_SCRIPT = (
    "env -u SOURCE_DATE_EPOCH python3 -m compileall -q -f --invalidation-mode timestamp "
    "/usr/lib/python3.11 /usr/lib/python3/dist-packages /opt/tablemate/venv/lib/python3.11/site-packages"
)
"""Every module's byte-code made again once the time stamps are clamped, stamped with them.

Made during the install (``SOURCE_DATE_EPOCH`` set, for a reproducible image), it is
*hash-checked*: each import then opens and hashes the source beside its ``.pyc`` -- two files
opened a module, ~450 modules a start, each open a millisecond and more on the emulated board. A
time stamp is as reproducible once the sources' times are clamped (it records the clamped time
and the size) and costs one ``stat``; an edited source is still noticed (its time changes), and
apt and pip write byte-code again for what they install."""


def clamp_times(stage: Path, epoch: int) -> None:
    """Every file's time stamp at most ``epoch`` (reproducible file systems)."""
    run(
        [
            "find",
            str(stage),
            "-newermt",
            f"@{epoch}",
            "-exec",
            "touch",
            "--no-dereference",
            "--date",
            f"@{epoch}",
            "{}",
            "+",
        ]
    )


def make_fat(folder: Path, out: Path, volume_id: int, epoch: int) -> None:
    """FAT32 of ``folder``'s files, labelled ``RASPIFIRM``, with fixed ids and times."""
    out.unlink(missing_ok=True)
    run(
        [
            "mkfs.vfat",
            "-F",
            "32",
            "-n",
            bootfiles.FIRMWARE_LABEL,
            "-i",
            f"{volume_id:08x}",
            "--invariant",
            "-C",
            str(out),
            str(FAT_BYTES // 1024),
        ],
        stdout=subprocess.DEVNULL,
    )
    env = dict(os.environ, SOURCE_DATE_EPOCH=str(epoch), MTOOLS_SKIP_CHECK="1")
    items = sorted(str(p) for p in folder.iterdir())
    run(["mcopy", "-i", str(out), "-s", "-p", "-m", "-Q", *items, "::/"], env=env)


def make_ext4(stage: Path, out: Path, fs_uuid: uuid.UUID, epoch: int) -> None:
    """ext4 of ``stage``, labelled ``RASPIROOT``, sized to its content plus headroom."""
    used = int(run(["du", "-sb", "--apparent-size", str(stage)], capture_output=True, text=True).stdout.split()[0])
    size = disk.align_up(int(used * 1.15) + ROOT_HEADROOM)
    out.unlink(missing_ok=True)
    env = dict(os.environ, E2FSPROGS_FAKE_TIME=str(epoch))
    run(
        [
            "mkfs.ext4",
            "-q",
            "-F",
            "-L",
            bootfiles.ROOT_LABEL,
            "-U",
            str(fs_uuid),
            "-E",
            f"hash_seed={fs_uuid},root_owner=0:0",
            "-d",
            str(stage),
            str(out),
            f"{size // 1024}k",
        ],
        env=env,
    )


def verify_tree(firmware: Path, work: Path) -> None:
    """The card's device tree read as the firmware reads it, for every board the image supports
    (:mod:`image.devicetree`): the config.txt the hook wrote, Debian's trees it copied, the
    overlays; the build stops on any failure."""
    findings = devicetree.check_card(firmware, work)
    failed = [f.line() for f in findings if not f.ok]
    if failed:
        raise SystemExit("image: the card's device tree is not what the table needs:\n  " + "\n  ".join(failed))
    boards = sorted({f.board for f in findings})
    say(f"device tree checked as the firmware reads it ({len(findings)} checks ok on {', '.join(boards)})")


def sha256(path: Path) -> str:
    """The file's SHA-256, hex."""
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        while block := fh.read(1 << 20):
            digest.update(block)
    return digest.hexdigest()


def build(out_dir: Path, snapshot: bool | None, compress: bool = True) -> Path:
    """Build the image into ``out_dir``; returns the compressed image's path (with ``compress``
    false, the raw image's: for ``dev.py vm`` at once, 14 min of ``xz`` on 2 busy cores saved)."""
    started = time.monotonic()
    cache = rootfs.cache_root()
    # the commit is taken now: one committed while the root builds (half an hour cold) is not in it
    made_of = commit()
    rev = made_of.removesuffix("+dirty")
    epoch = source_epoch()
    spec = rootfs.spec(snapshot)
    dated = "a dated snapshot" if "snapshot" in spec.mirrors[0] else "as it is today"
    say(f"packages from {spec.mirrors[0].split()[1]} ({dated})")
    t = time.monotonic()
    root = rootfs.with_extra(rootfs.build(spec, say), spec, log=say)
    say(f"root filesystem ready ({time.monotonic() - t:.0f} s)")

    t = time.monotonic()
    house = wheelhouse(cache)
    say(f"wheelhouse ready ({time.monotonic() - t:.0f} s)")

    work = cache / "work"
    stage = work / "stage"
    if stage.exists():
        shutil.rmtree(stage)
    work.mkdir(parents=True, exist_ok=True)
    t = time.monotonic()
    run(["cp", "-a", "--reflink=auto", f"{root}/.", str(stage)])
    shell.checkout_tree(stage / "opt/tablemate/source", rev)
    shutil.copytree(house, stage / "opt/tablemate/wheelhouse")
    from firmware_host.cli.install import scale_boot_lines

    overlays = scale_boot_lines(ROOT / "hardware" / "config.toml")
    configure(stage, overlays)
    # the image's overlays for Debian's trees, before the hook runs: it keeps them, as at an upgrade
    compiled = devicetree.compile_overlays(stage / "boot/firmware/overlays")
    say(f"root copied and configured, overlays compiled: {', '.join(compiled)} ({time.monotonic() - t:.0f} s)")
    t = time.monotonic()
    # SOURCE_DATE_EPOCH makes pip's byte-code hash-checked (py_compile's default then): it stays
    # valid when the time stamps are clamped below; a time-stamped .pyc would go stale, and the
    # service (ProtectSystem=strict) would compile every module from source at every start
    rootfs.in_chroot(stage, chroot_script(overlays), env={"SOURCE_DATE_EPOCH": str(epoch)})
    say(f"tablemate installed offline in the image ({time.monotonic() - t:.0f} s)")

    firmware = work / "firmware"
    if firmware.exists():
        shutil.rmtree(firmware)
    shutil.move(stage / "boot/firmware", firmware)
    (stage / "boot/firmware").mkdir()
    (firmware / "tablemate-firstboot.toml.example").write_text(bootfiles.FIRSTBOOT_EXAMPLE, encoding="utf-8")
    verify_tree(firmware, work / "devicetree")
    manifest = (stage / ".packages.txt").read_text(encoding="utf-8")
    (stage / ".packages.txt").unlink()
    clamp_times(stage, epoch)
    t = time.monotonic()
    rootfs.in_chroot(stage, PYC_SCRIPT)
    clamp_times(stage, epoch)  # the new .pyc files' own time stamps
    say(f"byte-code made for the sources' time stamps ({time.monotonic() - t:.0f} s)")
    clamp_times(firmware, epoch)

    t = time.monotonic()
    key = f"{spec.key()}-{made_of}-{epoch}"
    fs_uuid = uuid.uuid5(NAMESPACE, key)
    make_ext4(stage, work / "root.ext4", fs_uuid, epoch)
    make_fat(firmware, work / "firmware.vfat", fs_uuid.int & 0xFFFFFFFF, epoch)
    parts = disk.layout((work / "firmware.vfat").stat().st_size, (work / "root.ext4").stat().st_size)
    raw = work / "tablemate.img"
    disk.assemble(raw, parts, [work / "firmware.vfat", work / "root.ext4"], (fs_uuid.int >> 32) & 0xFFFFFFFF)
    say(f"file systems made and placed ({time.monotonic() - t:.0f} s): {raw.stat().st_size / 2**20:.0f} MiB")

    t = time.monotonic()
    out_dir.mkdir(parents=True, exist_ok=True)
    name = f"tablemate-{made_of}-bookworm-arm64.img"
    if not compress:
        final = out_dir / name
        os.replace(raw, final)
        (out_dir / f"{name}.packages.txt").write_text(manifest, encoding="utf-8")
        (out_dir / f"{name}.sha256").write_text(f"{sha256(final)}  {name}\n", encoding="utf-8")
        say(f"done in {(time.monotonic() - started) / 60:.1f} min, not compressed")
        return final
    final = out_dir / f"{name}.xz"
    with open(final, "wb") as fh:
        run(["xz", "-T0", "-6", "--stdout", str(raw)], stdout=fh)
    (out_dir / f"{name}.xz.sha256").write_text(f"{sha256(final)}  {final.name}\n", encoding="utf-8")
    (out_dir / f"{name}.packages.txt").write_text(manifest, encoding="utf-8")
    (out_dir / f"{name}.sha256").write_text(f"{sha256(raw)}  {name}\n", encoding="utf-8")
    size = final.stat().st_size / 2**20
    say(f"compressed ({time.monotonic() - t:.0f} s): {size:.0f} MiB, sha256 {sha256(final)[:16]}…")
    say(f"done in {(time.monotonic() - started) / 60:.1f} min (raw image kept for `dev.py vm`: {raw})")
    return final


def main(argv: list[str] | None = None) -> int:
    """``dev.py image [--out DIR] [--snapshot | --no-snapshot]``."""
    parser = argparse.ArgumentParser(prog="dev.py image", description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(rootfs.cache_root() / "out"), help="where the image goes")
    parser.add_argument(
        "--snapshot",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="packages from snapshot.debian.org (default: when it answers)",
    )
    parser.add_argument(
        "--compress",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="xz the image (default; --no-compress leaves the raw .img, for dev.py vm at once)",
    )
    args = parser.parse_args(argv)
    final = build(Path(args.out), args.snapshot, args.compress)
    print(final)
    return 0


if __name__ == "__main__":
    sys.exit(main())
