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
from typing import TYPE_CHECKING, Any

from firmware_host.core import fsio
from firmware_host.core.writer import Writer
from games.core.text import T, Told, join

if TYPE_CHECKING:  # the journal's modules load with the first game opened, not with the folder
    from firmware_host.core.journal import Journal


class StoreError(Told, Exception):
    """A state folder that cannot be used: says which and why (in the table's language)."""


def default_state_dir() -> Path:
    """systemd's ``STATE_DIRECTORY``, else ``$XDG_STATE_HOME/tablemate``, else ``~/.local/state``."""
    systemd = os.environ.get("STATE_DIRECTORY")
    if systemd:
        return Path(systemd.split(":")[0])
    xdg = os.environ.get("XDG_STATE_HOME")
    base = Path(xdg) if xdg else Path.home() / ".local" / "state"
    return base / "tablemate"


def _history_line(entry: dict[str, Any]) -> bytes:
    return (json.dumps(entry, ensure_ascii=False, sort_keys=True) + "\n").encode("utf-8")


def parse_history(raw: bytes) -> tuple[list[dict[str, Any]], list[int], bytes]:
    """The entries of a history file, the numbers of its damaged lines, and its torn tail.

    A line is damaged when it is not UTF-8 (a cut inside ``ü``), not JSON or not an object. The
    tail is what follows the last newline: empty, unless the last append was cut short.
    """
    lines = raw.split(b"\n")
    tail = lines.pop()
    entries, bad = [], []
    for number, line in enumerate(lines, start=1):
        try:
            entry = json.loads(line.decode("utf-8"))
        except (UnicodeDecodeError, ValueError, RecursionError):
            entry = None
        if isinstance(entry, dict):
            entries.append(entry)
        else:
            bad.append(number)
    return entries, bad, tail


