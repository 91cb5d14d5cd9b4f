"""Names said as names: the spoken form of a name and the say-as spellings' data model."""

from __future__ import annotations

import pytest

from drivers.voice.names import MAX_SAY_AS, Pronunciations, as_name, check_say_as


@pytest.mark.parametrize(
    ("name", "said"),
    [
        ("Anna", "Anna"),
        ("MAX", "Max"),
        ("ANN-KATHRIN", "Ann-Kathrin"),
        ("JC", "JC"),  # two capitals stay initials
        ("Dr. Who", "Dr Who"),
        ("Bob 🍺", "Bob"),
        ("👩‍👩‍👧", "👩‍👩‍👧"),  # nothing else to say: as written
        ("  Zoë   Søren ", "Zoë Søren"),
        ("P1", "P1"),
        ("O'Neil", "O'Neil"),
    ],
)
def test_names_are_made_fit_to_be_said_as_names(name, said):
    assert as_name(name) == said


@pytest.mark.parametrize(
    ("value", "error"),
    [
        (None, "a spelling as text"),
        ("", "1 to 60 printable"),
        ("   ", "1 to 60 printable"),
        ("x" * (MAX_SAY_AS + 1), "1 to 60 printable"),
        ("Sh\x00on", "1 to 60 printable"),
        ("123", "with letters"),
    ],
)
def test_a_say_as_spelling_is_checked(value, error):
    with pytest.raises(ValueError, match=error):
        check_say_as(value)


def test_a_name_is_said_as_its_spelling_whatever_its_case_and_seat():
    names = Pronunciations({"Siobhan": "Shivawn", "JÖRG": "Yurg"})
    assert names.spoken("siobhan") == "Shivawn" and names.spoken("Jörg") == "Yurg"
    assert names.spoken("ANNA") == "Anna" and names.spelling("Anna") is None
    changed = names.with_spelling("SIOBHAN", "Shi-vawn").with_spelling("Jörg", None)
    assert changed.say_as == {"SIOBHAN": "Shi-vawn"} and names.spoken("Siobhan") == "Shivawn"
    with pytest.raises(ValueError, match="two say-as spellings"):
        Pronunciations({"Ann": "An", "ANN": "Ahn"})
    with pytest.raises(ValueError, match="printable"):
        Pronunciations({"Ann": ""})
