"""Hostile input, fuzzed: replay SCRIPTs, config files and sim scripts never reach a traceback.

Each case runs the real command in this process (``main`` with stdout and stderr captured) and
checks what the contract promises: only its exit statuses, every error one line, no traceback,
and no input taking more than a second per action. Hypothesis draws the cases from a fixed
seed (``derandomize``), so the suite is deterministic; ``TABLEMATE_FUZZ=20`` multiplies every
count by twenty for a longer campaign (``TABLEMATE_FUZZ=20 .venv/bin/python -m pytest tests/cli/test_fuzz.py``).
"""

from __future__ import annotations

import contextlib
import gc
import io
import json
import math
import os
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from firmware_host.cli.main import main
from games import get_engine
from games.core import Collect, Menu, Order, Refused, Task

SCALE = max(1, int(os.environ.get("TABLEMATE_FUZZ", "1")))
REPLAY_CASES, CONFIG_CASES, SIM_CASES = 1000 * SCALE, 250 * SCALE, 150 * SCALE
SECONDS_PER_ACTION = 1.0


def fuzz(examples: int) -> Any:
    return settings(
        max_examples=examples,
        derandomize=True,
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
    )


SLOWEST: dict[str, float] = {}
"""Per command, the most seconds one action (or line) took: printed with ``pytest -s``."""


def slowest(command: str, seconds: float, actions: int) -> None:
    per_action = seconds / max(1, actions)
    SLOWEST[command] = max(SLOWEST.get(command, 0.0), per_action)
    assert per_action < SECONDS_PER_ACTION


@pytest.fixture(scope="module", autouse=True)
def report_slowest() -> Any:
    yield
    for command, seconds in SLOWEST.items():
        print(f"\nfuzz {command}: slowest {seconds * 1000:.1f} ms of CPU per action")


def run(*argv: str) -> tuple[int, str, str, float]:
    """``tablemate ARGV`` in this process: status, stdout, stderr, CPU seconds (the process's, so
    a machine busy with other work does not make a case look slow)."""
    # strict UTF-8 like a terminal or a pipe: text that cannot be written raises, as it would there
    out, err = (io.TextIOWrapper(io.BytesIO(), encoding="utf-8", write_through=True) for _ in range(2))
    gc.disable()  # a collection of hypothesis's own heap is not the input's cost (once 1.07 s)
    start = time.process_time()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            status = main(list(argv))
    finally:
        gc.enable()
    return status, out.buffer.getvalue().decode(), err.buffer.getvalue().decode(), time.process_time() - start


def one_line(text: str) -> bool:
    return text.endswith("\n") and text.count("\n") == 1 and "Traceback" not in text


# -- what hostile input is made of ------------------------------------------------------------------
GAMES = ["tonne", "bomb", "arschbombe", "antartik", "trottel"]
NAMES = ["Ann", "Ben", "Cy", "Dee", "Ed", "Jürgen"]
HOSTILE_TEXT = [
    "",
    " ",
    "\ud800",
    "A\nB",
    "x" * 5000,
    "Ann\u0000",
    "SAFE",
    "\u202eevil",
    "🙂",
]
ACTION_TYPES = [
    "reveal", "place", "fall", "order", "safe", "roll", "claim", "jump", "pass", "bet", "draw", "stop",
    "new_dive", "referee", "parachute", "exchange", "cap_roll", "taxi", "invite", "casino", "leave",
    "return", "penalty", "effect", "end", "timeout", "undo", "",
]  # fmt: skip
CHOICES = [
    "rascal", "diver", "A", "B", "C", "D", "clean", "touch", "out", "under", "under_edge", "life",
    "cards", "beer", "shot", "water", "drink", "cap", "move", "pee_pass", "field_drink",
    "0", "3", "5", "7", "9", "10R", "9P", "5S", "SAFE",
]  # fmt: skip

