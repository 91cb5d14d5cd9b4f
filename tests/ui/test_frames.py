"""Whole games of all five games from their committed ``.sim`` scripts, judged frame by frame.

Each script in ``tests/data/`` plays a whole game from the buttons. At every ``snap`` the frame on
the panel is checked as a player would read it:

- no text is cut or drawn past its box, no glyph is missing, no row falls off the panel;
- the outcome of the last press (what the game said) is on screen, and stays there through a
  wait until the next press;
- no message is stale: a message on screen is one the last press brought;
- the game ends in the history, and its final frame shows the result.

The same scripts played with ``[display] language = "de"`` must be German throughout: every
word looked up is in the German catalogue, no English word of the catalogues is on the panel,
nothing is cut, and the game's record (the history) is the same as in English.
"""

from __future__ import annotations

import ast
import asyncio
import re
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from firmware_host.core import config as configuration
from firmware_host.core.i18n import catalogue, watch_misses
from firmware_host.core.store import Store
from firmware_host.runtime.device import Device
from firmware_host.runtime.vtime import run_virtual
from firmware_host.sim.script import ScriptRunner, load
from firmware_host.ui.render import Frame, drawn_lines, watch
from tests.monkey import scratch_dir
from tests.panel_rule import readable

DATA = Path(__file__).parents[1] / "data"
SCRIPTS = {  # script: the seed its header names
    "arschbombe_game.sim": None,
    "bomb_game.sim": 4,
    "tonne_game.sim": 5,
    "antartik_game.sim": 3,
    "trottel_game.sim": 3,
}
LINGER = 5.0
"""Seconds each snap waits before it looks: an outcome must outlast a pause at the table."""


@dataclass
class Snap:
    label: str
    frame: Frame
    message: str | None
    fresh: list[str]
    """What the game said since the last press."""


@dataclass
class Played:
    snaps: list[Snap] = field(default_factory=list)
    history: list[dict] = field(default_factory=list)
    overflows: list = field(default_factory=list)
    missed: set[str] = field(default_factory=set)


def play(script: str, seed: int | None, tmp_path: Path, language: str = "en") -> Played:
    commands = load(DATA / script)
    played = Played()
    store = Store(tmp_path / "state")
    config = configuration.defaults().with_sim()
    config.sections["display"]["language"] = language

    async def main() -> None:
        loop = asyncio.get_running_loop()
        device = Device(config, store, seed=seed, wall=lambda: 1e9 + loop.time())
        task = asyncio.create_task(device.run())
        await device.ready.wait()
        runner = ScriptRunner(device, None)
        said: list[str] = []
        hold, toast = runner.hold, device.message.toast

        async def pressed(button: str, seconds: float) -> None:
            said.clear()
            await hold(button, seconds)

        def told(text: str, *args, **kwargs) -> None:
            said.append(text)
            toast(text, *args, **kwargs)

        async def snap(label: str) -> None:
            await asyncio.sleep(LINGER)
            await device.flush()
            fresh = [text for text in said if text in device.events[-len(said) :]]
            played.snaps.append(Snap(label, device.frame(), device.toast_text(), fresh))

        runner.hold = pressed  # type: ignore[method-assign]
        device.message.toast = told  # type: ignore[method-assign]
        runner.handlers["hold"] = pressed
        runner.handlers["snap"] = snap
        try:
            await runner.run(commands)
        finally:
            device.stop()
            await task

    with watch() as found, watch_misses() as missed:
        run_virtual(main)
    played.overflows = found
    played.missed = missed
    played.history = store.history()
    return played


def shown(frame: Frame) -> list[str]:
    return [" ".join(row.cells).strip() for row in frame.rows]


@pytest.mark.parametrize("script", sorted(SCRIPTS))
def test_a_whole_game_reads_right_in_every_frame(script):
    with scratch_dir() as tmp:
        played = play(script, SCRIPTS[script], Path(tmp))
    assert played.overflows == []
    assert len(played.history) == 1 and played.history[0]["reason"] == "over"
    assert len(played.snaps) >= 8
    for snap in played.snaps:
        rows = shown(snap.frame)
        if snap.message:  # no stale message: each part of it came with the last press
            parts = snap.message.split(" · ")
            assert all(part in snap.fresh for part in parts), (snap.label, snap.message, snap.fresh)
            # on screen in full, wrapped over rows or not, its names shortened or not (the panel rule)
            lines = drawn_lines(snap.frame)
            assert readable(snap.message, lines, played.history[0]["players"]), (snap.label, lines)
        if snap.fresh and snap.frame.title_right == "over":  # on the result's rows, not over them
            text = " ".join(rows)
            assert all(str(p) in text or str(p).endswith("wins!") for p in snap.fresh), (snap.label, rows)
        elif snap.fresh:  # every outcome of the last press is still there after a pause
            assert snap.message is not None, (snap.label, snap.fresh)
    over = played.snaps[-1]
    assert over.frame.title_right == "over" and "back undo" in shown(over.frame)[-1]  # the last move can go back


def words(text: str) -> set[str]:
    return {w.lower() for w in re.findall(r"[^\W\d_]{4,}", re.sub(r"\{[^}]*\}", " ", text))}


def literals() -> set[str]:
    """Every string constant of the code that draws or says things (docstrings left out)."""
    found: set[str] = set()
    root = Path(__file__).resolve().parents[2]
    for folder in ("firmware_host/ui", "firmware_host/runtime", "firmware_host/sim", "games"):
        for path in (root / folder).rglob("*.py"):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            docs = {
                id(node.body[0].value)
                for node in ast.walk(tree)
                if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
                and node.body
                and isinstance(node.body[0], ast.Expr)
            }
            found |= {
                n.value
                for n in ast.walk(tree)
                if isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in docs
            }
    return found


ENGLISH_ONLY = set().union(*map(words, literals() | set(catalogue("en")))) - set().union(
    *map(words, catalogue("de").values())
)
"""Words the code or the English catalogue may show that no German entry uses: none of them may
show in German."""
KEPT = {"prev", "next", "back", "hold"}
"""Button names, printed on the buttons, stay as they are."""


@pytest.mark.parametrize("script", sorted(SCRIPTS))
def test_a_whole_game_in_german_is_german_throughout_and_plays_the_same(script):
    with scratch_dir() as tmp:
        english = play(script, SCRIPTS[script], Path(tmp) / "en")
        german = play(script, SCRIPTS[script], Path(tmp) / "de", language="de")
    assert german.missed == set(), f"not in the German catalogue: {sorted(german.missed)}"
    assert german.overflows == []
    for snap in german.snaps:
        english_words = set().union(*map(words, [*shown(snap.frame), snap.frame.title])) & ENGLISH_ONLY - KEPT
        assert not english_words, (snap.label, english_words, shown(snap.frame))
    same = ("game", "players", "scores", "winners", "reason", "actions")
    assert [{k: g.get(k) for k in same} for g in german.history] == [
        {k: g.get(k) for k in same} for g in english.history
    ]
