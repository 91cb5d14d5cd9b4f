"""Replay SCRIPTs (``docs/commands.md``): a game's players, seed, options and actions.

A SCRIPT is how a game travels: ``tablemate replay`` runs one, ``tablemate state`` prints the one
that rebuilds the game on the device, and the journal is a SCRIPT written one action at a time.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from firmware_host.core.limits import (
    MAX_SCRIPT_BYTES,
    InputError,
    check_name,
    check_tree,
    check_values,
    parse_json,
    read_text,
)
from games import UnknownGame, get_engine
from games.core import Action, Engine, Refused, SetupError
from games.core.text import Told


class ScriptError(Told, ValueError):
    """A SCRIPT that cannot start: unreadable, not JSON, unknown game, bad players or options."""


@dataclass
class Script:
    """A game to replay: who plays what, with which seed and options, and the actions so far."""

    game: str
    players: list[str]
    seed: int = 0
    options: dict[str, Any] = field(default_factory=dict)
    actions: list[Action] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        """The SCRIPT object of the contract."""
        return {
            "game": self.game,
            "players": list(self.players),
            "seed": self.seed,
            "options": dict(self.options),
            "actions": list(self.actions),
        }

    @classmethod
    def from_json(cls, data: Any, where: str = "script") -> Script:
        """Check the SCRIPT object's shape; :class:`ScriptError` names what is wrong."""
        if not isinstance(data, dict):
            raise ScriptError(f"{where}: a SCRIPT is one JSON object")
        game = data.get("game")
        if not isinstance(game, str):
            raise ScriptError(f"{where}: 'game' must be a string")
        try:
            check_tree(data)
        except InputError as exc:
            raise ScriptError(f"{where}: {exc}") from None
        players = data.get("players")
        if not isinstance(players, list) or not all(isinstance(p, str) for p in players):
            raise ScriptError(f"{where}: 'players' must be a list of names")
        for i, name in enumerate(players):
            try:
                check_name(name)
            except InputError as exc:
                raise ScriptError(f"{where}: players[{i}]: {exc}") from None
        seed = data.get("seed", 0)
        if not isinstance(seed, int) or isinstance(seed, bool):
            raise ScriptError(f"{where}: 'seed' must be an integer")
        options = data.get("options", {})
        if options is None:
            options = {}
        if not isinstance(options, dict):
            raise ScriptError(f"{where}: 'options' must be an object")
        actions = data.get("actions", [])
        if not isinstance(actions, list):
            raise ScriptError(f"{where}: 'actions' must be a list")
        return cls(game, list(players), seed, dict(options), list(actions))

    @classmethod
    def load(cls, path: str | Path) -> Script:
        """Read a SCRIPT file."""
        try:
            text = read_text(Path(path), "the script", MAX_SCRIPT_BYTES)
        except (OSError, UnicodeDecodeError, InputError) as exc:
            raise ScriptError(f"{path}: cannot read: {getattr(exc, 'strerror', None) or exc}") from None
        try:
            check_values(text)
            data = parse_json(text)
        except json.JSONDecodeError as exc:
            raise ScriptError(f"{path}: not JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") from None
        except InputError as exc:
            raise ScriptError(f"{path}: {exc}") from None
        return cls.from_json(data, str(path))

    def engine(self) -> Engine:
        """The engine of this SCRIPT's game; :class:`ScriptError` for an unknown game."""
        try:
            return get_engine(self.game)
        except UnknownGame as exc:
            raise ScriptError(str(exc)) from None

    def start(self) -> tuple[Engine, Any]:
        """The engine and first state; :class:`ScriptError` for bad players or options."""
        engine = self.engine()
        try:
            return engine, engine.new(self.players, self.seed, self.options)
        except SetupError as exc:
            raise ScriptError(str(exc)) from None


@dataclass
class ReplayResult:
    """Where a replay ended: the summary, and the refused action if one stopped it."""

    summary: dict[str, Any]
    failed_index: int | None = None
    reason: str | None = None


def run_actions(engine: Engine, state: Any, actions: list[Action]) -> tuple[Any, int | None, str | None]:
    """Apply ``actions`` in order from ``state``; stop at the first refused one.

    Returns the last good state, and the index and reason of the refused action (or ``None``s).
    """
    for index, action in enumerate(actions):
        try:
            state, _ = engine.apply(state, action)
        except Refused as exc:
            return state, index, str(exc)
    return state, None, None


def replay(script: Script) -> ReplayResult:
    """Run every action of ``script``; stop at the first refused one."""
    engine, state = script.start()
    state, index, reason = run_actions(engine, state, script.actions)
    return ReplayResult(engine.summary(state), index, reason)
