"""``python3 dev.py vm --board raspi3b``: the same image on QEMU's ``raspi3b``, the BCM2837 of the
Pi 3B (the SoC of the 3B+ and, as the RP3A0, of the Zero 2 W too).

What the Pi's firmware would do, done on the host, since QEMU boots the kernel directly:

- **the card**: the image behind a throw-away qcow2 overlay whose size is the next power of two
  (QEMU's SD card wants one; the first boot grows the root into the rest, as on a real card);
- **the tree**: the card's own ``bcm2837-rpi-3-b.dtb`` with the ``dtoverlay=`` lines of its own
  ``config.txt`` applied (:func:`image.devicetree.firmware_tree`, ``fdtoverlay``), plus what the
  firmware adds: ``/system/linux,revision`` (the 3B's, a02082, which QEMU's board also reports)
  and ``/system/linux,serial``;
- **the command line**: the card's own ``cmdline.txt``, and the checks' words after it.

The board has no virtio: the checks (``image/guest.sh``, the same disk as ``virt``'s) come on an
emulated USB stick, their answers go out through an emulated USB serial adapter (an FTDI,
``/dev/ttyUSB0`` in the guest; the tower's udev rule names only CH340 and CP210x chips, so the
service leaves it alone). The kernel's console stays where the card puts it (``tty0``: the screen,
which ``-nographic`` drops) unless ``--console`` puts it on the PL011 too.

What QEMU 7.2's ``raspi3b`` does not model, so what this boot cannot show: I2C and SPI transfers
(the BSC and the auxiliary SPI are registers that answer nothing: no panel, no HX711), the
GPIO pins' electrical side (nothing can press a button), the Pi 4's BCM2711 (no ``raspi4b``
before QEMU 9), Wi-Fi, Bluetooth, Ethernet, the firmware itself (its ``config.txt`` is read by
:mod:`image.devicetree` instead), and real timing (four emulated Cortex-A53 on the host's cores).
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from image import devicetree, disk, shell

BOARD = "Pi 3B"
"""The board QEMU's ``raspi3b`` is, by :data:`image.devicetree.TREES`."""
REVISION = 0xA02082
"""The 3B's revision code (1 GB, Sony UK), which QEMU's mailbox also answers."""
SERIAL = 0x00000000_7AB1E0DE
"""A serial number for ``/system/linux,serial`` (the firmware puts the SoC's there)."""


def say(text: str) -> None:
    """A progress line on stderr."""
    shell.say("vm", text)


def firmware_files(raw: Path, dest: Path) -> Path:
    """The card's FAT partition's files (``config.txt``, ``cmdline.txt``, the trees, ``overlays/``),
    read with ``mtools`` at the partition's offset: no mount."""
    with open(raw, "rb") as fh:
        parts = disk.read_mbr(fh.read(512))
    fat = next(p for p in parts if p.kind == disk.FAT32_LBA)
    dest.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, MTOOLS_SKIP_CHECK="1")
    image = f"{raw}@@{fat.offset}"
    listing = shell.run("vm", ["mdir", "-b", "-i", image, "::/"], capture_output=True, text=True, env=env).stdout
    names = [line.strip().removeprefix("::/") for line in listing.splitlines() if line.strip()]
    wanted = [n for n in names if not n.startswith(("vmlinuz", "initrd"))]  # those come from /boot
    shell.run("vm", ["mcopy", "-s", "-n", "-i", image, *(f"::/{n}" for n in wanted), str(dest)], env=env)
    return dest


def card(raw: Path, work: Path) -> Path:
    """The throw-away SD card: a qcow2 overlay of the image, its size the next power of two."""
    size = 1 << (raw.stat().st_size - 1).bit_length()
    out = work / "card.qcow2"
    backing = ["-b", str(raw.resolve()), "-F", "raw"]
    shell.run("vm", ["qemu-img", "create", "-q", "-f", "qcow2", *backing, str(out), str(size)])
    return out


def tree(fat: Path, work: Path) -> Path:
    """The tree the firmware would hand a Pi 3B's kernel from this card."""
    return devicetree.firmware_tree(fat, BOARD, work / "handed-over.dtb", REVISION, SERIAL)


def command_line(fat: Path, console: bool = False) -> str:
    """The card's ``cmdline.txt`` (what the firmware passes on) and the checks' words: started by
    systemd from the USB stick once udev has named it, answering on ``ttyUSB0``. With ``console``
    the kernel's console goes to the PL011 too (the doctor's ``uart`` line then rightly names it)."""
    card_line = (fat / "cmdline.txt").read_text(encoding="utf-8").split("\n")[0].strip()
    stick = "/dev/disk/by-label/TMCHECK"
    command = f"/bin/sh -c 'udevadm wait --timeout=900 {stick} && mount -o ro {stick} /mnt && exec sh /mnt/guest.sh'"
    return (
        f"{card_line}{' console=ttyAMA0,115200' if console else ''} tablemate.vmcheck=raspi3b "
        f'tablemate.port=ttyUSB0 systemd.run="{command}" systemd.run_success_action=none '
        "systemd.run_failure_action=none"
    )


def argv(
    kernel: Path, initrd: Path, dtb: Path, sd: Path, tools: Path, cmdline: str, results: Path, console: Path
) -> list[str]:
    """QEMU's ``raspi3b`` booting the image's kernel with the firmware's tree, the card on its SD
    host, the checks on a USB stick, their answers on a USB serial adapter."""
    return [
        "qemu-system-aarch64",
        "-M",
        "raspi3b",
        *shell.kernel_boot(kernel, initrd, cmdline),
        "-dtb",
        str(dtb),
        "-drive",
        f"file={sd},if=sd,format=qcow2,cache=writeback",
        "-drive",
        f"file={tools},if=none,id=checks,format=raw,readonly=on",
        "-device",
        "usb-storage,drive=checks",
        "-chardev",
        f"file,id=results,path={results}",
        "-device",
        "usb-serial,chardev=results",
        "-serial",
        f"file:{console}",
    ]


def qemu_version() -> str:
    """``qemu-system-aarch64 --version``'s first line."""
    done = subprocess.run(["qemu-system-aarch64", "--version"], capture_output=True, text=True)
    return done.stdout.splitlines()[0] if done.stdout else "qemu-system-aarch64: not found"
