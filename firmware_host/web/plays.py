"""Finished games as the page shows them: one checked record per history entry, filters, and
statistics per player and game. Pure functions over the history (read, not trusted: a wrongly
typed field is left out, never a crash)."""

from __future__ import annotations

import csv
import io
import math
import time
from dataclasses import dataclass, field
from typing import Any

from games import TITLES

MAX_PLAYS = 5000
"""The newest finished games the page works on (years of evenings; keeps every answer quick)."""


def _num(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        return None
    return value


@dataclass
class Play:
    """One finished game, checked."""

    id: str
    game: str
    title: str
    started: float | None
    ended: float | None
    clock_synced: bool
    duration_s: float | None
    players: list[str]
    scores: dict[str, float]
    winners: list[str]
    finished: bool
    """Played to the end (else ended early)."""
    turn_times: dict[str, dict[str, float]] = field(default_factory=dict)
    """Per player ``total_s``, ``average_s``, ``fastest_s``, ``slowest_s`` (when a turn timer ran)."""
    places: dict[str, int] = field(default_factory=dict)
    """The game's own ranking as filed (Bomb: the order the players went out), when it has one."""
    date_source: str | None = None
    """Where the play's date came from: ``"clock"`` (the table's synced clock), ``"phone"`` (a
    paired phone's time, the table's clock never having synced) or ``None`` (not known)."""

    @property
    def dated(self) -> bool:
        """Whether the play's date can be vouched for (a synced clock or a phone's)."""
        return self.date_source is not None

    @property
    def highest_wins(self) -> bool:
        """Whether the winners had the highest score (else the lowest): said by the result itself."""
        if not self.winners or not self.scores:
            return True
        won = [self.scores[w] for w in self.winners if w in self.scores]
        return not won or max(won) >= max(self.scores.values())

    def ranking(self) -> dict[str, int]:
        """Each player's place: the game's own when filed, else winners first, then by score
        (ties share a place)."""
        if self.places and all(p in self.places for p in self.players):
            return {p: self.places[p] for p in self.players}
        high = self.highest_wins

        def key(name: str) -> tuple[int, float]:
            score = self.scores.get(name, 0.0)
            return (0 if name in self.winners else 1, -score if high else score)

        order = sorted(self.players, key=key)
        ranks: dict[str, int] = {}
        for i, name in enumerate(order):
            prev = order[i - 1] if i else None
            ranks[name] = ranks[prev] if prev is not None and key(prev) == key(name) else i + 1
        return ranks

    def to_json(self) -> dict[str, Any]:
        """The play as the API gives it."""
        ranks = self.ranking()
        return {
            "id": self.id,
            "game": self.game,
            "title": self.title,
            "started": self.started,
            "date": date_text(self.started, self.dated),
            "date_source": self.date_source,
            "clock_synced": self.clock_synced,
            "duration_s": self.duration_s,
            "finished": self.finished,
            "winners": self.winners,
            "players": [
                {
                    "name": p,
                    "score": self.scores.get(p),
                    "rank": ranks[p],
                    "winner": p in self.winners,
                    "turn_times": self.turn_times.get(p),
                }
                for p in self.players
            ],
        }


def date_text(started: float | None, dated: bool) -> str | None:
    """``YYYY-MM-DD HH:MM:SS`` local time, or ``None`` when the date is not known (``dated``:
    the table's clock was synced, or a phone gave the time)."""
    if started is None or not dated:
        return None
    try:
        return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(started))
    except (OverflowError, OSError, ValueError):
        return None


def _names(value: Any) -> list[str]:
    return [v for v in value if isinstance(v, str) and v.isprintable()] if isinstance(value, list) else []


def _times(entry: dict[str, Any]) -> dict[str, dict[str, float]]:
    timer = entry.get("timer")
    players = timer.get("players") if isinstance(timer, dict) else None
    if not isinstance(players, dict):
        return {}
    out: dict[str, dict[str, float]] = {}
    for name, v in players.items():
        if isinstance(v, dict):
            kept = {
                k: n for k in ("total_s", "average_s", "fastest_s", "slowest_s") if (n := _num(v.get(k))) is not None
            }
            if kept:
                out[str(name)] = kept
    return out


