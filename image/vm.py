"""``python3 dev.py vm [IMAGE]``: boot the SD-card image on an emulated arm64 board and check it from inside.

*That same image*: its raw disk (behind a throw-away qcow2 overlay, so the image is never
changed) is the VM's first disk; the kernel and initrd come from its own root partition's
``/boot`` (read with ``debugfs``, no mount). QEMU's ``virt`` board with a Cortex-A72, no network
device at all. A second disk (ext4, label ``TMCHECK``, made with ``mkfs.ext4 -d``) carries the
checks (``image/guest.sh``), the checkout's committed tree (its tests), the wheelhouse, the test
tools' wheels and strace; systemd starts the checks from the kernel's command line
(``systemd.run=``), and they answer one line a check on a virtio serial port
(:mod:`image.checks`). Two boots: the first runs the checks and ends with a game in the service,
then QEMU is killed (the power cut); the second checks the game came back, finishes it, and
installs tablemate again from scratch with no network.

``--board raspi3b`` boots the same image on QEMU's BCM2837 instead, with the device tree the
Pi's firmware would hand over, and checks what only the Pi's own SoC shows: its GPIO block, SPI1's
``/dev/spidev1.0``, I2C1 at 400 kHz, the buttons held through the product's own pin factory
(:mod:`image.raspi` says how the checks get in and out, and what that board does not model).

Prints each check as it comes, then the table the README keeps; exit status 0 only when every
check is ok. What is built for it (the check disk's downloads, the decompressed image) is cached
under ``~/.cache/tablemate-image/vm``.
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

from image import checks, devicetree, disk, raspi, rootfs, shell

ROOT = Path(__file__).resolve().parent.parent
PHASE_TIMEOUT = 45 * 60
TEST_WHEELS = ("pytest>=8", "pyseccomp>=0.1.2")
GUEST_DEBS = ("strace", "libunwind8")
"""The checks' own .debs: strace and what it needs that the image lacks (its libunwind8)."""
"""Debian packages the checks install in the VM (strace: the aarch64 call list)."""


def say(text: str) -> None:
    """A progress line on stderr."""
    shell.say("vm", text)


def run(cmd: list, **kwargs) -> subprocess.CompletedProcess:
    """Run ``cmd``; fail loudly naming it."""
    return shell.run("vm", cmd, **kwargs)


def newest_image() -> Path:
    """The newest image ``dev.py image`` made (compressed or not)."""
    out = rootfs.cache_root() / "out"
    found = sorted([*out.glob("*.img.xz"), *out.glob("*.img")], key=lambda p: p.stat().st_mtime)
    if not found:
        raise SystemExit("vm: no image yet: python3 dev.py image")
    return found[-1]


def raw_image(image: Path, cache: Path) -> Path:
    """The image uncompressed (decompressed once into the cache, by the compressed file's checksum)."""
    if image.suffix != ".xz":
        return image
    sums = image.with_name(image.name + ".sha256")
    key = sums.read_text().split()[0][:16] if sums.exists() else f"{image.stat().st_size}-{int(image.stat().st_mtime)}"
    raw = cache / f"disk-{key}.img"
    if not raw.exists():
        say(f"decompressing {image.name}")
        partial = raw.with_suffix(".partial")
        with open(partial, "wb") as fh:
            run(["xz", "-dc", "-T0", str(image)], stdout=fh)
        partial.rename(raw)
    return raw


def boot_files(raw: Path, dest: Path) -> tuple[Path, Path]:
    """The kernel and initrd of the image's own ``/boot``, read from its root partition."""
    with open(raw, "rb") as fh:
        parts = disk.read_mbr(fh.read(512))
    root = next(p for p in parts if p.kind == disk.LINUX)
    fs = f"{raw}?offset={root.offset}"
    listing = run(["debugfs", "-R", "ls -p /boot", fs], capture_output=True, text=True).stdout
    names = sorted({line.split("/")[5] for line in listing.splitlines() if line.count("/") >= 6})
    kernel = next(n for n in reversed(names) if n.startswith("vmlinuz-"))
    initrd = "initrd.img-" + kernel.removeprefix("vmlinuz-")
    for name in (kernel, initrd):
        run(["debugfs", "-R", f"dump /boot/{name} {dest / name}", fs], capture_output=True)
        if not (dest / name).exists() or not (dest / name).stat().st_size:
            raise SystemExit(f"vm: the image's root has no /boot/{name}")
    return dest / kernel, dest / initrd


