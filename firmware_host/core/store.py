"""The state folder: the journal of the game in play, finished games, settings.

Layout (all under one folder, systemd's ``StateDirectory=`` on the device):

- ``game.jsonl`` — the journal of the unfinished game (see :mod:`firmware_host.core.journal`);
- ``history.jsonl`` — one line per finished game (date, duration, players, scores, winners);
- ``games/`` — the journals of finished games, kept for ``tablemate replay``;
- ``settings.json`` — what the settings menu changed (brightness, sound, timers…);
- ``scale.json`` — the load cell's calibration.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

from firmware_host.core.journal import Journal, JournalError, fsync_dir, write_atomic


class StoreError(Exception):
    """A state folder that cannot be used: says which and why."""


def default_state_dir() -> Path:
    """systemd's ``STATE_DIRECTORY``, else ``$XDG_STATE_HOME/tablemate``, else ``~/.local/state``."""
    systemd = os.environ.get("STATE_DIRECTORY")
    if systemd:
        return Path(systemd.split(":")[0])
    xdg = os.environ.get("XDG_STATE_HOME")
    base = Path(xdg) if xdg else Path.home() / ".local" / "state"
    return base / "tablemate"


class Store:
    """One state folder."""

    def __init__(self, root: Path | str | None = None, *, create: bool = True) -> None:
        self.root = Path(root) if root is not None else default_state_dir()
        if create:
            try:
                self.root.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise StoreError(f"state folder {self.root}: {exc.strerror or exc}") from None
        if not self.root.is_dir():
            raise StoreError(f"state folder {self.root}: not a folder")
        if not os.access(self.root, os.R_OK | os.X_OK):
            raise StoreError(f"state folder {self.root}: not readable")

    @property
    def game_path(self) -> Path:
        """The journal of the unfinished game."""
        return self.root / "game.jsonl"

    @property
    def history_path(self) -> Path:
        """One JSON line per finished game."""
        return self.root / "history.jsonl"

    # -- the game in play ---------------------------------------------------------------------
    def open_game(self) -> Journal | None:
        """The journal of the game last played, or ``None`` (it may have ended but not been filed)."""
        path = self.game_path
        if not path.exists():
            return None
        try:
            journal = Journal.open(path)
        except OSError as exc:
            raise StoreError(f"{path}: {exc.strerror or exc}") from None
        except JournalError as exc:
            raise StoreError(str(exc)) from None
        return journal

    def new_game(self, header: dict[str, Any]) -> Journal:
        """Start the journal of a new game (an unfinished one must have been ended first)."""
        return Journal.create(self.game_path, header)

    def archive(self, journal: Journal, entry: dict[str, Any] | None = None) -> None:
        """File a finished journal: its history line (once), then move it under ``games/``."""
        game_id = journal.header.get("id")
        if entry is not None and game_id not in self._history_ids():
            self.append_history(entry)
        folder = self.root / "games"
        folder.mkdir(exist_ok=True)
        os.replace(journal.path, folder / f"{game_id or int(time.time())}.jsonl")
        fsync_dir(self.root)

    # -- history ------------------------------------------------------------------------------
    def append_history(self, entry: dict[str, Any]) -> None:
        """Add one finished game to the history, durably."""
        line = json.dumps(entry, ensure_ascii=False, sort_keys=True) + "\n"
        with open(self.history_path, "a", encoding="utf-8") as fh:
            fh.write(line)
            fh.flush()
            os.fsync(fh.fileno())

    def history(self) -> list[dict[str, Any]]:
        """Every finished game, oldest first (a torn last line is skipped)."""
        try:
            text = self.history_path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return []
        except OSError as exc:
            raise StoreError(f"{self.history_path}: {exc.strerror or exc}") from None
        out = []
        for line in text.splitlines():
            try:
                entry = json.loads(line)
            except (ValueError, RecursionError):  # not JSON, an over-long integer, deep nesting
                continue
            if isinstance(entry, dict):
                out.append(entry)
        return out

    def _history_ids(self) -> set[str]:
        return {e["id"] for e in self.history() if isinstance(e.get("id"), str)}

    # -- small documents ------------------------------------------------------------------------
    def read_doc(self, name: str) -> dict[str, Any]:
        """A JSON document of the folder (``settings``, ``scale``…), empty when absent or bad."""
        try:
            data = json.loads((self.root / f"{name}.json").read_text(encoding="utf-8"))
        except (OSError, ValueError, RecursionError):  # ValueError: not JSON, not UTF-8, a 4,300-digit integer
            return {}
        return data if isinstance(data, dict) else {}

    def write_doc(self, name: str, data: dict[str, Any]) -> None:
        """Replace a JSON document of the folder atomically."""
        text = json.dumps(data, ensure_ascii=False, indent=1, sort_keys=True) + "\n"
        write_atomic(self.root / f"{name}.json", text.encode("utf-8"))
