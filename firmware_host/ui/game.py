"""The game screen: scores, the game's status, and its prompt worked from the buttons.

The prompt comes from the engine (:mod:`games.core.prompts`); this screen is the one input
system every game shares:

- :class:`~games.core.prompts.Menu` — the acting player walks options with prev/next and picks
  with a short ``ok``, or uses their own button (short: next option, long: pick); ``back`` steps
  out of a sub-menu.
- :class:`~games.core.prompts.Collect` — each player answers on their own button (short: change
  the answer, long: lock it in or unlock it). Answers given so far are journaled as a draft, so a
  power cut in the middle of a reveal loses nobody's pick. Every change of who has locked in goes
  to the table's ``answered`` (:class:`~firmware_host.ui.table.GameTable`), so the turn timer's shared
  phase clock runs only while someone still owes an answer.
  A Collect that is ``counting`` (cards already revealed on the table) takes one press an
  answer instead: a held seat button counts up through that player's values, one every
  :data:`COUNT_STEP` seconds, shown as it counts; letting go locks the value showing.
- :class:`~games.core.prompts.Order` — players press their buttons in the order asked for;
  ``back`` takes the last press back. A menu option, or a Collect's answers (a tie among them),
  may lead to an Order; ``back`` before the first press returns to that menu or those answers.
- :class:`~games.core.prompts.Task` — a job for the table's hands; ``ok`` (or any seat held)
  confirms it, which is journaled as a note, and the prompt after it shows.

A short ``back`` at the top of a prompt opens the game menu; a long ``back`` asks to undo. A long
``ok`` never picks in a game: it pauses or resumes the turn timer (the device handles it before any
screen, see :meth:`Device.handle <firmware_host.runtime.device.Device.handle>`).

The screen sees the table through :class:`~firmware_host.ui.table.GameTable` only.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from drivers.buttons import Press
from firmware_host.core.config import SEATS
from firmware_host.ui.base import Screen, footed, is_seat
from firmware_host.ui.render import CONTENT_W, ROWS, Frame, Row, text_width, wrap
from games.core import Collect, Menu, Order, Prompt, Task

if TYPE_CHECKING:
    from firmware_host.ui.table import GameTable


COUNT_STEP = 0.5
"""Seconds a held seat button stays on each value while it counts (a counting Collect)."""
COUNT_TICK = 0.1
"""How often the screen is redrawn while a seat button counts."""


def pairs(cells: list[str]) -> list[Row]:
    """Cells laid out two to a row, or three when there are more than four and all fit."""
    per_row = 2
    if len(cells) > 4 and all(text_width(c) <= CONTENT_W // 3 - 3 for c in cells):
        per_row = 3
    return [Row(tuple(cells[i : i + per_row])) for i in range(0, len(cells), per_row)]


class GameScreen(Screen):
    """The screen of the game in play."""

    table: GameTable

    def __init__(self, table: GameTable) -> None:
        super().__init__(table)
        self.prompt: Prompt | None = None
        self.path: list[Menu] = []
        self.trail: list[int] = []
        self.index = 0
        self.answers: dict[str, int] = {}
        self.locked: set[str] = set()
        self.order: list[str] = []
        self.parent: Menu | Collect | None = None
        """The menu or the Collect answers that led to the Order showing, if any."""
        self.reset()

    # -- state ----------------------------------------------------------------------------------
    @property
    def mood(self) -> str:  # type: ignore[override]
        session = self.table.session
        if session is None:
            return "idle"
        mood = self.prompt.mood if isinstance(self.prompt, Task) else session.view().mood
        return self.table.tint(mood)

    def reset(self) -> None:
        """Start the prompt afresh (after every change of the game state)."""
        before, before_collect = self.prompt, self._collect()
        side = isinstance(before, Menu) and len(self.path) == 1 and self.path[0].side is not None
        place = (self.index, self._labels()) if side else None
        pending = self._pending_answers()
        session = self.table.session
        self._show(session.prompt() if session else None)
        self.answers, self.locked, self.parent = {}, set(), None
        if place is not None and isinstance(self.prompt, Menu) and place[1] == self._labels():
            self.index = place[0]  # an answer out of turn came in: the chooser's highlight stays
        collect = self._collect()
        if collect is not None and session is not None:
            self._restore(session.draft())
            if before_collect is not None and before_collect.title == collect.title:
                self._keep(pending)
            if collect is self.prompt and collect.build is not None and self.locked >= set(collect.players):
                self._answered(collect, apply=False)  # power cut while settling a tie
        self._locks_changed()

    def _labels(self) -> tuple[str | None, ...]:
        """The menu showing, as far as the chooser can tell: who, the title, the lines."""
        if not self.path:
            return ()
        menu = self.path[-1]
        return (menu.player, menu.title, *(o.label for o in menu.options))

    def _collect(self) -> Collect | None:
        """The answers being collected: the prompt itself, or the ones riding along a menu."""
        if isinstance(self.prompt, Collect):
            return self.prompt
        if isinstance(self.prompt, Menu) and self.path:
            return self.path[0].side
        return None

    def _locks_changed(self) -> None:
        """Tell the device who has locked in an answer (the turn timer's phase clock listens)."""
        collect = self._collect()
        players = collect.players if collect is not None else ()
        self.table.answered(tuple(players), frozenset(self.locked))

    def _pending_answers(self) -> dict[str, str]:
        """Answers chosen but not locked in yet, in a Collect that hands over answers one by one.

        Another player's locked answer changes the game state mid-prompt; the players still
        choosing keep what they had chosen.
        """
        prompt = self._collect()
        if prompt is None or prompt.each is None:
            return {}
        return {p: prompt.values[p][i] for p, i in self.answers.items() if p not in self.locked}

    def _keep(self, pending: dict[str, str]) -> None:
        prompt = self._collect()
        assert prompt is not None
        for player, value in pending.items():
            values = prompt.values.get(player, ())
            if player in prompt.players and value in values and player not in self.answers:
                self.answers[player] = values.index(value)

    def _show(self, prompt: Prompt | None) -> None:
        self.prompt = prompt
        self.path = [prompt] if isinstance(prompt, Menu) else []
        self.trail = []
        self.index = prompt.default if isinstance(prompt, Menu) else 0
        self.order = []

    def _restore(self, draft: dict[str, Any] | None) -> None:
        prompt = self._collect()
        assert prompt is not None
        if not draft:
            return
        for player, value in draft.get("answers", {}).items():
            values = prompt.values.get(player, ())
            if value in values:
                self.answers[player] = values.index(value)
        self.locked = {p for p in draft.get("locked", []) if p in self.answers}

    def _save_draft(self) -> None:
        prompt = self.parent if isinstance(self.parent, Collect) else self._collect()
        assert prompt is not None
        answers = {p: prompt.values[p][i] for p, i in self.answers.items()}
        session = self.table.session
        if session is not None:
            session.save_draft(answers, sorted(self.locked))

    # -- buttons ----------------------------------------------------------------------------------
    def button_down(self, button: str) -> None:
        """A button went down: a seat counting its answer shows the count while it is held."""
        prompt = self.prompt
        if isinstance(prompt, Collect) and prompt.counting and self.table.player_of(button) in prompt.players:
            self.table.call_later(COUNT_TICK, self._tick)

    def _tick(self) -> None:
        if self.table.on_top(self) and self._counting():
            self.table.redraw()
            self.table.call_later(COUNT_TICK, self._tick)

    def _counting(self) -> dict[str, int]:
        """Players whose button is held in a counting Collect → the index their count shows."""
        prompt = self.prompt
        if not isinstance(prompt, Collect) or not prompt.counting:
            return {}
        shown = {}
        for button in SEATS:
            player = self.table.player_of(button)
            held = self.table.held_for(button) if player in prompt.players else None
            if held is not None:
                shown[player] = int(held / COUNT_STEP) % len(prompt.values[player])
        return shown

    def press(self, press: Press) -> None:
        if press.button == "back" and press.long:
            self.table.ask_undo()
            return
        prompt = self.prompt
        if isinstance(prompt, Menu):
            self._press_menu(press)
        elif isinstance(prompt, Collect):
            self._press_collect(prompt, press)
        elif isinstance(prompt, Order):
            self._press_order(prompt, press)
        elif isinstance(prompt, Task):
            self._press_task(prompt, press)
        elif press.button == "back":
            self.table.open_game_menu()

    def _press_menu(self, press: Press) -> None:
        menu = self.path[-1]
        n = len(menu.options)
        side = self.path[0].side
        if side is not None and is_seat(press) and self.table.player_of(press.button) in side.players:
            self._press_collect(side, press)  # an answer out of turn (a bet) while the menu waits
            return
        acting = menu.player is None or self.table.player_of(press.button) == menu.player
        if press.button == "next" or (is_seat(press) and acting and not press.long):
            self.index = (self.index + 1) % n
        elif press.button == "prev":
            self.index = (self.index - 1) % n
        elif press.button == "ok" or (is_seat(press) and acting and press.long):
            option = menu.options[self.index]
            sub = option.submenu()
            if isinstance(sub, Order):
                self.parent, self.prompt, self.order = self.prompt, sub, []
            elif sub is not None:
                self.path.append(sub)
                self.trail.append(self.index)
                self.index = sub.default
            elif side is not None:
                self._pick_with_side(side, option.action)
            else:
                self.table.apply(option.action)
        elif press.button == "back":
            if len(self.path) > 1:
                self.path.pop()
                self.index = self.trail.pop()
            else:
                self.table.open_game_menu()
        elif is_seat(press) and not acting and self.table.player_of(press.button):
            self.table.toast(f"{menu.player}'s turn")

    def _pick_with_side(self, side: Collect, action: dict) -> None:
        """The chooser picked: everyone who has not answered out of turn gives the default answer
        (each its own journaled action, as a script would have it), then the pick."""
        assert side.each is not None and side.default is not None
        choosing = [p for p in side.players if p not in self.locked and p in self.answers]
        undecided = [p for p in choosing if side.values[p][self.answers[p]] != side.default]
        if undecided:
            self.table.toast(f"{undecided[0]}: hold to lock, or tap to {side.label(side.default)}")
            return
        for player in [p for p in side.players if p not in self.locked]:
            if not self.table.apply(side.each(player, side.default)):
                return
        self.table.apply(action)

    def _press_collect(self, prompt: Collect, press: Press) -> None:
        if press.button == "back":
            self.table.open_game_menu()
            return
        player = self.table.player_of(press.button)
        if player is None or player not in prompt.players:
            return
        values = prompt.values[player]
        if prompt.counting:  # how long it was held is the answer; letting go locks it
            self.answers[player] = int(press.duration / COUNT_STEP) % len(values)
            self.locked.add(player)
            self._locks_changed()
            if prompt.each is not None:
                if not self.table.apply(prompt.each(player, values[self.answers[player]])):
                    self.locked.discard(player)
                    self._locks_changed()
                return
        elif not press.long:
            if player in self.locked:
                self.table.toast(f"{player}: hold to unlock")
                return
            self.answers[player] = (self.answers.get(player, -1) + 1) % len(values)
            self._save_draft()
            return
        elif player in self.locked:
            self.locked.discard(player)
            self._locks_changed()
        elif player in self.answers:
            self.locked.add(player)
            self._locks_changed()
            if prompt.each is not None:
                if not self.table.apply(prompt.each(player, values[self.answers[player]])):
                    self.locked.discard(player)  # refused: the answer stays open
                    self._locks_changed()
                return
        else:
            self.table.toast(f"{player}: tap to choose first")
            return
        if prompt.build is not None and self.locked >= set(prompt.players):
            self._save_draft()
            self._answered(prompt)
            return
        self._save_draft()

    def _answered(self, prompt: Collect, apply: bool = True) -> None:
        """Everyone has locked in: apply the action, or show the prompt the answers lead to."""
        assert prompt.build is not None
        answers = {p: prompt.values[p][self.answers[p]] for p in prompt.players}
        result = prompt.build(answers)
        if isinstance(result, Menu | Collect | Order | Task):
            self._show(result)
            self.parent = prompt
        elif apply and not self.table.apply(result):
            self.locked.clear()
            self._locks_changed()
            self._save_draft()

    def _back_to_parent(self) -> None:
        """Leave an Order for the menu that opened it, or for the answers that led to it
        (unlocked, to change them)."""
        parent, self.parent = self.parent, None
        if isinstance(parent, Menu):
            self.prompt = parent  # the menu path and highlight are where they were
            return
        self._show(parent)
        self.locked.clear()
        self._locks_changed()
        self._save_draft()

    def _press_task(self, prompt: Task, press: Press) -> None:
        if press.button == "ok" or (is_seat(press) and press.long):
            self.table.confirm_task(prompt.key)
        elif press.button == "back":
            self.table.open_game_menu()
        elif is_seat(press):
            self.table.toast(f"ok: {prompt.confirm.lower()}")

    def _press_order(self, prompt: Order, press: Press) -> None:
        player = self.table.player_of(press.button)
        if press.button == "back":
            if self.order:
                self.order.pop()
            elif self.parent is not None:
                self._back_to_parent()
            else:
                self.table.open_game_menu()
        elif player in prompt.players and player not in self.order:
            self.order.append(player)
            if len(self.order) == len(prompt.players):
                order, self.order = self.order, []
                self.table.apply(prompt.build(order))

    # -- drawing ------------------------------------------------------------------------------------
    def frame(self) -> Frame:
        session = self.table.session
        if session is None:
            return Frame("tablemate", (Row.of("No game"),))
        view = session.view()
        prompt = self.prompt
        if isinstance(prompt, Collect):
            body = self._collect_rows(prompt)
        elif isinstance(prompt, Task):
            body = self._task_rows(prompt)
        else:
            marks = [(">" if p in view.active else " ") + f"{p} {s}" for p, s in view.scores]
            score_rows = pairs(marks)
            body = score_rows + [Row.of(line) for line in view.lines]
            prompt_rows = self._prompt_rows()
            if isinstance(prompt, Menu) and view.lines and len(score_rows) >= ROWS - len(prompt_rows):
                prompt_rows = prompt_rows[:-1]  # a full table: the game's first line before the hint
            body = body[: ROWS - len(prompt_rows)] + prompt_rows
        return Frame(view.title, tuple(body[:ROWS]), self.table.title_note(), self.table.time_bar())

    def _prompt_rows(self) -> list[Row]:
        prompt = self.prompt
        if isinstance(prompt, Menu):
            menu = self.path[-1]
            n = len(menu.options)
            self.index %= n
            option = menu.options[self.index]
            label = option.label + (" >" if option.then is not None else "")
            if self.table.has_timer():
                hint = "ok: pick  hold ok: pause"
            else:
                hint = "ok: pick  back" if len(self.path) > 1 else "tap: next  ok: pick"
            side = self.path[0].side
            choosing = [p for p in self.answers if p not in self.locked] if side is not None else []
            if side is not None and choosing:  # a bet being chosen out of turn: hold to lock it
                hint = " ".join(f"{p} {side.label(side.values[p][self.answers[p]])}?" for p in choosing) + " hold"
            return [Row.of(menu.title), Row.of(label, f"{self.index + 1}/{n}", invert=True), Row.of(hint)]
        if isinstance(prompt, Order):
            left = [p for p in prompt.players if p not in self.order]
            done = " ".join(self.order) + (f" ({' '.join(left)})" if left else "")
            return [Row.of(prompt.title), Row.of(done.strip()), Row.of("press in order  back: undo")]
        return []

    def _task_rows(self, task: Task) -> list[Row]:
        lines = [line for text in task.lines for line in wrap(text)]
        status = self.table.task_line(task)
        if status:
            lines.append(status)
        rows = [Row.of(task.title), *(Row.of(line) for line in lines)]
        return footed(rows, Row.of(f"ok: {task.confirm}", invert=True))

    def _collect_rows(self, prompt: Collect) -> list[Row]:
        cells = []
        counting = self._counting()
        for p in prompt.players:
            if p in counting:
                cells.append(f"{p} {prompt.label(prompt.values[p][counting[p]])}<")
            elif p in self.locked:
                shown = "ok" if prompt.hidden else prompt.label(prompt.values[p][self.answers[p]])
                cells.append(f"{p} [{shown}]")
            elif p in self.answers:
                cells.append(f"{p} {prompt.label(prompt.values[p][self.answers[p]])}?")
            else:
                cells.append(f"{p} ...")
        rows = [Row.of(prompt.title), *pairs(cells)]
        hint = "hold, let go at yours" if prompt.counting else "tap: change  hold: lock"
        return [*rows[: ROWS - 1], Row.of(hint)]
