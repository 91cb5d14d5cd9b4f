"""Playing: ``run`` (the device, real or ``--sim``, with its page) and ``sim`` (the simulator in a
terminal, or a ``--script`` on virtual time, whose output is fixed by ``docs/commands.md``).
"""

from __future__ import annotations

import argparse
import logging
from pathlib import Path
from typing import TYPE_CHECKING, Any

from firmware_host.cli.common import EXIT_OK, Fail, held_store, load_config, say

if TYPE_CHECKING:
    from firmware_host.core import config as configuration
    from firmware_host.core.store import Store


def cmd_run(args: argparse.Namespace) -> int:
    """Run the device: real hardware, or simulated with ``--sim``."""
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    try:
        config = load_config(args)
    except Fail as exc:
        if not args.sim:
            from firmware_host.runtime.errors import show_on_display

            show_on_display(args.config, str(exc))
        raise
    if args.sim:
        config = config.with_sim()
    with held_store(args) as store:
        from firmware_host.runtime import sdnotify

        # READY now: the rest of the start (the device's modules, its parts, the resume; seconds
        # on a slow board) cannot fail the unit, only degrade a part; STATUS=ready says it is up.
        # A stop asked from here on is kept until the device can stop cleanly.
        _keep_stop_requests()
        sdnotify.notify(sdnotify.STARTING)
        return _serve(config, store)


_stop_requests: list[int] = []
"""SIGTERM or SIGINT received while the device was still starting (before its own handlers)."""


def _keep_stop_requests() -> None:
    """Until the device's own handlers: the first SIGTERM or SIGINT is kept (the device stops
    cleanly once up), a second one stops the start there and then (a start stuck in a driver)."""
    import signal

    _stop_requests.clear()

    def keep(number: int, _frame: object) -> None:
        if _stop_requests:
            raise KeyboardInterrupt
        _stop_requests.append(number)

    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, keep)


def _serve(config: configuration.Config, store: Store) -> int:
    """Run the device on ``store`` until it stops; exit 2 with one line when a save failed."""
    import asyncio

    from firmware_host.runtime.device import Device
    from firmware_host.runtime.events import PageServing
    from firmware_host.runtime.hardware import preload
    from firmware_host.runtime.hub import Listener

    preload(config)  # the drivers' modules imported before the loop runs, not on it
    # the page is one of the device's parts: it starts once the table is up, and says where it serves
    said = Listener(PageServing, lambda page: say(f"tablemate run: companion page at {page.url}"))
    device = Device(config, store, signals_on=True, served=True, extra=[("page address", said)])

    async def serve() -> None:
        run = asyncio.create_task(device.run())
        ready = asyncio.create_task(device.ready.wait())
        await asyncio.wait([run, ready], return_when=asyncio.FIRST_COMPLETED)
        if _stop_requests:  # asked while starting: the device's own handlers came after it
            device.stop()
        ready.cancel()
        await run

    asyncio.run(serve())
    return _saves_said(device, store)


def _saves_said(device: Any, store: Store) -> int:
    """The exit status of a device that stopped: 2 (raised, one line) when any save failed,
    the filing at the stop included."""
    if device.door.storage_faults:
        raise Fail(
            f"{device.door.last_storage_fault} ({device.door.storage_faults} failed saves, state folder {store.root})"
        )
    return EXIT_OK


def cmd_sim(args: argparse.Namespace) -> int:
    """The simulator: interactive in a terminal, or fed by ``--script``."""
    config = load_config(args)
    if args.script is None:
        from firmware_host.sim.terminal import run_terminal

        with held_store(args) as store:
            return run_terminal(config, store, args.seed)
    from firmware_host.sim.script import SimScriptError, load, run_script

    try:
        commands = load(Path(args.script))
    except SimScriptError as exc:
        raise Fail(str(exc)) from None
    with held_store(args) as store:
        try:
            frames = Path(args.frames) if args.frames else None
            device = run_script(config, store, commands, frames, args.seed, args.realtime)
        except OSError as exc:
            from firmware_host.core.fsio import storage_message

            raise Fail(f"{storage_message(exc)} ({getattr(exc, 'filename', None) or store.root})") from None
        return _saves_said(device, store)