def guest_debs(dest: Path) -> None:
    """The arm64 .deb files the checks install, fetched with apt into a folder of their own (the
    machine's own apt state is not touched)."""
    if all(any(dest.glob(f"{package}_*_arm64.deb")) for package in GUEST_DEBS):
        return
    state = dest / ".apt"
    for sub in ("lists/partial", "cache/archives/partial"):
        (state / sub).mkdir(parents=True, exist_ok=True)
    sources = state / "sources.list"
    sources.write_text("".join(line + "\n" for line in rootfs.mirrors(False)))
    opts = [
        "-o",
        f"Dir::State::Lists={state / 'lists'}",
        "-o",
        f"Dir::Cache={state / 'cache'}",
        "-o",
        f"Dir::Etc::SourceList={sources}",
        "-o",
        "Dir::Etc::SourceParts=/dev/null",
        "-o",
        "APT::Architecture=arm64",
        "-o",
        "APT::Architectures=arm64",
        "-o",
        "Debug::NoLocking=1",
    ]
    run(["apt-get", *opts, "-qq", "update"])
    run(["apt-get", *opts, "-qq", "download", *(f"{p}:arm64" for p in GUEST_DEBS)], cwd=dest)


def test_wheels(dest: Path) -> None:
    """pytest and pyseccomp (pure Python) and what they need, for CPython 3.11 on aarch64."""
    if any(dest.glob("pytest-*.whl")):
        return
    run(
        [
            sys.executable,
            "-m",
            "pip",
            "download",
            "--quiet",
            "--only-binary=:all:",
            "--dest",
            str(dest),
            "--platform=manylinux_2_36_aarch64",
            "--python-version=3.11",
            "--implementation=cp",
            "--abi=cp311",
            "--abi=none",
            *TEST_WHEELS,
        ]
    )


def check_disk(cache: Path, out: Path) -> Path:
    """The second disk: the checks, the checkout's tests, the wheels and debs they need."""
    folder = cache / "checkdisk"
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    shutil.copy(ROOT / "image" / "guest.sh", folder / "guest.sh")
    shell.checkout_tree(folder / "source")
    shutil.copytree(rootfs.cache_root() / "wheelhouse", folder / "wheelhouse")
    for sub, fill in (("testwheels", test_wheels), ("debs", guest_debs)):
        kept = cache / sub
        kept.mkdir(parents=True, exist_ok=True)
        fill(kept)
        shutil.copytree(kept, folder / sub, ignore=shutil.ignore_patterns(".apt"))
    out.unlink(missing_ok=True)
    run(["mkfs.ext4", "-q", "-F", "-L", "TMCHECK", "-d", str(folder), str(out), "1500M"])
    return out


def virt_argv(
    kernel: Path, initrd: Path, overlay: Path, tools: Path, phase: int, derive: bool, results: Path, console: Path
) -> list[str]:
    """QEMU's ``virt`` board booting the image's kernel on its disk, the checks on a second disk
    and their answers on a virtio serial port."""
    command = "/bin/sh -c 'mount -o ro /dev/vdb /mnt && exec sh /mnt/guest.sh'"
    append = (
        f"root=LABEL=RASPIROOT rw rootwait console=ttyAMA0 tablemate.vmcheck={phase} "
        f'systemd.run="{command}" systemd.run_success_action=none systemd.run_failure_action=none'
        + (" tablemate.derive=1" if derive else "")
    )
    return [
        "qemu-system-aarch64",
        "-M",
        "virt",
        "-cpu",
        "cortex-a72",
        "-smp",
        "2",
        "-m",
        "2048",
        "-nic",
        "none",
        *shell.kernel_boot(kernel, initrd, append),
        "-drive",
        f"file={overlay},if=virtio,format=qcow2,cache=writeback",
        "-drive",
        f"file={tools},if=virtio,format=raw,readonly=on",
        "-device",
        "virtio-serial-pci",
        "-chardev",
        f"file,id=results,path={results}",
        "-device",
        "virtserialport,chardev=results,name=results",
        "-serial",
        f"file:{console}",
    ]