names = st.sampled_from(NAMES)
text = st.one_of(names, st.sampled_from(HOSTILE_TEXT + CHOICES), st.text(max_size=12))
small_int = st.integers(-3, 60)
number = st.one_of(
    small_int,
    st.integers(-(10**20), 10**20),
    st.sampled_from([2**63, -(2**63), 10**29]),
    st.floats(allow_nan=True, allow_infinity=True),
)
scalar = st.one_of(st.none(), st.booleans(), number, text)
json_value = st.recursive(
    scalar,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(text, inner, max_size=4),
    max_leaves=10,
)
face = st.dictionaries(st.sampled_from(["bomb", "fuse", "card", "x"]), st.integers(-1, 3), max_size=3)
dice = st.one_of(st.lists(st.integers(0, 7), min_size=0, max_size=3), json_value)
field_value = {
    "player": st.one_of(names, text),
    "cards": st.one_of(st.dictionaries(names, st.one_of(st.sampled_from(CHOICES), small_int)), json_value),
    "order": st.one_of(st.lists(names, max_size=5), st.lists(st.sampled_from(CHOICES), max_size=4), json_value),
    "players": st.one_of(st.lists(names, max_size=5), json_value),
    "count": st.one_of(small_int, number, text),
    "faces": st.one_of(st.lists(face, max_size=6), json_value),
    "take": st.sampled_from(["life", "cards", "x"]),
    "jumper": st.sampled_from(["rascal", "diver", "x"]),
    "special": st.one_of(st.booleans(), scalar),
    "result": st.sampled_from(CHOICES),
    "card": st.one_of(st.sampled_from(CHOICES), scalar),
    "drawn": st.one_of(st.sampled_from(CHOICES), scalar),
    "bottom": st.booleans(),
    "rolls": st.one_of(st.dictionaries(names, dice), json_value),
    "dice": dice,
    "to": st.one_of(small_int, number),
    "drink": st.sampled_from(["beer", "shot", "water", "x"]),
    "kind": st.sampled_from(["drink", "cap", "move", "pee_pass", "field_drink", "x"]),
    "field": st.one_of(small_int, number),
}
action = st.one_of(
    st.fixed_dictionaries({"type": st.sampled_from(ACTION_TYPES)}, optional={k: v for k, v in field_value.items()}),
    json_value,
)
options = st.one_of(
    st.just({}),
    st.dictionaries(st.sampled_from(["mice", "white", "red", "juniors", "deck", "board", "casino", "alcohol_free"]),
                    json_value, max_size=2),
    json_value,
)  # fmt: skip


def prompt_action(draw: Any, prompt: Any, depth: int = 0) -> Any:
    """An action a player could enter at ``prompt`` on the buttons (``None``: none offered)."""
    if depth > 12 or prompt is None:
        return None
    if isinstance(prompt, Task):
        return prompt_action(draw, prompt.then, depth + 1)
    if isinstance(prompt, Menu):
        if not prompt.options:
            return None
        option = draw(st.sampled_from(prompt.options))
        return option.action if option.action is not None else prompt_action(draw, option.submenu(), depth + 1)
    if isinstance(prompt, Order):
        return prompt.build(list(draw(st.permutations(prompt.players))))
    if isinstance(prompt, Collect):
        answers = {p: draw(st.sampled_from(prompt.values[p])) for p in prompt.players if prompt.values.get(p)}
        if prompt.each is not None and answers:
            player = draw(st.sampled_from(sorted(answers)))
            return prompt.each(player, answers[player])
        if prompt.build is None:
            return None
        built = prompt.build(answers)
        return built if isinstance(built, dict) else prompt_action(draw, built, depth + 1)
    return None


@st.composite
def played_script(draw: Any) -> dict[str, Any]:
    """A game played from the engine's own prompts, some actions swapped for hostile ones."""
    game = draw(st.sampled_from(GAMES))
    engine = get_engine(game)
    count = draw(st.integers(engine.min_players, min(5, engine.max_players or 5)))
    players = NAMES[:count]
    seed = draw(st.integers(0, 2**31))
    state = engine.new(players, seed, {})
    actions = []
    for _ in range(draw(st.integers(0, 60))):
        if draw(st.integers(0, 9)) == 0:
            chosen = draw(action)
        else:
            chosen = prompt_action(draw, engine.prompt(state))
            if chosen is None:
                break
        actions.append(chosen)
        try:
            state, _ = engine.apply(state, chosen)
        except Refused:
            break
        if state.over:
            break
    return {"game": game, "players": players, "seed": seed, "actions": actions}


hostile_script = st.fixed_dictionaries(
    {
        "game": st.one_of(st.sampled_from(GAMES), st.sampled_from(GAMES), scalar),
        "players": st.one_of(st.lists(names, min_size=1, max_size=6, unique=True), st.lists(text, max_size=7), scalar),
        "actions": st.one_of(st.lists(action, max_size=30), scalar),
    },
    optional={"seed": st.one_of(small_int, number, text), "options": options},
)
script = st.one_of(played_script(), played_script(), hostile_script)


