"""The durable journal of the game in play: one JSON object a line, fsynced before effects show.

Line 1 is the header (game, players, seed, options, start time). Every later line is a record:

- ``{"a": ACTION, "t": WALL}`` an accepted action;
- ``{"undo": 1, "t": WALL}`` the last action taken back (replaying one action fewer);
- ``{"draft": {...}}`` answers given so far in a simultaneous prompt, so a power cut in the
  middle of a reveal loses nobody's pick;
- ``{"meta": {NAME: ...}}`` runtime bookkeeping the engine never sees, one kind per name: the
  seats (``seats``), the turn timer's preset (``timer``), clocks (``clock``) and finished turns
  (``turn_done``);
- ``{"task": {"done": KEY, "at": N}}`` the table confirmed a job for its hands (empty and
  re-fill the bin) with N actions in effect; it changes no game state;
- ``{"end": REASON, "t": WALL}`` the game finished or was ended early.

Each line carries ``"c"``, a CRC-32 of the rest of the line. A power cut can tear only the last
line (written last, no newline yet, or a checksum that fails); it is dropped on open and cut off
the file before the next write. A bad line anywhere else is real damage and stops the resume with
a message naming the line.
"""

from __future__ import annotations

import json
import os
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


class JournalError(Exception):
    """A journal that cannot be read back: names the file and line."""


def _encode(record: dict[str, Any]) -> bytes:
    body = json.dumps(record, ensure_ascii=False, separators=(",", ":"), sort_keys=True)
    crc = zlib.crc32(body.encode("utf-8"))
    return (body[:-1] + f',"c":{crc}}}\n').encode("utf-8") if body != "{}" else b'{"c":0}\n'


def _decode(line: bytes) -> dict[str, Any] | None:
    """The record of one line, or ``None`` when the line is torn or damaged."""
    try:
        record = json.loads(line.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):  # also over-long integers, deep nesting
        return None
    if not isinstance(record, dict) or not isinstance(record.get("c"), int):
        return None
    crc = record.pop("c")
    body = json.dumps(record, ensure_ascii=False, separators=(",", ":"), sort_keys=True)
    return record if zlib.crc32(body.encode("utf-8")) == crc else None


def fsync_dir(path: Path) -> None:
    """Make a rename or a new file in ``path`` durable."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def write_atomic(path: Path, data: bytes) -> None:
    """Replace ``path`` with ``data`` durably: temp file, fsync, rename, fsync the folder."""
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "wb") as fh:
        fh.write(data)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)
    fsync_dir(path.parent)


@dataclass
class Journal:
    """An open journal file: its header and records, and appends that are durable on return."""

    path: Path
    header: dict[str, Any]
    records: list[dict[str, Any]] = field(default_factory=list)
    torn: bool = False
    """Whether a torn last line was dropped on open."""
    _size: int = 0

    @classmethod
    def create(cls, path: Path, header: dict[str, Any]) -> Journal:
        """Start a new journal holding only ``header`` (atomically: it exists whole or not)."""
        data = _encode(header)
        write_atomic(path, data)
        return cls(path, dict(header), [], False, len(data))

    @classmethod
    def open(cls, path: Path) -> Journal:
        """Read a journal back; a torn last line is dropped, other damage raises JournalError."""
        raw = path.read_bytes()
        lines = raw.split(b"\n")
        tail = lines.pop()  # bytes after the last newline: empty unless the last write tore
        decoded: list[dict[str, Any]] = []
        good = 0
        torn = bool(tail)
        for number, line in enumerate(lines, start=1):
            record = _decode(line)
            if record is None:
                if number == len(lines) and not tail:
                    torn = True
                    break
                raise JournalError(f"{path}: line {number} is damaged")
            decoded.append(record)
            good += len(line) + 1
        if not decoded:
            raise JournalError(f"{path}: no header")
        return cls(path, decoded[0], decoded[1:], torn, good)

    def append(self, record: dict[str, Any]) -> None:
        """Write one record and fsync it; when this returns, the record survives a power cut."""
        data = _encode(record)
        with open(self.path, "r+b") as fh:
            fh.truncate(self._size)  # cut a torn tail left by an earlier power cut
            fh.seek(self._size)
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        self._size += len(data)
        self.records.append(dict(record))

    def actions(self) -> list[dict[str, Any]]:
        """The accepted actions in effect: every action, less the ones undone."""
        out: list[dict[str, Any]] = []
        for record in self.records:
            if "a" in record:
                out.append(record["a"])
            elif "undo" in record and out:
                out.pop()
        return out

    def draft(self) -> dict[str, Any] | None:
        """The answers of an unfinished simultaneous prompt, if the last record is one."""
        for record in reversed(self.records):
            if "draft" in record:
                return record["draft"]
            if "a" in record or "undo" in record:
                return None
        return None

    def last(self, key: str) -> dict[str, Any] | None:
        """The newest record holding ``key``."""
        for record in reversed(self.records):
            if key in record:
                return record
        return None

    def last_meta(self, name: str) -> Any:
        """The newest ``meta`` value named ``name`` (``{"meta": {name: VALUE}}``), or ``None``."""
        for record in reversed(self.records):
            meta = record.get("meta")
            if isinstance(meta, dict) and name in meta:
                return meta[name]
        return None

    def metas(self, name: str) -> list[Any]:
        """Every ``meta`` value named ``name``, oldest first."""
        out = []
        for record in self.records:
            meta = record.get("meta")
            if isinstance(meta, dict) and name in meta:
                out.append(meta[name])
        return out

    @property
    def ended(self) -> str | None:
        """Why the game ended (``"over"`` or ``"abandoned"``), or ``None`` while in play."""
        record = self.last("end")
        return record["end"] if record else None
