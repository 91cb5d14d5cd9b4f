"""Layout helpers every screen shares: score grids, wrapped text, lists that fit the panel.

Each helper applies one fitting rule of :mod:`firmware_host.ui.render` and takes its widths
from the panel in force (:func:`~firmware_host.ui.render.panel`), so a bigger panel gets more room
without a screen changing: wider columns and more of them on a 256×64, more lines and the big
rows (the score grid, whose turn it is) on a 128×128.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from firmware_host.core.i18n import tr
from firmware_host.ui.render import (
    BAR_W,
    MIN_NAME,
    Panel,
    Row,
    fit,
    message_lines,
    name_and_value,
    named_forms,
    panel,
    players,
    shorten_names,
    text_width,
    wrap,
)
from games.core import T

MARK = ">"
"""Marks whose turn it is in front of a name; it is not one of the name's letters."""


def least(name: str) -> int:
    """Characters of ``name`` (its turn mark included) that must show beside its number."""
    return MIN_NAME + len(MARK) if name.startswith(MARK) else MIN_NAME


def _width(on: Panel | None) -> int:
    """Pixels a row may use on ``on`` (the panel in force unless given), beside the timer's bar."""
    return (on or panel()).content_w - BAR_W


def _need(cell: tuple[str, str]) -> int:
    """Pixels a cell takes with its name cut to its :func:`least` characters (and its margins)."""
    name, value = cell
    return text_width(f"{name[: least(name)]} {tr(value)}") + 2


def _fits(cell: tuple[str, str], room: int) -> bool:
    """Whether a cell's name keeps its :func:`least` characters beside its value in ``room``."""
    return _need(cell) - 2 <= room


def _shares(line: Sequence[tuple[str, str]], columns: int, width: int) -> list[int] | None:
    """The pixels each cell of a row of ``line`` gets: a column each (``width // columns``) when
    every cell fits one, else what each needs and an even share of the rest (``Ann 4 | Ben 6
    Mütze``); ``None`` when the row cannot hold them."""
    column = width // max(1, columns)
    if all(_fits(cell, column - 2) for cell in line):
        return [column] * len(line)
    needs = [_need(cell) for cell in line]
    if sum(needs) > width:
        return None
    spare = (width - sum(needs)) // len(line)
    return [need + spare for need in needs]


def _lines(cells: Sequence[tuple[str, str]], columns: int, width: int) -> list[list[tuple[str, str]]]:
    """``cells`` in rows of up to ``columns``, in order; a row whose cells do not fit a column
    each shares its width as they need, and a cell that does not fit beside the ones before it
    starts a row."""
    rows: list[list[tuple[str, str]]] = []
    row: list[tuple[str, str]] = []
    for cell in cells:
        if row and (len(row) == columns or _shares([*row, cell], columns, width) is None):
            rows.append(row)
            row = []
        row.append(cell)
    if row:
        rows.append(row)
    return rows


def per_row(cells: Sequence[tuple[str, str]], on: Panel | None = None, width: int | None = None) -> int:
    """Cells to a row: as many as the panel's width (or ``width``) allows while every name keeps
    :data:`MIN_NAME` letters (its turn mark aside) beside its value as the players read it (three
    for 3, 5 or 6 players on a 128-px panel when they fit, else two; up to four on a 256-px
    panel). When no count fits every cell, the count that takes the fewest rows with the rows
    that need it shared unevenly (:func:`grid`), one a row at worst."""
    count = len(cells)
    width = _width(on) if width is None else width
    options = [c for c in (6, 5, 4, 3, 2) if c <= count and (c != 3 or count in (3, 5, 6))]
    candidates = [c for c in options if c == 3 or width >= 60 * c] + [2]
    for columns in candidates:
        room = width // columns - 2
        if all(_fits(cell, room) for cell in cells):
            return columns
    fewest = min(candidates, key=lambda c: len(_lines(cells, c, width)))
    return fewest if len(_lines(cells, fewest, width)) < count else 1


def fewest_rows(cells: Sequence[tuple[str, str]], on: Panel | None = None, width: int | None = None) -> int:
    """Cells to a row that take the fewest rows, a row's width shared unevenly where its cells
    need it (:func:`grid`), every name keeping :data:`MIN_NAME` letters: the grid of a crowded
    frame (of counts that take as few, the one :func:`per_row` picks, else the most)."""
    width = _width(on) if width is None else width
    chosen = per_row(cells, on, width)
    counts = [chosen, *(c for c in range(min(len(cells), 6), 0, -1) if c != chosen)]
    return min(counts, key=lambda c: len(_lines(cells, c, width)))


