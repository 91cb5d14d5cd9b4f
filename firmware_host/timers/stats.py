"""Time used per player and per turn: what the timer files in a finished game's history.

Records are plain data, journaled one per finished turn (``{"player": NAME, "ms": N}``) or
phase (``{"phase": [NAME…], "ms": N, "answers": {NAME: N}}``), so a resumed game keeps them.
A player's answer time in a phase counts as one of their turns; a player who never answered
took the whole phase.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any


def seconds(milliseconds: int) -> float:
    """Milliseconds as seconds to a tenth, for people."""
    return round(milliseconds / 1000, 1)


def clock_text(milliseconds: int) -> str:
    """``m:ss`` (or ``h:mm:ss``) of a duration, whole seconds rounded down."""
    total = max(0, milliseconds) // 1000
    hours, rest = divmod(total, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


class TimeStats:
    """The turns of one game and who spent how long on them."""

    def __init__(self, players: Sequence[str], records: Iterable[dict[str, Any] | list] = ()) -> None:
        """``records``: finished turns, as journaled (one, or a list of those saved together)."""
        self.players = list(players)
        flat = [r for entry in records for r in (entry if isinstance(entry, list) else [entry])]
        self.records: list[dict[str, Any]] = [r for r in flat if isinstance(r, dict) and "ms" in r]

    def add(self, record: dict[str, Any]) -> None:
        """One finished turn or phase."""
        self.records.append(record)

    def times(self) -> dict[str, list[int]]:
        """Each player's turn (and answer) times, in milliseconds, in order."""
        out: dict[str, list[int]] = {p: [] for p in self.players}
        for r in self.records:
            if "player" in r and r["player"] in out:
                out[r["player"]].append(int(r["ms"]))
            elif "phase" in r:
                answers = r.get("answers", {})
                for p in r["phase"]:
                    if p in out:
                        out[p].append(int(answers.get(p, r["ms"])))
        return out

    def per_player(self) -> dict[str, dict[str, Any]]:
        """Name → ``total_s``, ``turns``, ``fastest_s``, ``slowest_s``, ``average_s``."""
        out = {}
        for p, times in self.times().items():
            out[p] = {
                "total_s": seconds(sum(times)),
                "turns": len(times),
                "fastest_s": seconds(min(times)) if times else None,
                "slowest_s": seconds(max(times)) if times else None,
                "average_s": seconds(round(sum(times) / len(times))) if times else None,
            }
        return out

    def turns(self) -> list[dict[str, Any]]:
        """Every turn in order: ``{"player", "s"}`` or ``{"phase", "s", "answers"}``."""
        out: list[dict[str, Any]] = []
        for r in self.records:
            if "player" in r:
                out.append({"player": r["player"], "s": seconds(r["ms"])})
            elif "phase" in r:
                answers = {p: seconds(v) for p, v in r.get("answers", {}).items()}
                out.append({"phase": list(r["phase"]), "s": seconds(r["ms"]), "answers": answers})
        return out
