"""The journal's lines before its last snapshot, proven intact by one CRC and decoded only when needed.

A long game's journal is mostly actions, and resume, ``tablemate state`` and undo start from the
last snapshot: they need the actions after it, the snapshot's own point, and the few records that
are not actions (undos, snapshots, notes). So the lines before the last snapshot (the journal's
*head*, :class:`Head`) stay bytes: the ones that are not actions are decoded when the journal is
opened, the actions only when something needs them — an undo past the snapshot, the replay that
checks a resume, the SCRIPT export — all of them at once, once. One of them alone (the action a
snapshot follows) is decoded on its own.

:class:`Lazy` is a list of the actions in effect (or their "joins the move before" flags) whose
first items come from the head: slicing it from its start, appending to it and cutting its end
decode nothing, so that a session holds a 10,000-action line at the cost of the lines after its
last snapshot.
"""

from __future__ import annotations

import bisect
import gc
import json
import re
import threading
from collections.abc import Callable, Iterator, Sequence
from typing import Any, overload

from firmware_host.core.journal_lines import JournalError, Snap, decode_all, is_snapshot

ACTION = b'{"a":'
"""How an action's line starts (keys are sorted: ``a`` comes first)."""
_NOT_ACTION = re.compile(rb'\n(?!\{"a":)')
"""The newline before a line that is not an action."""
_ACTION_LINE = re.compile(
    rb'\n\{"a":(\{[^\n]*\})(?:,"e":[-0-9.eE+]+)?(,"j":1)?(?:,"t":[-0-9.eE+]+)?,"c":[0-9]+\}(?=\n)'
)
"""An action's line as :func:`~firmware_host.core.journal_lines.encode` writes it (keys sorted):
the action, and whether it joins the move before."""
_SEAM = re.compile(rb',"e":[-0-9.eE+]++(?:,"j":1)?,"t":[-0-9.eE+]++,"c":[0-9]++\}\n\{"a":(?=\{)')
"""Where one action ends and the next begins in lines as :func:`~firmware_host.core.journal_lines.encode`
writes them: the rest of an action's line (its numbers, keys sorted), the newline, the start of
the next line (an action's line ends with its checksum's ``}``, which its action cannot hold)."""
_NOT_TEXT = bytes(sorted(set(range(256)) - set(b'",:')))
"""Every byte but a quote and the two separators (left out to check where the separators are)."""
PIECE = 40_000
"""Bytes of the head searched and parsed in one go (about 200 actions)."""
FEW = 16
"""Items of the head read one by one; a longer run decodes the whole head at once."""


