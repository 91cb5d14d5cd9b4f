"""Finished games for BG Stats: its documented deep link and its play file (``.bgsplay``).

- The deep link ``https://app.bgstatsapp.com/createPlay.html?data=`` + the URL-encoded JSON of one
  play opens BG Stats' import dialog, in the format of BG Stats' page on pushing plays from other
  apps: ``sourceName``, ``sourcePlayId``, ``playDate`` (``YYYY-MM-DD HH:MM:SS`` in UTC, always
  given), ``durationMin``, ``location``, ``comments``, ``game`` (``name``, ``sourceGameId``,
  ``highestWins``, ``noPoints``) and ``players`` (``name``, ``score``, ``winner``, ``rank``,
  ``startPlayer``, ``sourcePlayerId``); nothing the format does not have. BG Stats matches the
  game by name: the name is the title in ASCII (``Trottelmuetze``), as BG Stats lists it.
- The play file is BG Stats' own export form, imported whole: ``about``, ``players``,
  ``locations``, ``games`` and ``plays``, each play's results in ``playerScores`` that point at
  the players by ``playerRefId``; ``ignored`` (a field of that export, not of the link) marks a
  game ended early.

A play's date is the table's synced clock's, or a paired phone's (see
:mod:`firmware_host.core.phone_clock`). A game with neither still has a ``playDate`` (the format
needs one): the table's own clock's reading, and its comment says the date is not known, so the
import dialog is checked before saving.
The starting player is the first of the entry's players (the device turns the seats so the
starter comes first). Whether the highest score wins is read from the result itself.
"""

from __future__ import annotations

import hashlib
import json
import time
import uuid
from typing import Any
from urllib.parse import quote, unquote

from firmware_host.web.plays import Play

LINK = "https://app.bgstatsapp.com/createPlay.html?data="
SOURCE = "tablemate"
LOCATION = "tablemate"
NO_DATE = "Date unknown: the table's clock was not set when this game was played; check the date."
ASCII = str.maketrans({"ä": "ae", "ö": "oe", "ü": "ue", "Ä": "Ae", "Ö": "Oe", "Ü": "Ue", "ß": "ss"})
_NS = uuid.UUID("6f1b8f3e-5d0c-4c9b-9a57-1d2b7a8e0c11")


def player_id(name: str) -> str:
    """A stable id of a player by name (the same name is the same player in every play)."""
    return "tm-" + hashlib.sha256(name.casefold().encode("utf-8", "replace")).hexdigest()[:12]


def _score(value: float | None) -> int | float | None:
    if value is None:
        return None
    return int(value) if float(value).is_integer() else value


def _minutes(play: Play) -> int:
    """The play's length in whole minutes, at least one (BG Stats' ``durationMin``)."""
    return max(1, round((play.duration_s or 0) / 60))


def game_name(play: Play) -> str:
    """The game's name as BG Stats knows it: the title in ASCII (German letters spelled out)."""
    return play.title.translate(ASCII)


def play_date(play: Play) -> str:
    """The play's start as BG Stats reads ``playDate``: ``YYYY-MM-DD HH:MM:SS``, UTC (when no
    time was filed at all, the time of asking: the format needs a date)."""
    when = play.started if play.started is not None else play.ended
    try:
        return time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(when if when is not None else time.time()))
    except (OverflowError, OSError, ValueError):
        return time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime())


def _comments(play: Play) -> str:
    parts = [] if play.dated else [NO_DATE]
    if play.date_source == "phone":
        parts.append("Date from a phone (the table's clock was not set).")
    if not play.finished:
        parts.append("Ended early.")
    return " ".join(parts)


def play_data(play: Play) -> dict[str, Any]:
    """One play as the deep link's JSON."""
    ranks = play.ranking()
    data: dict[str, Any] = {
        "sourceName": SOURCE,
        "sourcePlayId": play.id,
        "playDate": play_date(play),
        "durationMin": _minutes(play),
        "location": LOCATION,
        "game": {
            "name": game_name(play),
            "sourceGameId": play.game,
            "highestWins": play.highest_wins,
            "noPoints": not play.scores,
        },
        "players": [
            {
                "name": name,
                "score": _score(play.scores.get(name)),
                "winner": name in play.winners,
                "rank": ranks[name],
                "startPlayer": i == 0,
                "sourcePlayerId": player_id(name),
            }
            for i, name in enumerate(play.players)
        ],
    }
    comments = _comments(play)
    if comments:
        data["comments"] = comments
    return data


def deep_link(play: Play) -> str:
    """The BG Stats link that opens ``play`` ready to save."""
    text = json.dumps(play_data(play), ensure_ascii=False, separators=(",", ":"))
    return LINK + quote(text, safe="")


def _uuid(kind: str, key: str) -> str:
    return str(uuid.uuid5(_NS, f"{kind}:{key}")).upper()


def play_file(all_plays: list[Play], now: str) -> dict[str, Any]:
    """The whole history as a BG Stats play file (``now``: its export time, ``YYYY-MM-DD HH:MM:SS``)."""
    players: dict[str, dict[str, Any]] = {}
    games: dict[str, dict[str, Any]] = {}
    location = {"id": 1, "name": LOCATION, "uuid": _uuid("location", LOCATION), "modificationDate": now}
    out_plays = []
    for play in all_plays:
        game = games.get(play.game)
        if game is None:
            game = games[play.game] = {
                "id": len(games) + 1,
                "name": game_name(play),
                "sourceGameId": play.game,
                "uuid": _uuid("game", play.game),
                "highestWins": play.highest_wins,
                "noPoints": not play.scores,
                "cooperative": False,
                "modificationDate": now,
            }
        ranks = play.ranking()
        scores = []
        for i, name in enumerate(play.players):
            key = name.casefold()
            if key not in players:
                players[key] = {
                    "id": len(players) + 1,
                    "name": name,
                    "uuid": _uuid("player", key),
                    "sourcePlayerId": player_id(name),
                    "isAnonymous": False,
                    "modificationDate": now,
                }
            scores.append(
                {
                    "playerRefId": players[key]["id"],
                    "score": "" if play.scores.get(name) is None else str(_score(play.scores[name])),
                    "winner": name in play.winners,
                    "rank": ranks[name],
                    "startPlayer": i == 0,
                    "newPlayer": False,
                }
            )
        entry: dict[str, Any] = {
            "uuid": _uuid("play", play.id),
            "sourcePlayId": play.id,
            "gameRefId": game["id"],
            "locationRefId": location["id"],
            "playDate": play_date(play),
            "durationMin": _minutes(play),
            "ignored": not play.finished,
            "manualWinner": False,
            "usesTeams": False,
            "playerScores": scores,
            "modificationDate": now,
            "entryDate": now,
        }
        comments = _comments(play)
        if comments:
            entry["comments"] = comments
        out_plays.append(entry)
    return {
        "about": f"tablemate play file: {len(out_plays)} plays exported {now}",
        "players": list(players.values()),
        "locations": [location],
        "games": list(games.values()),
        "plays": out_plays,
        "userInfo": {"meRefId": None},
    }


def parse_link(url: str) -> dict[str, Any]:
    """The play inside a deep link (what BG Stats reads back; used by the tests)."""
    if not url.startswith(LINK):
        raise ValueError("not a BG Stats createPlay link")
    return json.loads(unquote(url[len(LINK) :]))