def damage(text: str, how: int, at: int) -> str:
    """One of the ways a SCRIPT file is broken on purpose."""
    if how == 1:  # cut anywhere
        return text[: at % (len(text) + 1)]
    if how == 2:  # deeply nested
        depth = (40, 2000, 200_000)[at % 3]
        return text[:-1] + ', "deep": ' + "[" * depth + "]" * depth + "}"
    if how == 3:  # an integer past Python's int/str conversion limit
        return text[:-1] + ', "seed": ' + "9" * (4301 + at % 3000) + "}"
    if how == 4:  # a lone surrogate as a JSON escape
        return text.replace('"Ann"', '"\\ud800nn"').replace('"actions"', '"\\udfffactions"', at % 2)
    if how == 5:  # not UTF-8 at all, or not an object
        return ("\udcff" if at % 2 else "[1, 2") + text[:3]
    return text


# -- replay ------------------------------------------------------------------------------------------
@fuzz(REPLAY_CASES)
@given(script, st.integers(0, 12), st.integers(0, 10**6))
def test_fuzzed_replay_scripts_exit_by_the_contract_with_one_line(data, how, at):
    folder = Path(tempfile.mkdtemp(prefix="tablemate-fuzz-"))
    try:
        path = folder / "script.json"
        text = damage(json.dumps(data), how if how <= 5 else 0, at)
        path.write_bytes(text.encode("utf-8", "surrogateescape"))
        status, out, err, seconds = run("replay", str(path))
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    assert status in (0, 2, 3), (status, err)
    if status == 0:
        assert err == "" and json.loads(out)["game"] in GAMES
    elif status == 2:
        assert out == "" and one_line(err) and str(path) in err, err
    else:
        summary = json.loads(out)  # the state before the refused action
        assert isinstance(summary, dict) and one_line(err) and err.startswith("action "), err
    actions = data.get("actions") if isinstance(data, dict) else None
    slowest("replay", seconds, len(actions) if isinstance(actions, list) else 1)


# -- config ------------------------------------------------------------------------------------------
def toml_key(key: str) -> str:
    return json.dumps(key)


def toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf") if math.isinf(value) else repr(value)
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{toml_key(k)} = {toml_value(v)}" for k, v in value.items()) + " }"
    return '""'  # None: TOML has no null


SECTION_KEYS = {
    "buttons": ["backend", "p1", "ok", "long_press", "debounce"],
    "display": ["kind", "i2c_port", "address", "rotation", "brightness", "dim_after"],
    "tower": ["backend", "port", "red", "bar", "sound"],
    "scale": ["backend", "data", "clock", "sps", "gain"],
    "table": ["seats", "names"],
    "timers": ["sound", "save_every", "bomb", "arschbombe", "chess"],
    "games": ["bomb", "tonne", "trottel", "chess"],
}
config_scalar = st.one_of(
    st.sampled_from(["gpio", "sim", "none", "serial", "ssd1306", "hx711", "all", "soft", "hard", "bank",
                     "hourglass", "turn", "countup", "off", "20%", "p1", "p2", "Ann"]),
    st.integers(-2, 300), st.floats(allow_nan=True), st.booleans(), text,
)  # fmt: skip
config_value = st.recursive(
    config_scalar,
    lambda inner: st.lists(inner, max_size=4)
    | st.dictionaries(st.one_of(st.sampled_from(["p1", "p2", "p7", "mode", "seconds", "increment", "delay",
                                                  "timeout", "warn", "phase", "white", "mice"]), text),
                      inner, max_size=4),
    max_leaves=10,
)  # fmt: skip


@st.composite
def config_doc(draw: Any) -> dict[str, dict[str, Any]]:
    doc: dict[str, dict[str, Any]] = {}
    for section in draw(st.lists(st.sampled_from([*SECTION_KEYS, "nope", "a\nb"]), max_size=4, unique=True)):
        keys = [*SECTION_KEYS.get(section, ["x"]), "unknown", "new\nline", "x" * 300]
        doc[section] = draw(st.dictionaries(st.sampled_from(keys), config_value, max_size=4))
    return doc


def damage_toml(text: str, how: int, at: int) -> bytes:
    if how == 1:
        return text[: at % (len(text) + 1)].encode()
    if how == 2:
        depth = (40, 2000, 200_000)[at % 3]
        return (text + "\n[games.bomb]\nwhite = " + "[" * depth + "]" * depth + "\n").encode()
    if how == 3:
        return (text + "\n[display]\nbrightness = " + "9" * (4301 + at % 100) + "\n").encode()
    if how == 4:
        return ('[table]\n"na\nmes" = 1\n' if at % 2 else '[table]\n"\\u00e4\\n\\r" = 1\n').encode() + text.encode()
    if how == 5:
        return b"\xff\xfe" + text.encode()
    return text.encode()