class Head:
    """The journal's lines from line 2 up to its last snapshot, proven intact (see
    :func:`~firmware_host.core.journal_lines.proven`): their records on demand.

    ``data`` is their bytes (each line ending in a newline); ``first`` is the journal line number
    of its first line (for messages). Opening finds the lines that are not actions with one
    search over the bytes; nothing else is split or parsed until asked for. Safe to read from
    two threads (the replay check decodes while the loop reads).
    """

    def __init__(self, name: str, data: bytes, first: int, point: int | None = None, base: int = 0) -> None:
        self.name, self.data, self.first = name, data, first
        self.base = base
        """Where ``data`` starts in the file (a snapshot's line is known by where it starts)."""
        self.point = point
        """With ``point`` (the actions in effect at the head's end, as the snapshot after it says),
        the search for the lines that are not actions waits until something needs them: a read
        that starts from that snapshot (``tablemate state`` with the SCRIPT's cache) finds none."""
        self._index: tuple[dict[int, tuple[int, int]], dict[int, dict[str, Any]], int] | None = None
        self._misled: str | None = None
        """Why the snapshot's point is not the head's line (found when the head was searched)."""
        self._lines: list[bytes] | None = None
        self._records: list[dict[str, Any]] | None = None
        self._fields: tuple[list[Any], list[bool]] | None = None
        self._lock = threading.RLock()
        self._line: tuple[list[tuple[int, int, int, int]], list[int], list[dict[str, Any]], int] | None = None
        self._actions, self._joined = _Items(self, "a"), _Items(self, "j")
        if point is None:
            self._indexed()

    def _indexed(self) -> tuple[dict[int, tuple[int, int]], dict[int, dict[str, Any]], int]:
        """Where each line that is not an action starts and ends and its record (by line index),
        and how many lines there are: found with one search over the bytes, once."""
        if self._index is not None and self._misled is None:
            return self._index
        with self._lock:
            if self._index is None:
                name, data, first = self.name, self.data, self.first
                found = _not_actions(data)
                count = found[-1][0] + 1 + data.count(b"\n", found[-1][2] + 1) if found else data.count(b"\n")
                where = {i: (start, end) for i, start, end in found}
                others: dict[int, dict[str, Any]] = {}
                lines = [data[start:end] for _, start, end in found]
                for (i, start, _), line, record in zip(found, lines, decode_all(lines, proven=True), strict=True):
                    if record is None and is_snapshot(line):
                        record = {"snap": {}}  # only a lost shortcut, as everywhere in the journal
                    if record is None:
                        raise JournalError(f"{name}: line {first + i} is damaged")
                    if isinstance(record.get("snap"), Snap):
                        record["snap"].start = self.base + start
                    others[i] = record
                self._index = (where, others, count)
                size = self.line()[3] if self.point is not None else None
                if size != self.point:
                    self._misled = (
                        f"{name}: the snapshot after line {first + count - 1} names {self.point} actions"
                        f" in effect, the lines before it hold {size}"
                    )
        if self._misled is not None:
            raise JournalError(self._misled)  # the size trusted so far was the snapshot's: no read goes on from it
        return self._index

    def search(self) -> None:
        """Find the lines that are not actions now (if not yet)."""
        self._indexed()

    @property
    def indexed(self) -> bool:
        """Whether the lines that are not actions have been found (see :attr:`point`)."""
        return self._index is not None

    @property
    def others(self) -> dict[int, dict[str, Any]]:
        """The records that are not actions, by line index (in order)."""
        return self._indexed()[1]

    @property
    def _at(self) -> dict[int, tuple[int, int]]:
        return self._indexed()[0]

    @property
    def _count(self) -> int:
        return self._indexed()[2]

    def last_action(self) -> dict[str, Any] | None:
        """The record of the head's last line when it is an action (the one its snapshot
        follows), read without finding the other lines; ``None`` when it is not one."""
        data = self.data
        start = self._last_start()
        if not data.startswith(ACTION, start):
            return None
        return self._action(len(self) - 1 if self.indexed else -1, data[start:-1])

    def __len__(self) -> int:
        return self._count

    @property
    def lines(self) -> list[bytes]:
        """The raw lines (split when first asked for)."""
        if self._lines is None:
            self._lines = self.data[:-1].split(b"\n")
        return self._lines

    def _action(self, i: int, line: bytes) -> dict[str, Any]:
        try:
            record = json.loads(line)
        except (UnicodeDecodeError, ValueError, RecursionError):
            record = None
        if not isinstance(record, dict) or "a" not in record:
            raise JournalError(f"{self.name}: line {self.first + i} is damaged")
        record.pop("c", None)
        return record

    def records(self) -> list[dict[str, Any]]:
        """Every record, decoded now if not yet (the lines are parsed in batches, at once)."""
        with self._lock:
            if self._records is None:
                collecting = gc.isenabled()
                gc.disable()  # thousands of fresh records, none garbage
                try:
                    decoded = decode_all(self.lines, proven=True)
                finally:
                    if collecting:
                        gc.enable()
                for i, record in enumerate(decoded):
                    if i in self.others:
                        decoded[i] = self.others[i]  # the same objects (a snapshot's body is read once)
                    elif record is None or "a" not in record:
                        raise JournalError(f"{self.name}: line {self.first + i} is damaged")
                self._records = decoded  # type: ignore[assignment]
            return self._records  # type: ignore[return-value]

    def decode(self, at: list[int]) -> list[dict[str, Any]]:
        """The records of the lines ``at`` (the head's actions among them parsed together)."""
        if self._records is not None:
            return [self._records[i] for i in at]
        lines = [self._raw(i) for i in at]
        out = []
        for i, record in zip(at, decode_all(lines, proven=True), strict=True):
            if i in self.others:
                record = self.others[i]
            elif record is None or "a" not in record:
                raise JournalError(f"{self.name}: line {self.first + i} is damaged")
            out.append(record)
        return out

    def record(self, i: int) -> dict[str, Any]:
        """The record of line ``i`` (an action's decoded on its own unless all are)."""
        if i in self.others:
            return self.others[i]
        if self._records is not None:
            return self._records[i]
        return self._action(i, self._raw(i))

    def _raw(self, i: int) -> bytes:
        """Line ``i``'s bytes, found from the nearest line that is not an action (or split)."""
        if self._lines is not None:
            return self._lines[i]
        if i in self._at:
            start, end = self._at[i]
            return self.data[start:end]
        return self._data_line(i)

    def _data_line(self, i: int) -> bytes:
        runs = self.line()[0]
        for first, _, start, size in runs:  # (few runs: one between two records that are not actions)
            if first <= i < first + size:
                steps = i - first
                if steps <= size - 1 - steps:
                    pos = start
                    for _ in range(steps):
                        pos = self.data.index(b"\n", pos) + 1
                    return self.data[pos : self.data.index(b"\n", pos)]
                end = self._run_end(first + size, start, size)
                for _ in range(size - 1 - steps):
                    end = self.data.rindex(b"\n", 0, end)
                return self.data[self.data.rfind(b"\n", 0, end) + 1 : end]
        return self.lines[i]

    def _run_end(self, after: int, start: int, size: int) -> int:
        """Where the run of action lines ending before line ``after`` ends (its last newline)."""
        if after in self._at:
            return self._at[after][0] - 1
        if after == self._count:
            return len(self.data) - 1
        pos = start
        for _ in range(size):
            pos = self.data.index(b"\n", pos) + 1
        return pos - 1

    def fields(self, key: str) -> list[Any]:
        """Per action line, in order: its action (``"a"``) or whether it joins the move before
        (``"j"``). Read with one search and one parse of the actions alone (not their times and
        checksums); the lines are decoded whole instead if any does not look as written."""
        with self._lock:
            if self._fields is None:
                self._fields = self._read_fields()
        return self._fields[0 if key == "a" else 1]

    def _read_fields(self) -> tuple[list[Any], list[bool]]:
        if self._records is None:
            actions: list[Any] = []
            joined: list[bool] = []
            data, at = self.data, 0
            while at < len(data):  # a piece at a time: a read off the loop never holds the interpreter long
                end = data.find(b"\n", at + PIECE) + 1 or len(data)
                found = _ACTION_LINE.findall(b"\n" + data[at:end])
                try:
                    piece = json.loads(b"[" + b",".join(a for a, _ in found) + b"]")
                except (UnicodeDecodeError, ValueError, RecursionError):
                    break
                actions += piece
                joined += [bool(j) for _, j in found]
                at = end
            if len(actions) == len(joined) == self._count - len(self.others):
                return actions, joined
        records = [r for i, r in enumerate(self.records()) if i not in self.others]
        return [r["a"] for r in records], [r.get("j") == 1 for r in records]

    def text(self, stop: int) -> str | None:
        """The first ``stop`` actions in effect as JSON text, exactly as ``json.dumps`` of their
        list (its brackets left out) writes them, copied from the lines' bytes without decoding
        them; ``None`` when a line is not as :func:`~firmware_host.core.journal_lines.encode`
        writes an action (then the caller decodes them).

        An action's line is ``{"a":ACTION,"e":E,"t":T,"c":C}`` (``"j":1`` before ``"t"`` when it
        joins the move before), its action written compact with its keys sorted. Decoded and
        written again by ``json.dumps``, the action comes out the same but for a space after each
        separator: so when no text in it holds an escape or a separator, that is all the change.
        One search a run of lines at a time cuts the actions out, a few passes over the bytes
        check them: nothing is done per action in Python. (Keys written twice in one object, which
        no encoder here writes, would be printed twice where a decode keeps the last.)"""
        pieces: list[bytes] = []
        total = 0
        for first, count, start, size in self.line()[0]:  # a run at a time: the loop's thread gets turns
            take = min(count, stop - total)
            if take <= 0:
                break
            run = self.data[start : self._lines_end(first, start, size, take)]
            if not run.startswith(b'{"a":{'):
                return None
            cut, seams = _SEAM.subn(b",", run[5:] + b'{"a":{')
            if seams != take:  # a line not as written: one more field, a different number, no time
                return None
            pieces.append(cut[:-2])  # (the "{" after the last seam)
            total += take
        out = b",".join(pieces)
        text = out.translate(None, _NOT_TEXT)
        if b"\\" in out or text.count(b'"') != 2 * text.count(b'""'):
            return None  # an escape, or a separator in a text: decoded and written again instead
        try:
            return out.replace(b",", b", ").replace(b":", b": ").decode("utf-8")
        except UnicodeDecodeError:
            return None

    def _lines_end(self, first: int, start: int, size: int, take: int) -> int:
        """Where the first ``take`` lines of the run of ``size`` action lines from byte ``start``
        (line ``first``) end (past the newline)."""
        if take == size:
            return self._run_end(first + size, start, size) + 1
        if take <= size - take:
            pos = start
            for _ in range(take):
                pos = self.data.index(b"\n", pos) + 1
            return pos
        end = self._run_end(first + size, start, size)
        for _ in range(size - take):
            end = self.data.rindex(b"\n", 0, end)
        return end + 1

    def newest_first(self) -> Iterator[dict[str, Any] | None]:
        """The records newest first, ``None`` standing for an action (nothing decoded; the last
        line, when it is an action, said so before the head is searched)."""
        said = 0
        if self._index is None and self.data.startswith(ACTION, self._last_start()):
            yield None
            said = 1
        others = self.others
        for i in range(self._count - 1 - said, -1, -1):
            yield others.get(i)

    def _last_start(self) -> int:
        return self.data.rfind(b"\n", 0, len(self.data) - 1) + 1

    def newest_naming(self, key: str, holds: Callable[[dict[str, Any]], bool]) -> tuple[bool, dict[str, Any] | None]:
        """Before the head is searched (see :attr:`point`): its newest record that ``holds``
        (a record holding ``key`` at its top, as notes do), as (known, the record or ``None``).

        A record holding the key names it, so the lines naming it are read from the last one
        back, each alone: action lines and snapshots are stepped over (their top holds only
        ``a``, ``j``, ``snap``, ``e``, ``t``). Not known when more than :data:`FEW` lines that are
        not snapshots name it (then the head is searched instead)."""
        if key in ("a", "j", "snap", "e", "t"):
            return False, None
        data, needle, tries = self.data, f'"{key}":'.encode(), 0
        pos = len(data)
        while True:
            pos = data.rfind(needle, 0, pos)
            if pos < 0:
                return True, None  # no line names the key: none holds it
            start = data.rfind(b"\n", 0, pos) + 1
            if b'"snap":{' in data[start : start + 64]:
                pos = start  # a snapshot (its state may name anything): stepped over
                continue
            tries += 1
            if tries > FEW:
                return False, None
            if not data.startswith(ACTION, start):
                record = decode_all([data[start : data.index(b"\n", pos)]], proven=True)[0]
                if record is None:
                    return False, None
                if holds(record):
                    return True, record
            pos = start

    def notes_newest_first(self) -> Iterator[dict[str, Any]]:
        """The records that are not actions, newest first."""
        others = self.others
        for i in sorted(others, reverse=True):
            yield others[i]

    def notes(self) -> Iterator[dict[str, Any]]:
        """The records that are not actions, oldest first."""
        return iter(self.others.values())

    def line(self) -> tuple[list[tuple[int, int, int, int]], list[int], list[dict[str, Any]], int]:
        """The head's line of play: the actions in effect at its end as runs of action lines
        (first line index, count in effect, start byte, lines in the run), the count in effect
        before each run, the snapshots of points of that line, and how many actions it holds.
        Worked out from the records that are not actions: the actions between two of them are
        all in effect until an undo."""
        if self._line is not None:
            return self._line
        runs: list[list[int]] = []  # [first line, count in effect, start byte, lines]
        snaps: list[dict[str, Any]] = []
        size, prev, prev_end = 0, -1, 0
        for i in [*self.others, self._count]:
            if i - prev > 1:  # the action lines prev+1 .. i-1
                runs.append([prev + 1, i - prev - 1, prev_end, i - prev - 1])
                size += i - prev - 1
            prev = i
            record = self.others.get(i)
            if record is None:
                continue
            prev_end = self._at[i][1] + 1
            if "undo" in record:
                k = record.get("k", 1)
                k = min(k if type(k) is int and k > 0 else 1, size)
                size -= k
                while k and runs:
                    take = min(k, runs[-1][1])
                    runs[-1][1] -= take
                    k -= take
                    if runs[-1][1] == 0:
                        runs.pop()
                while snaps and snaps[-1].get("n", 0) > size:
                    snaps.pop()
            elif "snap" in record:
                snap = record["snap"]
                if isinstance(snap, dict) and snap.get("n") == size:
                    snaps.append(snap)
        before, n = [], 0
        for run in runs:
            before.append(n)
            n += run[1]
        self._line = ([(a, b, c, d) for a, b, c, d in runs], before, snaps, n)
        return self._line

    def index(self, k: int) -> int:
        """The line index of the ``k``-th action in effect at the head's end."""
        runs, before, _, _ = self.line()
        run = bisect.bisect_right(before, k) - 1
        return runs[run][0] + k - before[run]

    def size(self) -> int:
        """How many actions are in effect at the head's end (its snapshot's point until the head
        is searched: see :attr:`point`)."""
        return self.point if self._index is None and self.point is not None else self.line()[3]

    def snaps(self) -> list[dict[str, Any]]:
        """The snapshots of points of the head's line (none known until the head is searched)."""
        return [] if self._index is None and self.point is not None else list(self.line()[2])

    def actions(self) -> Lazy:
        """The actions in effect at the head's end."""
        return Lazy(self._actions, self.size())

    def joined(self) -> Lazy:
        """Per action in effect: whether it joins the move of the one before it."""
        return Lazy(self._joined, self.size())


