"""The SCRIPT's actions as text, kept beside the journal so that ``tablemate state`` need not cut
10,000 of them out of its lines.

``tablemate state`` prints every action in effect (see docs/commands.md). The journal holds them
one a line among times and checksums, so printing them costs a pass over every line. This cache,
``game.script`` beside ``game.jsonl``, holds them as the SCRIPT writes them (``json.dumps`` of
their list, brackets left out), up to the game's last snapshot; each snapshot names the length
and CRC-32 of the cache's text up to its point (``"cs": [LENGTH, CRC]``). A reader trusts the
first LENGTH bytes only when their checksum is that one, and adds the few actions after the
snapshot from the journal itself.

It is only a shortcut, as a snapshot is: never fsynced (a power cut may lose it), written on the
journal's writer after the actions it holds are durable, checked before every use, and worked out
again from the actions whenever it does not check. A journal without it, or a cache that lies,
costs a slower ``state``, never a wrong one.

A snapshot's mark stays true of the line in play while no undo has gone below its point: the
session says how low the line went since the last snapshot (``low``), and marks above that point
are forgotten before the next one is written.
"""

from __future__ import annotations

import contextlib
import json
import logging
import zlib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from firmware_host.core import fsio

log = logging.getLogger(__name__)

SUFFIX = ".script"
"""The cache's name beside the journal: ``game.jsonl`` → ``game.script``."""

Mark = tuple[int, int, int]
"""A point of the line in play (actions in effect), and the length and CRC-32 of the cache's
text of the actions up to it."""


def cache_path(journal: Path) -> Path:
    """The cache file of the journal at ``journal``."""
    return journal.with_suffix(SUFFIX)


def mark_of(snap: Any) -> Mark | None:
    """The mark a snapshot's body names (its point, and its ``cs``), or ``None``."""
    if not isinstance(snap, dict):
        return None
    n, cs = snap.get("n"), snap.get("cs")
    if type(n) is not int or n < 0 or not isinstance(cs, list) or len(cs) != 2:
        return None
    if not all(type(v) is int and v >= 0 for v in cs):
        return None
    return n, cs[0], cs[1]


def actions_text(actions: Sequence[Any]) -> str:
    """``json.dumps`` of the list of ``actions``, its brackets left out, keys sorted as the journal
    keeps them (what ``tablemate state`` prints of actions read back). A line read back from the
    journal (:class:`~firmware_host.core.journal_head.Lazy`) gives its own text, copied from the
    journal's bytes where it can."""
    if hasattr(actions, "json"):
        text = actions.json(sort_keys=True)
    else:
        text = json.dumps(list(actions), ensure_ascii=False, sort_keys=True)
    return text[1:-1]


def _joined(before: int, text: str) -> bytes:
    return ((", " if before and text else "") + text).encode("utf-8")


def _on_file(path: Path, marks: Sequence[Mark]) -> tuple[Mark, bytes] | None:
    """The newest of ``marks`` whose bytes the cache holds, with them (one read); ``None`` when
    none does. A mark of actions but no text is never believed."""
    usable = [m for m in marks if (m[0] == 0) == (m[1] == 0)]
    if not usable:
        return None
    try:
        with open(path, "rb") as f:
            data = f.read(max(m[1] for m in usable))
    except OSError:
        return None
    for mark in reversed(usable):
        if len(data) >= mark[1] and zlib.crc32(memoryview(data)[: mark[1]]) == mark[2]:
            return mark, data[: mark[1]]
    return None


def read(path: Path, marks: Sequence[Mark], count: int) -> tuple[int, str] | None:
    """The cached text of the first actions of a line of ``count`` actions: the newest mark at
    or below ``count`` whose bytes check, as (its point, the text); ``None`` when none does."""
    found = _on_file(path, [m for m in marks if m[0] <= count])
    if found is None:
        return None
    try:
        return found[0][0], found[1].decode("utf-8")
    except UnicodeDecodeError:
        return None


class ScriptCache:
    """The writer's side of the cache of one journal: brings it up to a snapshot's point.

    Used on the journal's writer only (its calls come in the order the session made them).
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self._marks: list[Mark] = []
        self._seeds: Sequence[dict[str, Any]] | None = None
        self._checked: set[Mark] = {(0, 0, 0)}
        """Marks whose bytes this process wrote or read back whole."""

    @property
    def marks(self) -> list[Mark]:
        """The marks of the line in play, oldest first (from the journal's snapshots, then written)."""
        if self._seeds is not None:
            self._marks, self._seeds = [m for m in map(mark_of, self._seeds) if m is not None], None
        return self._marks

    @marks.setter
    def marks(self, marks: list[Mark]) -> None:
        self._marks, self._seeds = marks, None

    def seed(self, snaps: Sequence[dict[str, Any]]) -> None:
        """The snapshots of the line a journal read back holds, oldest first: their marks (read
        when first wanted, and checked before they are built on)."""
        if not self._marks and self._seeds is None:
            self._seeds = list(snaps)

    def write(self, actions: Sequence[Any], low: int) -> list[int] | None:
        """Make the cache hold the text of ``actions`` (the line in play up to a snapshot's
        point) and return the snapshot's ``cs``; ``low``: the fewest actions the line held since
        the last snapshot (marks above it are of a line undone). ``None`` when it cannot be
        written (then the snapshot names none, and ``state`` cuts its actions out of the journal)."""
        n = len(actions)
        self.marks = [m for m in self.marks if m[0] <= min(low, n)]
        try:
            fd = fsio.open_append(self.path)
        except OSError as exc:
            log.debug("script cache not written: %s", exc)
            return None
        try:
            base = self._base()
            start, length, crc = base
            data = _joined(length, actions_text(actions[start:n]))
            fsio.truncate(fd, length)
            fsio.write(fd, data, length)
        except OSError as exc:
            log.debug("script cache not written: %s", exc)
            self.marks = [m for m in self.marks if m[1] == 0]
            return None
        finally:
            with contextlib.suppress(OSError):
                fsio.close(fd)
        mark = (n, length + len(data), zlib.crc32(data, crc))
        self.marks = [m for m in self.marks if m[0] < n] + [mark]
        self._checked.add(mark)
        return [mark[1], mark[2]]

    def _base(self) -> Mark:
        """The newest mark whose bytes are on the file (read back once a process), else the start;
        the marks after it are dropped."""
        marks = self.marks
        if marks and marks[-1] in self._checked:
            return marks[-1]
        found = _on_file(self.path, marks)
        if found is None:
            self.marks = []
            return 0, 0, 0
        mark = found[0]
        self.marks = marks[: marks.index(mark) + 1]
        self._checked.add(mark)
        return mark
