"""A whole Antartik game played from the buttons in the scripted simulator.

The script is written by a player model: the engine runs beside it with the same seed, a seeded
policy picks each move from what the device offers (the prompt, the game menu), and the model
writes the presses a person would make to pick it — seat taps and holds, prev/next/ok, back into
the game menu, an undo. The device must end the game exactly where the model's engine ends it.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

from PIL import Image

from games import get_engine
from games.core import Collect, Menu, Option

E = get_engine("antartik")
PLAYERS = ["Ann", "Ben", "Cy"]
SEAT = {p: f"p{i + 1}" for i, p in enumerate(PLAYERS)}
SEED = 11
OPTIONS = {"juniors": ["Ann", "Cy"]}
GAME_MENU_HEAD = 3
"""The game menu's lines before the game's own options: Continue, What happened, Undo last action."""


class Player:
    """Writes the presses for the moves a seeded policy picks, keeping an engine in step."""

    def __init__(self, seed: int) -> None:
        self.pick = random.Random(seed)
        self.state = E.new(PLAYERS, SEED, OPTIONS)
        self.lines: list[str] = []
        self.count = 0
        self.used: set[str] = set()
        self.snapped: set[str] = set()

    # -- bookkeeping --------------------------------------------------------------------------
    def emit(self, *lines: str) -> None:
        self.lines += lines

    def snap(self, label: str) -> None:
        if label not in self.snapped:
            self.snapped.add(label)
            self.emit(f"snap {label}")

    def applied(self, action: dict) -> None:
        self.previous = self.state
        self.state, _ = E.apply(self.state, action)
        self.count += 1

    # -- walking a menu -------------------------------------------------------------------------
    def walk_to(self, index: int, size: int, seat: str | None) -> None:
        """Move the highlight from 0 to ``index`` and pick, varying the buttons used."""
        way = self.pick.choice(["next", "prev", "seat"] if seat else ["next", "prev"])
        if way == "prev" and index:
            self.emit(*["press prev"] * (size - index), "press ok")
        elif way == "seat":
            self.emit(*[f"press {seat}"] * index, f"hold {seat} 1")
        else:
            self.emit(*["press next"] * index, "press ok")
        self.used.add(way)

    def choose(self, menu: Menu, chooser) -> None:
        """Walk ``menu`` down to the action ``chooser`` picks at each level, and apply it."""
        seat = SEAT.get(menu.player) if menu.player else None
        while True:
            index = chooser(menu)
            self.walk_to(index, len(menu.options), seat)
            option = menu.options[index]
            if option.action is not None:
                self.pass_silent()
                self.applied(option.action)
                return
            menu = option.submenu()

    def pass_silent(self) -> None:
        """The diver's pick passes for everyone who has not answered out of turn."""
        side = E.prompt(self.state).side
        for p in side.players if side is not None else ():
            self.applied(side.each(p, "pass"))

    # -- the moves --------------------------------------------------------------------------------
    def answer(self, prompt: Collect) -> None:
        """Bets out of turn while the diver's menu waits: a bettor taps to their card and holds
        to lock it in; a pass is mostly left to the diver's pick (it passes for the silent)."""
        self.snap("window")
        values = {
            p: 0 if self.pick.random() < 0.85 else self.pick.randrange(len(prompt.values[p])) for p in prompt.players
        }
        players = [p for p in prompt.players if values[p] or self.pick.random() < 0.1]
        if len(players) >= 2:  # one player chooses, another answers first, then the first locks
            first, second = players[0], players[1]
            self.emit(*[f"press {SEAT[first]}"] * (values[first] + 1))
            self.emit(*[f"press {SEAT[second]}"] * (values[second] + 1), f"hold {SEAT[second]} 1")
            self.applied(prompt.each(second, prompt.values[second][values[second]]))
            self.snap("window-answered")
            self.emit(f"hold {SEAT[first]} 1")
            self.applied(prompt.each(first, prompt.values[first][values[first]]))
        elif players:
            p = players[0]
            self.emit(*[f"press {SEAT[p]}"] * (values[p] + 1), f"hold {SEAT[p]} 1")
            self.applied(prompt.each(p, prompt.values[p][values[p]]))

    def dive(self, menu: Menu) -> None:
        labels = [o.label for o in menu.options]
        target = self.pick.randint(2, 4)

        def chooser(level: Menu) -> int:
            names = [o.label for o in level.options]
            if level is not menu:
                return self.pick.randrange(len(names))
            if any(n.startswith("Referee") for n in names) and self.pick.random() < 0.5:
                self.snap("diver-referee")
                return next(i for i, n in enumerate(names) if n.startswith("Referee"))
            if "New dive" in names and self.pick.random() < 0.5:
                return names.index("New dive")
            if "Stop" in names and len(self.state.dive) >= target:
                return names.index("Stop")
            return names.index("Continue: draw" if "Continue: draw" in names else "Draw")

        if labels[1] == "Enter card" and "enter" not in self.used and self.state.dive:
            self.used.add("enter")  # look into the physical-pile entry once, and step back out
            self.emit("press next", "press ok")
            self.snap("enter-card")
            self.emit("press back", "press prev")  # back on "Enter card"; up to the first line
        self.snap("diver")
        self.choose(menu, chooser)

    def parachute(self, menu: Menu) -> None:
        self.snap("parachute")
        self.choose(menu, lambda level: 0 if self.pick.random() < 0.7 else 1)

    def exchange(self) -> bool:
        """Maybe open the game menu and exchange a face-down card."""
        options = E.anytime(self.state)
        swaps = [i for i, o in enumerate(options) if o.label.endswith("exchange")]
        if not swaps or self.pick.random() > 0.3:
            return False
        index = self.pick.choice(swaps)
        self.emit("press back")
        self.snap("game-menu")
        self.emit(*["press next"] * (GAME_MENU_HEAD + index), "press ok")
        menu = options[index].submenu()
        self.snap("exchange-menu")
        while True:
            choice = self.pick.randrange(len(menu.options))
            self.emit(*["press next"] * choice, "press ok")
            option: Option = menu.options[choice]
            if option.action is not None:
                self.applied(option.action)
                return True
            menu = option.submenu()

    def undo_once(self) -> None:
        """Ask to undo, say no; ask again, say yes; the model takes the last action back too."""
        self.emit("hold back 1", "snap undo", "press back", "hold back 1", "press ok")
        self.state = self.previous

    def play(self) -> None:
        self.emit("start antartik " + " ".join(PLAYERS), "snap start")
        for p in ("Ben", "Cy"):  # the first window from replay actions, as the contract allows
            action = {"type": "pass", "player": p}
            self.emit("action " + json.dumps(action))
            self.applied(action)
        undone = False
        while not self.state.over:
            assert self.count < 3000
            if self.exchange():
                continue
            prompt = E.prompt(self.state)
            if E.chute_open(self.state):
                self.parachute(prompt)
            else:
                if prompt.side is not None:
                    self.answer(prompt.side)
                self.dive(E.prompt(self.state))
            if not undone and self.count > 40 and not self.state.over:
                undone = True
                self.undo_once()
        self.emit("wait 2", "snap over", "press ok", "snap menu")