def _not_actions(data: bytes) -> list[tuple[int, int, int]]:
    """The line index, start and end (its newline) of each line of ``data`` that is not an action.

    The search runs over the action lines only: a line that is not one (a snapshot, much longer
    than an action) is stepped over to its newline, and the lines are counted between them."""
    found: list[tuple[int, int, int]] = []
    search, size = _NOT_ACTION.search, len(data)
    index, after = -1, 0  # the last line found, and where the lines after it start
    start = 0 if not data.startswith(ACTION) else None
    while True:
        if start is None:
            match = search(data, max(0, after - 1))
            if match is None or match.end() >= size:
                return found
            start = match.end()
        index += 1 + data.count(b"\n", after, start)
        end = data.index(b"\n", start)
        found.append((index, start, end))
        after, start = end + 1, None


class _Items:
    """One field of the head's actions in effect: read one by one, or all at once."""

    __slots__ = ("_all", "head", "key")

    def __init__(self, head: Head, key: str) -> None:
        self.head, self.key = head, key
        self._all: list[Any] | None = None

    def _value(self, record: dict[str, Any]) -> Any:
        return record["a"] if self.key == "a" else record.get("j") == 1

    def get(self, k: int) -> Any:
        if self._all is not None:
            return self._all[k]
        head = self.head
        if not head.indexed and head.point is not None and k == head.point - 1:
            last = head.last_action()  # the action its snapshot follows: no search for it
            if last is not None:
                return self._value(last)
        return self._value(head.record(head.index(k)))

    def run(self, start: int, stop: int) -> list[Any]:
        """Items ``start`` to ``stop`` (their lines decoded together, unless all are)."""
        if self._all is not None or stop - start > len(self.head) // 4:
            return self.all()[start:stop]
        index = self.head.index
        return [self._value(r) for r in self.head.decode([index(k) for k in range(start, stop)])]

    def text(self, stop: int) -> str:
        """Items ``0`` to ``stop`` as JSON text, as ``json.dumps`` of their list writes them
        (without its brackets): copied from the head's bytes when they allow (:meth:`Head.text`)."""
        text = self.head.text(stop) if self._all is None and self.key == "a" else None
        if text is None:
            text = json.dumps(self.all()[:stop], ensure_ascii=False)[1:-1]
        return text

    def all(self) -> list[Any]:
        """Every item, the head's lines decoded at once (once)."""
        if self._all is None:
            values = self.head.fields(self.key)
            out: list[Any] = []
            others = sorted(self.head.others)
            for first, count, _, _ in self.head.line()[0]:
                at = first - bisect.bisect_left(others, first)  # its place among the action lines
                out.extend(values[at : at + count])
            self._all = out
        return self._all


