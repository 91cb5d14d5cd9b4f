"""The records: ``replay`` (a SCRIPT through the engine), ``state`` (the game the device would
resume) and ``history`` (finished games as a table, JSON or CSV). ``replay`` and ``state`` are
fixed by ``docs/commands.md``; none of them loads asyncio or a driver.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from firmware_host.cli.common import (
    EXIT_OK,
    EXIT_REFUSED,
    Fail,
    note,
    open_store,
    print_json,
    say,
    state_root,
    utf8_writable,
)
from firmware_host.core.limits import one_line
from firmware_host.core.replay import Script, ScriptError, replay

if TYPE_CHECKING:
    from firmware_host.core.session import Session


def cmd_replay(args: argparse.Namespace) -> int:
    """Run a SCRIPT through the engine and print its summary."""
    try:
        script = Script.load(args.script)  # its errors name the file
    except ScriptError as exc:
        raise Fail(str(exc)) from None
    try:
        result = replay(script)
    except ScriptError as exc:  # the engine's: an unknown game, players or options it refuses
        raise Fail(f"{args.script}: {exc}") from None
    print_json(result.summary)
    if result.failed_index is not None:
        say(f"action {result.failed_index}: {result.reason}")
        return EXIT_REFUSED
    return EXIT_OK


def cmd_state(args: argparse.Namespace) -> int:
    """Print the game the device would resume, and the SCRIPT that rebuilds it (read only)."""
    from firmware_host.core.journal_lines import JournalError
    from firmware_host.core.session import Session
    from firmware_host.core.store import StoreError

    root = state_root(args)
    if args.state_dir is None and not root.exists():
        print_json({"summary": None, "script": None})
        return EXIT_OK
    store = open_store(args, create=False)
    try:
        journal = store.open_game(defer=True)  # read from the last snapshot on, as far as it can
        session = Session(store, journal) if journal is not None and not journal.ended else None
        text = state_text(session) if session is not None and not session.over else None
    except (StoreError, ScriptError, JournalError) as exc:  # (a line found damaged once it was needed)
        raise Fail(str(exc)) from None
    if session is not None and session.over:  # the device files it at its next start
        note("state", "the game in game.jsonl is over and is filed in the history at the next start")
    if text is None:
        print_json({"summary": None, "script": None})
    else:
        sys.stdout.write(text + "\n")
    for name in store.kept_files():
        note("state", f"{name}: a damaged or unfiled file the device kept aside")
    return EXIT_OK


def state_text(session: Session) -> str:
    """``tablemate state``'s JSON object for ``session``, as :func:`print_json` writes it.

    The SCRIPT's actions are the most of it: a long game's come from the journal's bytes as they
    are (see :meth:`~firmware_host.core.journal_head.Lazy.json`), the rest is encoded as usual.
    """
    from firmware_host.core.journal_head import Lazy

    script = session.base.to_json()  # its actions (empty) are the last item: replaced by the text
    data = {"summary": session.summary, "script": script}
    text = json.dumps(data, ensure_ascii=False)
    actions = session.actions
    listed = session.journal.script_json(actions)  # the SCRIPT's cache, where it checks
    if listed is None:
        listed = actions.json() if isinstance(actions, Lazy) else json.dumps(list(actions), ensure_ascii=False)
    assert text.endswith("[]}}")
    text = text[:-4] + listed + "}}"
    if utf8_writable(text):
        return text
    script["actions"] = list(actions)  # as print_json: text that cannot be written as UTF-8 goes escaped
    return json.dumps(data)


HISTORY_FIELDS = ("date", "game", "duration", "players", "scores", "winners", "reason", "time")
MAX_SHOWN_SECONDS = 10 * 366 * 86400
"""A duration longer than this is not believed (a wall clock that jumped), and shown as ``?``."""


def _number(value: Any) -> float | None:
    """A finite number from a history field, else ``None`` (the file is read, not trusted)."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        return None
    return float(value)


def _text(value: Any) -> str:
    """A history field as one printable line."""
    return one_line(value if isinstance(value, str) else json.dumps(value, ensure_ascii=False), 200)


def _names(value: Any) -> str:
    return ", ".join(_text(v) for v in value) if isinstance(value, list) else ""


def _duration(seconds: Any) -> str:
    from firmware_host.timers.stats import clock_text

    s = _number(seconds)
    return "?" if s is None or not 0 <= s <= MAX_SHOWN_SECONDS else clock_text(round(s * 1000))


def _date(entry: dict[str, Any]) -> str:
    """The start date in local time; ``?`` when unreadable, marked when the clock was not set."""
    started = _number(entry.get("started"))
    try:
        text = time.strftime("%Y-%m-%d %H:%M", time.localtime(started)) if started is not None else "?"
    except (OverflowError, OSError, ValueError):
        text = "?"
    return text + (" (clock unset)" if entry.get("clock_synced") is False else "")


def _time_used(entry: dict[str, Any]) -> str:
    """Each player's time on the turn timer (empty when no timer ran)."""

    timer = entry.get("timer")
    players = timer.get("players") if isinstance(timer, dict) else None
    if not isinstance(players, dict):
        return ""
    return ", ".join(
        f"{_text(p)} {_duration(v.get('total_s') or 0)}" for p, v in players.items() if isinstance(v, dict)
    )


def _unit(entry: dict[str, Any]) -> str:
    """``drinks: `` before the scores of a game whose number alone would not say what it counts."""
    from games import unit_of

    unit = unit_of(entry.get("game"))
    return f"{unit}: " if unit else ""


def history_rows(entries: Sequence[dict[str, Any]]) -> list[dict[str, str]]:
    """History entries as flat text fields for the table and CSV (a wrongly typed field shows
    as ``?`` or empty: the history file is read, not trusted)."""
    rows = []
    for e in entries:
        scores = e.get("scores")
        over = e.get("reason") == "over"
        rows.append(
            {
                "date": _date(e),
                "game": _text(e.get("game", "")),
                "duration": _duration(e.get("duration_s", 0)),
                "players": _names(e.get("players")),
                "scores": _unit(e) + ", ".join(f"{_text(p)} {_text(v)}" for p, v in scores.items())
                if isinstance(scores, dict)
                else "",
                "winners": _names(e.get("winners")) or ("-" if over else ""),
                "reason": "finished" if over else "ended early",
                "time": _time_used(e),
            }
        )
    return rows


def cmd_history(args: argparse.Namespace) -> int:
    """Print finished games as a table, JSON or CSV."""
    root = state_root(args)
    entries = [] if args.state_dir is None and not root.exists() else _history(args)
    if args.json:
        print_json(entries)
        return EXIT_OK
    rows = history_rows(entries)
    if args.csv:
        import csv
        import io

        out = io.StringIO()
        writer = csv.DictWriter(out, HISTORY_FIELDS, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
        sys.stdout.write(out.getvalue())
        return EXIT_OK
    if not rows:
        print("No finished games yet.")
        return EXIT_OK
    widths = {f: max(len(f), *(len(r[f]) for r in rows)) for f in HISTORY_FIELDS}
    print("  ".join(f.ljust(widths[f]) for f in HISTORY_FIELDS).rstrip())
    for r in rows:
        print("  ".join(r[f].ljust(widths[f]) for f in HISTORY_FIELDS).rstrip())
    return EXIT_OK


def _history(args: argparse.Namespace) -> list[dict[str, Any]]:
    from firmware_host.core.store import StoreError

    try:
        store = open_store(args, create=False)
        entries = store.history()
    except StoreError as exc:
        raise Fail(str(exc)) from None
    for problem in store.problems:
        note("history", problem)
    return entries
