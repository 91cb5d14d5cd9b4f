"""The pure validators of the page and the ``[web]`` config keys: tables of good and bad input."""

from __future__ import annotations

import pytest

from firmware_host.core import config as configuration
from firmware_host.core.validators import (
    ValidatorError,
    check_address,
    check_code,
    check_history_id,
    check_port,
    check_seat_names,
    check_token,
)


@pytest.mark.parametrize("value,expected", [(80, 80), (0, 0), (65535, 65535), (8080, 8080)])
def test_ports_accepted(value, expected):
    assert check_port(value) == expected


@pytest.mark.parametrize("value", [-1, 65536, True, "80", 80.0, None, 10**100])
def test_ports_refused(value):
    with pytest.raises(ValidatorError, match="port"):
        check_port(value)


@pytest.mark.parametrize(
    "value,expected",
    [("0.0.0.0", "0.0.0.0"), ("127.0.0.1", "127.0.0.1"), ("::", "::"), (" 10.0.0.5 ", "10.0.0.5"), ("::1", "::1")],
)
def test_addresses_accepted(value, expected):
    assert check_address(value) == expected


@pytest.mark.parametrize(
    "value", ["localhost", "tablemate.local", "256.1.1.1", "", 1, None, "x" * 10_000, "1.2.3.4/24"]
)
def test_addresses_refused(value):
    with pytest.raises(ValidatorError, match="address"):
        check_address(value)


@pytest.mark.parametrize(
    "value,expected",
    [("123456789012", "123456789012"), ("1234 5678 9012", "123456789012"), ("1234-5678-9012", "123456789012")],
)
def test_codes_accepted(value, expected):
    assert check_code(value) == expected


@pytest.mark.parametrize(
    "value", ["123456", "12345678901", "1234567890123", "12345678901a", "١٢٣٤٥٦٧٨٩٠١٢", 123456789012, None, "9" * 1000]
)
def test_codes_refused(value):
    with pytest.raises(ValidatorError, match="code"):
        check_code(value)


@pytest.mark.parametrize(
    "value,ok",
    [("ab" * 32, True), ("AB" * 32, False), ("ab" * 31, False), (None, False), ("zz" * 32, False), (5, False)],
)
def test_tokens(value, ok):
    assert (check_token(value) is not None) is ok


@pytest.mark.parametrize("value", ["20260101T200000-abc123", "n12", "a.b-c_d"])
def test_history_ids_accepted(value):
    assert check_history_id(value) == value


@pytest.mark.parametrize("value", ["", "../etc", "a/b", "a" * 65, "a..b", ".x", 5, "a b"])
def test_history_ids_refused(value):
    with pytest.raises(ValidatorError, match="id"):
        check_history_id(value)


CURRENT = {"p1": "P1", "p2": "P2", "p3": "P3"}


@pytest.mark.parametrize(
    "value,expected",
    [
        ({"p1": "Ann"}, {"p1": "Ann"}),
        ({"p1": " Ann ", "p2": "Ben"}, {"p1": "Ann", "p2": "Ben"}),
        ({"p6": "Zoë"}, {"p6": "Zoë"}),
        ({"p1": "P2", "p2": "P1"}, {"p1": "P2", "p2": "P1"}),
    ],
)
def test_seat_names_accepted(value, expected):
    assert check_seat_names(value, CURRENT) == expected


@pytest.mark.parametrize(
    "value",
    [
        {},
        [],
        "Ann",
        {"p7": "Ann"},
        {"p1": ""},
        {"p1": "   "},
        {"p1": "A" * 21},
        {"p1": 5},
        {"p1": "A\nB"},
        {"p1": "Ann", "p2": "ANN"},
        {"p1": "P2"},
        {"p1": "\u202eevil"},
        {f"x{i}": "a" for i in range(100)},
    ],
)
def test_seat_names_refused(value):
    with pytest.raises(ValidatorError, match="names"):
        check_seat_names(value, CURRENT)


@pytest.mark.parametrize(
    "text,message",
    [
        ("[web]\nport = 70000\n", "[web] port: expected an integer from 0 to 65535"),
        ('[web]\nbind = "pi.local"\n', "[web] bind: expected an IP address"),
        ('[web]\nenabled = "yes"\n', "[web] enabled: expected true or false"),
        ("[web]\nhost = 1\n", "[web] unknown key"),
    ],
)
def test_a_bad_web_key_names_the_key_and_the_file(tmp_path, text, message):
    path = tmp_path / "config.toml"
    path.write_text(text)
    with pytest.raises(configuration.ConfigError) as err:
        configuration.load(path)
    assert message in str(err.value) and str(path) in str(err.value)


def test_the_page_is_on_by_default_on_80_and_8080_in_the_simulator():
    config = configuration.defaults()
    assert config["web"]["enabled"] is True and config["web"]["port"] is None
    assert config.with_sim()["web"]["port"] == 8080
    assert configuration.parse({"web": {"port": 9000}}, "x.toml").with_sim()["web"]["port"] == 9000
