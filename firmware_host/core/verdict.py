"""A snapshot's verdict: proved to be what its actions lead to, and sealed so that later starts trust it.

A journal snapshot is a shortcut: resume, undo and ``tablemate state`` start from it instead of the
first action. A snapshot can pass every check of :func:`~firmware_host.core.rebuild.snapshot_point`
and still be wrong (a bug in what a snapshot holds, a line edited with its checksum made right),
so the device proves a resumed one against the replay of every action from the first
(:mod:`firmware_host.core.proof`). That replay costs the whole game's CPU: it is made once, and
its verdict kept in the journal.

**The seal.** A snapshot line proved carries ``"v"``, the last key of its body: a BLAKE2b digest of
every byte of the line before it, keyed by :func:`code` (a digest of the modules that make, write
and read states). The bytes before it hold the state, the outcomes, the point, the engine's code
digest ``k``, the times, and ``ac``: the CRC-32 of every byte of the journal before the line. So a
seal binds:

- the snapshot's own content: a state edited (and its line's checksum made right) no longer
  matches its seal;
- the journal before it, through ``ac``: the reader trusts a seal only when ``ac`` is the CRC-32
  of the bytes the file really holds before the line (:meth:`Journal.vouched
  <firmware_host.core.journal.Journal.vouched>`), so an edited action unseals every snapshot
  after it;
- the engine (``k``, which a snapshot of other code fails anyway) and the device's own code
  (the key): after a software update every seal is void and the next start proves its snapshot
  once more.

**When a snapshot is sealed.** The session writes a seal when the state it snapshots was reached by
playing the actions from the first one in this process, or from a snapshot whose seal held or that
the replay proved (:attr:`Point.rests <firmware_host.core.rebuild.Point.rests>`): live play is that
very replay. The writer first reads the line's state and outcomes back as a resume would and
encodes them again (:func:`faithful`): a state the encoding does not give back is not sealed. When
the replay of a resume agrees, the session writes a sealed snapshot of the state in play at once:
that line is the verdict kept.

**A crash mid-record.** The seal is part of the snapshot's line, written with one write and one
fsync after the actions it follows: a line cut short is a torn tail (dropped) or a damaged
snapshot (ignored), never a seal without its snapshot. A snapshot without a seal that holds is
proved again, as before.

The seal guards against accidents and edits, not against someone who rewrites the folder knowing
this format: they could as well write any actions.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import re
from functools import cache
from typing import Any

from firmware_host.core.snapshot import SnapshotError, decode_state, encode_state

FORMAT = b"verdict 1"
"""This sealing's own version, in the key: a change of what a seal covers voids the old ones."""

MODULES = (
    "firmware_host.core.journal",
    "firmware_host.core.journal_head",
    "firmware_host.core.journal_lines",
    "firmware_host.core.proof",
    "firmware_host.core.rebuild",
    "firmware_host.core.replay",
    "firmware_host.core.session",
    "firmware_host.core.snapshot",
    "firmware_host.core.verdict",
)
"""The device's modules that decide what a game in play is: how actions are applied, undone,
journaled, read back, snapshot and checked (the engine's own code is the snapshot's ``k``)."""

_SEAL = b',"v":"'
_SEALED = re.compile(rb',"v":"([0-9a-f]{32})"\},"t":-?[0-9.]+(?:[eE][-+]?[0-9]+)?,"c":[0-9]+\}')
"""A sealed snapshot line's end, as :func:`encode_sealed` writes it (keys sorted: ``v`` is the last
of the snapshot's body, ``t`` and the checksum follow)."""


@cache
def code() -> bytes:
    """The key of every seal: a digest of :data:`FORMAT` and the source of :data:`MODULES`."""
    digest = hashlib.sha256(FORMAT)
    for name in MODULES:
        spec = importlib.util.find_spec(name)
        origin = spec.origin if spec is not None else None
        digest.update(name.encode())
        try:
            with open(origin or "", "rb") as fh:
                digest.update(fh.read())
        except OSError:
            digest.update(b"?")
    return digest.digest()


def seal(prefix: bytes) -> str:
    """The seal of a snapshot line whose bytes before ``"v"`` are ``prefix``."""
    return hashlib.blake2b(prefix, digest_size=16, key=code()).hexdigest()


def encode_sealed(record: dict[str, Any]) -> str:
    """A snapshot record's JSON body as :func:`~firmware_host.core.journal_lines.encode` writes it
    (compact, keys sorted, before its checksum), its snapshot sealed."""
    body = json.dumps(
        {**record, "snap": {**record["snap"], "v": ""}}, ensure_ascii=False, separators=(",", ":"), sort_keys=True
    )
    cut = body.rindex(',"v":""}')  # the last: the state (which may hold anything) comes before it
    prefix = body[:cut]
    return f'{prefix},"v":"{seal(prefix.encode("utf-8"))}"{body[cut + 7 :]}'


def holds(line: bytes) -> bool:
    """Whether a snapshot line ends in a seal of its own bytes under this code."""
    at = line.rfind(_SEAL)
    if at < 0:
        return False
    found = _SEALED.fullmatch(line, at)
    return found is not None and found.group(1).decode() == seal(line[:at])


def faithful(body: dict[str, Any]) -> bool:
    """Whether a snapshot's state and outcomes, as a reader parses them from its line, come back
    the same when decoded and encoded again: what the replay's comparison sees of them
    (:func:`~firmware_host.core.snapshot.same_state`)."""
    try:
        for key in ("s", "o"):
            again = encode_state(decode_state(body.get(key)))
            if json.dumps(again, sort_keys=True) != json.dumps(body.get(key), sort_keys=True):
                return False
    except (SnapshotError, TypeError, ValueError):
        return False
    return True
