"""Finished games: the history, its plots and its downloads (all read by anyone on the network).

Each answer is made from the door's history as :class:`~firmware_host.web.plays.Play` objects,
made again only when the door hands a new history; the list and the plots are made off the loop
(thousands of games take a good part of a second on a Pi) and kept until the history changes.

=====  ==============================  =====  ===========================================
GET    /api/history                    read   newest first, filtered, each with its link
GET    /api/history.json               read   a JSON download
GET    /api/history.csv                read   a CSV download, one line per player a game
GET    /api/history.bgsplay            read   a BG Stats play file
GET    /api/history/{id}/bgstats       read   one game's BG Stats deep link
GET    /api/stats                      read   per player and game, and the drawable plots
GET    /api/plots/{kind}.svg           read   a plot as SVG
=====  ==============================  =====  ===========================================
"""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

from aiohttp import web

from firmware_host.core.validators import check_choice, check_game, check_history_id, check_player
from firmware_host.web import bgstats, plays
from firmware_host.web.door import TableDoor
from firmware_host.web.routing import READ, Refused, Route, no_store

SVG_CSP = "default-src 'none'; style-src 'unsafe-inline'"
KEPT = 64
"""Filtered bodies and plots kept; one more clears them all."""


class HistoryRoutes:
    """The history's routes over the door's ``history()``."""

    def __init__(self, door: TableDoor) -> None:
        self.door = door
        self._plots: dict[tuple[Any, ...], str] = {}
        self._history_plays: tuple[list[dict[str, Any]], list[plays.Play]] | None = None
        """The door's history and its plays (kept while the door hands the same list)."""
        self._history_bodies: dict[tuple[str | None, str | None], tuple[list[plays.Play], bytes]] = {}
        """``/api/history``'s bodies by filter, with the plays they were made of."""

    def routes(self) -> list[Route]:
        """This area's routes."""
        return [
            Route("GET", "/api/history", READ, self.api_history),
            Route("GET", "/api/history.json", READ, self.api_history_json),
            Route("GET", "/api/history.csv", READ, self.api_history_csv),
            Route("GET", "/api/history.bgsplay", READ, self.api_bgsplay),
            Route("GET", "/api/history/{id}/bgstats", READ, self.api_bgstats),
            Route("GET", "/api/stats", READ, self.api_stats),
            Route("GET", "/api/plots/{kind}.svg", READ, self.api_plot),
        ]

    @staticmethod
    def _filters(request: web.Request) -> tuple[str | None, str | None]:
        from games import ENGINES

        query = request.query
        game = check_game(query["game"], tuple(ENGINES)) if query.get("game") else None
        player = check_player(query["player"]) if query.get("player") else None
        return game, player

    def _plays(self, request: web.Request) -> list[plays.Play]:
        return plays.select(self._all_plays(), *self._filters(request))

    def _all_plays(self) -> list[plays.Play]:
        """The history as plays, made again only when the door hands a new history."""
        history = self.door.history()
        if self._history_plays is None or self._history_plays[0] is not history:
            self._history_plays = (history, plays.plays(history))
        return self._history_plays[1]

    async def api_history(self, request: web.Request) -> web.StreamResponse:
        """Finished games, newest first, filtered by ``game`` and ``player``; each with its BG Stats
        link. Made off the loop (thousands of games take a good part of a second on a Pi) and kept
        until the history changes."""
        filters = self._filters(request)
        all_plays = self._all_plays()
        kept = self._history_bodies.get(filters)
        if kept is None or kept[0] is not all_plays:
            chosen = plays.select(all_plays, *filters)
            body = await asyncio.get_running_loop().run_in_executor(None, history_body, chosen)
            if len(self._history_bodies) > KEPT:
                self._history_bodies.clear()
            kept = self._history_bodies[filters] = (all_plays, body)
        return no_store(kept[1])

    async def api_history_json(self, request: web.Request) -> web.StreamResponse:
        """The whole (filtered) history as a JSON download."""
        body = json.dumps([p.to_json() for p in self._plays(request)], ensure_ascii=False, indent=1)
        return _download(body, "tablemate-history.json", "application/json")

    async def api_history_csv(self, request: web.Request) -> web.StreamResponse:
        """The whole (filtered) history as a CSV download, one line per player of each game."""
        return _download(plays.to_csv(self._plays(request)), "tablemate-history.csv", "text/csv")

    async def api_bgsplay(self, request: web.Request) -> web.StreamResponse:
        """The whole history as a BG Stats play file."""
        now = time.strftime("%Y-%m-%d %H:%M:%S")
        body = json.dumps(bgstats.play_file(self._plays(request), now), ensure_ascii=False)
        return _download(body, "tablemate.bgsplay", "application/json")

    async def api_bgstats(self, request: web.Request) -> web.StreamResponse:
        """One finished game's BG Stats deep link."""
        ident = check_history_id(request.match_info["id"])
        play = next((p for p in self._all_plays() if p.id == ident), None)
        if play is None:
            raise Refused(404, f"no finished game {ident}")
        return web.json_response({"url": bgstats.deep_link(play), "play": bgstats.play_data(play)})

    async def api_stats(self, request: web.Request) -> web.StreamResponse:
        """Per player and game: plays, wins, win rate, average and best score, turn times; and
        ``plots``, the plots that have something to draw (the page says why for the others)."""
        from firmware_host.web.plots import drawable

        chosen = self._plays(request)
        return web.json_response({"players": plays.player_stats(chosen), "plots": drawable(chosen)})

    async def api_plot(self, request: web.Request) -> web.StreamResponse:
        """A plot of the (filtered) history as SVG, drawn off the loop and kept until the history changes."""
        from firmware_host.web.plots import KINDS, draw

        kind = check_choice(request.match_info["kind"], KINDS, "plot")
        chosen = self._plays(request)
        key = (
            kind,
            request.query.get("game"),
            request.query.get("player"),
            len(chosen),
            chosen[-1].id if chosen else None,
            request.query.get("lang"),
        )
        svg = self._plots.get(key)
        if svg is None:
            titles = {"scores": "Scores", "wins": "Wins", "turns": "Average turn (s)", "places": "Places (all games)"}
            if request.query.get("lang") == "de":
                titles = {
                    "scores": "Punkte",
                    "wins": "Siege",
                    "turns": "Zug im Schnitt (s)",
                    "places": "Plätze (alle Spiele)",
                }
            loop = asyncio.get_running_loop()
            svg = await loop.run_in_executor(None, draw, kind, chosen, titles[kind], titles["places"])
            if len(self._plots) > KEPT:
                self._plots.clear()
            self._plots[key] = svg
        return web.Response(
            text=svg,
            content_type="image/svg+xml",
            charset="utf-8",
            headers={"Content-Security-Policy": SVG_CSP, "Cache-Control": "no-cache"},
        )


def _download(body: str, name: str, kind: str) -> web.Response:
    headers = {"Content-Disposition": f'attachment; filename="{name}"', "Cache-Control": "no-store"}
    return web.Response(text=body, content_type=kind, charset="utf-8", headers=headers)


def history_body(chosen: list[plays.Play]) -> bytes:
    """``/api/history``'s body: the plays newest first, each with its BG Stats link."""
    games = [{**play.to_json(), "bgstats": bgstats.deep_link(play)} for play in reversed(chosen)]
    return json.dumps({"games": games, "count": len(games)}).encode()