class Store:
    """One state folder.

    Damage it finds (a journal with a bad line, a document that is not JSON, a history line cut
    short) is described in :attr:`problems`, for the panel and the command line. Files are never
    overwritten while damaged: the device moves them aside as ``NAME.damaged-STAMP`` and starts
    afresh; the command-line tools only read and report.
    """

    def __init__(self, root: Path | str | None = None, *, create: bool = True, writer: Writer | None = None) -> None:
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
        self.writer = writer or Writer()
        """Where writes run: inline (tools, tests, virtual time) or a writer thread (the device)."""
        self.problems: list[str] = []
        """Damage found so far and what was done about it, one short sentence each."""

    def note_problem(self, text: str) -> None:
        """Add what was found wrong with a file (by the store or a reader of a document) to
        :attr:`problems` (once)."""
        if text not in self.problems:
            self.problems.append(text)

    @property
    def game_path(self) -> Path:
        """The journal of the unfinished game."""
        return self.root / "game.jsonl"

    @property
    def history_path(self) -> Path:
        """One JSON line per finished game."""
        return self.root / "history.jsonl"

    def set_aside(self, path: Path, why: str = "damaged") -> str:
        """Move a file aside (kept beside a fresh one); says where, or why it could not be moved."""
        try:
            kept = fsio.move_aside(path, why)
        except OSError as exc:
            return T("left in place ({reason})", reason=fsio.storage_message(exc))
        return T("kept as {file}", file=kept.name)

    def kept_files(self) -> list[str]:
        """Names of files moved aside for damage, oldest first."""
        return sorted(p.name for p in self.root.glob("*.damaged-*")) + sorted(
            p.name for p in self.root.glob("*.unfiled-*")
        )

    # -- the game in play ---------------------------------------------------------------------
    def open_game(self, repair: bool = False, defer: bool = False) -> Journal | None:
        """The journal of the game last played, or ``None`` (it may have ended but not been filed).

        A damaged journal raises StoreError naming the damage; with ``repair`` it is first moved
        aside (kept, and a new game can start). ``defer``: see :meth:`Journal.open` (a reader
        that starts from the last snapshot).
        """
        from firmware_host.core.journal import Journal, JournalError, check_header

        path = self.game_path
        if not path.exists():
            return None
        try:
            journal = Journal.open(path, self.writer, defer)
        except OSError as exc:
            raise StoreError(f"{path.name}: {exc.strerror or exc}") from None
        except JournalError as exc:
            raise StoreError(self.damaged(path, str(exc), repair)) from None
        problem = check_header(journal.header)
        if problem:
            raise StoreError(self.damaged(path, f"{path.name}: {problem}", repair))
        return journal

    def damaged(self, path: Path, reason: str, repair: bool) -> str:
        """Report a damaged file (moved aside when ``repair``); the report."""
        text = join([reason, self.set_aside(path)], "; ") if repair else reason
        self.note_problem(text)
        return text

    def new_game(self, header: dict[str, Any], records: list[dict[str, Any]] | None = None) -> Journal:
        """Start the journal of a new game; a game left in ``game.jsonl`` is moved aside, never overwritten."""
        path = self.game_path

        def clear_the_way() -> None:  # on the writer, after the writes before (a filing)
            if path.exists():  # only after a failure to file it: keep it
                self.note_problem(T("unfiled game {where}", where=self.set_aside(path, "unfiled")))

        from firmware_host.core.journal import Journal

        return Journal.create(path, header, records, self.writer, clear_the_way)

    def archive(self, journal: Journal, entry: dict[str, Any] | None = None) -> None:
        """File a finished journal: its history line (once), then move it under ``games/``.

        Runs on the writer (after the journal's own writes). Each step is durable before the
        next, so a power cut anywhere leaves either the game still in ``game.jsonl`` (and the
        next boot files it, skipping a history line already written) or the game filed.
        """
        journal.close()
        game_id = journal.header.get("id")
        if entry is not None:
            self._append_history(entry)
        folder = self.root / "games"
        if fsio.mkdir(folder):
            fsio.fsync_dir(self.root)
        target = folder / f"{game_id or int(time.time())}.jsonl"
        if target.exists():
            target = folder / f"{target.stem}-{fsio.stamp()}.jsonl"
        fsio.rename(journal.path, target)
        fsio.fsync_dir(folder)
        fsio.fsync_dir(self.root)

    # -- history ------------------------------------------------------------------------------
    def _read_history_bytes(self) -> bytes:
        try:
            return self.history_path.read_bytes()
        except FileNotFoundError:
            return b""
        except OSError as exc:
            raise StoreError(f"{self.history_path.name}: {exc.strerror or exc}") from None

    def _append_history(self, entry: dict[str, Any]) -> None:
        """Add a finished game once: mend a torn tail and damaged lines first (kept aside)."""
        path = self.history_path
        raw = self._read_history_bytes()
        entries, bad, tail = parse_history(raw)
        if bad:  # keep the damaged file whole, go on with its good lines
            kept = self.set_aside(path)
            self.note_problem(
                T("history.jsonl lines {lines} damaged; {where}", lines=", ".join(map(str, bad)), where=kept)
            )
            fsio.write_atomic(path, b"".join(_history_line(e) for e in entries))
            raw, tail = path.read_bytes(), b""
        if tail:  # the cut-off line of a game whose journal was never moved away: filed again now
            fsio.write_new(path.with_name(f"{path.name}.torn-{fsio.stamp()}"), tail)
        if entry.get("id") is not None and any(e.get("id") == entry["id"] for e in entries):
            if not tail:
                return
            entry = {}
        fd = fsio.open_append(path)
        try:
            size = len(raw) - len(tail)
            if tail:
                fsio.truncate(fd, size)
            if entry:
                fsio.write(fd, _history_line(entry), size)
            fsio.fsync(fd)
        finally:
            fsio.close(fd)

    def append_history(self, entry: dict[str, Any]) -> None:
        """Add one finished game to the history, durably (at most once per game id)."""
        self.writer.submit(lambda: self._append_history(entry)).result()

    def history(self) -> list[dict[str, Any]]:
        """Every finished game, oldest first; damaged lines are left out and named in :attr:`problems`."""
        entries, bad, tail = parse_history(self._read_history_bytes())
        if bad:
            lines = ", ".join(map(str, bad))
            if len(bad) > 1:
                self.note_problem(T("history.jsonl: lines {lines} damaged, left out", lines=lines))
            else:
                self.note_problem(T("history.jsonl: line {lines} damaged, left out", lines=lines))
        if tail:
            self.note_problem(T("history.jsonl: its last line was cut short (mended when the next game is filed)"))
        return entries

    # -- small documents ------------------------------------------------------------------------
    def read_doc(self, name: str, repair: bool = False) -> dict[str, Any]:
        """A JSON document of the folder (``settings``, ``scale``…), empty when absent or bad.

        A document that is not a JSON object is reported in :attr:`problems`, and moved aside
        with ``repair`` (the next save starts a fresh one beside it).
        """
        path = self.root / f"{name}.json"
        try:
            raw = path.read_bytes()
        except FileNotFoundError:
            return {}
        except OSError as exc:
            self.note_problem(T("{file}: {reason}; defaults used", file=path.name, reason=exc.strerror or str(exc)))
            return {}
        try:
            data = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError, RecursionError):
            data = None
        if isinstance(data, dict):
            return data
        where = self.set_aside(path) if repair else T("left as it is")
        self.note_problem(T("{file} is damaged: defaults used, {where}", file=path.name, where=where))
        return {}

    def write_doc(self, name: str, data: dict[str, Any]) -> None:
        """Replace a JSON document of the folder atomically (raises OSError when it cannot)."""
        text = json.dumps(data, ensure_ascii=False, indent=1, sort_keys=True) + "\n"
        fsio.write_atomic(self.root / f"{name}.json", text.encode("utf-8"))
