"""The doors of the screens: what a screen may ask of the table, nothing more.

The device implements these; a screen is built with the narrowest one it needs, so its imports
and its constructor say what it can do:

- :class:`Table` — every screen: the screen stack, a word on the bottom line, the tower's signals,
  a timer on the loop.
- :class:`GameTable` — the game screen: the game in play (its view, prompt and draft answers), its
  actions, undo, the turn timer's and the scale's word on it.
- :class:`SelfTestTable` — the self-test: the parts' state lines and the tower's test pattern.
- :class:`MenuTable` — the menus: start a game, the settings, the history, the timer presets
  (:class:`TimerPresets`), the scale's calibration (:class:`CalibrationScale`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from drivers.buttons import Press
from firmware_host.scale.calibration import Calibration
from firmware_host.timers.clocks import Preset
from firmware_host.ui.render import Frame
from games.core import Action, Option, Prompt, Task, View

if TYPE_CHECKING:
    from PIL import Image

    from drivers.tower import TowerState
    from firmware_host.ui.panel import Panel


class Screen(Protocol):
    """A screen as the table holds it (:class:`firmware_host.ui.base.Screen` and its kin), with
    its optional abilities declared (the base class gives each its default)."""

    @property
    def mood(self) -> str:
        """The tower's lasting light while this screen shows."""
        ...

    @property
    def uses_scale(self) -> bool:
        """Whether it needs the scale's readings while it is anywhere in the stack (calibration)."""
        ...

    @property
    def reads_scale(self) -> bool:
        """Whether it shows the scale's readings (the self-test): the scale reads while it is stacked."""
        ...

    @property
    def raw_buttons(self) -> bool:
        """Whether it takes every button as it is (the self-test): no long ``ok`` pauses the timer."""
        ...

    def press(self, press: Press) -> None:
        """Handle one button press."""
        ...

    def frame(self) -> Frame:
        """What the OLED shows."""
        ...

    def shown(self) -> None:
        """Called when the screen comes (back) to the top."""
        ...

    def button_down(self, button: str) -> None:
        """A button went down (a held seat counting its answer); the press follows on release."""
        ...

    def picture(self, panel: Panel) -> Image.Image | None:
        """A picture the screen draws itself (the Phone screen's QR code), else ``None``: its frame."""
        ...

    def picture_lines(self) -> list[str]:
        """The words of its own picture, one line a row (what ``snap`` writes beside it)."""
        ...


class Table(Protocol):
    """What every screen may do."""

    @property
    def panel_size(self) -> tuple[int, int]:
        """The panel's picture in pixels (width, height; rotation applied): room a layout may use."""
        ...

    def push(self, screen: Screen) -> None:
        """Show ``screen`` on top."""
        ...

    def pop(self) -> None:
        """Leave the screen on top."""
        ...

    def home(self) -> None:
        """Back to the game in play, or the main menu."""
        ...

    def toast(self, text: str, seconds: float = ..., now: bool = False) -> None:
        """Say ``text`` on the message line, above the hint and the highlighted option (a new
        message replaces the one showing; ``now``: a refusal or a fault)."""
        ...

    def showing(self) -> list[str]:
        """The messages showing together now, whole and translatable, oldest first (a screen that
        lays its message out itself reads them)."""
        ...

    def message_lasts(self) -> bool:
        """Whether the message showing stays until the next press (an outcome), rather than
        passing in a few seconds (a refusal, a hint)."""
        ...

    def redraw(self) -> None:
        """Draw the screen again soon."""
        ...

    def signal(self, name: str) -> None:
        """Play one of the tower's signals (``refused``, ``success``…)."""
        ...

    def on_top(self, screen: Screen) -> bool:
        """Whether ``screen`` is the one showing."""
        ...

    def call_later(self, delay: float, fn: Callable[[], None]) -> Any:
        """Run ``fn`` on the loop in ``delay`` seconds; returns a handle with ``cancel()``."""
        ...

    def now(self) -> float:
        """The loop's clock (seconds, monotonic)."""
        ...


class GameInPlay(Protocol):
    """What a screen sees of the game in play."""

    @property
    def base(self) -> Any:
        """The game's start (``base.game``: its id, ``base.players``)."""
        ...

    @property
    def state(self) -> Any:
        """The game's state (read only: the Rules screen finds its place in the rules from it)."""
        ...

    @property
    def actions(self) -> list[Action]:
        """The actions in effect (read only: how far the game has come)."""
        ...

    def view(self) -> View:
        """What the game shows."""
        ...

    def prompt(self) -> Prompt | None:
        """What the game waits for."""
        ...

    def draft(self) -> dict[str, Any] | None:
        """The answers given so far to a simultaneous prompt."""
        ...

    def save_draft(self, answers: dict[str, str], locked: list[str]) -> None:
        """Journal the answers given so far."""
        ...