@fuzz(CONFIG_CASES)
@given(config_doc(), st.integers(0, 10), st.integers(0, 10**6))
def test_fuzzed_configs_give_exit_2_and_one_line_naming_the_file(doc, how, at):
    folder = Path(tempfile.mkdtemp(prefix="tablemate-fuzz-"))
    try:
        path = folder / "config.toml"
        text = "\n".join(f"[{toml_key(s)}]\n" + "".join(f"{toml_key(k)} = {toml_value(v)}\n" for k, v in t.items())
                         for s, t in doc.items())  # fmt: skip
        path.write_bytes(damage_toml(text, how if how <= 5 else 0, at))
        # a script that is not there: a good config gets as far as reading it, a bad one stops first
        status, out, err, seconds = run("sim", "--script", str(folder / "none.txt"), "--config", str(path))
        slowest("config", seconds, 1)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    assert status == 2 and out == "" and one_line(err), err
    if "config error" in err:
        assert str(path) in err
    else:
        assert "none.txt" in err


# -- sim --script ------------------------------------------------------------------------------------
BUTTONS = ["p1", "p2", "p3", "ok", "back", "next", "prev"]
seconds = st.one_of(
    st.sampled_from(["0", "0.1", "1", "2.5", "30"]), st.sampled_from(["-1", "nan", "inf", "1e300", "x", "86401"])
)
hostile_line = st.one_of(
    st.builds(lambda g, ns: f"start {g} {' '.join(ns)}", st.sampled_from([*GAMES, "chess"]),
              st.lists(st.one_of(names, st.sampled_from(["x" * 21, "y" * 4000, "Ann\u200b"])), max_size=7)),
    st.builds(lambda b: f"press {b}", st.sampled_from(["p9", ""])),
    st.builds(lambda b, s: f"hold {b} {s}", st.sampled_from(BUTTONS), seconds),
    st.builds(lambda s: f"wait {s}", seconds),
    st.builds(lambda g: f"grams {g}", st.sampled_from(["5", "-12.5", "1e9", "nan", "inf", "x"])),
    st.builds(lambda a: "action " + json.dumps(a), action),
    st.sampled_from(["action " + "[" * 2000 + "]" * 2000, "action {\"type\": \"jump\", \"seed\": " + "9" * 4000 + "}",
                     'action {"type": "\\ud800"}', "action " + json.dumps({"type": "reveal", "player": "z" * 4000}),
                     "action " + json.dumps({"type": "bet", "player": "Ann", "card": "q" * 4000})]),
    st.builds(lambda s: f"snap {s}", st.sampled_from(["a", "../x", ""])),
    st.sampled_from(["", "# note", "fly away", "x" * 5000, "start", "press"]),
)  # fmt: skip


@st.composite
def sim_script(draw: Any) -> list[str]:
    """A game started and played on the buttons and from its prompts, with hostile lines among them."""
    game = draw(st.sampled_from(GAMES))
    engine = get_engine(game)
    players = NAMES[: draw(st.integers(engine.min_players, min(5, engine.max_players or 5)))]
    lines = [f"start {game} {' '.join(players)}"] if draw(st.integers(0, 5)) else []
    state = engine.new(players, 0, {})
    for _ in range(draw(st.integers(0, 7))):
        kind = draw(st.integers(0, 9))
        if kind < 4:
            chosen = prompt_action(draw, engine.prompt(state))
            if chosen is None:
                continue
            lines.append("action " + json.dumps(chosen))
            with contextlib.suppress(Refused):  # the device's seed differs: a refusal is fine too
                state, _ = engine.apply(state, chosen)
        elif kind < 7:
            lines.append(f"press {draw(st.sampled_from(BUTTONS))}")
        elif kind == 7:
            lines.append(f"{draw(st.sampled_from(['wait', 'hold ok', 'hold back']))} {draw(seconds)}")
        else:
            lines.append(draw(hostile_line))
    return lines


@fuzz(SIM_CASES)
@given(sim_script())
def test_fuzzed_sim_scripts_exit_0_or_2_naming_the_line(lines):
    folder = Path(tempfile.mkdtemp(prefix="tablemate-fuzz-"))
    try:
        path = folder / "s.txt"
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        status, _, err, seconds = run("sim", "--script", str(path), "--state-dir", str(folder / "state"))
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    assert "Traceback" not in err, err
    assert status in (0, 2), err
    if status == 2:
        assert one_line(err) and "line " in err, err
    slowest("sim", seconds, len(lines))
