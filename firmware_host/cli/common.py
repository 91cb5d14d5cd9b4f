"""What every ``tablemate`` command shares: the one-line failure and its exit status, the output
helpers that keep stdout's contract, the state folder and the config file.

Exit status: 0 fine, 2 bad input (script, config, state folder), 3 a replay action refused.
Each command imports what only it uses (asyncio, the config reader, the store, the drivers) in
its own function: `replay` loads no asyncio, `state` no drivers (tests/runtime/test_process.py).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from firmware_host.core.limits import one_line

if TYPE_CHECKING:
    from firmware_host.core import config as configuration
    from firmware_host.core.store import Store

EXIT_OK, EXIT_BAD_INPUT, EXIT_REFUSED = 0, 2, 3
DEFAULT_CONFIG = "/etc/tablemate/config.toml"
"""``firmware_host.core.config.DEFAULT_PATH``, named here so the parser needs not load the config reader."""


class Fail(Exception):
    """A one-line failure with an exit status."""

    def __init__(self, message: str, status: int = EXIT_BAD_INPUT) -> None:
        super().__init__(message)
        self.status = status


def print_json(data: Any) -> None:
    """One JSON document on a line; text that cannot be written as UTF-8 (a lone surrogate in an
    old file) is written as ``\\u`` escapes instead, still valid JSON."""
    text = json.dumps(data, ensure_ascii=False)
    if not utf8_writable(text):
        text = json.dumps(data)
    sys.stdout.write(text + "\n")


def utf8_writable(text: str) -> bool:
    """Whether ``text`` can be written as UTF-8 (a lone surrogate from an old file cannot)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def say(message: str) -> None:
    """One line on stderr, whatever the message holds (line breaks and surrogates escaped)."""
    sys.stderr.write(one_line(message, 1000) + "\n")


def note(command: str, text: str) -> None:
    """A remark on stderr that leaves stdout's contract alone (damage found, files kept)."""
    sys.stderr.write(f"tablemate {command}: note: {text}\n")


def open_store(args: argparse.Namespace, create: bool = True) -> Store:
    """The state folder named by ``--state-dir`` (a bad one: :class:`Fail`)."""
    from firmware_host.core.store import Store, StoreError

    try:
        return Store(args.state_dir, create=create)
    except StoreError as exc:
        raise Fail(str(exc)) from None


@contextlib.contextmanager
def held_store(args: argparse.Namespace) -> Iterator[Store]:
    """The state folder, held for writing while inside: one writer per folder, a second one is
    refused with one line naming the holder (see :mod:`firmware_host.core.folder_lock`)."""
    from firmware_host.core.folder_lock import FolderBusy, writing

    store = open_store(args)
    try:
        with writing(store.root):
            yield store
    except FolderBusy as exc:
        raise Fail(str(exc)) from None


def state_root(args: argparse.Namespace) -> Path:
    """The state folder named by ``--state-dir``, else the default one."""
    from firmware_host.core.store import default_state_dir

    return Path(args.state_dir) if args.state_dir else default_state_dir()


def load_config(args: argparse.Namespace) -> configuration.Config:
    """The checked config file named by ``--config`` (a bad one: :class:`Fail`, ``config error: …``)."""
    from firmware_host.core import config as configuration

    try:
        return configuration.load(args.config)
    except configuration.ConfigError as exc:
        raise Fail(f"config error: {exc}") from None