def _places(value: Any) -> dict[str, int]:
    if not isinstance(value, dict):
        return {}
    return {str(k): v for k, v in value.items() if isinstance(v, int) and not isinstance(v, bool) and v >= 1}


def plays(history: list[dict[str, Any]]) -> list[Play]:
    """The history's entries as plays, oldest first (the newest :data:`MAX_PLAYS`)."""
    out = []
    start = max(0, len(history) - MAX_PLAYS)
    for i, e in enumerate(history[start:], start=start):
        if not isinstance(e, dict):
            continue
        game = e.get("game") if isinstance(e.get("game"), str) else "?"
        raw_scores = e.get("scores") if isinstance(e.get("scores"), dict) else {}
        scores = {str(k): n for k, v in raw_scores.items() if (n := _num(v)) is not None}
        players = _names(e.get("players")) or list(scores)
        ident = e.get("id") if isinstance(e.get("id"), str) and e.get("id") else f"n{i + 1}"
        synced = e.get("clock_synced") is not False
        out.append(
            Play(
                id=ident,
                game=game,
                title=TITLES.get(game, game),
                started=_num(e.get("started")),
                ended=_num(e.get("ended")),
                clock_synced=synced,
                duration_s=_num(e.get("duration_s")),
                players=players,
                scores=scores,
                winners=[w for w in _names(e.get("winners")) if w in players],
                finished=e.get("reason") == "over",
                turn_times=_times(e),
                places=_places(e.get("places")),
                date_source="phone" if e.get("date_source") == "phone" else "clock" if synced else None,
            )
        )
    return out


def select(all_plays: list[Play], game: str | None = None, player: str | None = None) -> list[Play]:
    """The plays of ``game`` and with ``player`` (each filter optional)."""
    return [p for p in all_plays if (game is None or p.game == game) and (player is None or player in p.players)]


def player_stats(all_plays: list[Play]) -> list[dict[str, Any]]:
    """Per player and game: plays, wins, win rate, average and best score, turn times."""
    rows: dict[tuple[str, str], dict[str, Any]] = {}
    for play in all_plays:
        if not play.finished:
            continue
        high = play.highest_wins
        for name in play.players:
            row = rows.setdefault(
                (name, play.game),
                {
                    "player": name,
                    "game": play.game,
                    "title": play.title,
                    "plays": 0,
                    "wins": 0,
                    "_scores": [],
                    "_turn": [],
                    "_high": high,
                },
            )
            row["plays"] += 1
            row["wins"] += name in play.winners
            if name in play.scores:
                row["_scores"].append(play.scores[name])
            t = play.turn_times.get(name, {}).get("average_s")
            if t is not None:
                row["_turn"].append(t)
    out = []
    for row in rows.values():
        scores, turns, high = row.pop("_scores"), row.pop("_turn"), row.pop("_high")
        row["win_rate"] = round(row["wins"] / row["plays"], 3) if row["plays"] else 0.0
        row["average_score"] = round(sum(scores) / len(scores), 2) if scores else None
        row["best_score"] = (max(scores) if high else min(scores)) if scores else None
        row["average_turn_s"] = round(sum(turns) / len(turns), 1) if turns else None
        out.append(row)
    return sorted(out, key=lambda r: (r["game"], -r["wins"], r["player"]))


CSV_FIELDS = ("id", "game", "date", "duration_s", "finished", "player", "score", "rank", "winner", "average_turn_s")


def to_csv(all_plays: list[Play]) -> str:
    """The plays as CSV, one line per player of each game (spreadsheet-ready)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_FIELDS)
    for play in all_plays:
        ranks = play.ranking()
        date = date_text(play.started, play.dated) or "unknown (clock not set)"
        for name in play.players:
            turn = play.turn_times.get(name, {}).get("average_s")
            cells = [
                play.id,
                play.game,
                date,
                play.duration_s,
                play.finished,
                name,
                play.scores.get(name),
                ranks[name],
                name in play.winners,
                turn,
            ]
            writer.writerow([_cell(c) for c in cells])
    return out.getvalue()


def _cell(value: Any) -> str:
    """A CSV cell that a spreadsheet will not run as a formula."""
    text = "" if value is None else str(value)
    return "'" + text if text[:1] in ("=", "+", "-", "@") and not _is_number(text) else text


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True
