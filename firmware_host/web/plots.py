"""The history's plots as SVG, drawn by pygal on the device and served with the page.

Why pygal: it is pure Python and writes SVG (no browser library to ship, nothing fetched by the
phone, a few kB a plot), it is kept up (releases into 2026) and it imports in a fraction of the
time matplotlib needs, which matters on a Zero 2 W's 512 MB. It is imported only when a plot is
asked for, and the server draws off the loop (:meth:`asyncio.loop.run_in_executor`).

Plots: each player's score over the plays of one game (over several games, each player's place
instead: five games' unrelated scales never share an axis), wins by player, average turn time by
player. Dark, high-contrast styling to match the page; a player has one colour in every plot
(:func:`player_colors`), each of :data:`PALETTE` clear on the dark background. A play's x label
is its date when it is known, else its number ("#3"); :func:`drawable` tells the page which plots have data, so it
says why instead of showing an empty chart.
"""

from __future__ import annotations

from typing import Any

from firmware_host.web.plays import Play, player_stats

KINDS = ("scores", "wins", "turns")
"""The plots the page asks for."""


PALETTE = (
    "#ffd400",
    "#00d4ff",
    "#ff4fa3",
    "#7dff5a",
    "#ff8a00",
    "#b78cff",
    "#ffffff",
    "#ff6b6b",
    "#00ffc3",
    "#d4ff00",
    "#6fa8ff",
    "#ffb3e6",
)
"""Twelve colours, each at least 4.5:1 against the plot's background (``#111111``) and apart
from the others; a thirteenth player takes the first again."""


def player_colors(plays: list[Play]) -> dict[str, str]:
    """Each player's colour, the same in every plot of ``plays`` (by name, in order)."""
    names = sorted({n for p in plays for n in p.players})
    return {name: PALETTE[i % len(PALETTE)] for i, name in enumerate(names)}


def _style(colors: tuple[str, ...] = PALETTE) -> Any:
    from pygal.style import Style

    return Style(
        background="#000000",
        plot_background="#111111",
        foreground="#ffffff",
        foreground_strong="#ffffff",
        foreground_subtle="#888888",
        opacity=".9",
        colors=colors or PALETTE,
        font_family="sans-serif",
        label_font_size=14,
        major_label_font_size=14,
        legend_font_size=16,
        title_font_size=18,
    )


def draw(kind: str, plays: list[Play], title: str, places_title: str = "Places (all games)") -> str:
    """The SVG text of plot ``kind`` over ``plays`` (already filtered); ``places_title``: the
    scores plot's title when ``plays`` are of several games (it shows places then)."""
    import pygal

    colors = player_colors(plays)
    series: list[tuple[str, Any]] = []
    options: dict[str, Any] = {}
    if kind == "scores":
        finished = _scored(plays)
        names = sorted({n for p in finished for n in p.players})
        several = len({p.game for p in finished}) > 1
        for name in names:
            if several:
                values = [p.ranking().get(name) if name in p.players else None for p in finished]
            else:
                values = [p.scores.get(name) if name in p.players else None for p in finished]
            series.append((name, values))
        options = {"x_label_rotation": 30, "show_minor_x_labels": False}
        if several:
            title = places_title
            options.update(inverse_y_axis=True, min_scale=1)
        make: Any = pygal.Line
    elif kind == "wins":
        totals: dict[str, int] = {}
        for row in player_stats(plays):
            totals[row["player"]] = totals.get(row["player"], 0) + row["wins"]
        series = sorted(totals.items(), key=lambda kv: -kv[1])[:12]
        make = pygal.HorizontalBar
    else:
        series = list(turn_averages(plays).items())
        make = pygal.Bar
    chart = make(
        style=_style(tuple(colors.get(name, PALETTE[0]) for name, _ in series)),
        width=800,
        height=400,
        title=title,
        disable_xml_declaration=True,
        explicit_size=True,
        show_legend=True,
        js=[],
        **options,
    )
    if kind == "scores":
        finished = _scored(plays)
        chart.x_labels = [x_label(p, i + 1) for i, p in enumerate(finished)]
        chart.x_labels_major_every = max(1, len(finished) // 10)
    for name, values in series:
        chart.add(name, values)
    chart.no_data_text = "-"
    return chart.render(is_unicode=True)


def _scored(plays: list[Play]) -> list[Play]:
    return [p for p in plays if p.finished and p.scores]


def turn_averages(plays: list[Play]) -> dict[str, float]:
    """Each player's average turn time in seconds over ``plays`` (only players a turn timer timed)."""
    times: dict[str, list[float]] = {}
    for p in plays:
        for name, t in p.turn_times.items():
            if "average_s" in t:
                times.setdefault(name, []).append(t["average_s"])
    return {name: round(sum(values) / len(values), 1) for name, values in sorted(times.items())}


def drawable(plays: list[Play]) -> list[str]:
    """The plots of :data:`KINDS` that have something to draw over ``plays``: scores need a
    finished game with scores, wins a finished game, turn times a game a turn timer ran in."""
    has = {
        "scores": bool(_scored(plays)),
        "wins": any(p.finished and p.players for p in plays),
        "turns": bool(turn_averages(plays)),
    }
    return [kind for kind in KINDS if has[kind]]


def x_label(play: Play, number: int) -> str:
    """A play's label on the scores plot: its local date (``MM-DD``) when the clock was synced,
    else its ``number`` in the plot (``#3``): an unsynced date is not guessed."""
    import time

    if play.started is not None and play.dated:
        try:
            return time.strftime("%m-%d", time.localtime(play.started))
        except (OverflowError, OSError, ValueError):
            pass
    return f"#{number}"