def test_a_whole_game_from_the_buttons(cli, tmp_path: Path):
    player = Player(seed=4)
    player.play()
    assert {"next", "prev", "seat"} <= player.used and "enter" in player.used
    assert {"parachute", "diver-referee", "game-menu", "window-answered"} <= player.snapped
    script = tmp_path / "game.txt"
    script.write_text("\n".join(player.lines) + "\n", encoding="utf-8")
    config = tmp_path / "config.toml"
    config.write_text('[games.antartik]\njuniors = ["Ann", "Cy"]\n', encoding="utf-8")
    frames, state = tmp_path / "frames", tmp_path / "state"
    args = ("--script", script, "--frames", frames, "--state-dir", state, "--seed", SEED, "--config", config)
    result = cli("sim", *args)
    assert result.status == 0, result.err

    history = cli("history", "--json", "--state-dir", state).json()
    expected = E.summary(player.state)
    assert len(history) == 1
    entry = history[0]
    assert entry["game"] == "antartik" and entry["reason"] == "over"
    assert entry["scores"] == expected["scores"] and entry["winners"] == expected["winners"]
    assert cli("state", "--state-dir", state).json() == {"summary": None, "script": None}

    for label in ("start", "window", "diver", "parachute", "over"):
        image = Image.open(frames / f"{label}.png")
        assert image.size == (128, 64)
        assert image.convert("1").getbbox() is not None  # something is drawn


def test_answers_being_chosen_survive_another_players_answer_and_cards_enter_by_number(cli, tmp_path: Path):
    lines = [
        "start antartik Ann Ben Cy",
        "press p2",  # Ben: pass?
        "press p2",  # Ben: bet 3?
        "press p3",
        "hold p3 1",  # Cy passes: the game state changes while Ben is still choosing
        "hold p2 1",  # Ben locks what he had chosen
        "press next",  # Ann: "Enter card"
        "press ok",
        "hold p1 1",  # the lowest number left: the 1
    ]
    script = tmp_path / "s.txt"
    script.write_text("\n".join(lines) + "\n", encoding="utf-8")
    state = tmp_path / "state"
    assert cli("sim", "--script", script, "--state-dir", state, "--seed", 1).status == 0
    shown = cli("state", "--state-dir", state).json()
    assert shown["script"]["actions"] == [
        {"type": "pass", "player": "Cy"},
        {"type": "bet", "player": "Ben", "card": "3"},
        {"type": "draw", "card": "1"},
    ]
    assert shown["summary"]["dive"] == ["1"] and shown["summary"]["face_up"]["Ann"] == ["3", "3"]


def test_a_hard_phase_timeout_on_the_device_passes_for_the_silent_players(tmp_path):
    import asyncio

    from firmware_host.core.config import parse
    from tests.devicekit import presses, run_device

    config = parse({"timers": {"antartik": {"mode": "turn", "seconds": 60, "phase": 5, "timeout": "hard"}}}, "t.toml")

    async def body(dev):
        dev.start_named("antartik", ["Ann", "Ben", "Cy"])
        await presses(dev, "p2", "p2!")  # Ben answers (his first choice); Cy says nothing
        await asyncio.sleep(6)
        return list(dev.session.actions)

    actions = run_device(tmp_path, body, config)
    assert actions[-1] == {"type": "timeout", "players": ["Cy"]}


def test_a_bet_being_chosen_holds_the_divers_pick_until_it_is_locked(tmp_path):
    from tests.devicekit import presses, run_device, screen

    async def body(dev):
        dev.start_named("antartik", ["Ann", "Ben", "Cy"])
        await presses(dev, "p2", "p2")  # Ben: pass?, bet 3?
        shown = await screen(dev)
        await presses(dev, "ok")  # Ann draws: not while Ben's bet is open
        refused = list(dev.session.actions)
        await presses(dev, "p2!", "ok")  # Ben bets; Ann draws, which passes for Cy
        return shown, refused, list(dev.session.actions)

    shown, refused, actions = run_device(tmp_path, body)
    assert "Ben bet 3?" in shown and refused == []
    assert actions == [
        {"type": "bet", "player": "Ben", "card": "3"},
        {"type": "pass", "player": "Cy"},
        {"type": "draw"},
    ]
