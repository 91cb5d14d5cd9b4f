"""One plain-data picture of the table, for every view that is not the OLED (the companion page).

:func:`table_snapshot` reads the device once and returns only JSON-ready data (strings, numbers,
lists, dicts) in the players' language: the game, the players with their scores and states,
whose turn, the prompt, the turn timer, the last outcomes, the game's end. Each player has its
name and its ``short`` form, as the panel shortens it where the whole does not fit (the shortest
start of it that tells it from the others). A view renders it and
never holds the device or an engine. The same snapshot goes to every client, so it carries no
secret (no pairing code, no token).
"""

from __future__ import annotations

from typing import Any

from firmware_host.core.i18n import language, tr
from firmware_host.ui.render import short_names
from games import TITLES
from games.core import Collect, Menu, Order, Task

OUTCOMES_SHOWN = 8
"""The last outcomes of the game in play the snapshot carries, newest last."""


def _prompt(prompt: Any) -> dict[str, Any] | None:
    """The prompt the panel asks now, as plain data."""
    if prompt is None:
        return None
    if isinstance(prompt, Menu):
        return {"kind": "menu", "title": tr(prompt.title), "players": [prompt.player] if prompt.player else []}
    if isinstance(prompt, Collect):
        return {"kind": "collect", "title": tr(prompt.title), "players": list(prompt.players)}
    if isinstance(prompt, Order):
        return {"kind": "order", "title": tr(prompt.title), "players": list(prompt.players)}
    if isinstance(prompt, Task):
        return {"kind": "task", "title": tr(prompt.title), "players": [], "lines": [tr(x) for x in prompt.lines]}
    return {"kind": "other", "title": "", "players": []}


def _number(value: Any) -> int | float | None:
    return value if isinstance(value, int | float) and not isinstance(value, bool) else None


def finished(entry: dict[str, Any] | None) -> dict[str, Any] | None:
    """A history entry as the snapshot shows the game just ended (ranking, winners)."""
    if not isinstance(entry, dict):
        return None
    scores: dict[str, Any] = entry["scores"] if isinstance(entry.get("scores"), dict) else {}
    players: list[Any] = entry["players"] if isinstance(entry.get("players"), list) else list(scores)
    winners: list[Any] = entry["winners"] if isinstance(entry.get("winners"), list) else []
    short = short_names([str(p) for p in players])
    return {
        "id": entry.get("id"),
        "game": entry.get("game"),
        "title": TITLES.get(str(entry.get("game")), str(entry.get("game"))),
        "reason": entry.get("reason"),
        "players": [
            {"name": p, "short": short.get(str(p), p), "score": _number(scores.get(p)), "winner": p in winners}
            for p in players
        ],
        "winners": winners,
        "duration_s": _number(entry.get("duration_s")),
    }


SHOWN_SETTINGS: tuple[str, ...] = ("brightness", "sound", "timer_sound", "language")
SHOWN_SETTINGS += ("voice", "voice_volume", "voice_calls", "voice_game_calls", "say_as")
"""The settings the page shows (and a paired phone changes)."""


def table_snapshot(device: Any) -> dict[str, Any]:
    """The table now, as plain data (see the module's docstring); ``device``: the table's door."""
    settings = device.settings
    snap: dict[str, Any] = {
        "language": language(),
        "seats": {seat: device.seat_name(seat) for seat in device.table_seats()},
        "settings": {k: settings[k] for k in SHOWN_SETTINGS if k in settings},
        "message": tr(device.toast_text() or ""),
        "voice": device.voice.state() if device.voice is not None else None,
        "faults": [
            m for m, bad in (("storage", device.storage_fault), ("tower", device.tower_status == "lost")) if bad
        ],
        "game": None,
        "title": "",
        "players": [],
        "turn": None,
        "prompt": None,
        "lines": [],
        "timer": None,
        "outcomes": [tr(e) for e in device.events[-OUTCOMES_SHOWN:]],
        "over": False,
        "winners": [],
        "finished": finished(device.last_result),
    }
    session = device.session
    if session is None:
        return snap
    summary = session.summary
    view = session.view()
    scores = summary.get("scores", {})
    shown = {name: tr(text) for name, text in view.scores}
    seat_of = {name: seat for seat, name in device.seats.items()}
    screen = device.game_screen()  # the panel's prompt (a tie settled moves it on), else the game's
    prompt = _prompt(screen.asking() if screen is not None and screen.prompt is not None else session.prompt())
    waiting = set(prompt["players"]) if prompt else set()
    short = short_names(session.base.players)
    snap.update(
        game=session.base.game,
        title=TITLES.get(session.base.game, session.base.game),
        players=[
            {
                "name": name,
                "short": short[name],
                "seat": seat_of.get(name),
                "score": _number(scores.get(name)),
                "shown": shown.get(name, ""),
                "active": name in view.active,
                "turn": name == summary.get("turn"),
                "waiting": name in waiting,
            }
            for name in session.base.players
        ],
        turn=summary.get("turn"),
        prompt=prompt,
        lines=[tr(line) for line in view.lines],
        over=bool(summary.get("over")),
        winners=list(summary.get("winners", [])),
        timer={"text": device.timers.title_text(), "bar": device.time_bar(), "paused": device.timers.paused}
        if device.has_timer()
        else None,
    )
    return snap
