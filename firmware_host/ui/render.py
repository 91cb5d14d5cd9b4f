"""Drawing frames for the OLED: a layout that cannot overflow.

A :class:`Frame` is what a screen wants to show, as data: a title bar, rows of text (each row one
cell or a few columns, some inverted), and a message for the table. :func:`compose` lays the
message out on a line of its own (wrapped to two lines at most), above the rows the screen keeps
(its hint and highlighted option), and :func:`render` draws the result into a 1-bit image with
luma's ``LCD_FONT`` (7 pixels tall, proportional), shifted by a small offset that the display
service moves now and then so no pixel stays lit for hours (burn-in).

Every piece of text goes into a box that knows its pixel width, which comes from the panel size
(:class:`Panel`): the panel in force (:func:`panel`; the device lays out inside :func:`on_panel`
of its configured panel), 128×64 unless told. A row marked ``big`` is drawn twice the size where
the panel has the height (128×128), fitted to half the width by the same rules. Each kind of text
has its fitting rule:

- a name beside a number (the score grid, rankings) is shortened so the number always shows
  (:func:`name_and_value`), but never below the letters that tell it from another (reported);
- a message or a question wraps (:func:`wrap`); a message longer than its two lines ends in an
  ellipsis, on purpose;
- a row marked ``cut=True`` may end in an ellipsis (a long option, a history line);
- anything else must fit. Text that does not fit is still cut at its box, never drawn past it,
  and the cut is reported to whoever :func:`watch` es (the UI monkey and the frame tests fail on
  it), as is a character the font cannot draw and a row that does not fit on the panel.

Fitting is linear in the length of the text: a refusal naming a 16,000-letter player is laid out
as fast as any other.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextvars import ContextVar
from dataclasses import dataclass, field, replace
from functools import lru_cache

from PIL import Image

from drivers.display import HEIGHT, WIDTH
from firmware_host.core.i18n import tr
from firmware_host.ui.font import GLYPH_H, _glyph, _spell, char_width, missing_glyphs, text_width


@dataclass(frozen=True)
class Panel:
    """A panel's size in pixels and the layout it allows: rows of :data:`ROW` pixels under a
    title bar, inside a margin the picture swims in against burn-in."""

    width: int = WIDTH
    height: int = HEIGHT
    margin: int = 2

    @property
    def content_w(self) -> int:
        """Pixels across that text may use."""
        return self.width - self.margin

    @property
    def rows(self) -> int:
        """Text rows under the title bar."""
        return (self.height - self.margin) // ROW - 1

    @property
    def big(self) -> int:
        """How many times larger a ``big`` row is drawn: 2 on a panel with :data:`BIG_ROWS` rows
        or more (128×128: a score grid or whose turn it is, readable from across the table),
        else 1 (the row is drawn like any other)."""
        return 2 if self.rows >= BIG_ROWS else 1

    def slots(self, row: Row) -> int:
        """The rows of :data:`ROW` pixels ``row`` takes on this panel (a drawn-big row: two)."""
        return self.big if row.big else 1

    def height_of(self, rows: Iterable[Row]) -> int:
        """The rows of :data:`ROW` pixels ``rows`` take on this panel."""
        return sum(self.slots(r) for r in rows)


ROW = GLYPH_H
"""Pixels per text row (the font is 7 tall; the last line keeps stacked inverted bars apart)."""
BIG_ROWS = 12
"""Rows under the title a panel needs before a ``big`` row is drawn twice the size (twice the
128×64 panel's six)."""
PANEL = Panel()
"""The smallest panel, 128×64 (the 0.96" SSD1306): what is drawn when no other is in force."""
_in_force: ContextVar[Panel] = ContextVar("panel", default=PANEL)


def panel() -> Panel:
    """The panel in force: the one the device draws on while it lays out a frame or handles a
    press (:func:`on_panel`), else :data:`PANEL`. Screens take their room from it."""
    return _in_force.get()


@contextlib.contextmanager
def on_panel(size: Panel | tuple[int, int]) -> Iterator[Panel]:
    """Lay out for the panel ``size`` (a :class:`Panel` or its width and height) in the block."""
    chosen = size if isinstance(size, Panel) else Panel(*size)
    token = _in_force.set(chosen)
    try:
        yield chosen
    finally:
        _in_force.reset(token)


_names: ContextVar[tuple[str, ...]] = ContextVar("names", default=())


def players() -> tuple[str, ...]:
    """The names of the game in play while the device lays out a frame (:func:`naming`), else none."""
    return _names.get()


MIN_NAME = 3
"""Letters of a name that always show beside its number (more when there is room)."""
TRIM = " -.,:'"
"""What a shortened name never ends in: ``Hans-Jürgen`` shortened reads ``Hans``, not ``Hans-``."""


def short_names(names: Sequence[str]) -> dict[str, str]:
    """Each name → the shortest start of it, :data:`MIN_NAME` letters or more, that starts no
    other name (the whole name when every start of it does: ``Maximilian`` beside ``Maximiliane``)."""
    short = {}
    for name in names:
        others = [n for n in names if n != name]
        cut = next(
            (
                name[:k]
                for k in range(MIN_NAME, len(name))
                if name[k - 1] not in TRIM and not any(n.startswith(name[:k]) for n in others)
            ),
            name,
        )
        short[name] = cut
    return short


def shorten_names(text: str, names: Sequence[str]) -> str:
    """``text`` with every one of ``names`` in it shortened to the start that tells it from the
    others (:func:`short_names`); a longer word that only begins like a name stays as it is."""
    for name, short in sorted(short_names(names).items(), key=lambda item: -len(item[0])):
        if short != name:
            text = re.sub(rf"(?<!\w){re.escape(name)}(?!\w)", short, text)
    return text


def cut_names(text: str, names: Sequence[str]) -> str:
    """``text`` with every one of ``names`` in it cut to :data:`MIN_NAME` letters (the last resort
    before the words are cut)."""
    for name in sorted(names, key=len, reverse=True):
        if len(name) > MIN_NAME:
            text = re.sub(rf"(?<!\w){re.escape(name)}(?!\w)", name[:MIN_NAME].rstrip(TRIM) or name[:MIN_NAME], text)
    return text


def named_forms(text: str, names: Sequence[str] | None = None) -> list[str]:
    """``text`` (translated) as it may show: the players' ``names`` in it whole, shortened to the
    start that tells them apart, cut to :data:`MIN_NAME` letters; each form once, in that order
    (``names``: the game's players unless given, :func:`players`)."""
    text = tr(text)
    names = players() if names is None else names
    short = shorten_names(text, names)
    return list(dict.fromkeys([text, short, cut_names(short, [*short_names(names).values(), *names])]))


def names_first(text: str, width: int, names: Sequence[str] | None = None) -> str:
    """``text`` made to fit ``width`` pixels by shortening the players' names in it, never its
    words: whole, else each name shortened to the start that tells it from the others, else to
    :data:`MIN_NAME` letters; what still does not fit is left to the cut (``…``)."""
    names = players() if names is None else names
    text = tr(text)
    if not names or text_width(text) <= width:
        return text
    shorter = shorten_names(text, names)
    if text_width(shorter) <= width:
        return shorter
    return cut_names(shorter, [short_names(names)[n] for n in names] + list(names))


@contextlib.contextmanager
def naming(names: Sequence[str]) -> Iterator[None]:
    """Lay out with ``names`` as the game's players: a text too long for its rows shortens them
    first (:func:`firmware_host.ui.layout.text_rows`)."""
    token = _names.set(tuple(names))
    try:
        yield
    finally:
        _names.reset(token)


MARGIN = PANEL.margin
"""The picture is drawn in a 126×62 area and moved by up to this many pixels against burn-in."""
ROWS = PANEL.rows
CONTENT_W = PANEL.content_w
MESSAGE_LINES = 2
"""Lines :func:`message_lines` wraps a text to by default (a longer one ends in an ellipsis)."""
PARTS = " · "
"""Between the messages of one moment shown together (the outcomes of one action)."""
ELLIPSIS = "…"
BAR_W = 3
"""Pixels the turn timer's bar takes at the right edge, when it shows."""


@dataclass(frozen=True)
class Row:
    """One line of text: one cell, or a few columns; ``right`` is right-aligned.

    ``cut`` says a text too long for its cell may end in an ellipsis (meant, not an accident).
    ``big`` asks for twice the size where the panel has the height (:attr:`Panel.big`): the row
    then takes two rows and fits its text in half the width; elsewhere it is an ordinary row.
    """

    cells: tuple[str, ...] = ("",)
    right: str = ""
    invert: bool = False
    cut: bool = False
    big: bool = False
    weights: tuple[int, ...] = ()
    """How the row's width is shared among its cells (in proportion); equal when empty."""
    needed: bool = False
    """A line the rules need the table to see (:attr:`games.core.View.needed`): a message takes
    the place of any other row first."""

    def __post_init__(self) -> None:  # what an engine said (a Text) is shown in the players' language
        object.__setattr__(self, "cells", tuple(tr(c) for c in self.cells))
        object.__setattr__(self, "right", tr(self.right))

    @classmethod
    def of(cls, text: str = "", right: str = "", invert: bool = False, cut: bool = False, big: bool = False) -> Row:
        """A one-cell row."""
        return cls((text,), right, invert, cut, big)


@dataclass(frozen=True)
class Frame:
    """A whole screen: title bar, rows, an optional time bar (0..1) on the right edge, and the
    table's message.

    ``keep`` counts the bottom rows that a message must never cover (the hint, the highlighted
    option); the message takes the place of rows above them.
    """

    title: str
    rows: tuple[Row, ...] = ()
    title_right: str = ""
    bar: float | None = None
    message: str = ""
    keep: int = 1
    composed: bool = field(default=False, compare=False)

    def __post_init__(self) -> None:  # what an engine said (a Text) is shown in the players' language
        for name in ("title", "title_right", "message"):
            object.__setattr__(self, name, tr(getattr(self, name)))


# -- overflow reports --------------------------------------------------------------------------------
@dataclass(frozen=True)
class Overflow:
    """A text that did not fit its box (``kind``: ``"cut"``, ``"glyph"``, ``"rows"`` or ``"name"``:
    a name beside its number cut too short to tell whose it is)."""

    kind: str
    text: str
    width: int


_watchers: list[list[Overflow]] = []


@contextlib.contextmanager
def watch() -> Iterator[list[Overflow]]:
    """Collect every :class:`Overflow` drawn while the block runs (tests, the UI monkey)."""
    found: list[Overflow] = []
    _watchers.append(found)
    try:
        yield found
    finally:
        _watchers.remove(found)


def report(kind: str, text: str, width: int) -> None:
    """Tell every :func:`watch` er that ``text`` did not fit (``width``: pixels, or rows)."""
    for found in _watchers:
        found.append(Overflow(kind, text[:200], width))


# -- fitting rules (each linear in the text's length) -------------------------------------------------
def _prefix(text: str, width: int) -> int:
    """How many leading characters of ``text`` fit in ``width`` pixels."""
    used = 0
    for i, ch in enumerate(text):
        used += char_width(ch)
        if used > width:
            return i
    return len(text)


def fit(text: str, width: int) -> str:
    """``text``, or as much of it as fits ``width`` pixels followed by an ellipsis."""
    text = tr(text)
    if text_width(text) <= width:
        return text
    return text[: _prefix(text, width - char_width(ELLIPSIS))].rstrip() + ELLIPSIS


def name_and_value(name: str, value: str, width: int, gap: str = " ", least: int = 0) -> str:
    """``name`` and ``value`` in ``width`` pixels: the name is shortened, the value always shows.

    A name left with fewer than ``least`` characters (a name that can no longer be told from
    another: ``>C 0 Mütze``, ``P 0``) is reported (kind ``"name"``), as a cut is."""
    name, value = tr(name), tr(value)
    whole = f"{name}{gap}{value}" if value else name
    if text_width(whole) <= width:
        return whole
    room = width - text_width(gap + value) if value else width
    kept = _prefix(name, room)
    if kept < min(least, len(name)):
        report("name", whole, width)
    shown = name[:kept].rstrip(TRIM) or name[:kept]  # ``Hans -4``, never ``Hans- -4``
    return shown + (gap + value if value else "")


BREAKS = "/-"
"""After which a word longer than a line is split where it can (``Ann/Ben/`` / ``Cy B``)."""


def _chunks(word: str, width: int) -> list[str]:
    """``word`` cut into pieces of at most ``width`` pixels (at least one letter each), each
    after a :data:`BREAKS` character where the piece has one."""
    pieces: list[str] = []
    start, used = 0, 0
    for i, ch in enumerate(word):
        w = char_width(ch)
        if used + w > width and i > start:
            cut = max((word.rfind(b, start + 1, i) for b in BREAKS), default=-1) + 1 or i
            pieces.append(word[start:cut])
            start, used = cut, text_width(word[cut:i])
        used += w
    pieces.append(word[start:])
    return pieces


def wrap(text: str, width: int | None = None) -> list[str]:
    """``text`` broken into lines that fit ``width`` pixels (a word longer than a line is split;
    ``width``: a whole row of the panel in force unless given). A line never ends in a word of
    one letter or digit that the next word could go with (``3. B`` / ``Schwimmer``, ``6`` /
    ``Springer-Karten``): it goes down to that word's line."""
    text = tr(text)
    width = _in_force.get().content_w - 2 if width is None else width
    space = char_width(" ")
    lines: list[str] = []
    for para in text.split("\n"):
        line: list[str] = []
        used = 0
        for word in para.split():
            w = text_width(word)
            if line and used + space + w <= width:
                line.append(word)
                used += space + w
                continue
            carry: list[str] = []
            if len(line) > 1 and len(line[-1]) == 1 and text_width(line[-1]) + space + w <= width:
                carry = [line.pop()]  # a one-letter word goes down with the word it belongs to
            if line:
                lines.append(" ".join(line))
                line, used = [], 0
            if w > width:  # a word longer than the line, split in one pass
                *whole, word = _chunks(word, width)
                lines += whole
                w = text_width(word)
            line = [*carry, word]
            used = w + (text_width(carry[0]) + space if carry else 0)
        lines.append(" ".join(line))
    return lines


def message_lines(text: str, width: int | None = None, lines: int = MESSAGE_LINES) -> list[str]:
    """A message wrapped to at most ``lines`` lines, the last ending in an ellipsis if more
    (``width``: a row of the panel in force beside the timer's bar unless given)."""
    width = _in_force.get().content_w - 2 - BAR_W if width is None else width
    wrapped = wrap(text, width)
    if len(wrapped) <= lines:
        return wrapped
    rest = " ".join(wrapped[lines - 1 :])
    return [*wrapped[: lines - 1], fit(rest, width)]


# -- composing and drawing ----------------------------------------------------------------------------------
def compose(frame: Frame, panel: Panel | None = None) -> Frame:
    """``frame`` with its message laid out on rows of its own, above the rows it keeps.

    The message takes the place of the body's last rows, never of the hint or the highlighted
    option, and of a line the rules need seen (:attr:`Row.needed`) only when no other row is
    left: when every row must stay, it shows on the title bar instead, for as long as it lasts.
    Rows beyond the panel are reported (a screen must scroll or page, not lose rows).
    ``panel``: the panel in force (:func:`panel`) unless given.
    """
    if frame.composed:
        return frame
    panel = panel or _in_force.get()
    rows = list(frame.rows)
    if panel.height_of(rows) > panel.rows:
        shown = fitting(rows, panel)
        report("rows", " / ".join(" ".join(r.cells) for r in rows[shown:]), panel.rows)
        rows = rows[:shown]
    title, said = frame.title, bool(frame.message) and not _already_shown(frame.message, rows, players())
    if players():  # a text too long for its cell shortens the players' names in it, never its words
        width = panel.content_w - (BAR_W if frame.bar is not None else 0)
        rows = [_names_fitted(row, width // panel.slots(row)) for row in rows]
        title = _names_fitted(Row.of(title, frame.title_right, cut=True), width).cells[0]
    if said:
        keep = max(0, min(frame.keep, len(rows), panel.rows - 1))
        kept = rows[len(rows) - keep :] if keep else []
        body = rows[: len(rows) - keep]
        room = panel.rows - panel.height_of(kept)
        needed = panel.height_of([r for r in body if r.needed])  # the message leaves them their rows
        width = panel.content_w - 2 - BAR_W
        parts = frame.message.split(PARTS)

        def fitting_forms() -> list[list[str]]:  # names shortened first
            forms = [wrap(form, width) for form in named_forms(PARTS.join(parts))]
            return [form for form in forms if len(form) <= room - needed]

        fits = fitting_forms()
        while not fits and (loose := _loose(kept)) is not None:  # a list's items below its highlighted one
            room += panel.slots(kept.pop(loose))
            fits = fitting_forms()
        while not fits and len(parts) > 1:  # outcomes of one moment: the older give way
            parts = parts[1:]
            fits = fitting_forms()
        if not fits:  # no room in the rows: the message takes the title bar's place
            width = panel.content_w - (BAR_W if frame.bar is not None else 0)
            right = text_width(frame.title_right) + 2 if frame.title_right else 0
            line = next((f for f in named_forms(parts[-1]) if text_width(f) <= width - 2 - right), None)
            title = _names_fitted(Row.of(line or parts[-1], frame.title_right, cut=True), width).cells[0]
            return replace(frame, title=title, rows=tuple(rows), composed=True)
        lines = min(fits, key=len)  # the fewest rows, and of those the whole names
        body = _shed(body, max(0, room - len(lines)), panel)
        body += [Row.of()] * (room - len(lines) - panel.height_of(body))
        rows = body + [Row.of(line, invert=True) for line in lines] + kept
    return replace(frame, title=title, rows=tuple(rows), composed=True)


def _loose(kept: list[Row]) -> int | None:
    """The last of the rows a message must not cover that may give way to it all the same: one
    neither highlighted nor needed, above the hint (a list's items below its highlighted one)."""
    return next((i for i in range(len(kept) - 2, -1, -1) if not kept[i].invert and not kept[i].needed), None)


def _names_fitted(row: Row, width: int) -> Row:
    """``row`` with the players' names shortened in each cell too long for its room (as
    :func:`_row` shares ``width`` out), so a cut, if one is left, never takes a word first."""
    right_w = text_width(row.right) if row.right else 0
    widths = cell_widths(width, len(row.cells), row.weights)
    last = len(row.cells) - 1
    cells = tuple(
        names_first(cell, widths[i] - 2 - (right_w + 2 if row.right and i == last else 0))
        for i, cell in enumerate(row.cells)
    )
    return row if cells == row.cells else replace(row, cells=cells)


def _already_shown(message: str, rows: list[Row], names: Sequence[str] = ()) -> bool:
    """Whether ``message`` is on the rows already, on one row or wrapped over a few in a row
    (the players' ``names`` in it shortened as a line that names them may have them)."""
    texts = [" ".join(" ".join(r.cells).split()) for r in rows]
    said = tr(message)
    forms = {said, shorten_names(said, names), cut_names(shorten_names(said, names), names)} if names else {said}
    wanted = {" ".join(form.split()) for form in forms}
    return any(
        " ".join(texts[i:j]) in wanted for i in range(len(texts)) for j in range(i + 1, min(len(texts), i + 4) + 1)
    )


def fitting(rows: Sequence[Row], panel: Panel, room: int | None = None) -> int:
    """How many of the leading ``rows`` fit on ``panel`` (in ``room`` of its rows, else all)."""
    room = panel.rows if room is None else room
    used = 0
    for i, row in enumerate(rows):
        used += panel.slots(row)
        if used > room:
            return i
    return len(rows)


def _shed(rows: list[Row], room: int, panel: Panel) -> list[Row]:
    """``rows`` cut to ``room`` rows of the panel: blank rows go first, then a row drawn big
    becomes an ordinary one (from the end), then plain rows go from the end; a highlighted
    (inverted) row goes last of all."""
    rows = list(rows)

    def last(test: Callable[[Row], bool]) -> int | None:
        return next((i for i in range(len(rows) - 1, -1, -1) if test(rows[i])), None)

    while panel.height_of(rows) > room:
        i = last(lambda r: not any(r.cells) and not r.right)
        if i is None and (big := last(lambda r: panel.slots(r) > 1)) is not None:
            rows[big] = replace(rows[big], big=False)
            continue
        if i is None:
            i = last(lambda r: not r.invert and not r.needed)
        if i is None:
            i = last(lambda r: not r.invert)
        del rows[len(rows) - 1 if i is None else i]
    return rows


def cell_widths(width: int, count: int, weights: Sequence[int] = ()) -> list[int]:
    """Pixels of each of ``count`` cells across ``width``: equal, or in proportion to ``weights``."""
    if len(weights) != count or sum(weights) <= 0:
        return [width // count] * count
    total = sum(weights)
    edges = [width * sum(weights[:i]) // total for i in range(count + 1)]
    return [edges[i + 1] - edges[i] for i in range(count)]


def _fitted(row: Row, width: int, told: bool = True) -> tuple[list[tuple[int, str, int]], str]:
    """Each cell of ``row`` as it is drawn in ``width`` pixels: its x, its text (cut with an
    ellipsis where it does not fit its room) and its room; then the right-aligned text as drawn.
    ``told``: a cut nobody meant and a character the font cannot draw are reported."""
    right = row.right
    right_w = text_width(right) if right else 0
    if right_w > width - 24:
        if told:
            report("cut", right, width - 24)
        right = fit(right, width - 24)
        right_w = text_width(right)
    widths = cell_widths(width, len(row.cells), row.weights)
    cells = []
    for i, cell in enumerate(row.cells):
        room = widths[i] - 2 - (right_w + 2 if right and i == len(row.cells) - 1 else 0)
        if told and missing_glyphs(cell):
            report("glyph", cell, room)
        if text_width(cell) > room:
            if told and not row.cut:
                report("cut", cell, room)
            cell = fit(cell, room)
        cells.append((1 + sum(widths[:i]), cell, room))
    return cells, right


def _row(img: Image.Image, x0: int, y: int, row: Row, width: int) -> None:
    if row.invert:  # the bar leaves its last line dark, so stacked bars stay apart
        img.paste(1, (x0, y, x0 + width, y + ROW - 1))
    cells, right = _fitted(row, width)
    canvas = Image.new("1", (width, ROW))
    for x, cell, room in cells:
        _draw_text(canvas, x, 0, cell, room)
    if right:
        right_w = text_width(right)
        _draw_text(canvas, width - right_w - 1, 0, right, right_w)
    if row.invert:
        img.paste(0, (x0, y), canvas)
    else:
        img.paste(1, (x0, y), canvas)


@lru_cache(maxsize=4096)
def _line(text: str, width: int) -> Image.Image:
    """``text`` drawn once as a mask, never wider than ``width`` (+1 for the last glyph's gap)."""
    glyphs = []
    used = 0
    for ch in _spell(text):
        glyph = _glyph(ch)
        if used + glyph.width - 1 > width:
            break
        glyphs.append((used, glyph))
        used += glyph.width
    img = Image.new("1", (max(1, used), ROW))
    for x, glyph in glyphs:
        img.paste(1, (x, 0), glyph)
    return img


def _draw_text(img: Image.Image, x: int, y: int, text: str, width: int) -> int:
    """Paste ``text`` at (x, y) in white, never past ``width``; returns the x after it."""
    if not text:
        return x
    line = _line(text, max(0, width))
    img.paste(1, (x, y), line)
    return x + line.width


def _big_row(img: Image.Image, x0: int, y: int, row: Row, width: int, scale: int) -> None:
    """``row`` drawn ``scale`` times the size: laid out and fitted in ``width // scale`` pixels,
    then each pixel drawn as a ``scale``×``scale`` block."""
    small = Image.new("1", (width // scale, ROW))
    _row(small, 0, 0, row, width // scale)
    img.paste(small.resize((small.width * scale, ROW * scale), Image.Resampling.NEAREST), (x0, y))


def render(frame: Frame, offset: tuple[int, int] = (0, 0), panel: Panel | None = None) -> Image.Image:
    """The picture of ``frame`` on ``panel`` (the panel in force unless given), shifted by
    ``offset`` (each 0..margin)."""
    panel = panel or _in_force.get()
    frame = compose(frame, panel)
    img = Image.new("1", (panel.width, panel.height))
    ox, oy = offset
    bar_w = BAR_W if frame.bar is not None else 0
    width = panel.content_w - bar_w
    _row(img, ox, oy, Row.of(frame.title, frame.title_right, invert=True, cut=True), width)
    y = oy + ROW
    for row in frame.rows[: fitting(frame.rows, panel)]:
        if panel.slots(row) > 1:
            _big_row(img, ox, y, row, width, panel.big)
        else:
            _row(img, ox, y, row, width)
        y += ROW * panel.slots(row)
    if frame.bar is not None:
        height = ROW * (panel.rows + 1)
        filled = round(max(0.0, min(1.0, frame.bar)) * height)
        x = ox + width + 1
        img.paste(1, (x, oy, x + 1, oy + height), None)  # frame line
        if filled:
            img.paste(1, (x, oy + height - filled, x + 2, oy + height))
    return img


CELL_GAP = " | "
"""Between a row's cells in :func:`drawn_lines` (the columns a player reads apart)."""


def drawn_lines(frame: Frame, panel: Panel | None = None) -> list[str]:
    """What a player reads on ``panel`` (the panel in force unless given) when ``frame`` is drawn:
    the title bar, then each row that fits, one line a row, as drawn — the players' names
    shortened, a text too long for its box cut with its ellipsis, a letter the font writes out
    written out (``Ł`` as ``L``). A row's cells are :data:`CELL_GAP` apart, its right-aligned
    text two spaces after them; a row drawn twice the size is one line."""
    panel = panel or _in_force.get()
    frame = compose(frame, panel)
    width = panel.content_w - (BAR_W if frame.bar is not None else 0)
    lines = [_drawn(Row.of(frame.title, frame.title_right, cut=True), width)]
    lines += [_drawn(row, width // panel.slots(row)) for row in frame.rows[: fitting(frame.rows, panel)]]
    return lines


def _drawn(row: Row, width: int) -> str:
    """One row as a player reads it (:func:`drawn_lines`)."""
    cells, right = _fitted(row, width, told=False)
    text = CELL_GAP.join(cell for _, cell, _ in cells if cell)
    if right:
        text = f"{text}  {right}" if text else right
    return _spell(text)


def to_text(img: Image.Image) -> str:
    """The picture as text (``#`` lit, ``.`` dark), for tests and debugging."""
    px = img.load()
    assert px is not None  # a picture in memory always loads
    return "\n".join("".join("#" if px[x, y] else "." for x in range(img.width)) for y in range(img.height))