class Guest:
    """One boot of an emulated board, its results read from the port's file as they come."""

    def __init__(self, work: Path, label: str, argv: Callable[[Path, Path], list[str]]):
        """``argv(results, console)``: the QEMU command writing the checks' lines to ``results``
        and the console to ``console``."""
        self.results_file = work / f"results-{label}.txt"
        self.console = work / f"console-{label}.log"
        self.results_file.write_text("")
        self.argv = argv(self.results_file, self.console)
        self.proc: subprocess.Popen | None = None
        self.lines: list[str] = []

    def run(self, on_line, timeout: float = PHASE_TIMEOUT) -> str:
        """Boot, hand every line to ``on_line`` until it returns a word to stop on (``cut``,
        ``done``); returns that word, or ``timeout`` / ``exited``."""
        self.proc = subprocess.Popen(self.argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
        end, word = time.monotonic() + timeout, "timeout"
        with open(self.results_file, "rb") as fh:
            while time.monotonic() < end:
                chunk = fh.readline()
                if chunk.endswith(b"\n"):
                    stop = on_line(chunk.decode(errors="replace"))
                    if stop:
                        word = stop
                        break
                    continue
                fh.seek(-len(chunk), os.SEEK_CUR)
                if self.proc.poll() is not None:
                    word = "exited"
                    break
                time.sleep(0.5)
        return word

    def kill(self) -> None:
        """Pull the plug: SIGKILL, nothing flushed, nothing shut down."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait()

    def wait(self, seconds: float) -> None:
        """Let it power off on its own, else kill it."""
        if self.proc is None:
            return
        try:
            self.proc.wait(seconds)
        except subprocess.TimeoutExpired:
            self.kill()


class Lines:
    """The guest's lines as they come: results printed at once, ``@@`` lines kept and shown."""

    def __init__(self) -> None:
        self.results: list[checks.Result] = []
        self.controls: list[checks.Control] = []

    def __call__(self, text: str) -> str | None:
        """Take one line; the word to stop on (``cut``, ``done``) or ``None``."""
        parsed = checks.parse(text)
        if isinstance(parsed, checks.Result):
            self.results.append(parsed)
            print(parsed.line(), flush=True)
        elif isinstance(parsed, checks.Control):
            self.controls.append(parsed)
            if parsed.word in ("cut", "done"):
                return parsed.word
            say(f"guest: {parsed.word} {parsed.rest}"[:300])
        return None


def boot_virt(
    raw: Path, work: Path, kernel: Path, initrd: Path, tools: Path, lines: Lines, derive: bool
) -> list[float]:
    """``virt``: two boots, the power cut between them; the seconds of each."""
    overlay = work / "overlay.qcow2"
    run(["qemu-img", "create", "-q", "-f", "qcow2", "-b", str(raw.resolve()), "-F", "raw", str(overlay)])
    phase_times = []
    for phase in (1, 2):
        t = time.monotonic()
        argv = partial(virt_argv, kernel, initrd, overlay, tools, phase, derive and phase == 2)
        guest = Guest(work, str(phase), argv)  # guest.sh records the calls (derive) in its second boot
        word = guest.run(lines)
        if phase == 1:
            guest.kill()  # the power cut (or the end of a run that went wrong)
            say(f"phase 1: {word}; QEMU killed (the power cut) after {time.monotonic() - t:.0f} s")
            if word != "cut":
                break
        else:
            guest.wait(180)
            say(f"phase 2: {word} after {time.monotonic() - t:.0f} s")
        phase_times.append(time.monotonic() - t)
    return phase_times


def boot_raspi3b(
    raw: Path, work: Path, kernel: Path, initrd: Path, tools: Path, lines: Lines, console: bool
) -> list[float]:
    """``raspi3b``: one boot of the card with the tree the firmware would hand over (:mod:`image.raspi`)."""
    fat = raspi.firmware_files(raw, work / "firmware")
    dtb = raspi.tree(fat, work)
    sd = raspi.card(raw, work)
    overlays = devicetree.firmware_boot(fat, devicetree.board(raspi.BOARD)).overlays
    say(f"{raspi.qemu_version()}; the {raspi.BOARD}'s tree with {', '.join(overlays)} applied")
    t = time.monotonic()
    cmdline = raspi.command_line(fat, console)
    guest = Guest(work, "raspi3b", partial(raspi.argv, kernel, initrd, dtb, sd, tools, cmdline))
    word = guest.run(lines)
    guest.wait(180)
    say(f"raspi3b: {word} after {time.monotonic() - t:.0f} s")
    return [time.monotonic() - t]


def main(argv: list[str] | None = None) -> int:
    """Boot the image and print the checks' table; 0 when every check is ok."""
    parser = argparse.ArgumentParser(prog="dev.py vm", description=__doc__.splitlines()[0])
    parser.add_argument("image", nargs="?", help="the image (.img.xz or .img; default: the newest dev.py image made)")
    parser.add_argument(
        "--board",
        choices=("virt", "raspi3b"),
        default="virt",
        help="virt: QEMU's generic board, two boots and a power cut (default); raspi3b: the Pi 3B's BCM2837",
    )
    parser.add_argument(
        "--derive", action="store_true", help="virt: also record aarch64's system calls (strace, ~10 min)"
    )
    parser.add_argument(
        "--console",
        action="store_true",
        help="raspi3b: the kernel's console on the PL011 too, in console-raspi3b.log (the card's own is tty0)",
    )
    args = parser.parse_args(argv)
    started = time.monotonic()
    cache = rootfs.cache_root() / "vm"
    cache.mkdir(parents=True, exist_ok=True)
    image = Path(args.image) if args.image else newest_image()
    say(f"image {image}")
    raw = raw_image(image, cache)
    work = Path(tempfile.mkdtemp(prefix="tablemate-vm-"))
    kernel, initrd = boot_files(raw, work)
    tools = check_disk(cache, cache / "checkdisk.ext4")
    say(f"prepared in {time.monotonic() - started:.0f} s; booting {kernel.name} on {args.board} (work files in {work})")
    lines = Lines()
    if args.board == "raspi3b":
        boot_times = boot_raspi3b(raw, work, kernel, initrd, tools, lines, args.console)
        expected = checks.EXPECTED_RASPI3B
    else:
        boot_times = boot_virt(raw, work, kernel, initrd, tools, lines, args.derive)
        lines.results.append(checks.start_ready(checks.timings(lines.controls)))
        expected = (*checks.EXPECTED, "syscalls-aarch64") if args.derive else checks.EXPECTED
    final = checks.verdict(lines.results, expected)
    for c in lines.controls:
        if c.word == "calls":
            print(f"calls {c.rest}")
    print()
    print(checks.table(final))
    print()
    minutes = (time.monotonic() - started) / 60
    print(
        f"{sum(r.ok for r in final)}/{len(final)} checks ok on {args.board} in {minutes:.1f} min "
        f"(boots: {', '.join(f'{s / 60:.1f} min' for s in boot_times)}); console logs in {work}"
    )
    return 0 if all(r.ok for r in final) else 1


if __name__ == "__main__":
    threading.current_thread().name = "vm"
    sys.exit(main())
