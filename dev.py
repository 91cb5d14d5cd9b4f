#!/usr/bin/env python3
"""Set up and run tablemate on a fresh machine with nothing but Python 3.11+ and pip.

    python3 dev.py sim      # set up, then play in the terminal simulator
    python3 dev.py test     # set up, then run the linter and the test suite
    python3 dev.py image    # build the SD-card image for 64-bit Pis (image/build.py; needs root)
    python3 dev.py vm       # boot that image on an emulated board (virt; --board raspi3b) and check it

Setting up makes ``.venv`` beside this file and installs the project into it (with the test
tools); it is skipped when ``pyproject.toml`` has not changed since the last time. Anything after
the command goes to ``tablemate sim``, ``pytest``, ``image/build.py`` or ``image/vm.py``.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
BIN = VENV / ("Scripts" if os.name == "nt" else "bin")
STAMP = VENV / ".tablemate-installed"


def setup() -> None:
    """Create the virtual environment and install the project, once per pyproject change."""
    want = hashlib.sha256((ROOT / "pyproject.toml").read_bytes()).hexdigest()
    if STAMP.exists() and STAMP.read_text() == want and (BIN / "tablemate").exists():
        return
    if not (BIN / "python").exists():
        print("dev.py: creating .venv", flush=True)
        venv.EnvBuilder(with_pip=True).create(VENV)
    print("dev.py: installing tablemate and its test tools into .venv", flush=True)
    pip = [str(BIN / "python"), "-m", "pip", "install", "--disable-pip-version-check", "-q"]
    subprocess.run([*pip, "-e", f"{ROOT}[test]"], check=True, cwd=ROOT)
    STAMP.write_text(want)


COMMANDS = {"sim": None, "test": None, "image": "image.build", "vm": "image.vm"}
"""Each command, and the module of the longer ones (neither is part of the test suite)."""


def main() -> int:
    """Run ``sim``, ``test``, ``image`` or ``vm``."""
    if sys.version_info < (3, 11):  # noqa: UP036 - a friendly message on an old Python
        sys.exit("tablemate needs Python 3.11 or newer")
    if len(sys.argv) < 2 or sys.argv[1] not in COMMANDS:
        print(__doc__.strip())
        return 2
    command, rest = sys.argv[1], sys.argv[2:]
    setup()
    if COMMANDS[command]:
        return subprocess.call([str(BIN / "python"), "-m", COMMANDS[command], *rest], cwd=ROOT)
    if command == "sim":
        return subprocess.call([str(BIN / "tablemate"), "sim", *rest], cwd=ROOT)
    lint = subprocess.call([str(BIN / "ruff"), "check", "."], cwd=ROOT)
    tests = subprocess.call([str(BIN / "python"), "-m", "pytest", *rest], cwd=ROOT)
    return tests or lint


if __name__ == "__main__":
    sys.exit(main())
