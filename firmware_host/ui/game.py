"""The game screen: scores, the game's status, and its prompt worked from the buttons.

The prompt comes from the engine (:mod:`games.core.prompts`); this screen is the one input
system every game shares:

- :class:`~games.core.prompts.Menu` — the acting player walks options with prev/next and picks
  with a short ``ok``, or uses their own button (short: next option, long: pick); ``back`` steps
  out of a sub-menu.
- :class:`~games.core.prompts.Collect` — each player answers on their own button (short: change
  the answer, long: lock it in or unlock it). Answers given so far are journaled as a draft, so a
  power cut in the middle of a reveal loses nobody's pick. Every change of who has locked in goes
  to :meth:`Device.answered <firmware_host.device.Device.answered>`, so the turn timer's shared
  phase clock runs only while someone still owes an answer.
- :class:`~games.core.prompts.Order` — players press their buttons in the order asked for;
  ``back`` takes the last press back.

A short ``back`` at the top of a prompt opens the game menu; a long ``back`` asks to undo. A long
``ok`` never picks in a game: it pauses or resumes the turn timer (the device handles it before any
screen, see :meth:`Device.handle <firmware_host.device.Device.handle>`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from drivers.buttons import Press
from firmware_host.render import ROWS, Frame, Row
from firmware_host.ui.base import Screen, is_seat
from games.core import Collect, Menu, Order, Prompt

if TYPE_CHECKING:
    from firmware_host.device import Device


def pairs(cells: list[str]) -> list[Row]:
    """Cells laid out two to a row."""
    return [Row(tuple(cells[i : i + 2])) for i in range(0, len(cells), 2)]


class GameScreen(Screen):
    """The screen of the game in play."""

    def __init__(self, dev: Device) -> None:
        super().__init__(dev)
        self.prompt: Prompt | None = None
        self.path: list[Menu] = []
        self.trail: list[int] = []
        self.index = 0
        self.answers: dict[str, int] = {}
        self.locked: set[str] = set()
        self.order: list[str] = []
        self.reset()

    # -- state ----------------------------------------------------------------------------------
    @property
    def mood(self) -> str:  # type: ignore[override]
        session = self.dev.session
        return session.view().mood if session else "idle"

    def reset(self) -> None:
        """Start the prompt afresh (after every change of the game state)."""
        session = self.dev.session
        self.prompt = session.prompt() if session else None
        self.path = [self.prompt] if isinstance(self.prompt, Menu) else []
        self.trail = []
        self.index = self.prompt.default if isinstance(self.prompt, Menu) else 0
        self.answers, self.locked, self.order = {}, set(), []
        if isinstance(self.prompt, Collect) and session is not None:
            self._restore(session.journal.draft())
        self._locks_changed()

    def _locks_changed(self) -> None:
        """Tell the device who has locked in an answer (the turn timer's phase clock listens)."""
        players = self.prompt.players if isinstance(self.prompt, Collect) else ()
        self.dev.answered(tuple(players), frozenset(self.locked))

    def _restore(self, draft: dict[str, Any] | None) -> None:
        prompt = self.prompt
        assert isinstance(prompt, Collect)
        if not draft:
            return
        for player, value in draft.get("answers", {}).items():
            values = prompt.values.get(player, ())
            if value in values:
                self.answers[player] = values.index(value)
        self.locked = {p for p in draft.get("locked", []) if p in self.answers}

    def _save_draft(self) -> None:
        prompt = self.prompt
        assert isinstance(prompt, Collect)
        answers = {p: prompt.values[p][i] for p, i in self.answers.items()}
        self.dev.session.note("draft", {"answers": answers, "locked": sorted(self.locked)})

    # -- buttons ----------------------------------------------------------------------------------
    def press(self, press: Press) -> None:
        if press.button == "back" and press.long:
            self.dev.ask_undo()
            return
        prompt = self.prompt
        if isinstance(prompt, Menu):
            self._press_menu(press)
        elif isinstance(prompt, Collect):
            self._press_collect(prompt, press)
        elif isinstance(prompt, Order):
            self._press_order(prompt, press)
        elif press.button == "back":
            self.dev.open_game_menu()

    def _press_menu(self, press: Press) -> None:
        menu = self.path[-1]
        n = len(menu.options)
        acting = menu.player is None or self.dev.player_of(press.button) == menu.player
        if press.button == "next" or (is_seat(press) and acting and not press.long):
            self.index = (self.index + 1) % n
        elif press.button == "prev":
            self.index = (self.index - 1) % n
        elif press.button == "ok" or (is_seat(press) and acting and press.long):
            option = menu.options[self.index]
            sub = option.submenu()
            if sub is not None:
                self.path.append(sub)
                self.trail.append(self.index)
                self.index = sub.default
            else:
                self.dev.apply(option.action)
        elif press.button == "back":
            if len(self.path) > 1:
                self.path.pop()
                self.index = self.trail.pop()
            else:
                self.dev.open_game_menu()
        elif is_seat(press) and not acting and self.dev.player_of(press.button):
            self.dev.toast(f"{menu.player}'s turn")

    def _press_collect(self, prompt: Collect, press: Press) -> None:
        if press.button == "back":
            self.dev.open_game_menu()
            return
        player = self.dev.player_of(press.button)
        if player is None or player not in prompt.players:
            return
        values = prompt.values[player]
        if not press.long:
            if player in self.locked:
                self.dev.toast(f"{player}: hold to unlock")
                return
            self.answers[player] = (self.answers.get(player, -1) + 1) % len(values)
            return
        if player in self.locked:
            self.locked.discard(player)
            self._locks_changed()
        elif player in self.answers:
            self.locked.add(player)
            self._locks_changed()
            if prompt.each is not None:
                if not self.dev.apply(prompt.each(player, values[self.answers[player]])):
                    self.locked.discard(player)  # refused: the answer stays open
                    self._locks_changed()
                return
        else:
            self.dev.toast(f"{player}: tap to choose first")
            return
        if prompt.build is not None and self.locked >= set(prompt.players):
            answers = {p: prompt.values[p][self.answers[p]] for p in prompt.players}
            if not self.dev.apply(prompt.build(answers)):
                self.locked.clear()
                self._locks_changed()
                self._save_draft()
            return
        self._save_draft()

    def _press_order(self, prompt: Order, press: Press) -> None:
        player = self.dev.player_of(press.button)
        if press.button == "back":
            if self.order:
                self.order.pop()
            else:
                self.dev.open_game_menu()
        elif player in prompt.players and player not in self.order:
            self.order.append(player)
            if len(self.order) == len(prompt.players):
                order, self.order = self.order, []
                self.dev.apply(prompt.build(order))

    # -- drawing ------------------------------------------------------------------------------------
    def frame(self) -> Frame:
        session = self.dev.session
        if session is None:
            return Frame("tablemate", (Row.of("No game"),))
        view = session.view()
        prompt = self.prompt
        if isinstance(prompt, Collect):
            body = self._collect_rows(prompt)
        else:
            marks = [(">" if p in view.active else " ") + f"{p} {s}" for p, s in view.scores]
            body = pairs(marks) + [Row.of(line) for line in view.lines]
            prompt_rows = self._prompt_rows()
            body = body[: ROWS - len(prompt_rows)] + prompt_rows
        toast = self.dev.toast_text()
        if toast:
            body = body[: ROWS - 1] + [Row.of()] * (ROWS - 1 - len(body)) + [Row.of(toast, invert=True)]
        return Frame(view.title, tuple(body[:ROWS]), self.dev.title_note(), self.dev.time_bar())

    def _prompt_rows(self) -> list[Row]:
        prompt = self.prompt
        if isinstance(prompt, Menu):
            menu = self.path[-1]
            n = len(menu.options)
            self.index %= n
            option = menu.options[self.index]
            label = option.label + (" >" if option.then is not None else "")
            if self.dev.timers.clocks is not None:
                hint = "ok: pick  hold ok: pause"
            else:
                hint = "ok: pick  back" if len(self.path) > 1 else "tap: next  ok: pick"
            return [Row.of(menu.title), Row.of(label, f"{self.index + 1}/{n}", invert=True), Row.of(hint)]
        if isinstance(prompt, Order):
            done = ", ".join(self.order) or "-"
            return [Row.of(prompt.title), Row.of(done), Row.of("press in order  back: undo")]
        return []

    def _collect_rows(self, prompt: Collect) -> list[Row]:
        cells = []
        for p in prompt.players:
            if p in self.locked:
                shown = "ok" if prompt.hidden else prompt.label(prompt.values[p][self.answers[p]])
                cells.append(f"{p} [{shown}]")
            elif p in self.answers:
                cells.append(f"{p} {prompt.label(prompt.values[p][self.answers[p]])}?")
            else:
                cells.append(f"{p} ...")
        rows = [Row.of(prompt.title), *pairs(cells)]
        return [*rows[: ROWS - 1], Row.of("tap: change  hold: lock")]
