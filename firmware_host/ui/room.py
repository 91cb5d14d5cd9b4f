"""Sharing a panel's rows among what a frame shows: what must be read whole first, names shortened
before anything else gives way.

A frame is made of :class:`Part` s (the score grid, a line the rules need, the question, the
message, the highlighted option, the hint…), each in the forms it may take, most wanted first
(a text with the players' names whole, then shortened to the start that tells them apart, then
to three letters; a score grid drawn big, then ordinary). :func:`share` gives each part its
rows:

1. every part that must show takes its most compact form (the fewest rows; of those, the one
   with the longest names);
2. when they do not fit, a part that can say itself on one line of the title bar goes there
   (the question, else the message, else a line the rules need: the first whose going makes the
   rest fit), where the title bar carries nothing the table must read;
   when they still do not fit, a part with a last, squeezed form takes it (the score grid, cut
   to whose turn it is);
3. in their rank's order, a part that must show takes the fullest of its forms that fits the
   room left (the answers of a reveal, every player's), and a part that may show takes its most
   compact form (what the last move brought, the hint, the other lines), or a fallback (a line
   on one row, cut), while there is room;
4. the room left goes to fuller forms, in rank order: whole names, a big score grid.

What still does not fit is reported (``rows``) and left off the end: a check over every frame
(``tests/panel_rule.py``) fails on it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from firmware_host.ui.render import Panel, Row, fitting, report


@dataclass
class Part:
    """One thing a frame shows, in the forms it may take (lists of rows), most wanted first.

    ``must``: it shows whatever else gives way (else it may be left off); ``titled``: one line
    that says it on the title bar instead of rows, where it fits there whole; ``rank``: the order
    in which parts get room beyond what they must have (lower first; ties in display order)."""

    forms: Sequence[Sequence[Row]]
    must: bool = True
    titled: str | None = None
    title_rank: int = 0
    """Which part takes the title bar (lower first): of those whose going there makes the rest
    fit, the first; else the first."""
    rank: int = 0
    fallback: Sequence[Row] | None = None
    """What shows of a part that may show where none of its forms fits (a line on one row, cut)."""
    squeezed: Sequence[Row] | None = None
    """A last form, taken only where the parts that must show do not fit otherwise (the score
    grid cut to whose turn it is, beside a long outcome)."""
    chosen: list[Row] = field(default_factory=list)
    """The rows it shows (after :func:`share`)."""
    shown: bool = False
    """Whether it shows (its form may have no rows: the answers given so far, none yet)."""

    def compact(self, on: Panel) -> list[Row]:
        """The form with the fewest rows (of those, the most wanted)."""
        return min((list(f) for f in self.forms), key=on.height_of, default=[])

    def take(self, form: Sequence[Row]) -> None:
        """Show ``form``."""
        self.chosen, self.shown = list(form), True


def fits(parts: Sequence[Part], on: Panel, room: int | None = None, title_free: bool = True) -> bool:
    """Whether every part of ``parts`` that must show fits ``room`` rows of ``on`` (see
    :func:`share`)."""
    room = on.rows if room is None else room
    return _must(parts, on, room, title_free)[0] <= room


def _must(parts: Sequence[Part], on: Panel, room: int, title_free: bool) -> tuple[int, str]:
    """Steps 1 and 2 of :func:`share`: the parts that must show, compact, one of them on the
    title bar or squeezed where they do not fit; the rows they take, and the title bar's text."""
    for part in parts:
        part.chosen, part.shown = [], False
        if part.must:
            part.take(part.compact(on))
    used = sum(on.height_of(p.chosen) for p in parts)
    title = ""
    candidates = sorted((p for p in parts if p.must and p.titled), key=lambda p: p.title_rank)
    if used > room and title_free and candidates:  # one part says itself on the title bar
        part = next((p for p in candidates if used - on.height_of(p.chosen) <= room), candidates[0])
        title, used = part.titled or "", used - on.height_of(part.chosen)
        part.chosen, part.shown = [], False
    for part in parts:  # still too many: the last forms, in order
        if used > room and part.shown and part.squeezed is not None:
            used += on.height_of(part.squeezed) - on.height_of(part.chosen)
            part.chosen = list(part.squeezed)
    return used, title


def share(parts: Sequence[Part], on: Panel, room: int | None = None, title_free: bool = True) -> tuple[list[Row], str]:
    """The rows of ``parts`` (in their order) in ``room`` rows of ``on`` (all of its rows unless
    given), and the text a part says on the title bar instead (``""``: none): see the module."""
    room = on.rows if room is None else room
    used, title = _must(parts, on, room, title_free)
    ranked = sorted(parts, key=lambda p: p.rank)
    for part in ranked:  # in rank order: a part that must show grows, one that may show shows
        if part.must:
            if part.shown and part.chosen != part.squeezed:
                used += _grow(part, on, room - used)
            continue
        for form in (part.compact(on), part.fallback):  # compact, else its fallback
            if form and used + on.height_of(form) <= room:
                used += on.height_of(form)
                part.take(form)
                break
    for part in ranked:  # fuller forms with the room left
        if part.shown and part.chosen not in (part.squeezed, part.fallback):
            used += _grow(part, on, room - used)
    rows = [row for part in parts for row in part.chosen]
    shown = fitting(rows, on, room)
    if shown < len(rows):
        report("rows", " / ".join(" ".join(r.cells) for r in rows[shown:]), room)
    return rows[:shown], title


def _grow(part: Part, on: Panel, spare: int) -> int:
    """Show ``part`` in the most wanted of its forms that fits ``spare`` more rows; the rows it
    took."""
    for form in part.forms:
        grow = on.height_of(form) - on.height_of(part.chosen)
        if grow <= spare:
            part.take(form)
            return grow
    return 0
