"""The pages themselves: their HTML, scripts and styles (from the package, never from the
internet), and what they show that is not the table's own state: the games and their rules.

=====  ====================  =====  ================================================
GET    / /history /rules      read   the scoreboard, history, rules and phone pages
       /phone /pair /P/{code}        (``/P/{code}``: the QR code's form of ``/pair?code=``)
GET    /static/{name}         read   a script, style or picture of the pages
GET    /favicon.ico           read   none (204)
GET    /api/games             read   the games the table keeps the books of
GET    /api/rules             read   a game's rules in a language
=====  ====================  =====  ================================================
"""

from __future__ import annotations

from importlib import resources

from aiohttp import web

from firmware_host.core.i18n import LANGUAGES
from firmware_host.core.validators import check_choice, check_game
from firmware_host.web.routing import READ, Refused, Route

PAGES = {"/": "board.html", "/history": "history.html", "/rules": "rules.html", "/phone": "phone.html"}
STATIC_TYPES = {".js": "text/javascript", ".css": "text/css", ".html": "text/html", ".svg": "image/svg+xml"}


def _static(name: str) -> bytes:
    return (resources.files("firmware_host.web") / "static" / name).read_bytes()


class PageRoutes:
    """The pages and their files, each read once from the package and kept."""

    def __init__(self) -> None:
        self._files: dict[str, bytes] = {}

    def routes(self) -> list[Route]:
        """This area's routes."""
        return [
            *(Route("GET", path, READ, self.page) for path in PAGES),
            Route("GET", "/pair", READ, self.page),
            Route("GET", "/P/{code}", READ, self.page),  # the QR code's form of /pair?code= (alphanumeric mode)
            Route("GET", "/static/{name}", READ, self.static),
            Route("GET", "/favicon.ico", READ, self.no_icon),
            Route("GET", "/api/games", READ, self.api_games),
            Route("GET", "/api/rules", READ, self.api_rules),
        ]

    def _file(self, name: str) -> bytes:
        if name not in self._files:
            self._files[name] = _static(name)
        return self._files[name]

    async def page(self, request: web.Request) -> web.StreamResponse:
        """An HTML page (scoreboard, history, rules, phone, pairing)."""
        name = PAGES.get(request.path, "phone.html")
        return web.Response(
            body=self._file(name), content_type="text/html", charset="utf-8", headers={"Cache-Control": "no-cache"}
        )

    async def no_icon(self, request: web.Request) -> web.StreamResponse:
        """No icon (a browser asks for one on every first load)."""
        return web.Response(status=204, headers={"Cache-Control": "max-age=86400"})

    async def static(self, request: web.Request) -> web.StreamResponse:
        """A script or style of the page (served from the package, never from the internet)."""
        name = request.match_info["name"]
        kind = next((t for ext, t in STATIC_TYPES.items() if name.endswith(ext)), None)
        if kind is None or "/" in name or name.startswith(".") or len(name) > 40:
            raise Refused(404, "no such file")
        try:
            body = self._file(name)
        except (OSError, ValueError):
            raise Refused(404, "no such file") from None
        return web.Response(body=body, content_type=kind, headers={"Cache-Control": "no-cache"})

    async def api_games(self, request: web.Request) -> web.StreamResponse:
        """The games the table keeps the books of (id and title)."""
        from games import ENGINES, TITLES

        return web.json_response({"games": [{"id": g, "title": TITLES[g]} for g in ENGINES]})

    async def api_rules(self, request: web.Request) -> web.StreamResponse:
        """A game's rules (the Rules screen's sections) in ``lang`` (default: the table's)."""
        from firmware_host.core.i18n import language
        from firmware_host.ui.rules import RulesError, load_rules
        from games import ENGINES

        game = check_game(request.query.get("game", ""), tuple(ENGINES))
        lang = check_choice(request.query.get("lang", language()), LANGUAGES, "lang")
        try:
            sections = load_rules(game, lang)
        except RulesError:
            sections = ()
        body = {
            "game": game,
            "lang": lang,
            "sections": [{"key": s.key, "title": s.title, "text": s.text} for s in sections],
        }
        return web.json_response(body)
