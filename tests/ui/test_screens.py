"""Screens on their own: the History screen from the main menu, and screens built with a stub
of their door alone (no device), which is all a screen can reach."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from drivers.buttons import Press
from firmware_host.ui.base import Confirm, Screen
from firmware_host.ui.calibrate import CalibrateScreen
from firmware_host.ui.game import GameScreen
from firmware_host.ui.menus import HistoryScreen
from games.core import Menu, Option, Task, View
from tests.devicekit import presses, run_device, screen


def tap(button: str) -> Press:
    """A short press of ``button``."""
    return Press(button, False, 0.0, 0.1)


def rows(frame: Any) -> list[str]:
    return [" ".join(r.cells) + (" " + r.right if r.right else "") for r in frame.rows]


# -- the History screen on the device ---------------------------------------------------------------------
def test_history_opens_from_the_main_menu_with_no_games_yet(tmp_path):
    async def body(dev):
        await presses(dev, "next", "ok")
        return await screen(dev), type(dev.screens[-1])

    text, top = run_device(tmp_path, body)
    assert top is HistoryScreen
    assert text.splitlines()[0] == "History" and "No games yet" in text
    assert "Internal error" not in text


def test_history_lists_finished_games_newest_first(tmp_path):
    async def body(dev):
        dev.start_named("arschbombe", ["Ann", "Ben"])
        dev.end_early()
        dev.start_named("bomb", ["Ann", "Ben", "Cy"])
        dev.end_early()
        await presses(dev, "ok!")  # the game-over screen stays until a long ok: back to the main menu
        await presses(dev, "next", "ok")
        return await screen(dev)

    text = run_device(tmp_path, body)
    lines = text.splitlines()
    assert lines[0] == "History"
    assert "Bomb" in lines[1] and "early" in lines[1]
    assert "Arschbombe"[:9] in lines[2] and "early" in lines[2]


# -- screens built with a stub of their door -------------------------------------------------------------
class StubTable:
    """The :class:`~firmware_host.ui.table.Table` door and nothing else, recording what is asked."""

    def __init__(self) -> None:
        self.stack: list[Screen] = []
        self.said: list[str] = []
        self.signals: list[str] = []
        self.applied: list[dict] = []
        self.later: list[tuple[float, Callable[[], None]]] = []

    def push(self, screen: Screen) -> None:
        self.stack.append(screen)

    def pop(self) -> None:
        self.stack.pop()

    def home(self) -> None:
        self.stack[1:] = []

    def toast(self, text: str, seconds: float = 2.5, now: bool = False) -> None:
        self.said.append(text)

    def showing(self) -> list[str]:
        return []  # what was said is recorded, not shown

    def message_lasts(self) -> bool:
        return False

    def redraw(self) -> None:
        pass

    def signal(self, name: str) -> None:
        self.signals.append(name)

    def on_top(self, screen: Screen) -> bool:
        return bool(self.stack) and self.stack[-1] is screen

    def call_later(self, delay: float, fn: Callable[[], None]) -> Any:
        self.later.append((delay, fn))

    def now(self) -> float:
        return 100.0


def test_a_confirm_built_with_a_stub_table_pops_and_says_yes():
    table, yes = StubTable(), []
    confirm = Confirm(table, "Undo", "Take back?", lambda: yes.append(True))
    table.push(confirm)
    confirm.press(tap("ok"))
    assert table.stack == [] and yes == [True]


def test_history_built_with_a_stub_table_shows_its_entries_and_back_leaves():
    table = StubTable()
    entries = [
        {"game": "bomb", "started": 0, "reason": "over", "winners": ["Ann"]},
        {"game": "nosuchgame", "started": 0, "reason": "abandoned", "winners": []},
    ]
    history = HistoryScreen(table, entries)
    table.push(history)
    shown = rows(history.frame())
    assert "nosuchgame"[:9] in shown[0] and "early" in shown[0]
    assert "Bomb" in shown[1] and "Ann" in shown[1]
    history.press(tap("back"))
    assert table.stack == []


class StubScale:
    """The calibration screen's second door: the scale."""

    calibration = None
    present = True
    fault = "no data"

    def __init__(self) -> None:
        self.gathers: list[tuple[int, float, Callable[[list[int] | None], None]]] = []

    def sps(self) -> float | None:
        return 10.0

    def gather(self, count: int, after: float, done: Callable[[list[int] | None], None], timeout: float):
        self.gathers.append((count, after, done))
        return lambda: None

    def save(self, calibration: Any) -> None:
        raise AssertionError("nothing to save")


