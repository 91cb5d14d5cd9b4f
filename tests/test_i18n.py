"""Languages: the catalogues are complete both ways, every word the code looks up is in them, the
setting applies at once, and nothing the engines say (``tablemate replay``) depends on it."""

from __future__ import annotations

import ast
import gettext
import io
import string
from pathlib import Path

import pytest

from firmware_host.core import config as configuration
from firmware_host.core.i18n import LANGUAGES, _, catalogue, compile_mo, parse_po, set_language, tr, watch_misses
from games.core import T, join
from tests.devicekit import presses, run_device, screen

ROOT = Path(__file__).resolve().parents[1]
LOOKUPS = {"_", "t", "N_", "T"}
"""The names under which code looks a message up (or marks it for the catalogues)."""


def looked_up() -> dict[str, str]:
    """Every string literal handed to a lookup in the device's code → where it is."""
    found = {}
    for folder in ("firmware_host", "drivers", "games"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            if path == ROOT / "firmware_host/core/i18n.py":  # the lookup itself
                continue
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in LOOKUPS:
                    arg = node.args[0] if node.args else None
                    assert isinstance(arg, ast.Constant) and isinstance(arg.value, str), (
                        f"{path.relative_to(ROOT)}:{node.lineno}: look up a literal, not an expression"
                    )
                    found[arg.value] = f"{path.relative_to(ROOT)}:{node.lineno}"
    return found


def test_every_english_message_has_a_german_translation_and_back():
    en, de = catalogue("en"), catalogue("de")
    assert sorted(en) == sorted(de), f"only in en: {set(en) - set(de)}; only in de: {set(de) - set(en)}"
    assert not [m for m, s in en.items() if not s.strip()], "English entries without msgstr"
    assert not [m for m, s in de.items() if not s.strip()], "German entries without msgstr"


def test_every_message_the_code_looks_up_is_in_the_catalogues():
    used = looked_up()
    assert used, "the lookup scan found nothing: has _() been renamed?"
    for language in LANGUAGES:
        missing = {m: where for m, where in used.items() if m not in catalogue(language)}
        assert not missing, f"{language}.po lacks {missing}"


def fields(pattern: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(pattern) if name is not None}


def test_every_translation_fills_the_same_fields_as_its_english():
    for language in LANGUAGES:
        wrong = {m: s for m, s in catalogue(language).items() if fields(m) != fields(s)}
        assert not wrong, f"{language}: translations whose {{fields}} differ from the msgid: {wrong}"


def test_what_an_engine_says_is_translated_when_drawn_and_english_in_replay():
    said = T("{player} has no {jumper} left", player="Ann", jumper=T("rascal"))
    assert said == "Ann has no rascal left" and said.msgid == "{player} has no {jumper} left"
    unknown = T("{player} has no {thing} to spare", player="Ann", thing=T("Rules"))
    set_language("de")
    assert tr(said) == "Ann: kein Rabauke mehr"  # Arschbombe's words, the jumper kind translated inside
    assert tr(join(["Ann", T("Rules")])) == "Ann, Regeln"
    assert tr("Ann") == "Ann" and tr(T("Rules")) == "Regeln"
    with watch_misses() as missed:
        assert tr(unknown) == "Ann has no Regeln to spare"  # the English pattern shows, the miss is told
    assert missed == {"{player} has no {thing} to spare"}


def test_no_catalogue_entry_is_left_over():
    unused = set(catalogue("en")) - set(looked_up())
    assert not unused, f"entries no code looks up: {unused}"


def test_the_po_reader_and_mo_writer_agree_with_gettext():
    po = 'msgid ""\nmsgstr "Content-Type: text/plain; charset=UTF-8\\n"\n\n# c\nmsgid "Rules"\nmsgstr ""\n"Re" "geln"\n'
    po = po.replace('"Re" "geln"', '"Regeln"') + 'msgid "a \\"q\\""\nmsgstr "ä ß"\nmsgid "empty"\nmsgstr ""\n'
    entries = parse_po(po)
    assert entries["Rules"] == "Regeln" and entries['a "q"'] == "ä ß"
    served = gettext.GNUTranslations(io.BytesIO(compile_mo(entries)))
    assert served.gettext("Rules") == "Regeln" and served.gettext('a "q"') == "ä ß"
    assert served.gettext("empty") == "empty" and served.gettext("unknown") == "unknown"  # English shows


def test_a_broken_catalogue_line_is_named():
    with pytest.raises(ValueError, match="line 2"):
        parse_po('msgid "a"\nmsgid_plural "b"\n')


def test_lookups_follow_the_language_at_once():
    assert _("Rules") == "Rules"
    set_language("de")
    assert _("Rules") == "Regeln" and _("not in any catalogue") == "not in any catalogue"
    with pytest.raises(ValueError):
        set_language("fr")


def test_a_bad_language_in_the_config_names_the_key_and_the_file():
    with pytest.raises(configuration.ConfigError) as err:
        configuration.parse({"display": {"language": "fr"}}, "/etc/tablemate/config.toml")
    assert str(err.value) == ('/etc/tablemate/config.toml: [display] language: expected one of "en", "de", got \'fr\'')


def test_the_config_files_language_greets_the_table(tmp_path):
    config = configuration.parse({"display": {"language": "de"}}, "config.toml")

    async def body(dev):
        return await screen(dev)

    text = run_device(tmp_path, body, config)
    assert "Neues Spiel" in text and "Einstellungen" in text


def test_the_language_setting_applies_at_once_and_is_kept(tmp_path):
    async def body(dev):
        await presses(dev, "next", "next", "ok", "prev", "prev")  # Settings, Language (above Calibrate scale)
        before = await screen(dev)
        await presses(dev, "ok")
        after = await screen(dev)
        await presses(dev, "back")
        return before, after, await screen(dev), dev.store.read_doc("settings")

    before, after, menu, saved = run_device(tmp_path, body)
    assert "Language  English" in before
    assert "Sprache  Deutsch" in after  # the same screen, redrawn in German at once
    assert "Neues Spiel" in menu and saved["language"] == "de"

    async def again(dev):
        return await screen(dev)

    assert "Neues Spiel" in run_device(tmp_path, again)  # kept over a restart


@pytest.mark.parametrize("game", ["tonne", "bomb", "arschbombe", "antartik", "trottel"])
def test_replay_output_is_the_same_in_every_language(cli, write_script, game):
    actions = {
        "tonne": [{"type": "reveal", "cards": {"Ann": 3, "Ben": 5}}, {"type": "place", "count": 2}, {"type": "fall"}],
        "bomb": [{"type": "reveal", "cards": {"Ann": "1", "Ben": "5"}}, {"type": "roll", "player": "Ann"}],
        "arschbombe": [{"type": "jump", "jumper": "diver", "special": False, "result": "clean"}],
        "antartik": [{"type": "pass", "player": "Ben"}, {"type": "draw"}, {"type": "stop"}],
        "trottel": [{"type": "roll"}, {"type": "roll"}],
    }[game]
    path = write_script({"game": game, "players": ["Ann", "Ben"], "seed": 3, "actions": actions})
    outputs = []
    for language in LANGUAGES:
        set_language(language)
        result = cli("replay", path)
        outputs.append((result.status, result.out, result.err))
    assert outputs[0] == outputs[1]
    assert outputs[0][0] in (0, 3)


def test_a_saved_language_that_is_not_known_falls_back_to_the_files(tmp_path):
    from firmware_host.core.store import Store

    Store(tmp_path).write_doc("settings", {"language": "fr"})
    config = configuration.parse({"display": {"language": "de"}}, "config.toml")

    async def body(dev):
        named = await screen(dev)  # the unusable setting is named at boot
        await presses(dev, "ok")
        return dev.settings["language"], named, await screen(dev)

    language, named, text = run_device(tmp_path, body, config)
    assert "language" in named and "fr" in named
    assert language == "de" and "Neues Spiel" in text
