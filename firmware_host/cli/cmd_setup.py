"""Setting the Pi up and keeping it well: ``install``, ``wheelhouse``, ``doctor``, ``calibrate``."""

from __future__ import annotations

import argparse
from pathlib import Path

from firmware_host.cli.common import EXIT_OK, Fail, held_store, load_config


def cmd_doctor(args: argparse.Namespace) -> int:
    """Check each part as the service sees it; one line per part with its fix."""
    from firmware_host.cli.doctor import main as doctor

    return doctor(load_config(args), args.state_dir)


def cmd_install(args: argparse.Namespace) -> int:
    """Install (or remove) the systemd service on a Raspberry Pi."""
    import os

    from firmware_host.cli.install import CommandFailed, Installer, find_source

    source = Path(args.source) if args.source else find_source(Path.cwd())
    if source is None or not (source / "systemd" / "tablemate.service").is_file():
        raise Fail("cannot find the tablemate checkout: run from it or pass --source DIR")
    root = Path(args.root)
    if str(root) == "/" and not args.dry_run and os.geteuid() != 0:
        raise Fail("needs root: run it with sudo (or use systemd/install.sh)")
    # systemd/install.sh sets TABLEMATE_CODE_CHANGED=1 when pip changed the installed package
    code_changed = os.environ.get("TABLEMATE_CODE_CHANGED") == "1"
    installer = Installer(source.resolve(), root, dry_run=args.dry_run, code_changed=code_changed)
    from firmware_host.core.folder_lock import FolderBusy

    try:
        done = installer.uninstall(args.purge) if args.uninstall else installer.install()
    except FolderBusy as exc:
        raise Fail(str(exc)) from None
    except CommandFailed as exc:  # what was done before it is shown, then the one failing command
        for line in installer.done[:-1]:
            print(line)
        raise Fail(f"{installer.done[-1]}: {exc}" if installer.done else str(exc), status=1) from None
    for line in done:
        print(("would " if args.dry_run else "") + line)
    for line in installer.notes():
        print(line)
    if not done:
        print("nothing to do: already " + ("removed" if args.uninstall else "installed"))
    return EXIT_OK


def cmd_wheelhouse(args: argparse.Namespace) -> int:
    """Fill a folder with every wheel the Pi needs, for ``install.sh --wheelhouse`` offline."""
    import subprocess

    from firmware_host.cli.install import find_source
    from firmware_host.cli.wheelhouse import main as wheelhouse

    source = Path(args.source) if args.source else find_source(Path.cwd())
    if source is None:
        raise Fail("cannot find the tablemate checkout: run from it or pass --source DIR")
    try:
        return wheelhouse(args.dir, source.resolve(), args.python, args.extra or ["pi"])
    except (RuntimeError, subprocess.CalledProcessError) as exc:
        raise Fail(f"wheelhouse: {exc}") from None


def cmd_calibrate(args: argparse.Namespace) -> int:
    """Calibrate the load cell step by step; saves ``scale.json`` in the state folder."""
    from firmware_host.cli.calibrate import Cancelled, calibrate
    from firmware_host.scale.calibration import CalibrationError

    config = load_config(args)
    with held_store(args) as store:
        try:
            calibrate(config, store, args.weight, args.sim)
        except (Cancelled, CalibrationError) as exc:
            raise Fail(str(exc)) from None
    return EXIT_OK