class Lazy(Sequence):  # type: ignore[type-arg]
    """A list whose first ``n`` items are the head's (read when asked for), then a list of its own.

    What a session does with its actions costs no decoding: ``len``, the last items, a slice from
    the start (another :class:`Lazy` of the same head), ``append``, cutting the end, and comparing
    two lines of the same head (only where they differ). Iterating, or a long slice into the head,
    decodes the head once.
    """

    __slots__ = ("_items", "_n", "tail")

    def __init__(self, items: _Items | None, n: int, tail: list[Any] | None = None) -> None:
        self._items, self._n = items, n if items is not None else 0
        self.tail: list[Any] = tail if tail is not None else []

    def __len__(self) -> int:
        return self._n + len(self.tail)

    def _at(self, i: int) -> Any:
        return self._items.get(i) if i < self._n else self.tail[i - self._n]  # type: ignore[union-attr]

    @overload
    def __getitem__(self, i: int) -> Any: ...
    @overload
    def __getitem__(self, i: slice) -> Any: ...
    def __getitem__(self, i: int | slice) -> Any:
        if isinstance(i, slice):
            start, stop, step = i.indices(len(self))
            stop = max(start, stop)
            if step != 1:
                return list(self)[i]
            if start == 0:
                return Lazy(self._items, min(self._n, stop), self.tail[: max(0, stop - self._n)])
            if start >= self._n:
                return self.tail[start - self._n : stop - self._n]
            if stop - start <= FEW:
                return [self._at(k) for k in range(start, stop)]
            head = self._items.run(start, min(stop, self._n))  # type: ignore[union-attr]
            return head + self.tail[: max(0, stop - self._n)]
        n = len(self)
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError("index out of range")
        return self._at(i)

    def __iter__(self) -> Iterator[Any]:
        if self._n:
            yield from self._items.all()[: self._n]  # type: ignore[union-attr]
        yield from self.tail

    def json(self, sort_keys: bool = False) -> str:
        """The list as JSON text, exactly as ``json.dumps(list(line), ensure_ascii=False,
        sort_keys=sort_keys)`` writes it, the head's part copied from the journal's bytes where
        it can be (nothing decoded; its keys are sorted as the journal writes them)."""
        head = self._items.text(self._n) if self._n else ""  # type: ignore[union-attr]
        tail = json.dumps(self.tail, ensure_ascii=False, sort_keys=sort_keys)[1:-1]
        return "[" + head + (", " if head and tail else "") + tail + "]"

    def append(self, item: Any) -> None:
        """Add ``item`` at the end."""
        self.tail.append(item)

    def __delitem__(self, i: slice) -> None:
        """Cut the end: ``del line[k:]`` (the only deletion a line of play knows)."""
        if not isinstance(i, slice) or i.stop is not None or i.step is not None:
            raise TypeError("only the end of a line can be cut")
        start = i.indices(len(self))[0]
        if start >= self._n:
            del self.tail[start - self._n :]
        else:
            self._n = start
            self.tail.clear()

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Lazy) and other._items is self._items and self._items is not None:
            if len(self) != len(other):
                return False
            same = min(self._n, other._n)  # the same head's items: equal without reading them
            return all(self._at(k) == other._at(k) for k in range(same, len(self)))
        if isinstance(other, (list, Lazy)):
            return len(self) == len(other) and list(self) == list(other)
        return NotImplemented

    def __ne__(self, other: object) -> bool:
        equal = self.__eq__(other)
        return equal if equal is NotImplemented else not equal

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"Lazy({self._n} from the journal + {self.tail!r})"
