"""The replay that proves a resumed snapshot, in a process of its own.

A game resumed from a journal snapshot whose seal does not hold (a journal of an older release,
the first start after a software update, a snapshot written while the game in play rested on one
not proved yet: :mod:`firmware_host.core.verdict`) is proved by replaying every action from the
first (:meth:`Session.replay_whole <firmware_host.core.session.Session.replay_whole>`). That is the
whole game's CPU — 9–15 s at 50,000 Trottelmütze actions on a PC, several times more on a Zero 2 W
(not measured) — and a state allocated per action. In the device's own process it held the loop: the interpreter is
shared with the replay's thread, and the collector's full passes over the states it keeps stopped
every thread, the loop's included, for up to 600 ms. So the device runs it here, with an
interpreter, a collector and a memory of its own (given back whole when it ends), on another core
and at a lower priority, while the table plays on; the device only waits for its verdict.

    python -m firmware_host.core.proof FD SIZE [deferred|whole]

reads the first SIZE bytes of the journal open on descriptor FD (the device hands the file over
open: it may be renamed meanwhile, and what the table appended since is not part of the line
resumed), rebuilds the game as the resume did (from the last snapshot on, or from every line),
replays it from the first action and prints one JSON line::

    {"n": 10000, "agrees": true, "proved": [100, 200, ...]}

``n``: the point the resume reached (what was compared); ``agrees``: whether the snapshot led where
the actions lead; ``proved``: the points of the line's snapshots that hold exactly the replay's
state. ``{"n": null}`` when there is nothing to prove, ``{"error": KIND, "message": TEXT}`` when the
journal cannot be read so (``"journal"``: a line found damaged, or a snapshot naming a point its
lines do not hold, when the lines before the last snapshot are searched).

It writes nothing: the device takes the verdict (:meth:`Session.accept
<firmware_host.core.session.Session.accept>`) and keeps it in the journal.
"""

from __future__ import annotations

import contextlib
import gc
import json
import os
import sys
from pathlib import Path
from typing import Any

from firmware_host.core.journal import Journal
from firmware_host.core.journal_lines import JournalError
from firmware_host.core.rebuild import leads_to
from firmware_host.core.session import Session

NICE = 10
"""How much lower the process's priority is than the device's: the table comes first."""


def judge(raw: bytes, name: str = "game.jsonl", defer: bool = True) -> dict[str, Any]:
    """The verdict on the journal ``raw`` (see the module's docstring); ``defer``: read as the
    resume read it (from its last snapshot on, or every line: :meth:`Journal.open`)."""
    journal = Journal.read(Path(name), raw, defer=defer)
    session = Session(None, journal)  # type: ignore[arg-type] # (the store is only for writes)
    if session.unchecked is None:
        return {"n": None}
    replay = session.replay_whole()
    if replay is None:
        return {"n": None}
    end = session.unchecked[1]
    return {"n": end.n, "agrees": leads_to(replay, end), "proved": replay.proved}


def _read(fd: int, size: int) -> bytes:
    parts, at = [], 0
    while at < size:
        part = os.pread(fd, size - at, at)
        if not part:
            break
        parts.append(part)
        at += len(part)
    return b"".join(parts)


def main(argv: list[str] | None = None) -> int:
    """Print the verdict on the journal open on descriptor ``argv[0]``, its first ``argv[1]`` bytes."""
    args = sys.argv[1:] if argv is None else argv
    with contextlib.suppress(OSError):
        os.nice(NICE)
    gc.disable()  # states are freed as they go (no cycles): nothing for the collector to find
    try:
        raw = _read(int(args[0]), int(args[1]))
        verdict = judge(raw, defer=args[2:3] != ["whole"])
    except JournalError as exc:
        verdict = {"error": "journal", "message": str(exc)}
    except Exception as exc:  # whatever the journal holds, the device gets one line
        verdict = {"error": type(exc).__name__, "message": str(exc)[:400]}
    sys.stdout.write(json.dumps(verdict) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