def grid(
    cells: Sequence[tuple[str, str]], columns: int, on: Panel | None = None, width: int | None = None
) -> list[Row]:
    """``(name, value)`` cells laid out ``columns`` to a row; each name is shortened so that its
    value always shows (in room left for the turn timer's bar), keeping its :func:`least`
    characters: a row whose cells do not fit a column each shares its width as they need
    (``Ann 4 | Ben 6 Mütze``), and a cell that cannot beside the others starts a row."""
    width = width if width is not None else _width(on)
    rows = []
    for line in _lines(cells, columns, width):
        shares = _shares(line, columns, width) or [width]
        even = len(set(shares)) == 1 and shares[0] == width // max(1, columns)
        pairs = zip(line, shares, strict=True)
        texts = tuple(name_and_value(n, v, share - 2, least=least(n) if v else 0) for (n, v), share in pairs)
        rows.append(Row(texts, weights=() if even else tuple(shares)))
    return rows


def score_rows(
    scores: Sequence[tuple[str, str]],
    active: Sequence[str] = (),
    on: Panel | None = None,
    width: int | None = None,
    big: bool = False,
    tight: bool = False,
) -> list[Row]:
    """The score grid: ``>`` marks whose turn it is; names shortened, numbers always whole.

    ``big``: drawn twice the size where the panel has the height (:attr:`Panel.big`) and the
    grid then takes at most half of its rows, fitted to half the width (fewer to a row when that
    shows every name whole), when every name keeps its :func:`least` characters there; else the
    ordinary grid. ``tight``: on the fewest rows (:func:`fewest_rows`), names shorter.
    """
    on = on or panel()
    cells = [((MARK if p in active else "") + p, s) for p, s in scores]
    half = (width if width is not None else _width(on)) // on.big
    if big and on.big > 1 and all(_fits(cell, half - 2) for cell in cells):  # big only with every name
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
    columns = fewest_rows(cells, on, width) if tight else per_row(cells, on, width)
    return grid(cells, columns, on, width)


def big_row(text: str) -> Row:
    """A one-line row drawn twice the size where the panel has the height and ``text`` fits
    there whole (whose turn it is), else an ordinary row that may end in an ellipsis."""
    on = panel()
    if on.big > 1 and text_width(text) <= _width(on) // on.big - 2:
        return Row.of(text, big=True)
    return Row.of(text, cut=True)


def text_rows(text: str, room: int, on: Panel | None = None) -> list[Row]:
    """``text`` wrapped into at most ``room`` rows; the game's players named in a text too long
    for them are shortened first (:func:`named_rows`, the names :func:`naming` gives), and a text
    longer still ends in an ellipsis (meant)."""
    return named_rows(text, room, players(), on)


def wrapped_forms(
    text: str, bar: bool = True, invert: bool = False, needed: bool = True, on: Panel | None = None
) -> list[list[Row]]:
    """The forms of ``text`` as whole rows (:func:`named_forms`, each wrapped to a row's width,
    beside the turn timer's bar when ``bar``), most wanted first; a form that takes no fewer rows
    than one before it with longer names is left out. Its words are never cut."""
    width = (on or panel()).content_w - 2 - (BAR_W if bar else 0)
    forms: list[list[Row]] = []
    for form in named_forms(text):
        lines = wrap(form, width)
        if not forms or len(lines) < len(forms[-1]):
            forms.append([Row((line,), invert=invert, needed=needed) for line in lines])
    return forms


def title_line(text: str, width: int) -> str | None:
    """``text`` on one line of ``width`` pixels (the title bar), its players' names shortened if
    that makes it fit; ``None`` where it does not fit whole."""
    return next((form for form in named_forms(text) if text_width(form) <= width), None)


def named_rows(text: str, room: int, names: Sequence[str], on: Panel | None = None) -> list[Row]:
    """A text that names players (``Bartholomew:3 Maximiliane:0 Cy:7``) in at most ``room`` rows:
    whole where it fits, else with every name shortened to the start that tells it from the
    others (``Bar:3 Max:0 Cy:7``) before anything is cut."""
    text = tr(text)
    if room <= 0 or not text:
        return []
    if len(wrap(text, _width(on) - 2)) > room:
        text = shorten_names(text, names)
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


def chosen_row(choosing: Sequence[str], answers: Sequence[str]) -> Row:
    """The answers being chosen out of turn, on the hint line (``Ben bet 3? hold``), as whole as
    fits: whole names, then names cut to :data:`MIN_NAME` letters, then the values alone (``Ben
    3?``) without the hold, then an ellipsis."""
    width = panel().content_w - 2 - BAR_W
    short = [p[:MIN_NAME] for p in choosing]
    last = [answer.split()[-1] if answer.split() else answer for answer in answers]
    hold = " " + tr(T("hold"))
    ways = ((choosing, answers, hold), (short, answers, hold), (short, last, hold), (short, last, ""))
    for names, values, tail in ways:
        text = " ".join(f"{n} {v}?" for n, v in zip(names, values, strict=True)) + tail
        if text_width(text) <= width:
            return Row.of(text)
    return Row.of(text, cut=True)
