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
import itertools
import json
import logging
import math
import zlib
from collections.abc import Callable, Iterator
from concurrent.futures import Future
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from firmware_host.core import fsio
from firmware_host.core.fsio import fsync_dir, write_atomic
from firmware_host.core.journal_head import Head, Lazy
from firmware_host.core.journal_lines import (
    JournalError,
    Snap,
    decode_all,
    encode,
    is_snapshot,
    line_of,
    proven,
    snap_body,
)
from firmware_host.core.script_cache import ScriptCache, actions_text, cache_path
from firmware_host.core.script_cache import read as read_script
from firmware_host.core.writer import Writer

log = logging.getLogger(__name__)

__all__ = ["Journal", "JournalError", "Snap", "Timeline", "check_header", "fsync_dir", "snap_body", "write_atomic"]


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

    actions: list[dict[str, Any]] | Lazy = field(default_factory=list)
    joined: list[bool] | Lazy = field(default_factory=list)
    """Per action: whether it belongs to the move of the action before it."""
    snaps: list[dict[str, Any]] = field(default_factory=list)
    """The snapshots of points of this line, oldest first."""


@dataclass
class Journal:
    """An open journal file: its header and records, and appends that are durable on return.

    Writes run on the journal's :class:`~firmware_host.core.writer.Writer`: :meth:`submit` hands
    a record over and returns a future that is done once the record is on disk; :meth:`append`
    waits for it. :attr:`records` holds every record handed over (what the game in play is made
    of); if a write fails, :meth:`rollback` drops the ones that never reached the disk.

    A journal read back keeps the lines before its last snapshot as bytes (:attr:`head`, see
    :mod:`firmware_host.core.journal_head`): ``tail`` holds the records from that snapshot on,
    and what the session reads (its line of play, notes, drafts) needs nothing decoded before it.
    """

    path: Path
    header: dict[str, Any]
    tail: list[dict[str, Any]] = field(default_factory=list)
    """The records from the head's end on (all of them when there is no head)."""
    torn: bool = False
    """Whether a torn last line was dropped on open."""
    _size: int = 0
    writer: Writer = field(default_factory=Writer)
    created: Future | None = None
    """The future of the journal's creation (done when the file exists whole)."""
    _durable: int = 0
    """Records of :attr:`tail` on disk (set by the writer)."""
    _fd: int | None = None
    _cut: bool = False
    """Whether the file may hold bytes past ``_size`` (a torn tail, a failed write) to cut first."""
    _crc: int = 0
    """The CRC-32 of the file's first ``_size`` bytes (a snapshot names it: see :func:`proven`)."""
    head: Head | None = None
    """The lines before the last snapshot, decoded when needed (``None``: all are in ``tail``)."""
    _crcs: dict[int, int] = field(default_factory=dict)
    """The CRC-32 of every byte before a snapshot line read back, by where the line starts."""
    _header: tuple[int, int] = (0, 0)
    """Where the header line ends, and the CRC-32 of its bytes (for :meth:`vouched`)."""
    script: ScriptCache = field(init=False)
    """The cache of the SCRIPT's text beside the journal (see :mod:`firmware_host.core.script_cache`)."""

    def __post_init__(self) -> None:
        self.script = ScriptCache(cache_path(self.path))

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
        data = b"".join(encode(r) for r in [header, *records])
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
    def open(cls, path: Path, writer: Writer | None = None, defer: bool = False) -> Journal:
        """Read a journal back; a torn last line is dropped, other damage raises JournalError.

        ``defer``: the lines before the last snapshot are not even searched for the records that
        are not actions until something asks for one (see :attr:`Head.point`): what ``tablemate
        state`` and a resume need of a long game is that snapshot and what follows it."""
        return cls.read(path, path.read_bytes(), writer, defer)

    @classmethod
    def read(cls, path: Path, raw: bytes, writer: Writer | None = None, defer: bool = False) -> Journal:
        """:meth:`open` of a journal whose bytes ``raw`` were read from ``path`` already."""
        end = raw.rfind(b"\n") + 1
        tail = raw[end:]  # bytes after the last newline: empty unless the last write tore
        decoded: list[dict[str, Any]] = []
        torn = bool(tail)
        known_end, known_crc = proven(raw, end)
        header_end = raw.find(b"\n") + 1
        head_data = None
        if known_end > header_end:  # proven: the lines before the snapshot are read when needed
            head_data = raw[header_end:known_end]
            lines = [raw[: header_end - 1], *raw[known_end : end - 1].split(b"\n")]
            good = known_end - header_end
        else:
            lines = raw[: end - 1].split(b"\n") if end else []
            good = 0
            known_end = known_crc = 0
        collecting = gc.isenabled()
        gc.disable()  # thousands of fresh records, none garbage: no collection passes over them meanwhile
        try:
            records_read = decode_all(lines[:1], proven=head_data is not None) + decode_all(lines[1:])
        finally:
            if collecting:
                gc.enable()
        head = None
        if head_data is not None:
            snap = records_read[1]["snap"] if len(records_read) > 1 and records_read[1] is not None else None
            point = snap.get("n") if defer and isinstance(snap, dict) else None
            head = Head(path.name, head_data, 2, point if type(point) is int and point >= 0 else None, header_end)
        crcs: dict[int, int] = {}
        """The CRC-32 of every byte before each snapshot line read (by where the line starts)."""
        crc_at, crc = (known_end, known_crc) if head_data is not None else (0, 0)

        def number(at: int) -> int:  # a line's number in the file, from its place in ``lines``
            return at if at == 1 or head is None else at + len(head)

        for at, (line, record) in enumerate(zip(lines, records_read, strict=True), start=1):
            if record is None and at < len(lines) and is_snapshot(line):
                record = {"snap": {}}  # a damaged snapshot is only a lost shortcut: the actions replay
            if record is None:
                if at == len(lines) and not tail:
                    torn = True
                    break
                raise JournalError(f"{path.name}: line {number(at)} is damaged")
            decoded.append(record)
            if isinstance(record.get("snap"), Snap):
                crc, crc_at = zlib.crc32(memoryview(raw)[crc_at:good], crc), good
                crcs[good] = crc
                record["snap"].start = good
            good += len(line) + 1
        if not decoded:
            raise JournalError(f"{path.name}: no header")
        records = decoded[1:]
        journal = cls(path, decoded[0], records, torn, good, writer or Writer(), None, len(records), None, torn)
        journal.head = head
        journal._crc = zlib.crc32(memoryview(raw)[crc_at:good], crc)
        journal._crcs = crcs
        journal._header = (header_end, zlib.crc32(memoryview(raw)[:header_end]))
        return journal

    def submit(
        self, record: dict[str, Any], optional: bool = False, line: tuple[Any, int] | None = None, seal: bool = False
    ) -> Future:
        """Hand one record to the writer; the future is done when it survives a power cut.

        ``optional``: a record nothing depends on (a snapshot). Its failure breaks nothing: it
        is logged once, left out of :attr:`records`, its torn bytes cut by the next write, and
        its future says ``False`` instead of raising. ``line``, with a snapshot: the actions in
        effect at its point and the fewest the line held since the last snapshot, for the
        SCRIPT's cache (:meth:`~firmware_host.core.script_cache.ScriptCache.write`). ``seal``,
        with a snapshot: its state is known to be what its actions lead to, and the line is
        sealed so (:mod:`firmware_host.core.verdict`).
        """
        kept = dict(record)
        self.tail.append(kept)
        if not optional:
            data = encode(record)
            return self.writer.submit(lambda: self._write(data))
        return self.writer.submit(lambda: self._write_optional(record, kept, line, seal))

    def append(self, record: dict[str, Any]) -> None:
        """Write one record and fsync it; when this returns, the record survives a power cut."""
        self.submit(record).result()

    def _write(self, data: bytes) -> None:
        """On the writer: one write and one fsync, after cutting a torn or failed tail.

        A record whose write or fsync fails is cut off again at once, so that no reader (nor a
        boot after a power cut) finds an action the table was told was not saved — while the
        truncate works: when it fails too, the record stays in the file (every later write cuts
        it first, and fails with it), and a restart finds the refused action
        (``docs/storage.md``, "Storage errors").
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

    def _write_optional(
        self, record: dict[str, Any], kept: dict[str, Any], line: tuple[Any, int] | None, seal: bool = False
    ) -> bool:
        """On the writer: :meth:`_write` of a record nothing depends on; ``False`` when it failed.

        A snapshot is encoded here, naming where its line starts and the checksum of every byte
        before it, so that a read can trust all of them in one pass (:func:`proven`), and the
        SCRIPT's cache up to its point (written first); with ``seal``, sealed when its state
        reads back the same (:func:`~firmware_host.core.verdict.faithful`)."""
        data = None
        if isinstance(record.get("snap"), dict):
            at = self._size  # where it goes: a torn tail past it is cut first
            cs = self.script.write(*line) if line is not None else None
            extra = {"cs": cs} if cs is not None else {}
            record = {**record, "snap": {**record["snap"], "ac": self._crc, "at": at, **extra}}
            if cs is not None:
                kept["snap"] = {**kept["snap"], "cs": cs}
            if seal:
                data = self._sealed(record)
        try:
            self._write(data or encode(record))
        except OSError as exc:
            kept.clear()  # not on disk: no longer a record of the game (it keeps its place in the count)
            self._durable += 1
            log.warning("snapshot not saved (%s): the actions are, only a resume replays more", exc)
            return False
        return True

    @staticmethod
    def _sealed(record: dict[str, Any]) -> bytes | None:
        """A snapshot record's line, sealed; ``None`` when its state does not read back the same."""
        from firmware_host.core import verdict  # the snapshot encoding: loaded with the first seal

        body = verdict.encode_sealed(record)
        read = json.loads(body)  # the state and outcomes as a resume reads them
        if not verdict.faithful(read["snap"]):
            log.warning("snapshot at action %s does not read back as its state: not sealed", record["snap"].get("n"))
            return None
        return line_of(body)

    def vouched(self, snap: dict[str, Any]) -> bool:
        """Whether a snapshot read from this journal carries a seal of its own line under this code,
        and the CRC-32 it names of the bytes before it is that of the bytes the file holds there
        (see :mod:`firmware_host.core.verdict`)."""
        if not isinstance(snap, Snap) or snap.start is None or snap.start != snap.at or snap.ac is None:
            return False
        crc = self._crcs.get(snap.start)
        header_end, header_crc = self._header
        if crc is None and self.head is not None and header_end <= snap.start <= header_end + len(self.head.data):
            crc = zlib.crc32(memoryview(self.head.data)[: snap.start - header_end], header_crc)
            self._crcs[snap.start] = crc
        if crc != snap.ac:
            return False
        from firmware_host.core import verdict

        return verdict.holds(snap.line)

    def rollback(self) -> int:
        """After a failed write: forget the records that never reached the disk; how many."""
        lost = len(self.tail) - self._durable
        if lost > 0:
            del self.tail[len(self.tail) - lost :]
        return max(0, lost)

    def close(self) -> None:
        """Close the file (on the writer, after the writes given before)."""
        if self._fd is not None:
            fd, self._fd = self._fd, None
            fsio.close(fd)

    @property
    def size(self) -> int:
        """Bytes of the file that are whole records on disk (read back, or written since)."""
        return self._size

    @property
    def count(self) -> int:
        """How many records the journal holds (past its header)."""
        return len(self.tail) + (len(self.head) if self.head is not None else 0)

    @property
    def records(self) -> list[dict[str, Any]]:
        """Every record, oldest first (the head's decoded for it: the session's reads need
        none of them, see :meth:`timeline`, :meth:`newest_first`)."""
        return self.tail if self.head is None else [*self.head.records(), *self.tail]

    def newest_first(self) -> Iterator[dict[str, Any]]:
        """The records newest first, the head's actions left out (decoding nothing): what a
        search for the last note, task or time reads."""
        yield from reversed(self.tail)
        if self.head is not None:
            yield from self.head.notes_newest_first()

    def actions(self) -> list[dict[str, Any]] | Lazy:
        """The accepted actions in effect: every action, less the ones undone."""
        return self.timeline().actions

    def timeline(self) -> Timeline:
        """The actions in effect, which of them join the move before, and the snapshots that
        still describe a point of that line (written with as many actions in effect, and no undo
        gone below that point since), oldest first. The head's are read without decoding them."""
        line = Timeline()
        if self.head is not None and not self.head.indexed and self._below_head():
            self.head.search()  # an undo went into the head: its own snapshots are wanted
        if self.head is not None:
            line.actions, line.joined = self.head.actions(), self.head.joined()
            line.snaps = self.head.snaps()
        actions, joined, snaps = line.actions, line.joined, line.snaps
        for record in self.tail:
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

    def seed_script(self, snaps: list[dict[str, Any]]) -> None:
        """Tell the SCRIPT's cache the marks of the snapshots of the line in play (oldest first)."""
        self.script.seed(snaps)

    def script_json(self, actions: Any) -> str | None:
        """``json.dumps`` of the list ``actions`` (the line in play, or its first actions) with
        its first part read from the SCRIPT's cache: ``None`` when the cache holds none of it."""
        found = read_script(self.script.path, self.script.marks, len(actions))
        if found is None:
            return None
        n, text = found
        rest = actions_text(actions[n:])
        return "[" + text + (", " if text and rest else "") + rest + "]"

    def older_snaps(self, floor: int) -> list[dict[str, Any]]:
        """The snapshots of the head's line (searched now, if not yet) at most ``floor`` actions
        in: those a line that has not gone below ``floor`` since it was read still holds."""
        if self.head is None:
            return []
        self.head.search()
        return [snap for snap in self.head.snaps() if snap.get("n", 0) <= floor]

    def _below_head(self) -> bool:
        """Whether the line of play went below the head's point since (an undo into the head)."""
        assert self.head is not None and self.head.point is not None
        n = point = self.head.point
        for record in self.tail:
            if "a" in record:
                n += 1
            elif "undo" in record:
                k = record.get("k", 1)
                n -= k if type(k) is int and k > 0 else 1
                if n < point:
                    return True
        return False

    def draft(self) -> dict[str, Any] | None:
        """The answers of an unfinished simultaneous prompt, if the last record is one."""
        records: Iterator[dict[str, Any] | None] = iter(reversed(self.tail))
        if self.head is not None:
            records = itertools.chain(records, self.head.newest_first())
        for record in records:
            if record is None or "a" in record or "undo" in record:  # (None: one of the head's actions)
                return None
            if "draft" in record:
                return record["draft"]
        return None

    def last(self, key: str) -> dict[str, Any] | None:
        """The newest record holding ``key`` (not an action: ``"a"`` is not searched in the head)."""
        return self._newest(key, lambda record: key in record)

    def last_meta(self, name: str) -> Any:
        """The newest ``meta`` value named ``name`` (``{"meta": {name: VALUE}}``), or ``None``."""

        def holds(record: dict[str, Any]) -> bool:
            meta = record.get("meta")
            return isinstance(meta, dict) and name in meta

        record = self._newest(name, holds)
        return record["meta"][name] if record is not None else None

    def _newest(self, key: str, holds: Callable[[dict[str, Any]], bool]) -> dict[str, Any] | None:
        """The newest record that ``holds`` (one holding ``key`` at its top): the tail's, then the
        head's notes (found from the lines naming ``key`` while the head is not searched)."""
        for record in reversed(self.tail):
            if holds(record):
                return record
        if self.head is None:
            return None
        if not self.head.indexed:
            known, found = self.head.newest_naming(key, holds)
            if known:
                return found
        return next((record for record in self.head.notes_newest_first() if holds(record)), None)

    def metas(self, name: str) -> list[Any]:
        """Every ``meta`` value named ``name``, oldest first."""
        out = []
        notes = self.head.notes() if self.head is not None else iter(())
        for record in itertools.chain(notes, iter(self.tail)):
            meta = record.get("meta")
            if isinstance(meta, dict) and name in meta:
                out.append(meta[name])
        return out

    @property
    def ended(self) -> str | None:
        """Why the game ended (``"over"`` or ``"abandoned"``), or ``None`` while in play."""
        record = self.last("end")
        return record["end"] if record else None
