"""Layout helpers every screen shares: score grids, wrapped text, lists that fit the panel.

Each helper applies one fitting rule of :mod:`firmware_host.ui.render` and takes its widths
from the panel, so a bigger panel gets more room without a screen changing.
"""

from __future__ import annotations

from collections.abc import Sequence

from firmware_host.ui.render import BAR_W, PANEL, Panel, Row, fit, message_lines, name_and_value, text_width

MIN_NAME = 3
"""Letters of a name that always show beside its number (more when there is room)."""


def per_row(cells: Sequence[tuple[str, str]], panel: Panel = PANEL) -> int:
    """Cells to a row: as many as the panel's width allows while every name keeps
    :data:`MIN_NAME` letters beside its value (three for 3, 5 or 6 players on a 128-px panel when
    they fit, else two; one when even two do not fit)."""
    count = len(cells)
    width = panel.content_w - BAR_W
    options = [c for c in (6, 5, 4, 3, 2) if c <= count and (c != 3 or count in (3, 5, 6))]
    for columns in [c for c in options if c == 3 or width >= 60 * c] + [2]:
        room = width // columns - 2
        if all(text_width(f"{name[:MIN_NAME]} {value}") <= room for name, value in cells):
            return columns
    return 1


def grid(cells: Sequence[tuple[str, str]], columns: int, panel: Panel = PANEL, width: int | None = None) -> list[Row]:
    """``(name, value)`` cells laid out ``columns`` to a row; each name is shortened so that its
    value always shows (in room left for the turn timer's bar)."""
    width = width if width is not None else panel.content_w - BAR_W
    room = width // max(1, columns) - 2
    texts = [name_and_value(name, value, room) for name, value in cells]
    return [Row(tuple(texts[i : i + columns])) for i in range(0, len(texts), columns)]


def score_rows(
    scores: Sequence[tuple[str, str]], active: Sequence[str] = (), panel: Panel = PANEL, width: int | None = None
) -> list[Row]:
    """The score grid: ``>`` marks whose turn it is; names shortened, numbers always whole."""
    cells = [((">" if p in active else "") + p, s) for p, s in scores]
    return grid(cells, per_row(cells, panel), panel, width)


def text_rows(text: str, room: int, panel: Panel = PANEL) -> list[Row]:
    """``text`` wrapped into at most ``room`` rows; a longer text ends in an ellipsis (meant)."""
    if room <= 0 or not text:
        return []
    return [Row.of(line, cut=True) for line in message_lines(text, panel.content_w - 2 - BAR_W, room)]


def fits(text: str, width: int) -> bool:
    """Whether ``text`` fits ``width`` pixels as it is."""
    return text_width(text) <= width


def cut(text: str, width: int) -> str:
    """``text`` ended with an ellipsis where it does not fit ``width`` (meant: a list label)."""
    return fit(text, width)


def names_note(names: Sequence[str], width: int) -> str:
    """``names`` as a short note of at most ``width`` pixels (a history line's winners): whole,
    else each cut to :data:`MIN_NAME` letters, else the first and how many more (``Ann+2``)."""
    whole = ",".join(names)
    if fits(whole, width) or not names:
        return whole
    short = ",".join(n[:MIN_NAME] for n in names)
    if fits(short, width):
        return short
    return f"{names[0][:MIN_NAME]}+{len(names) - 1}"
