"""The durable journal of the game in play: one JSON object a line, fsynced before effects show.

Line 1 is the header (game, players, seed, options, start time). Every later line is a record:

- ``{"a": ACTION, "t": WALL}`` an accepted action; ``"j": 1`` when it belongs to the move of the
  action before it (an automatic action the same press caused: one undo takes the move back);
- ``{"undo": 1, "t": WALL}`` the last move taken back: ``"k"`` actions (1 when absent, as in
  journals written before moves);
- ``{"snap": {"n": N, "s": STATE, ...}}`` the game's state after the first N actions in effect,
  written every so often so that resume, undo and ``tablemate state`` start from it instead of
  the first action (see :mod:`firmware_host.core.snapshot`). It is only a shortcut: a snapshot
  that an undo went past, that is damaged, or that does not match is ignored and the actions
  replayed;
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
the file before the next write. A damaged snapshot line is ignored (it was only a shortcut). A
bad line anywhere else, or a header without the fields a game needs, is real damage: it stops
the resume with a message naming the line, and the store moves the file aside (kept, never
overwritten).
"""

from __future__ import annotations

import contextlib
import gc
import json
import logging
import math
import re
import zlib
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from firmware_host.core import fsio
from firmware_host.core.fsio import fsync_dir, write_atomic
from firmware_host.core.writer import Writer

log = logging.getLogger(__name__)

__all__ = ["Journal", "JournalError", "Snap", "Timeline", "check_header", "fsync_dir", "snap_body", "write_atomic"]


class JournalError(Exception):
    """A journal that cannot be read back: names the file and line."""


def _encode(record: dict[str, Any]) -> bytes:
    body = json.dumps(record, ensure_ascii=False, separators=(",", ":"), sort_keys=True)
    crc = zlib.crc32(body.encode("utf-8"))
    return (body[:-1] + f',"c":{crc}}}\n').encode("utf-8") if body != "{}" else b'{"c":0}\n'


_NUMBER = rb"(-?[0-9.]+(?:[eE][-+]?[0-9]+)?)"
_SNAP_HEAD = re.compile(
    rb'^\{(?:"e":'
    + _NUMBER
    + rb',)?"snap":\{(?:"ac":([0-9]+),"at":([0-9]+),)?"d":[0-9]+,"g":"[a-z]+","k":"[0-9a-f]+","n":([0-9]+),'
)
"""The start of a snapshot line as :func:`_encode` writes it (keys sorted): its times, the
checksum of every byte before it and where it starts (``ac``, ``at``), and its point."""
_SNAP_BODY = re.compile(rb'\],"os":[0-9]+,"s":\{"\$c":"games\.')
"""What follows a snapshot's outcomes: how a snapshot line whose head is damaged is still known."""
_SNAP_TAIL = re.compile(rb',"t":' + _NUMBER + rb"$")
_SNAP_NEAR = 64
"""A snapshot line names itself within its first bytes (``"snap":{`` after its time)."""


class Snap(dict):  # type: ignore[type-arg]
    """A snapshot record's body read only as far as its point (``n``): the rest, a state much
    longer than an action, is parsed by :meth:`full` when the snapshot is used."""

    def __init__(self, n: int, line: bytes) -> None:
        super().__init__(n=n)
        self.line = line

    def full(self) -> dict[str, Any]:
        """The whole body (empty when it does not parse: then it is not used)."""
        try:
            body = json.loads(self.line).get("snap")
        except (UnicodeDecodeError, ValueError, RecursionError, AttributeError):
            return {}
        return body if isinstance(body, dict) else {}


def snap_body(snap: dict[str, Any]) -> dict[str, Any]:
    """The whole body of a snapshot record (see :class:`Snap`)."""
    return snap.full() if isinstance(snap, Snap) else snap


def _sealed(line: bytes) -> int | None:
    """The checksum of a line as :func:`_encode` wrote it, when its bytes match it; else ``None``."""
    cut = line.rfind(b',"c":')
    if cut > 0 and line.endswith(b"}") and line[cut + 5 : -1].isdigit():
        crc = int(line[cut + 5 : -1])
        if zlib.crc32(line[:cut] + b"}") == crc:
            return crc
    return None


