"""German on the panel: real umlauts and ß, drawn in the 7-pixel font, never spelled out."""

from __future__ import annotations

from firmware_host.ui.render import Frame, Row, char_width, text_width, to_text, watch
from firmware_host.ui.render import render as draw

WORDS = ("Ärger", "Öl", "Übel", "Straße", "Mütze", "Schüttelbude", "Rüpel", "Größe", "Bär", "spät")


def _columns(text: str) -> list[str]:
    """The lit pixels of ``text`` drawn alone on a row, as strings a column from the top."""
    picture = to_text(draw(Frame("", (Row.of(text),)))).splitlines()[8:15]  # the first row under the title
    columns = ["".join(line[x] for line in picture) for x in range(len(picture[0]))]
    while columns and set(columns[-1]) == {"."}:
        columns.pop()
    return columns[1:]  # the cell's 1-pixel inset


def test_german_words_with_every_umlaut_and_sharp_s_draw_without_an_overflow_report():
    with watch() as found:
        for word in WORDS:
            rows = tuple(Row.of(" ".join(WORDS[i : i + 2])) for i in range(0, len(WORDS), 2))
            draw(Frame(word, rows))
            draw(Frame(word.upper(), (Row.of(word.upper()), Row((word[:4], word[:4].upper())))))
    assert found == []


def test_umlauts_are_drawn_not_spelled_out():
    for letter, spelled in (("Ä", "Ae"), ("Ö", "Oe"), ("Ü", "Ue"), ("ß", "ss")):
        assert char_width(letter) == char_width(letter[0]) == 6, letter  # one letter wide, like A O U s
        assert _columns(f"x{letter}x") != _columns(f"x{spelled}x"), letter
    assert text_width("Straße") == text_width("Strase")


def test_capital_a_umlaut_is_the_a_one_pixel_shorter_with_its_dots_on_top():
    assert _columns("Ä") == [
        "#.#####",
        ".#..#..",
        ".#..#..",
        ".#..#..",
        "#.#####",
    ]  # each string one pixel column, top row first: a dot in each corner of the top row, a gap
    # under it, then the A from the second row (one pixel shorter than A)


def test_a_lowercase_umlaut_is_its_letter_with_two_dots_above():
    for plain, dotted in (("a", "ä"), ("o", "ö"), ("u", "ü")):
        plain_cols, dotted_cols = _columns(plain), _columns(dotted)
        assert [c[1:] for c in dotted_cols] == [c[1:] for c in plain_cols], dotted  # the letter unchanged
        assert "".join(c[0] for c in dotted_cols) == ".#.#.", dotted  # two dots, apart, on the top row