class GameTable(Table, Protocol):
    """What the game screen may do besides."""

    @property
    def session(self) -> GameInPlay | None:
        """The game in play, if any."""
        ...

    def apply(self, action: Action) -> bool:
        """Hand an action to the game: checked, journaled, shown. False when refused."""
        ...

    def player_of(self, button: str) -> str | None:
        """The player at a seat button."""
        ...

    def seat_name(self, seat: str) -> str:
        """The configured name of a seat."""
        ...

    def confirm_question(self, action: Action) -> str | None:
        """The question to ask before ``action`` (the game says it cannot be taken back at a
        glance), or ``None``."""
        ...

    def ask_undo(self) -> None:
        """Ask the table to confirm undoing the last action."""
        ...

    def open_game_menu(self) -> None:
        """The in-game menu."""
        ...

    def confirm_task(self, key: str) -> None:
        """The table did the job of the task prompt ``key``."""
        ...

    def answered(self, players: tuple[str, ...], locked: frozenset[str]) -> None:
        """Of a simultaneous choice's ``players``, ``locked`` have answered (the turn timer listens)."""
        ...

    def held_for(self, button: str) -> float | None:
        """How long ``button`` has been held down now, or ``None`` when it is up (a card being
        recorded by holding counts up while its seat is down)."""
        ...

    def title_note(self) -> str:
        """Marks for the title bar (degraded parts, the turn timer's clock)."""
        ...

    def time_bar(self) -> float | None:
        """The turn timer's remaining fraction."""
        ...

    def has_timer(self) -> bool:
        """Whether a turn timer runs for the game in play."""
        ...

    def tint(self, mood: str) -> str:
        """The game's mood as the scale makes it (``disturbed`` while the pile moves)."""
        ...

    def task_line(self, task: Task) -> str | None:
        """What the scale sees of a table job (the bin's weight), if anything."""
        ...


class SelfTestTable(Table, Protocol):
    """What the self-test may do besides."""

    def parts(self) -> Sequence[str]:
        """One line per part: the scale's reading, the tower's light, the display's state."""
        ...

    def tower_test(self, steps: Sequence[tuple[TowerState, float]]) -> None:
        """Play a pattern of tower states."""
        ...

    def checks(self) -> Sequence[str] | None:
        """The doctor's checks of the running device, one short line each (``tablemate doctor``
        has the fixes); ``None`` while they run, started off the loop on the first ask."""
        ...


class TimerPresets(Protocol):
    """What the timer screens may do with the turn timer (the timer service implements it)."""

    @property
    def preset(self) -> Preset:
        """The preset of the game in play."""
        ...

    @property
    def session(self) -> Any:
        """The game the timer follows (``session.base.game``: its id), if any."""
        ...

    def preset_for(self, game: str) -> Preset:
        """The preset a new game of ``game`` gets."""
        ...

    def set_preset(self, game: str, preset: Preset) -> None:
        """Save ``game``'s preset."""
        ...

    def forget_preset(self, game: str) -> Preset:
        """Drop the saved preset of ``game``; the config file's applies again."""
        ...


class CalibrationScale(Protocol):
    """What the calibration screen may do with the scale (the scale service implements it)."""

    @property
    def calibration(self) -> Calibration | None:
        """The calibration in use, if any."""
        ...

    @property
    def present(self) -> bool:
        """Whether the device has a scale at all."""
        ...

    @property
    def fault(self) -> str | None:
        """What is wrong with the scale now, if anything."""
        ...

    def sps(self) -> float | None:
        """The driver's samples per second, if it says."""
        ...

    def gather(
        self, count: int, after: float, done: Callable[[list[int] | None], None], timeout: float
    ) -> Callable[[], None]:
        """Collect ``count`` raw samples taken at ``after`` or later; returns a cancel function."""
        ...

    def save(self, calibration: Calibration) -> None:
        """Keep ``calibration`` (``scale.json``) and use it at once."""
        ...


class MenuTable(GameTable, SelfTestTable, Protocol):
    """What the menus may do besides."""

    @property
    def events(self) -> Sequence[str]:
        """The game in play's outcomes so far, oldest first (the game menu's "What happened")."""
        ...

    @property
    def settings(self) -> Mapping[str, Any]:
        """The settings in force (``brightness``, ``sound``, ``timer_sound``, ``language``)."""
        ...

    @property
    def timers(self) -> TimerPresets:
        """The turn timer's presets."""
        ...

    @property
    def scale(self) -> CalibrationScale:
        """The scale, for its calibration."""
        ...

    def change_setting(self, key: str, value: Any) -> None:
        """Change and save one setting."""
        ...

    def start_game(
        self, game: str, seats: list[str], start: str | None = None, options: dict[str, Any] | None = None
    ) -> bool:
        """Start ``game`` with the players of ``seats``."""
        ...

    def table_seats(self) -> list[str]:
        """The seats the config file puts at the table."""
        ...

    def game_options(self, game: str) -> dict[str, Any]:
        """The config file's options of ``game``."""
        ...

    def history(self) -> list[dict[str, Any]]:
        """Finished games, oldest first."""
        ...

    def end_early(self) -> None:
        """End the game in play now."""
        ...

    def anytime(self) -> list[Option]:
        """The options the game in play offers at any time."""
        ...

    def back_to_game(self) -> None:
        """Leave the menus for the game screen."""
        ...

    @property
    def phones(self) -> PairedPhones:
        """The phones paired with the companion page."""
        ...

    def phone_offer(self) -> tuple[str, str] | None:
        """The page's pairing link and a new one-time code, or ``None`` when the page is off."""
        ...

    def withdraw_offer(self) -> None:
        """Void the code on offer (the Phone screen closed)."""
        ...

    def phone_code_void(self) -> bool:
        """Whether the code on offer pairs nobody any more (expired, or a phone paired with it)."""
        ...

    def forget_phones(self) -> int:
        """Unpair every phone; how many there were."""
        ...


class PairedPhones(Protocol):
    """What the settings menu sees of the paired phones."""

    @property
    def count(self) -> int:
        """How many phones are paired."""
        ...
