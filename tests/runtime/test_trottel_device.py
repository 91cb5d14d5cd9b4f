"""Trottelmütze on the device: a session played from the buttons in `tablemate sim --script`."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from PIL import Image

from firmware_host.core.config import defaults
from firmware_host.core.store import Store
from firmware_host.runtime.device import Device
from firmware_host.runtime.vtime import run_virtual
from firmware_host.sim.script import ScriptRunner, parse
from firmware_host.ui.render import Frame

PLAY = """
start trottel Ann Ben Cy
snap 01-start
# the cap roll on physical dice (the roll menu's third option): Ann 1+2, Ben 4+4, Cy 6+5
press next
press next
press ok
press ok
press next
snap 02-cap-ann
press ok
press next
press next
press next
press ok
press next
press next
press next
press ok
press next
press next
press next
press next
press next
hold p3 1
press next
press next
press next
press next
press ok
snap 03-ann-has-the-cap
# Ann enters 1+2 with her own button (tap: next, hold: pick): the Teich, a water
press next
hold p1 1
press ok
press next
hold p1 1
snap 04-teich
# Ben rolls the seeded dice with a long press: 1+5, Sauf! 1 Kurzen
hold p2 1
# Cy enters 6+6: a double (Ann, the cap, drinks) onto the Spielothek
press next
press ok
press prev
press ok
press prev
press ok
snap 05-spielothek
# the Spielothek on entered dice 1+2: a shot; then Cy again (the double): 1+2 to the Taxi
press next
press ok
press ok
press next
press ok
press next
press ok
press ok
press next
press ok
snap 06-taxi
# the taxi to the Schuettelbude (by kind, nearest ahead first: five back from the first line),
# where Cy invites Ben to a beer
press prev
press prev
press prev
press prev
press prev
press ok
press next
press ok
press ok
snap 07-after-invite
# Ben goes to the toilet from the game menu, without leave
press back
snap 08-game-menu
press next
press next
press next
press ok
# Ann rolls (seeded: 3+1, the Trottelmuetze); Ben is skipped and owed a beer
hold p1 1
snap 09-ben-skipped
# Ben is back: he gets the cap
press back
press next
press next
press next
press ok
# a penalty shot for Cy, through the game menu's sub-menu
press back
press next
press next
press next
press next
press next
press ok
snap 10-penalty-who
press next
press next
press ok
snap 11-penalty
"""

END = """
# the table ends the session from the game menu (and says yes when asked)
press back
press next
press next
press next
press next
press next
press next
press next
snap 12-end-session
press ok
press ok
snap 13-over
"""


def test_a_session_played_from_the_buttons_then_ended_from_the_menu(cli, tmp_path):
    script, frames, state = tmp_path / "play.txt", tmp_path / "frames", tmp_path / "state"
    config = tmp_path / "config.toml"
    config.write_text("", encoding="utf-8")
    script.write_text(PLAY, encoding="utf-8")
    common = ("--config", config, "--frames", frames, "--state-dir", state, "--seed", "3")
    result = cli("sim", "--script", script, *common)
    assert result.status == 0, result.err

    game = cli("state", "--state-dir", state).json()
    summary = game["summary"]
    assert summary["cap"] == "Ben" and summary["turn"] == "Cy" and summary["away"] == []
    assert summary["positions"] == {"Ann": 7, "Ben": 0, "Cy": 0}
    assert summary["drinks"] == {
        "Ann": {"beer": 1, "shot": 0, "water": 1},
        "Ben": {"beer": 2, "shot": 1, "water": 0},
        "Cy": {"beer": 1, "shot": 2, "water": 0},
    }
    actions = game["script"]["actions"]
    assert actions[0] == {"type": "cap_roll", "rolls": {"Ann": [1, 2], "Ben": [4, 4], "Cy": [6, 5]}}
    assert [a["type"] for a in actions[1:]] == [
        "roll", "roll", "roll", "casino", "roll", "taxi", "invite", "leave", "roll", "return", "penalty",
    ]  # fmt: skip
    replay = tmp_path / "resume.json"
    replay.write_text(json.dumps(game["script"]), encoding="utf-8")
    assert cli("replay", replay).json() == summary  # the journal replays to what the device showed

    script.write_text(END, encoding="utf-8")  # the unfinished game is resumed first, as at boot
    assert cli("sim", "--script", script, *common).status == 0
    assert cli("state", "--state-dir", state).json()["summary"] is None
    history = cli("history", "--json", "--state-dir", state).json()
    assert len(history) == 1
    entry = history[0]
    assert entry["game"] == "trottel" and entry["reason"] == "over" and entry["winners"] == []
    assert entry["scores"] == {"Ann": 2, "Ben": 3, "Cy": 3}

    for png in sorted(frames.glob("*.png")):
        image = Image.open(png)
        assert image.size == (128, 64)
        lit = image.convert("L").histogram()[255] / (128 * 64)
        assert 0.05 < lit < 0.6, png.name  # something legible, not a blank or a white screen
    assert len(list(frames.glob("*.png"))) == 13


def device_frames(tmp_path: Path, lines: str, seed: int = 3) -> list[Frame]:
    """Run script lines on a simulated device; the frame (as data) after each ``snap``."""
    store = Store(tmp_path / "state")
    seen: list[Frame] = []

    async def main() -> None:
        loop = asyncio.get_running_loop()
        device = Device(defaults().with_sim(), store, seed=seed, wall=lambda: 1e9 + loop.time())
        task = asyncio.create_task(device.run())
        await device.ready.wait()
        runner = ScriptRunner(device, None)

        async def snap(label: str) -> None:
            seen.append(device.frame())

        runner.handlers["snap"] = snap
        try:
            await runner.run(parse(lines))
        finally:
            device.stop()
            await task

    run_virtual(main)
    return seen


def texts(frame: Frame) -> list[str]:
    return [" ".join(row.cells) for row in frame.rows]


def test_a_full_table_still_shows_who_drinks_what(tmp_path):
    lines = "start trottel Ann Ben Cy Dan Eve Fay\nhold p3 1\nwait 5\nsnap a\n"  # Cy has the cap
    (frame,) = device_frames(tmp_path, lines, seed=3)
    rows = texts(frame)
    assert rows[0] == "Ann 0 Ben 0 Cy 0▲" and rows[1] == ">Dan 0 Eve 0 Fay 0"  # six players on two rows
    # the last move's line (the outcome, which stays until the next press) comes before the hint
    assert rows[2] == "Cy 5+2 Mütze" and rows[3] == "Dan: roll"  # the name the game prints, umlaut and all
    assert rows[4] == "Roll dice" and frame.rows[4].invert and rows[5] == "tap: next  ok: pick"
    (frame,) = device_frames(tmp_path / "three", "start trottel Ann Ben Cy\nsnap a\n", seed=3)
    assert texts(frame)[-1] == "tap: next  ok: pick"  # room enough: the hint stays


def test_game_menu_walks_a_card_effect_to_an_action(tmp_path):
    lines = """