def _snap(line: bytes) -> dict[str, Any] | None:
    """A sealed snapshot line as a record whose body is read later (:class:`Snap`), else ``None``."""
    head = _SNAP_HEAD.match(line)
    if head is None:
        return None
    cut = line.rfind(b',"c":')
    tail = _SNAP_TAIL.match(line, line.rfind(b',"t":', 0, cut), cut)
    if tail is None:
        return None
    record: dict[str, Any] = {"snap": Snap(int(head.group(4)), line)}
    if head.group(1) is not None:
        record["e"] = float(head.group(1))
    record["t"] = float(tail.group(1))
    return record


def _is_snapshot(line: bytes) -> bool:
    """Whether a (damaged) line was a snapshot: its head, or else its body, says so."""
    return _SNAP_HEAD.match(line) is not None or _SNAP_BODY.search(line) is not None


def _decode(line: bytes) -> dict[str, Any] | None:
    """The record of one line, or ``None`` when the line is torn or damaged."""
    crc = _sealed(line)
    if crc is not None:
        record = _snap(line)
        if record is not None:
            return record
        try:
            record = json.loads(line)
        except (UnicodeDecodeError, ValueError, RecursionError):
            record = None
        if isinstance(record, dict) and record.pop("c", None) == crc:
            return record
    try:
        record = json.loads(line.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):  # also over-long integers, deep nesting
        return None
    if not isinstance(record, dict) or not isinstance(record.get("c"), int):
        return None
    crc = record.pop("c")
    body = json.dumps(record, ensure_ascii=False, separators=(",", ":"), sort_keys=True)
    return record if zlib.crc32(body.encode("utf-8")) == crc else None


PARSE_LINES = 200
"""Lines parsed in one go: few enough that a journal read off the loop lets the loop run between."""


def _decode_all(lines: list[bytes], proven: bool = False) -> list[dict[str, Any] | None]:
    """:func:`_decode` of every line; the sealed ones parsed together (one parse, not thousands).

    ``proven``: the lines are known intact (:func:`_proven`), their checksums not checked one by one.
    """
    out: list[dict[str, Any] | None] = [None] * len(lines)
    batch: list[int] = []
    crcs: list[int | None] = []
    for i, line in enumerate(lines):
        crc = None if proven else _sealed(line)
        if crc is None and not proven:
            out[i] = _decode(line)
            continue
        record = _snap(line) if b'"snap":{' in line[:_SNAP_NEAR] else None
        if record is not None:
            out[i] = record
        else:
            batch.append(i)
            crcs.append(crc)
    for at in range(0, len(batch), PARSE_LINES):
        part, sums = batch[at : at + PARSE_LINES], crcs[at : at + PARSE_LINES]
        try:
            parsed = json.loads(b"[" + b",".join(lines[i] for i in part) + b"]")
        except (UnicodeDecodeError, ValueError, RecursionError):
            parsed = None
        if not isinstance(parsed, list) or len(parsed) != len(part):
            parsed = [None] * len(part)
        for i, crc, record in zip(part, sums, parsed, strict=True):
            if isinstance(record, dict) and "c" in record and (crc is None or record["c"] == crc):
                del record["c"]
                out[i] = record
            else:
                out[i] = _decode(lines[i])
    return out


def _proven(raw: bytes, lines: list[bytes], end: int) -> tuple[int, int, int]:
    """How many leading lines the journal's last snapshot proves intact, where they end, and
    the checksum of those bytes: the snapshot names where its line starts and the CRC-32 of every
    byte before it (``at``, ``ac``), checked in one pass instead of line by line. ``(0, 0, 0)``
    when no snapshot near the end does (then every line is checked on its own)."""
    pos, tried = end, 0
    for k in range(len(lines) - 1, 0, -1):
        line = lines[k]
        pos -= len(line) + 1
        if b'"snap":{"ac":' not in line[:_SNAP_NEAR]:
            continue
        head = _SNAP_HEAD.match(line)
        tried += 1
        if head is not None and head.group(3) is not None and int(head.group(3)) == pos and _sealed(line):
            crc = zlib.crc32(memoryview(raw)[:pos])
            if crc == int(head.group(2)):
                return k, pos, crc
        if tried == 2:
            break
    return 0, 0, 0


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def check_header(header: dict[str, Any]) -> str | None:
    """What is wrong with a journal's header (a field missing or of the wrong type), or ``None``."""
    if not isinstance(header.get("game"), str):
        return "the header has no game"
    players = header.get("players")
    if not isinstance(players, list) or not players or not all(isinstance(p, str) for p in players):
        return "the header has no list of players"
    if not isinstance(header.get("seed"), int) or isinstance(header.get("seed"), bool):
        return "the header's seed is not a whole number"
    if not isinstance(header.get("options", {}), dict):
        return "the header's options are not an object"
    if "started" in header and not _number(header["started"]):
        return "the header's start time is not a number"
    if "id" in header and not isinstance(header["id"], str):
        return "the header's id is not text"
    return None


