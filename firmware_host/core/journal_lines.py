"""The journal's line format: one JSON object a line, keys sorted, sealed by a CRC-32 of the rest.

:func:`encode` writes a record as a line; :func:`decode` and :func:`decode_all` read lines back
(``None`` for a torn or damaged one); :func:`proven` checks every line before the journal's last
snapshot in one pass. A snapshot's state is read only when it is used (:class:`Snap`).
"""

from __future__ import annotations

import json
import re
import zlib
from typing import Any


class JournalError(Exception):
    """A journal that cannot be read back: names the file and line."""


def encode(record: dict[str, Any]) -> bytes:
    """One record as its line: compact JSON, keys sorted, its CRC-32 as ``"c"`` last."""
    return line_of(json.dumps(record, ensure_ascii=False, separators=(",", ":"), sort_keys=True))


def line_of(body: str) -> bytes:
    """A record's compact JSON ``body`` (keys sorted) as its line, its CRC-32 as ``"c"`` last."""
    crc = zlib.crc32(body.encode("utf-8"))
    return (body[:-1] + f',"c":{crc}}}\n').encode("utf-8") if body != "{}" else b'{"c":0}\n'


_NUMBER = rb"(-?[0-9.]+(?:[eE][-+]?[0-9]+)?)"
_SNAP_HEAD = re.compile(
    rb'^\{(?:"e":'
    + _NUMBER
    + rb',)?"snap":\{(?:"ac":(?P<ac>[0-9]+),"at":(?P<at>[0-9]+),)?(?:"cs":\[(?P<cs>[0-9]+),(?P<csc>[0-9]+)\],)?'
    rb'"d":[0-9]+,"g":"[a-z]+","k":"[0-9a-f]+","n":(?P<n>[0-9]+),'
)
"""The start of a snapshot line as :func:`encode` writes it (keys sorted): its times, the
checksum of every byte before it and where it starts (``ac``, ``at``), the length and checksum
of the SCRIPT text cached up to its point (``cs``: see :mod:`firmware_host.core.script_cache`),
and its point."""
_SNAP_BODY = re.compile(rb'\],"os":[0-9]+,"s":\{"\$c":"games\.')
"""What follows a snapshot's outcomes: how a snapshot line whose head is damaged is still known."""
_SNAP_TAIL = re.compile(rb',"t":' + _NUMBER + rb"$")
_SNAP_NEAR = 64
"""A snapshot line names itself within its first bytes (``"snap":{`` after its time)."""


class Snap(dict):  # type: ignore[type-arg]
    """A snapshot record's body read only as far as its point (``n``): the rest, a state much
    longer than an action, is parsed by :meth:`full` when the snapshot is used."""

    def __init__(
        self, n: int, line: bytes, cs: list[int] | None = None, at: int | None = None, ac: int | None = None
    ) -> None:
        super().__init__(n=n)
        self.line = line
        if cs is not None:
            self["cs"] = cs
        self.at, self.ac = at, ac
        """Where the line says it starts in the file, and the CRC-32 it names of every byte before it."""
        self.start: int | None = None
        """Where the line really starts in the file, when its reader says so."""

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


def sealed(line: bytes) -> int | None:
    """The checksum of a line as :func:`encode` wrote it, when its bytes match it; else ``None``."""
    cut = line.rfind(b',"c":')
    if cut > 0 and line.endswith(b"}") and line[cut + 5 : -1].isdigit():
        crc = int(line[cut + 5 : -1])
        if zlib.crc32(line[:cut] + b"}") == crc:
            return crc
    return None


def snap_record(line: bytes) -> dict[str, Any] | None:
    """A sealed snapshot line as a record whose body is read later (:class:`Snap`), else ``None``."""
    head = _SNAP_HEAD.match(line)
    if head is None:
        return None
    cut = line.rfind(b',"c":')
    tail = _SNAP_TAIL.match(line, line.rfind(b',"t":', 0, cut), cut)
    if tail is None:
        return None
    cs = [int(head["cs"]), int(head["csc"])] if head["cs"] is not None else None
    at, ac = (int(head["at"]), int(head["ac"])) if head["at"] is not None else (None, None)
    record: dict[str, Any] = {"snap": Snap(int(head["n"]), line, cs, at, ac)}
    if head.group(1) is not None:
        record["e"] = float(head.group(1))
    record["t"] = float(tail.group(1))
    return record


def is_snapshot(line: bytes) -> bool:
    """Whether a (damaged) line was a snapshot: its head, or else its body, says so."""
    return _SNAP_HEAD.match(line) is not None or _SNAP_BODY.search(line) is not None


def decode(line: bytes) -> dict[str, Any] | None:
    """The record of one line, or ``None`` when the line is torn or damaged."""
    crc = sealed(line)
    if crc is not None:
        record = snap_record(line)
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


def decode_all(lines: list[bytes], proven: bool = False) -> list[dict[str, Any] | None]:
    """:func:`decode` of every line; the sealed ones parsed together (one parse, not thousands).

    ``proven``: the lines are known intact (:func:`proven`), their checksums not checked one by one.
    """
    out: list[dict[str, Any] | None] = [None] * len(lines)
    batch: list[int] = []
    crcs: list[int | None] = []
    for i, line in enumerate(lines):
        crc = None if proven else sealed(line)
        if crc is None and not proven:
            out[i] = decode(line)
            continue
        record = snap_record(line) if b'"snap":{' in line[:_SNAP_NEAR] else None
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
                out[i] = decode(lines[i])
    return out


def proven(raw: bytes, end: int) -> tuple[int, int]:
    """Where the journal's last snapshot line starts, when it proves every byte before it intact,
    and the checksum of those bytes: the snapshot names where its line starts and the CRC-32 of
    every byte before it (``at``, ``ac``), checked in one pass instead of line by line. Only the
    lines after it are looked at (``end``: where the last whole line ends). ``(0, 0)`` when no
    snapshot near the end proves anything (then every line is checked on its own)."""
    first = raw.find(b"\n")  # the header's end: never a snapshot
    stop, tried = end - 1, 0
    while stop > first:
        pos = raw.rfind(b"\n", 0, stop) + 1
        if raw.find(b'"snap":{"ac":', pos, min(stop, pos + _SNAP_NEAR)) >= 0:
            line = raw[pos:stop]
            head = _SNAP_HEAD.match(line)
            tried += 1
            if head is not None and head["at"] is not None and int(head["at"]) == pos and sealed(line):
                crc = zlib.crc32(memoryview(raw)[:pos])
                if crc == int(head["ac"]):
                    return pos, crc
            if tried == 2:
                break
        stop = pos - 1
    return 0, 0
