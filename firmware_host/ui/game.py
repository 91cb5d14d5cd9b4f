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
screen, see :meth:`Presses.handle <firmware_host.runtime.parts.presses.Presses.handle>`).

The screen sees the table through :class:`~firmware_host.ui.table.GameTable` only.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

from drivers.buttons import Press
from firmware_host.core.config import SEATS
from firmware_host.core.i18n import _, tr
from firmware_host.ui.base import Confirm, Screen, apply_confirmed, is_seat
from firmware_host.ui.layout import (
    big_row,
    chosen_row,
    grid,
    per_row,
    score_rows,
    text_rows,
    title_line,
    wrapped_forms,
)
from firmware_host.ui.render import BAR_W, PARTS, Frame, Row, compose, panel, text_width
from firmware_host.ui.room import Part, fits, share
from games.core import Collect, Menu, Order, Prompt, T, Task, View, join

if TYPE_CHECKING:
    from collections.abc import Mapping

    from firmware_host.ui.table import GameTable


COUNT_STEP = 0.5
"""Seconds a held seat button stays on each value while it counts (a counting Collect)."""
COUNT_TICK = 0.1
"""How often the screen is redrawn while a seat button counts."""
NEWS, HINT, ANSWERS, OTHER, WORDS, GRID = 1, 2, 2, 3, 5, 9
"""The ranks of a frame's parts (:class:`~firmware_host.ui.room.Part`): what the last move
brought, then the hint (and a reveal's answers, every player's), the other lines, whole names in
what must show, a big score grid."""


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
        self.recorded: tuple[int, str, dict[str, int]] | None = None
        """The cards of the last counting reveal handed to the game: how many actions came before
        it, its title and the answers (an undo of it brings them back, to mend one)."""
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
            self._recorded_again(collect, len(session.actions))
            if collect is self.prompt and collect.build is not None and self.locked >= set(collect.players):
                self._answered(collect, apply=False)  # power cut while settling a tie
        self._locks_changed()

    def _recorded_again(self, collect: Collect, at: int) -> None:
        """The reveal whose cards were handed to the game is back (an undo took them back): every
        card as it was recorded, waiting for ``ok``, so one hold mends the wrong one."""
        recorded = self.recorded
        if recorded is None or self.answers or not collect.counting or recorded[:2] != (at, collect.title):
            return
        self.recorded = None
        answers = {p: i for p, i in recorded[2].items() if p in collect.players and i < len(collect.values[p])}
        if set(answers) == set(collect.players):
            self.answers, self.locked = answers, set(answers)
            self._save_draft()

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
            if held is not None and player is not None:
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

    def _wrong_seat(
        self,
        press: Press,
        players: tuple[str, ...] | None,
        turn: str | None = None,
        others: Mapping[str, str] | None = None,
    ) -> bool:
        """Answer a seat press that cannot act here, with the reason (the game's own, ``others``,
        else who answers now); True when it was one."""
        if not is_seat(press):
            return False
        player = self.table.player_of(press.button)
        if player is None:
            self.table.toast(T("{player} is not in this game", player=self.table.seat_name(press.button)), now=True)
            return True
        if turn is not None and player != turn:
            self.table.toast(T("{player}'s turn", player=turn), now=True)
            return True
        if players is not None and player not in players:
            why = T("Only {players} now, not {player}", players=join(players), player=player)
            self.table.toast((others or {}).get(player) or why, now=True)
            return True
        return False

    def _press_menu(self, press: Press) -> None:
        menu = self.path[-1]
        side = self.path[0].side
        if side is not None and is_seat(press) and self.table.player_of(press.button) in side.players:
            self._press_collect(side, press)  # an answer out of turn (a bet) while the menu waits
            return
        if self._wrong_seat(press, None, menu.player):
            return
        if press.button == "next" or (is_seat(press) and not press.long):
            self._move(menu, self.index + 1, wraps=press.button == "next")
        elif press.button == "prev":
            self._move(menu, self.index - 1, wraps=True)
        elif press.button == "ok" or (is_seat(press) and press.long):
            option = menu.options[self.index]
            sub = option.submenu()
            if isinstance(sub, Order):
                self.parent, self.prompt, self.order = self.prompt, sub, []  # type: ignore[assignment]  # an Order in place of the menu while it is answered
            elif sub is not None:
                self.path.append(sub)
                self.trail.append(self.index)
                self.index = sub.default
            elif side is not None:
                self._pick_with_side(side, option.action)  # type: ignore[arg-type]  # an option without a sub-menu has an action
            else:
                apply_confirmed(self.table, option.action)  # type: ignore[arg-type]  # as above
        elif press.button == "back":
            if len(self.path) > 1:
                self.path.pop()
                self.index = self.trail.pop()
            else:
                self.table.open_game_menu()

    def _move(self, menu: Menu, index: int, wraps: bool) -> None:
        """Move the highlight; prev/next wrap round the ends, except onto an option that cannot be
        taken back at a glance (a seat's own button has to come round, and that option asks)."""
        n = len(menu.options)
        target = index % n
        if wraps and target != index:
            action = menu.options[target].action
            if action is not None and self.table.confirm_question(action):
                return
        self.index = target

    def _pick_with_side(self, side: Collect, action: dict) -> None:
        """The chooser picked: everyone who has not answered out of turn gives the default answer
        (each its own journaled action, as a script would have it), then the pick."""
        assert side.each is not None and side.default is not None
        choosing = [p for p in side.players if p not in self.locked and p in self.answers]
        undecided = [p for p in choosing if side.values[p][self.answers[p]] != side.default]
        if undecided:
            answer = side.label(side.default)
            self.table.toast(
                T("{player}: hold to lock, or tap to {answer}", player=undecided[0], answer=answer), now=True
            )
            return
        waiting = [p for p in side.players if p not in self.locked]

        def pick() -> None:
            for player in waiting:
                if not self.table.apply(side.each(player, side.default)):  # type: ignore[misc, arg-type]  # a side Collect has each and a default
                    return
            self.table.apply(action)

        question = self.table.confirm_question(action)
        if question:
            self.table.push(Confirm(self.table, T("Sure?"), question, pick))
        else:
            pick()

    def _press_collect(self, prompt: Collect, press: Press) -> None:
        if press.button == "back":
            self.table.open_game_menu()
            return
        if press.button == "ok" and self._all_counted(prompt):
            self._answered(prompt)  # the table has checked every card against the table's
            return
        if not is_seat(press) or self._wrong_seat(press, prompt.players, others=prompt.others):
            if press.button in ("ok", "next", "prev"):  # the hint is on screen already: say why
                left = [p for p in prompt.players if p not in self.locked]
                if prompt.counting:
                    why = T("{players}: hold your own button", players=join(left))
                else:
                    why = T("{players}: answer on your own button", players=join(left))
                self.table.toast(why, now=True)
            return
        player = self.table.player_of(press.button)
        assert player is not None
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
                self.table.toast(T("{player}: hold to unlock", player=player), now=True)
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
            self.table.toast(T("{player}: tap to choose first", player=player), now=True)
            return
        if prompt.build is not None and self.locked >= set(prompt.players) and not prompt.counting:
            self._save_draft()
            self._answered(prompt)
            return
        self._save_draft()

    def _all_counted(self, prompt: Collect) -> bool:
        """Whether every card of a counting reveal is recorded: it waits for ``ok`` (the last
        player to let go can still mend theirs with one hold)."""
        return prompt.counting and prompt.build is not None and self.locked >= set(prompt.players)

    def _answered(self, prompt: Collect, apply: bool = True) -> None:
        """Everyone has locked in: apply the action, or show the prompt the answers lead to."""
        assert prompt.build is not None
        answers = {p: prompt.values[p][self.answers[p]] for p in prompt.players}
        result = prompt.build(answers)
        session = self.table.session
        if prompt.counting and session is not None:
            self.recorded = (len(session.actions), prompt.title, dict(self.answers))
        if isinstance(result, Menu | Collect | Order | Task):
            self._show(result)
            self.parent = prompt
        elif apply and not self.table.apply(result):
            self.recorded = None
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
            self.table.toast(T("ok: {job}", job=prompt.confirm), now=True)

    def _press_order(self, prompt: Order, press: Press) -> None:
        player = self.table.player_of(press.button)
        if press.button == "back":
            if self.order:
                self.order.pop()
            elif self.parent is not None:
                self._back_to_parent()
            else:
                self.table.open_game_menu()
        elif self._wrong_seat(press, prompt.players, others=prompt.others):
            return
        elif not is_seat(press):  # ok, next, prev: the order is the players' own presses
            left = [p for p in prompt.players if p not in self.order]
            self.table.toast(T("{players}: press your own button", players=join(left)), now=True)
        elif player in self.order:
            self.table.toast(T("{player} already pressed", player=player), now=True)
        elif player in prompt.players:
            self.order.append(player)
            if len(self.order) == len(prompt.players):
                order, self.order = self.order, []
                self.table.apply(prompt.build(order))

    # -- drawing ------------------------------------------------------------------------------------
    def must_read(self) -> list[str]:
        """What the table must read now: the facts the game names for its state
        (:meth:`View.must_read <games.core.View.must_read>`: the bets riding and the dive, every
        revealed card, the supply and the order of play…), the question being asked (the menu's,
        the reveal's, the order's title, a task's job) and the option highlighted."""
        session = self.table.session
        if session is None:
            return []
        facts = list(session.view().must_read())
        prompt = self.prompt
        if self._asks():
            facts.append(self._question())
        if isinstance(prompt, Menu):
            menu = self.path[-1]
            facts.append(menu.options[self.index % len(menu.options)].label)
        elif isinstance(prompt, Task):
            facts += list(prompt.lines)
        return facts

    def _asks(self) -> bool:
        """Whether the question must show: always, but while a passing message (a refusal, a
        hint) says something in its place for a few seconds."""
        return not (self.table.showing() and not self.table.message_lasts())

    def frame(self) -> Frame:
        """The game's frame: its parts (:meth:`_parts`) sharing the panel's rows
        (:func:`~firmware_host.ui.room.share`), the message among them, laid out here."""
        session = self.table.session
        if session is None:
            return Frame("tablemate", (Row.of(_("No game")),))
        view = session.view()
        on = panel()
        note, time_bar = self.table.title_note(), self.table.time_bar()
        bar = time_bar is not None
        said = [tr(part) for part in self.table.showing()]
        free = view.title not in view.facts
        while len(said) > 1 and not fits(self._parts(view, said, bar), on, title_free=free):
            said = said[1:]  # outcomes of one moment: the older give way, the newest shows whole
        rows, titled = share(self._parts(view, said, bar), on, title_free=free)
        frame = compose(Frame(titled or view.title, tuple(rows), note, time_bar, keep=0), on)
        return replace(frame, message=PARTS.join(said))

    def _parts(self, view: View, said: list[str], bar: bool) -> list[Part]:
        """What the frame shows, in its order: the score grid, the game's lines, the question and
        the prompt's rows, the message above the highlighted option; what the table must read
        (:meth:`must_read`) must show, the rest may."""
        prompt = self.prompt
        on = panel()
        active = view.active
        if isinstance(prompt, Collect):  # a reveal: marked are those who still owe their answer
            active = tuple(p for p in active if p not in self.locked)
        scores = [needed_rows(score_rows(view.scores, active, big=big)) for big in (True, False)]
        scores.append(needed_rows(score_rows(view.scores, active, tight=True)))  # crowded: the fewest rows
        acting = [(p, value) for p, value in view.scores if p in active]  # squeezed: whose turn it is
        turn = needed_rows(score_rows(acting, active, tight=True)) if acting and self._asks() else []
        # (a passing message takes the whole grid's place for its few seconds, if it must)
        width = on.content_w - 2 - (BAR_W if bar else 0)
        title_w = width - (text_width(tr(note)) + 2 if (note := self.table.title_note()) else 0)
        question = self._question()
        shown = {tr(line) for line in (*view.lines[: view.news], *view.must_read(), question)}
        message = PARTS.join(part for part in said if part not in shown)  # what no line says already

        def text(line: str, must: bool, rank: int) -> Part:  # a line that may show: else on one row, cut
            titled = title_line(line, title_w) if must else None  # the title bar's, as the last resort
            fallback = None if must else text_rows(line, 1)
            return Part(wrapped_forms(line, bar), must, titled, title_rank=2, rank=rank, fallback=fallback)

        asks = self._asks() or tr(question) in said
        lines = []
        for i, line in enumerate(view.lines):
            if tr(line) == tr(question) and asks:
                continue  # the question says it (Antartik's dive in the diver's menu)
            if i in view.needed:
                lines.append(text(line, True, WORDS))
            elif i < view.news:  # the message, when the line says it
                lines.append(text(line, tr(line) in said, WORDS if tr(line) in said else NEWS))
            else:
                lines.append(text(line, False, OTHER))
        asked = []
        if question:
            forms = wrapped_forms(question, bar, needed=False)
            big = big_row(question)
            if big.big:  # whose turn it is, twice the size where there is room
                forms = [[big], *forms]
            asked.append(Part(forms, asks, title_line(question, title_w), rank=WORDS if asks else NEWS))
        told = []
        if message:  # inverted, above the highlighted option and the hint
            forms = wrapped_forms(message, bar, invert=True, needed=False)
            told.append(Part(forms, True, title_line(message, title_w), title_rank=1, rank=WORDS))
        hint = [Part([[self._hint()]], self._hint_needed(bool(said)), rank=HINT)]
        if isinstance(prompt, Collect):
            grids = self._answers(prompt)
            return [*asked, Part(grids, rank=ANSWERS), Part(scores, False, rank=NEWS), *lines, *told, *hint]
        if isinstance(prompt, Task):
            status = self.table.task_line(prompt)
            jobs = [Part(wrapped_forms(line, bar, needed=False)) for line in prompt.lines]
            foot = Part([[Row.of(T("ok: {job}", job=prompt.confirm), invert=True)]])
            scale = Part([text_rows(status, 1)], False, rank=HINT) if status else Part([])
            return [*asked, *jobs, *lines, scale, *told, foot]
        body = self._prompt_body()
        grid_part = Part(scores, rank=GRID, squeezed=turn if on.height_of(turn) < on.height_of(scores[-1]) else None)
        return [grid_part, *lines, *asked, *told, *(Part([[row]]) for row in body), *hint]

    def asking(self) -> Prompt | None:
        """The prompt the screen shows now: the menu the path has reached (after a tie's *Random
        order*, the defusal's), else the game's prompt or the one its answers led to."""
        if isinstance(self.prompt, Menu) and self.path:
            return self.path[-1]
        return self.prompt

    def _question(self) -> str:
        """The question being asked: the menu's title (whose turn it is, and what is asked), the
        reveal's, the order's, the task's."""
        prompt = self.prompt
        if isinstance(prompt, Menu) and self.path:
            return self.path[-1].title
        if isinstance(prompt, Collect | Order | Task):
            return prompt.title
        return ""

    def _prompt_body(self) -> list[Row]:
        """The prompt's rows under its question: the highlighted option, or the order pressed so
        far."""
        prompt = self.prompt
        if isinstance(prompt, Menu):
            menu = self.path[-1]
            n = len(menu.options)
            self.index %= n
            option = menu.options[self.index]
            label = join([option.label, ">"], " ") if option.then is not None else option.label
            where = f"{self.index + 1}/{n}"
            width = panel().content_w - 2 - (BAR_W if self.table.time_bar() is not None else 0)
            if text_width(tr(label)) + text_width(where) + 2 > width:  # the option whole, before where it is
                where = ""
            return [Row.of(label, where, invert=True, cut=True)]
        if isinstance(prompt, Order):
            left = [p for p in prompt.players if p not in self.order]
            done = " ".join(self.order) + (f" ({' '.join(left)})" if left else "")
            return [Row.of(done.strip(), cut=True)]
        return []

    def _hint(self) -> Row:
        """The hint under the prompt: which buttons do what (a bet being chosen out of turn:
        ``Ben bet 3? hold``)."""
        prompt = self.prompt
        if isinstance(prompt, Collect):
            return Row.of(_("ok: done  hold: mend") if self._all_counted(prompt) else _collect_hint(prompt))
        if isinstance(prompt, Order):
            return Row.of(_("press in order"))
        if not isinstance(prompt, Menu):
            return Row.of()
        side = self.path[0].side
        choosing = [p for p in self.answers if p not in self.locked] if side is not None else []
        if side is not None and choosing:  # a bet being chosen out of turn: hold to lock it
            return chosen_row(choosing, [tr(side.label(side.values[p][self.answers[p]])) for p in choosing])
        if self.table.has_timer():
            return Row.of(_("ok: pick  hold ok: pause"))
        return Row.of(_("ok: pick  back") if len(self.path) > 1 else _("tap: next  ok: pick"))

    def _hint_needed(self, message: bool) -> bool:
        """Whether the hint must show: every card counted, waiting for ``ok``; a bet being chosen
        (unless a message says what to do)."""
        prompt = self.prompt
        if isinstance(prompt, Collect):
            return self._all_counted(prompt)
        if isinstance(prompt, Menu) and self.path and self.path[0].side is not None and not message:
            return any(p not in self.locked for p in self.answers)
        return False

    def _answers(self, prompt: Collect) -> list[list[Row]]:
        """Everyone's answer so far, in the open (the table has turned its cards face up), as a
        grid: every player's, else the answers given so far (the score grid's ``>`` marks who
        still owes one)."""
        cells = []
        counting = self._counting()
        for p in prompt.players:
            if p in counting:
                cells.append((p, f"{tr(prompt.label(prompt.values[p][counting[p]]))}<"))
            elif p in self.locked:
                cells.append((p, f"[{tr(prompt.label(prompt.values[p][self.answers[p]]))}]"))
            elif p in self.answers:
                cells.append((p, f"{tr(prompt.label(prompt.values[p][self.answers[p]]))}?"))
            else:
                cells.append((p, "..."))
        given = [c for c in cells if c[1] != "..."]
        return [grid(cells, per_row(cells)), grid(given, per_row(given)) if given else []]


def needed_rows(rows: list[Row]) -> list[Row]:
    """``rows`` marked as needed (:attr:`~firmware_host.ui.render.Row.needed`): a message takes
    the place of any other row first."""
    return [replace(row, needed=True) for row in rows]


def _collect_hint(prompt: Collect) -> str:
    """The hint under a Collect: hold and let go for a counting one, else tap and hold."""
    return T("hold, let go at yours") if prompt.counting else T("tap: change  hold: lock")