def test_the_calibration_screen_with_stub_doors_measures_and_tells_why_a_step_failed():
    table, scale = StubTable(), StubScale()
    cal = CalibrateScreen(table, scale)
    table.push(cal)
    cal.press(tap("ok"))  # the known weight: start
    cal.press(tap("ok"))  # measure the empty bin
    ((count, after, done),) = scale.gathers
    assert count >= 20 and after > table.now()
    done(None)  # no readings came
    assert "No readings from the scale: no data" in " ".join(rows(cal.frame()))
    assert table.signals == ["refused"]
    cal.press(tap("back"))
    assert table.stack == [] and table.said == ["Nothing saved"]


class StubGame:
    """The game in play as the game screen sees it."""

    base = None

    def __init__(self, prompt: Any) -> None:
        self._prompt = prompt
        self.drafts: list[Any] = []

    def view(self) -> View:
        return View("Stub", (("Ann", "1"), ("Ben", "2")))

    def prompt(self) -> Any:
        return self._prompt

    def draft(self) -> None:
        return None

    def save_draft(self, answers: dict[str, str], locked: list[str]) -> None:
        self.drafts.append((answers, locked))


class StubGameTable(StubTable):
    """The :class:`~firmware_host.ui.table.GameTable` door."""

    def __init__(self, prompt: Any) -> None:
        super().__init__()
        self.session = StubGame(prompt)
        self.seats = {"p1": "Ann", "p2": "Ben"}

    def apply(self, action: dict) -> bool:
        self.applied.append(action)
        return True

    def player_of(self, button: str) -> str | None:
        return self.seats.get(button)

    def seat_name(self, seat: str) -> str:
        return seat.upper()

    def confirm_question(self, action: dict) -> str | None:
        return None

    def ask_undo(self) -> None:
        self.said.append("undo?")

    def open_game_menu(self) -> None:
        self.said.append("menu")

    def confirm_task(self, key: str) -> None:
        self.said.append(f"done {key}")

    def answered(self, players: tuple[str, ...], locked: frozenset[str]) -> None:
        pass

    def title_note(self) -> str:
        return ""

    def time_bar(self) -> float | None:
        return None

    def has_timer(self) -> bool:
        return False

    def tint(self, mood: str) -> str:
        return mood

    def task_line(self, task: Task) -> str | None:
        return "Scale 12 g, want 69"


def test_the_game_screen_with_a_stub_table_hands_the_picked_action_to_it():
    menu = Menu("Ann: pick", (Option("Jump", action={"type": "jump"}), Option("Pass", action={"type": "pass"})), "Ann")
    table = StubGameTable(menu)
    game = GameScreen(table)
    game.press(tap("p2"))  # not Ben's turn
    game.press(tap("next"))
    game.press(tap("ok"))
    assert table.applied == [{"type": "pass"}] and table.said == ["Ann's turn"]
    assert game.frame().title == "Stub"


def test_the_game_screen_shows_the_scale_line_of_a_table_job_from_its_door():
    task = Task("Empty the bin", ("All pieces out",), "bin1", None, "Bin filled")
    table = StubGameTable(task)
    game = GameScreen(table)
    assert "Scale 12 g, want 69" in rows(game.frame())
    game.press(tap("ok"))
    assert table.said == ["done bin1"]
