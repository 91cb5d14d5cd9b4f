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
from firmware_host.core.i18n import (
    LANGUAGES,
    _,
    catalogue,
    compile_mo,
    parse_po,
    po_files,
    set_language,
    tr,
    watch_misses,
)
from firmware_host.core.replay import Script, ScriptError
from games.core import T, Text, join
from tests.devicekit import presses, run_device, screen

ROOT = Path(__file__).resolve().parents[2]
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
        known = catalogue(language)  # read once, not once a message
        missing = {m: where for m, where in used.items() if m not in known}
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


def test_history_self_test_and_calibration_speak_german(tmp_path):
    config = configuration.parse({"display": {"language": "de"}}, "config.toml")

    async def body(dev):
        dev.start_named("bomb", ["Ann", "Ben"])  # (a short name: the day, the name and "abgebr." fit one line)
        dev.end_early()
        seen = {"over": await screen(dev)}
        await presses(dev, "ok!", "next", "ok")  # the game-over screen, then History
        seen["history"] = await screen(dev)
        await presses(dev, "ok")
        seen["entry"] = await screen(dev)
        await presses(dev, "back", "back", "next", "next", "ok")  # Self-test
        seen["self-test"] = await screen(dev)
        await presses(dev, "back!", "prev", "ok", "prev", "ok")  # Settings, Calibrate scale (the last line)
        seen["calibrate"] = await screen(dev)
        await presses(dev, "ok")  # the known weight: start
        seen["step"] = await screen(dev)
        await presses(dev, "back")
        seen["left"] = await screen(dev)
        return seen

    with watch_misses() as missed:
        seen = run_device(tmp_path, body, config)
    assert missed == set()
    assert "Abgebrochen" in seen["over"] and "ok lang: Menü" in seen["over"]
    assert seen["history"].startswith("Verlauf") and "abgebr." in seen["history"]
    assert "Abgebrochen" in seen["entry"]
    assert seen["self-test"].startswith("Selbsttest 1/2") and "Turm" in seen["self-test"]
    assert "Anzeige ok" in seen["self-test"] and "Waage:" in seen["self-test"]
    assert seen["calibrate"].startswith("Waage kalibrieren") and "Bekanntes Gewicht:" in seen["calibrate"]
    assert seen["step"].startswith("Kalibrieren 1/") and "Tonne leeren." in seen["step"]
    assert "Nichts gespeichert" in seen["left"]
    english = {"History", "Self-test", "Calibrate", "Tower", "Display", "Scale", "Ended", "early", "Empty", "Nothing"}
    for name, text in seen.items():
        assert not {w for w in english if w in text}, (name, text)


def test_switching_the_language_in_a_game_redraws_the_screens_beneath_at_once(tmp_path):
    async def body(dev):
        dev.start_named("bomb", ["Ann", "Ben"])
        await presses(dev, "back", "prev", "prev", "prev", "prev", "prev", "ok")  # game menu, Settings (from the end)
        await presses(dev, "prev", "prev", "ok")  # Language (above Calibrate scale): Deutsch
        settings = await screen(dev)
        await presses(dev, "back")
        menu = await screen(dev)
        await presses(dev, "back")
        return settings, menu, await screen(dev)

    settings, menu, game = run_device(tmp_path, body)
    assert settings.startswith("Einstellungen") and "Sprache  Deutsch" in settings
    assert menu.startswith("Spielmenü") and "Hauptmenü" in menu  # kept from before the switch, drawn in German
    assert game.splitlines()[-1] == "halten bis zum Wert"  # the game's hint (Bomb counts its cards)


def test_a_refusal_an_engine_raises_shows_in_the_players_language(tmp_path):
    config = configuration.parse({"display": {"language": "de"}}, "config.toml")

    async def body(dev):
        dev.start_named("bomb", ["Ann", "Ben"])
        refused = dev.apply({"type": "fly"})
        return refused, dev.toast_text(), await screen(dev)

    refused, said, text = run_device(tmp_path, body, config)
    assert refused is False and said == "Bomb has no action 'fly'"  # the record of it stays English
    set_language("de")
    assert tr(said) in text.replace("\n", " ") and tr(said) != said  # the panel shows it in German