start trottel Ann Ben Cy
press back
press next
press next
press next
press next
press next
press next
press ok
snap card
press ok
press next
snap who
press ok
press next
press next
snap drink
press ok
snap done
"""
    card, who, drink, done = device_frames(tmp_path, lines)
    assert card.title == "Card effect" and texts(card)[0] == "Give a drink >"
    assert who.title == "Who drinks?" and texts(who)[1] == "Ben >"
    assert drink.title == "Ben drinks?" and [t for t in texts(drink)[:3]] == ["Beer", "Shot", "Water"]
    assert done.title.startswith("Cap Cy") and any("Ben W" in t for t in texts(done))


def test_new_game_menu_offers_the_alcohol_free_mode(tmp_path):
    lines = """
press ok
# the game list wraps: Trottelmuetze is its last entry
press prev
press ok
# seats: ok (the cap roll decides who starts, so nobody is asked)
press ok
snap options
press ok
press next
press ok
wait 5
snap game
"""
    options, game = device_frames(tmp_path, lines)
    assert options.title == "Options" and texts(options)[0] == "Alcohol-free" and options.rows[0].right == "off"
    store = Store(tmp_path / "state")
    journal = store.open_game()
    assert journal is not None and journal.header["options"] == {"alcohol_free": True}
    assert game.title.startswith("Cap ") and len(journal.header["players"]) == 4