@dataclass
class Timeline:
    """What a journal's records come to (:meth:`Journal.timeline`)."""

    actions: list[dict[str, Any]] = field(default_factory=list)
    joined: list[bool] = field(default_factory=list)
    """Per action: whether it belongs to the move of the action before it."""
    snaps: list[dict[str, Any]] = field(default_factory=list)
    """The snapshots of points of this line, oldest first."""


@dataclass
class Journal:
    """An open journal file: its header and records, and appends that are durable on return.

    Writes run on the journal's :class:`~firmware_host.core.writer.Writer`: :meth:`submit` hands
    a record over and returns a future that is done once the record is on disk; :meth:`append`
    waits for it. ``records`` holds every record handed over (what the game in play is made
    of); if a write fails, :meth:`rollback` drops the ones that never reached the disk.
    """

    path: Path
    header: dict[str, Any]
    records: list[dict[str, Any]] = field(default_factory=list)
    torn: bool = False
    """Whether a torn last line was dropped on open."""
    _size: int = 0
    writer: Writer = field(default_factory=Writer)
    created: Future | None = None
    """The future of the journal's creation (done when the file exists whole)."""
    _durable: int = 0
    """Records on disk (set by the writer)."""
    _fd: int | None = None
    _cut: bool = False
    """Whether the file may hold bytes past ``_size`` (a torn tail, a failed write) to cut first."""
    _crc: int = 0
    """The CRC-32 of the file's first ``_size`` bytes (a snapshot names it: see :func:`_proven`)."""

    @classmethod
    def create(
        cls,
        path: Path,
        header: dict[str, Any],
        records: list[dict[str, Any]] | None = None,
        writer: Writer | None = None,
        prepare: Callable[[], None] | None = None,
    ) -> Journal:
        """Start a new journal holding ``header`` and ``records``, atomically: it exists whole or not.

        ``prepare`` runs on the writer first (the store moves a file left in the way aside).
        With an inline writer this returns once the file is durable (raising OSError if it could
        not be made); otherwise :attr:`created` says when.
        """
        records = [dict(r) for r in records or []]
        data = b"".join(_encode(r) for r in [header, *records])
        journal = cls(path, dict(header), records, False, 0, writer or Writer())

        def make() -> None:
            if prepare is not None:
                prepare()
            fsio.write_atomic(path, data)
            journal._size, journal._durable, journal._crc = len(data), len(records), zlib.crc32(data)

        journal.created = journal.writer.submit(make)
        if type(journal.writer) is Writer:
            journal.created.result()
        return journal

    @classmethod
    def open(cls, path: Path, writer: Writer | None = None) -> Journal:
        """Read a journal back; a torn last line is dropped, other damage raises JournalError."""
        raw = path.read_bytes()
        lines = raw.split(b"\n")
        tail = lines.pop()  # bytes after the last newline: empty unless the last write tore
        decoded: list[dict[str, Any]] = []
        good = 0
        torn = bool(tail)
        known, known_end, known_crc = _proven(raw, lines, len(raw) - len(tail))
        collecting = gc.isenabled()
        gc.disable()  # thousands of fresh records, none garbage: no collection passes over them meanwhile
        try:
            records_read = _decode_all(lines[:known], proven=True) + _decode_all(lines[known:])
        finally:
            if collecting:
                gc.enable()
        for number, (line, record) in enumerate(zip(lines, records_read, strict=True), start=1):
            if record is None and number < len(lines) and _is_snapshot(line):
                record = {"snap": {}}  # a damaged snapshot is only a lost shortcut: the actions replay
            if record is None:
                if number == len(lines) and not tail:
                    torn = True
                    break
                raise JournalError(f"{path.name}: line {number} is damaged")
            decoded.append(record)
            good += len(line) + 1
        if not decoded:
            raise JournalError(f"{path.name}: no header")
        records = decoded[1:]
        journal = cls(path, decoded[0], records, torn, good, writer or Writer(), None, len(records), None, torn)
        journal._crc = zlib.crc32(memoryview(raw)[known_end:good], known_crc)
        return journal

    def submit(self, record: dict[str, Any], optional: bool = False) -> Future:
        """Hand one record to the writer; the future is done when it survives a power cut.

        ``optional``: a record nothing depends on (a snapshot). Its failure breaks nothing: it
        is logged once, left out of :attr:`records`, its torn bytes cut by the next write, and
        its future says ``False`` instead of raising.
        """
        kept = dict(record)
        self.records.append(kept)
        if not optional:
            data = _encode(record)
            return self.writer.submit(lambda: self._write(data))
        return self.writer.submit(lambda: self._write_optional(record, kept))

    def append(self, record: dict[str, Any]) -> None:
        """Write one record and fsync it; when this returns, the record survives a power cut."""
        self.submit(record).result()

    def _write(self, data: bytes) -> None:
        """On the writer: one write and one fsync, after cutting a torn or failed tail.

        A record whose write or fsync fails is cut off again at once, so that no reader (nor a
        boot after a power cut) finds an action the table was told was not saved.
        """
        if self._fd is None:
            self._fd = fsio.open_append(self.path)
        if self._cut:
            fsio.truncate(self._fd, self._size)
        self._cut = True  # until the record is whole on disk
        try:
            fsio.write(self._fd, data, self._size)
            fsio.fsync(self._fd)
        except OSError:
            with contextlib.suppress(OSError):
                fsio.truncate(self._fd, self._size)
                self._cut = False
                fsio.fsync(self._fd)
            raise
        self._size += len(data)
        self._crc = zlib.crc32(data, self._crc)
        self._durable += 1
        self._cut = False

    def _write_optional(self, record: dict[str, Any], kept: dict[str, Any]) -> bool:
        """On the writer: :meth:`_write` of a record nothing depends on; ``False`` when it failed.

        A snapshot is encoded here, naming where its line starts and the checksum of every byte
        before it, so that a read can trust all of them in one pass (:func:`_proven`)."""
        if isinstance(record.get("snap"), dict):
            at = self._size  # where it goes: a torn tail past it is cut first
            record = {**record, "snap": {**record["snap"], "ac": self._crc, "at": at}}
        try:
            self._write(_encode(record))
        except OSError as exc:
            kept.clear()  # not on disk: no longer a record of the game (it keeps its place in the count)
            self._durable += 1
            log.warning("snapshot not saved (%s): the actions are, only a resume replays more", exc)
            return False
        return True

    def rollback(self) -> int:
        """After a failed write: forget the records that never reached the disk; how many."""
        lost = len(self.records) - self._durable
        if lost > 0:
            del self.records[self._durable :]
        return max(0, lost)

    def close(self) -> None:
        """Close the file (on the writer, after the writes given before)."""
        if self._fd is not None:
            fd, self._fd = self._fd, None
            fsio.close(fd)

    def actions(self) -> list[dict[str, Any]]:
        """The accepted actions in effect: every action, less the ones undone."""
        return self.timeline().actions

    def timeline(self) -> Timeline:
        """The actions in effect, which of them join the move before, and the snapshots that
        still describe a point of that line (written with as many actions in effect, and no undo
        gone below that point since), oldest first."""
        line = Timeline()
        actions, joined, snaps = line.actions, line.joined, line.snaps
        for record in self.records:
            if "a" in record:
                actions.append(record["a"])
                joined.append(record.get("j") == 1)
            elif "undo" in record:
                k = record.get("k", 1)
                k = k if type(k) is int and k > 0 else 1
                del actions[max(0, len(actions) - k) :], joined[max(0, len(joined) - k) :]
                while snaps and snaps[-1].get("n", 0) > len(actions):
                    snaps.pop()
            elif "snap" in record:
                snap = record["snap"]
                if isinstance(snap, dict) and snap.get("n") == len(actions):
                    snaps.append(snap)
        return line

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