def test_messages_of_one_moment_show_together_each_in_the_players_language(tmp_path):
    config = configuration.parse({"display": {"language": "de"}}, "config.toml")

    async def body(dev):
        dev.toast(T("Undone"))
        dev.toast(T("Saving again"))  # the same moment: shown together
        return dev.toast_text(), await screen(dev)

    said, text = run_device(tmp_path, body, config)
    assert said == "Undone · Saving again"
    shown = " ".join(text.split())  # the message wrapped over its rows, read whole
    assert "Zurückgenommen · Speichern geht wieder" in shown and "Undone" not in text  # each part translated


def test_a_message_in_two_catalogue_files_reads_the_same_in_both():
    for language in LANGUAGES:
        seen: dict[str, tuple[str, str]] = {}
        for path in po_files(language):
            for msgid, msgstr in parse_po(path.read_text(encoding="utf-8")).items():
                where = "/".join(path.parts[-4:])  # games/core/... and firmware_host/core/... apart
                if msgid and msgid in seen:
                    assert seen[msgid][0] == msgstr, f"{msgid!r}: {seen[msgid]} vs {(msgstr, where)}"
                seen.setdefault(msgid, (msgstr, where))


def test_a_game_that_cannot_start_says_why_in_the_players_language():
    with pytest.raises(ScriptError) as caught:
        Script("arschbombe", ["Ann"], 0, {}).start()  # too few players
    reason = str(caught.value)
    set_language("de")
    assert isinstance(reason, Text) and tr(reason) != reason  # still a message id, read in German


def test_a_journal_that_cannot_be_resumed_is_explained_in_german(tmp_path):
    # bug: the store's errors lost their message id on the way to the "Cannot resume" screen,
    # which then said "kept as ..." on a German table
    from firmware_host.core.session import Session
    from firmware_host.core.store import Store

    store = Store(tmp_path)
    session = Session.start(store, "arschbombe", ["Ann", "Ben"], seed=1)
    session.apply({"type": "jump", "jumper": "rascal", "special": False, "result": "A"})
    session.apply({"type": "jump", "jumper": "rascal", "special": False, "result": "A"})
    lines = store.game_path.read_bytes().split(b"\n")
    lines[1] = lines[1].replace(b"rascal", b"rasca1")
    store.game_path.write_bytes(b"\n".join(lines))
    config = configuration.parse({"display": {"language": "de"}}, "config.toml")

    async def body(dev):
        return await screen(dev)

    text = run_device(tmp_path, body, config)
    assert "aufbewahrt" in text and "kept as" not in text


SPELLED_UMLAUT = r"\b\w*(?:ae|oe|ue|Ae|Oe|Ue)\w*\b"
ENGLISH_WORDS = {"value", "values", "continue", "Continue", "goes", "guest", "guests", "true", "due", "queue"}
"""English words with "ae", "oe" or "ue" in them: not a German word with its umlaut spelled out."""


def test_english_panels_write_german_words_with_their_umlauts():
    # bug: the English panel mixed "Schuettelbude" and "Frueh" with "Mütze" (the font draws umlauts)
    import re

    from games.trottel.board import KINDS

    spelled = {
        word
        for msgstr in catalogue("en").values()
        for word in re.findall(SPELLED_UMLAUT, msgstr.replace("{", " ").replace("}", " "))
        if word not in ENGLISH_WORDS and word not in KINDS  # a board kind is a config value, as typed
    }
    assert spelled == set()
    set_language("en")
    try:
        assert tr(T("Schuettelbude")) == "Schüttelbude" and tr(T("Frueh")) == "Früh" and tr(T("Muetze")) == "Mütze"
    finally:
        set_language("en")
