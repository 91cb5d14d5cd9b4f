"""Layout helpers every screen shares: score grids, wrapped text, lists that fit the panel.

Each helper applies one fitting rule of :mod:`firmware_host.ui.render` and takes its widths
from the panel in force (:func:`~firmware_host.ui.render.panel`), so a bigger panel gets more room
without a screen changing: wider columns and more of them on a 256×64, more lines and the big
rows (the score grid, whose turn it is) on a 128×128.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from firmware_host.ui.render import BAR_W, Panel, Row, fit, message_lines, name_and_value, panel, text_width

MIN_NAME = 3
"""Letters of a name that always show beside its number (more when there is room)."""


def _width(on: Panel | None) -> int:
    """Pixels a row may use on ``on`` (the panel in force unless given), beside the timer's bar."""
    return (on or panel()).content_w - BAR_W


def per_row(cells: Sequence[tuple[str, str]], on: Panel | None = None, width: int | None = None) -> int:
    """Cells to a row: as many as the panel's width (or ``width``) allows while every name keeps
    :data:`MIN_NAME` letters beside its value (three for 3, 5 or 6 players on a 128-px panel when
    they fit, else two; one when even two do not fit; up to four on a 256-px panel)."""
    count = len(cells)
    width = _width(on) if width is None else width
    options = [c for c in (6, 5, 4, 3, 2) if c <= count and (c != 3 or count in (3, 5, 6))]
    for columns in [c for c in options if c == 3 or width >= 60 * c] + [2]:
        room = width // columns - 2
        if all(text_width(f"{name[:MIN_NAME]} {value}") <= room for name, value in cells):
            return columns
    return 1


def grid(
    cells: Sequence[tuple[str, str]], columns: int, on: Panel | None = None, width: int | None = None
) -> list[Row]:
    """``(name, value)`` cells laid out ``columns`` to a row; each name is shortened so that its
    value always shows (in room left for the turn timer's bar)."""
    width = width if width is not None else _width(on)
    room = width // max(1, columns) - 2
    texts = [name_and_value(name, value, room) for name, value in cells]
    return [Row(tuple(texts[i : i + columns])) for i in range(0, len(texts), columns)]


def score_rows(
    scores: Sequence[tuple[str, str]],
    active: Sequence[str] = (),
    on: Panel | None = None,
    width: int | None = None,
    big: bool = False,
) -> list[Row]:
    """The score grid: ``>`` marks whose turn it is; names shortened, numbers always whole.

    ``big``: drawn twice the size where the panel has the height (:attr:`Panel.big`) and the
    grid then takes at most half of its rows, fitted to half the width (fewer to a row when that
    shows every name whole); else the ordinary grid.
    """
    on = on or panel()
    cells = [((">" if p in active else "") + p, s) for p, s in scores]
    if big and on.big > 1:
        half = (width if width is not None else _width(on)) // on.big
        most = per_row(cells, on, half)
        whole = [f"{name} {value}" if value else name for name, value in cells]
        best: list[Row] | None = None
        for columns in range(most, 0, -1):  # fewer columns for whole names, while the grid fits
            rows = grid(cells, columns, on, half)
            if len(rows) * on.big > on.rows // 2:
                break
            if columns == most or [c for r in rows for c in r.cells] == whole:
                best = rows
        if best is not None:
            return [replace(r, big=True) for r in best]
    return grid(cells, per_row(cells, on, width), on, width)


def big_row(text: str) -> Row:
    """A one-line row drawn twice the size where the panel has the height and ``text`` fits
    there whole (whose turn it is), else an ordinary row that may end in an ellipsis."""
    on = panel()
    if on.big > 1 and text_width(text) <= _width(on) // on.big - 2:
        return Row.of(text, big=True)
    return Row.of(text, cut=True)


def text_rows(text: str, room: int, on: Panel | None = None) -> list[Row]:
    """``text`` wrapped into at most ``room`` rows; a longer text ends in an ellipsis (meant)."""
    if room <= 0 or not text:
        return []
    return [Row.of(line, cut=True) for line in message_lines(text, _width(on) - 2, room)]


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
