"""The history's plots as SVG, drawn by pygal on the device and served with the page.

Why pygal: it is pure Python and writes SVG (no browser library to ship, nothing fetched by the
phone, a few kB a plot), it is kept up (releases into 2026) and it imports in a fraction of the
time matplotlib needs, which matters on a Zero 2 W's 512 MB. It is imported only when a plot is
asked for, and the server draws off the loop (:meth:`asyncio.loop.run_in_executor`).

Plots: each player's score over the plays of one game, wins by player, average turn time by
player. Dark, high-contrast styling to match the page.
"""

from __future__ import annotations

from typing import Any

from firmware_host.web.plays import Play, player_stats

KINDS = ("scores", "wins", "turns")
"""The plots the page asks for."""


def _style() -> Any:
    from pygal.style import Style

    return Style(
        background="#000000",
        plot_background="#111111",
        foreground="#ffffff",
        foreground_strong="#ffffff",
        foreground_subtle="#888888",
        opacity=".9",
        colors=("#ffd400", "#00d4ff", "#ff4fa3", "#7dff5a", "#ff8a00", "#b78cff"),
        font_family="sans-serif",
        label_font_size=14,
        major_label_font_size=14,
        legend_font_size=16,
        title_font_size=18,
    )


def draw(kind: str, plays: list[Play], title: str) -> str:
    """The SVG text of plot ``kind`` over ``plays`` (already filtered)."""
    import pygal

    options = {
        "style": _style(),
        "width": 800,
        "height": 400,
        "title": title,
        "disable_xml_declaration": True,
        "explicit_size": True,
        "show_legend": True,
        "js": [],
    }
    if kind == "scores":
        chart = pygal.Line(**options, x_label_rotation=30, show_minor_x_labels=False)
        finished = [p for p in plays if p.finished and p.scores]
        names = sorted({n for p in finished for n in p.players})
        chart.x_labels = [(p.started and _day(p)) or str(i + 1) for i, p in enumerate(finished)]
        chart.x_labels_major_every = max(1, len(finished) // 10)
        for name in names:
            chart.add(name, [p.scores.get(name) if name in p.players else None for p in finished])
    elif kind == "wins":
        chart = pygal.HorizontalBar(**options)
        totals: dict[str, int] = {}
        for row in player_stats(plays):
            totals[row["player"]] = totals.get(row["player"], 0) + row["wins"]
        for name, wins in sorted(totals.items(), key=lambda kv: -kv[1])[:12]:
            chart.add(name, wins)
    else:
        chart = pygal.Bar(**options)
        times: dict[str, list[float]] = {}
        for p in plays:
            for name, t in p.turn_times.items():
                if "average_s" in t:
                    times.setdefault(name, []).append(t["average_s"])
        for name, values in sorted(times.items()):
            chart.add(name, round(sum(values) / len(values), 1))
    chart.no_data_text = "-"
    return chart.render(is_unicode=True)


def _day(play: Play) -> str:
    import time

    if play.started is None or not play.clock_synced:
        return "?"
    return time.strftime("%m-%d", time.localtime(play.started))
