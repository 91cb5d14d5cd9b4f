"""What the image's tools share: run a command, loudly, copy the checkout, boot a kernel in QEMU."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


def say(who: str, text: str) -> None:
    """One progress line on stderr (stdout is kept for results)."""
    print(f"{who}: {text}", file=sys.stderr, flush=True)


def run(who: str, cmd: list[Any], **kwargs: Any) -> subprocess.CompletedProcess:
    """Run ``cmd``; on failure stop with one line naming it and its exit status."""
    done = subprocess.run([str(c) for c in cmd], check=False, **kwargs)
    if done.returncode != 0:
        raise SystemExit(f"{who}: `{' '.join(map(str, cmd))[:200]}` failed with exit status {done.returncode}")
    return done


def checkout_tree(dest: Path, rev: str = "HEAD") -> None:
    """The checkout's committed tree (``git archive REV``) into ``dest``: what was committed, nothing else."""
    dest.mkdir(parents=True, exist_ok=True)
    archive = subprocess.run(["git", "archive", "--format=tar", rev], cwd=ROOT, capture_output=True, check=True)
    run("image", ["tar", "-x", "-C", dest], input=archive.stdout)


def kernel_boot(kernel: Path, initrd: Path, append: str) -> list[str]:
    """QEMU's arguments booting ``kernel`` and ``initrd`` directly with the command line
    ``append``: no screen, no monitor, no reboot (a reboot ends the run)."""
    return [
        *("-nographic", "-no-reboot", "-monitor", "none"),
        *("-kernel", str(kernel), "-initrd", str(initrd), "-append", append),
    ]
