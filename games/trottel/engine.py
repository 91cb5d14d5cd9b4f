"""Trottelmütze: a drinking board game with a dunce cap, a standing table and a drink ledger.

The rules as the device applies them, with its rulings: ``docs/trottel.md``.
The companion rolls (or takes physical dice), moves every piece on its model of the board, applies
fields, meetings, Jail and the Stehtisch, tracks the cap and who is away, and books every drink.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

from games.core import (
    Action,
    BaseState,
    Effect,
    Engine,
    Menu,
    Option,
    Refused,
    Rng,
    SetupError,
    T,
    Text,
    View,
    get_field,
    get_player,
    join,
    need,
    say,
    signal,
)
from games.trottel.board import (
    DEFAULT_BOARD,
    DEFAULT_CASINO,
    DRINK_NAMES,
    DRINK_WORDS,
    DRINKS,
    KINDS,
    SHORT,
    board_error,
    casino_error,
    counts,
    effect_error,
    field_label,
)
from games.trottel.ear import EAR

CAP = "▲"
"""The cap holder's mark beside their number in the score grid: the dunce cap (a glyph of the
panel's font; the title bar names the holder in words)."""


def no_drinks() -> dict[str, int]:
    """An empty drink count."""
    return dict.fromkeys(DRINKS, 0)


@dataclass
class TrottelState(BaseState):
    """The board, the pieces, the cap, the Stehtisch, who is away, and every drink taken.

    ``current`` indexes ``players``; ``contenders`` is non-empty while a tie in the cap roll
    waits for a re-roll; ``again`` says the current player rolls again once ``pending`` is done.
    ``tally``/``tisch``/``log`` collect what the action in progress did, for ``line``.
    """

    board: list[str] = field(default_factory=list)
    casino: dict[str, dict[str, Any]] = field(default_factory=dict)
    alcohol_free: bool = False
    cap: str | None = None
    current: int = 0
    contenders: list[str] = field(default_factory=list)
    started: bool = False
    positions: dict[str, int] = field(default_factory=dict)
    stehtisch: dict[str, int] = field(default_factory=no_drinks)
    drinks: dict[str, dict[str, int]] = field(default_factory=dict)
    away: dict[str, bool] = field(default_factory=dict)
    """Names away → whether the game allowed it (no cap on return)."""
    passes: list[str] = field(default_factory=list)
    """Players the game lets go to the toilet now (until the next turn's roll)."""
    cards: dict[int, dict[str, int]] = field(default_factory=dict)
    """Field index → drink cards lying on it."""
    pending: str | None = None
    again: bool = False
    rerolls: bool = False
    """The current player rolled a double and rolls again (their roll's question says so)."""
    line: str = ""
    tally: dict[str, dict[str, int]] = field(default_factory=dict)
    tisch: dict[str, int] = field(default_factory=no_drinks)
    log: list[str] = field(default_factory=list)


def check_dice(value: Any, name: str | Text) -> tuple[int, int]:
    """Two dice from an action field: a list of two whole numbers 1..6."""
    ok = (
        isinstance(value, list)
        and len(value) == 2
        and all(isinstance(d, int) and not isinstance(d, bool) and 1 <= d <= 6 for d in value)
    )
    need(ok, T("{name} must be two dice like [3, 5]", name=name))
    return value[0], value[1]


class Trottel(Engine[TrottelState]):
    """The Trottelmütze engine."""

    id = "trottel"
    title = T("Trottelmuetze")
    ear = EAR
    min_players = 2
    max_players = None
    option_keys = frozenset({"board", "casino", "alcohol_free"})
    rules_pick_start = True
    ranks = False  # a session: nobody wins, the totals of drinks are its result
    unit = T("drinks")  # beer, shots and water together: the number each player's result shows
    confirm: ClassVar[dict[str, str]] = {"end": T("End the session now? The scores go to the history.")}
    menu_options = (("alcohol_free", T("Alcohol-free"), ((T("off"), False), (T("on"), True))),)
    """Options the device asks for when a game starts (key, label, choices)."""

    def setup(self, players: list[str], rng: Rng, options: dict[str, Any]) -> TrottelState:
        board = options.get("board", list(DEFAULT_BOARD))
        problem = board_error(board)
        if problem:
            raise SetupError(problem)
        casino = options.get("casino", DEFAULT_CASINO)
        problem = casino_error(casino, players, len(board))
        if problem:
            raise SetupError(problem)
        alcohol_free = options.get("alcohol_free", False)
        if not isinstance(alcohol_free, bool):
            raise SetupError(T("alcohol_free must be true or false"))
        s = TrottelState(
            players=players,
            rng=rng,
            options=options,
            board=list(board),
            casino={k: dict(v) for k, v in casino.items()},
            alcohol_free=alcohol_free,
            positions=dict.fromkeys(players, 0),
            drinks={p: no_drinks() for p in players},
        )
        s.stehtisch["beer"] = 1  # setup: one beer on the Stehtisch
        self._seeded_cap(s)
        s.line = s.log[-1]
        s.log = []
        return s

    # -- the cap roll -------------------------------------------------------------------------------
    def _cap_round(self, s: TrottelState, rolls: dict[str, tuple[int, int]]) -> None:
        totals = {p: a + b for p, (a, b) in rolls.items()}
        low = min(totals.values())
        tied = [p for p in s.players if totals.get(p) == low]
        if len(tied) == 1:
            s.cap, s.contenders = tied[0], []
            s.current = s.players.index(tied[0])
            self._log(s, T("Cap roll: {player} lowest ({total})", player=tied[0], total=low))
        else:
            s.cap, s.contenders = None, tied
            self._log(s, T("Cap roll: {players} tie ({total})", players=join(tied), total=low))

    def _seeded_cap(self, s: TrottelState) -> None:
        """Roll for the cap with seeded dice (ties re-roll among the tied) until it is settled."""
        contenders = s.contenders or list(s.players)
        while True:
            self._cap_round(s, {p: (s.rng.die(), s.rng.die()) for p in contenders})
            if not s.contenders:
                return
            contenders = s.contenders

    def move_cap_roll(self, s: TrottelState, action: Action, effects: list[Effect]) -> None:
        """The setup roll for the cap, before the first turn: lowest total gets it and starts."""
        self._begin(s)
        need(not s.started, T("the cap roll is over: the game has begun"))
        contenders = s.contenders or list(s.players)
        gone = [p for p in contenders if p in s.away]
        need(not gone, T("{players} away: roll when back", players=join(gone)))
        rolls = get_field(action, "rolls", dict, None)
        if rolls is None:
            self._seeded_cap(s)
        else:
            need(
                set(rolls) == set(contenders),
                T("cap_roll needs one roll from each of {players}", players=join(contenders)),
            )
            self._cap_round(s, {p: check_dice(rolls[p], T("{player}'s roll", player=p)) for p in contenders})
        self._finish(s, effects)

    # -- turns --------------------------------------------------------------------------------------
    def move_roll(self, s: TrottelState, action: Action, effects: list[Effect]) -> None:
        """The current player's roll: a double costs the cap a beer; move; enter the field."""
        self._begin(s)
        need(s.pending is None, self._pending_reason(s))
        if s.contenders:
            self._seeded_cap(s)
        p = s.players[s.current]
        a, b = self._dice(s, action, "dice")
        s.started = True
        s.rerolls = False
        s.passes = []  # a Pinkeln pass cannot be saved for later
        double = a == b
        if double:  # the cap drinks before the piece moves (it may leave Jail)
            assert s.cap is not None
            self._give(s, s.cap, "beer")
        self._enter(s, p, (s.positions[p] + a + b) % len(s.board), f"{p} {a}+{b}")
        self._then(s, double)
        self._finish(s, effects)

    def move_taxi(self, s: TrottelState, action: Action, effects: list[Effect]) -> None:
        """The Taxi's ride: to any field (not a Taxi), entered as if moved there."""
        self._begin(s)
        need(s.pending == "taxi", T("no taxi is waiting"))
        to = get_field(action, "to", int)
        need(0 <= to < len(s.board), T("to must be a field 0–{last}", last=len(s.board) - 1))
        need(s.board[to] != "taxi", T("the taxi cannot go to a Taxi field"))
        p = s.players[s.current]
        s.pending = None
        self._enter(s, p, to, T("{player} taxi", player=p))
        self._then(s, s.again)
        self._finish(s, effects)

    def move_invite(self, s: TrottelState, action: Action, effects: list[Effect]) -> None:
        """The Schüttelbude's invitation: the guest joins the field and both drink the drink."""
        self._begin(s)
        need(s.pending == "invite", T("nobody is at the Schuettelbude"))
        p = s.players[s.current]
        guest = get_player(s, action)
        need(guest != p, T("{player} cannot invite themselves", player=p))
        drink = get_field(action, "drink", str)
        need(drink in DRINKS, T("drink must be beer, shot or water, not {drink}", drink=repr(drink)))
        s.pending = None
        s.positions[guest] = s.positions[p]
        self._log(s, T("{player} invites {guest}", player=p, guest=guest))
        self._give(s, p, drink)
        self._give(s, guest, drink)
        self._then(s, s.again)
        self._finish(s, effects)

    def move_casino(self, s: TrottelState, action: Action, effects: list[Effect]) -> None:
        """A Spielothek roll: the payout; a double costs the cap a beer and plays again."""
        self._begin(s)
        need(s.pending == "casino", T("nobody is at the Spielothek"))
        p = s.players[s.current]
        a, b = self._dice(s, action, "dice")
        self._log(s, T("{player} casino {a}+{b}", player=p, a=a, b=b))
        payout = s.casino.get(str(a + b))
        if payout is None:
            self._log(s, T("no win"))
        else:
            self._effect(s, payout, p, strict=False)
        if a == b:
            self._log(s, T("play again"))
            assert s.cap is not None
            self._give(s, s.cap, "beer")
        else:
            s.pending = None
            self._then(s, s.again)
        self._finish(s, effects)

    # -- out of turn ----------------------------------------------------------------------------------
    def move_leave(self, s: TrottelState, action: Action, effects: list[Effect]) -> None:
        """A player goes to the toilet; without the game's leave they get the cap on return."""
        self._begin(s)
        self._no_contest(s)
        p = self._player(s, action)
        need(p != s.cap, T("{player} has the cap: never to the toilet", player=p))
        need(p not in s.away, T("{player} is already away", player=p))
        turn = s.players[s.current]
        need(not (s.pending and p == turn), self._pending_reason(s))
        allowed = p in s.passes
        if allowed:
            s.passes.remove(p)
        s.away[p] = allowed
        if allowed:
            self._log(s, T("{player} to WC", player=p))
        else:
            self._log(s, T("{player} to WC, cap on return", player=p))
        if p == turn:
            self._log(s, T("{player} skipped", player=p))
            self._give(s, p, "beer")
            s.again = False
            self._next_player(s)
        self._finish(s, effects)

    def move_return(self, s: TrottelState, action: Action, effects: list[Effect]) -> None:
        """A player is back from the toilet (with the cap if they went without leave)."""
        self._begin(s)
        self._no_contest(s)
        p = self._player(s, action)
        need(p in s.away, T("{player} is not away", player=p))
        allowed = s.away.pop(p)
        if allowed:
            self._log(s, T("{player} back", player=p))
        else:
            s.cap = p
            self._log(s, T("{player} back: cap", player=p))
        self._finish(s, effects)

    def move_penalty(self, s: TrottelState, action: Action, effects: list[Effect]) -> None:
        """Whining or a broken rule: a shot."""
        self._begin(s)
        p = self._player(s, action)
        self._log(s, T("{player} penalty", player=p))
        self._give(s, p, "shot")
        self._finish(s, effects)

    def move_effect(self, s: TrottelState, action: Action, effects: list[Effect]) -> None:
        """A card's effect (Arschloch or Willkommen am Arsch), entered as a generic effect."""
        self._begin(s)
        self._no_contest(s)
        problem = effect_error(action, s.players, len(s.board), strict=False)
        if problem is not None:
            raise Refused(problem)
        self._effect(s, action, s.players[s.current], strict=True)
        self._finish(s, effects)

    def move_end(self, s: TrottelState, action: Action, effects: list[Effect]) -> None:
        """The table ends the session; the drink totals stand."""
        self._begin(s)
        s.over = True
        self._log(s, T("Session over"))
        self._finish(s, effects)

    # -- the rules' machinery -------------------------------------------------------------------------
    def _enter(self, s: TrottelState, p: str, index: int, how: str) -> None:
        """Steps 3–5 of a turn: drink cards on the field, the meeting, the field's action."""
        s.positions[p] = index
        kind = s.board[index]
        self._log(s, join([how, SHORT[kind]], " "))
        for drink, n in s.cards.pop(index, {}).items():
            if n:
                self._give(s, p, drink, n)
        others = [q for q in s.players if q != p and s.positions[q] == index]
        if others:
            self._log(s, T("meet"))
            for q in [p, *others]:
                self._give(s, q, "beer")
        if kind == "schuettelbude":
            s.pending = "invite"
        elif kind == "taxi":
            s.pending = "taxi"
        elif kind == "spielothek":
            s.pending = "casino"
        elif kind == "trottelmuetze":
            s.cap = p
        elif kind == "stehtisch":
            table, s.stehtisch = s.stehtisch, no_drinks()
            for drink, n in table.items():
                if n:
                    self._give(s, p, drink, n)
            s.stehtisch["beer"] += 1  # the law of beer conservation: a new beer
        elif kind in ("kneipe", "brennerei"):
            for q in s.players:
                self._give(s, q, "beer" if kind == "kneipe" else "shot")
        elif kind == "bier":
            self._give(s, p, "beer")
        elif kind == "kurzer":
            self._give(s, p, "shot")
        elif kind == "daemmerschoppen":
            self._give(s, p, "beer")
            self._give(s, p, "shot")
        elif kind == "fruehschoppen":
            self._give(s, p, "beer", 2)
        elif kind == "teich":
            self._give(s, p, "water")
        elif kind == "waa":
            self._log(s, T("read a WaA card"))
        elif kind == "arschloch":
            self._log(s, T("take an Arschloch card"))
        elif kind == "pinkeln" and p != s.cap:  # the field's name says it: ``Ann 3+4 Pinkeln``
            s.passes.append(p)

    def _give(self, s: TrottelState, p: str, drink: str, n: int = 1) -> None:
        """``p`` drinks ``n`` of ``drink`` — unless on Jail: then it goes onto the Stehtisch."""
        if s.board[s.positions[p]] == "jail":
            s.stehtisch[drink] += n
            s.tisch[drink] += n
        else:
            s.drinks[p][drink] += n
            s.tally.setdefault(p, no_drinks())[drink] += n

    def _effect(self, s: TrottelState, effect: dict[str, Any], default: str, strict: bool) -> None:
        """One generic card or payout effect; ``strict`` refuses what cannot be done, else it is void."""

        def fail(reason: Text) -> None:
            if strict:
                raise Refused(reason)
            self._log(s, join(["(", reason, ")"], ""))

        kind = effect["kind"]
        if kind == "field_drink":
            index, drink = effect["field"], effect["drink"]
            s.cards.setdefault(index, no_drinks())[drink] += 1
            self._log(s, T("{drink} card on field {field}", drink=DRINK_WORDS[drink], field=index))
            return
        p = effect.get("player", default)
        if kind == "drink":
            if strict:
                self._log(s, T("card"))
            self._give(s, p, effect["drink"])
        elif kind == "cap":
            if p in s.away:
                return fail(T("{player} is away: no cap", player=p))
            s.cap = p
            self._log(s, T("cap {player}", player=p))
        elif kind == "move":
            s.positions[p] = effect["to"]
            self._log(s, T("{player} moved to {field}", player=p, field=effect["to"]))
        elif kind == "pee_pass":
            if p == s.cap:
                return fail(T("{player} has the cap: no toilet", player=p))
            if p in s.away:
                return fail(T("{player} is already away", player=p))
            if p not in s.passes:
                s.passes.append(p)
            self._log(s, self._may_pee(s, p))
        return None

    def _then(self, s: TrottelState, again: bool) -> None:
        """After a field: wait for its choice, or end the move (a double rolls again)."""
        if s.pending is not None:
            s.again = again
            return
        s.again = False
        s.rerolls = again  # the question says it (``Ann: roll again``), the line keeps its room
        if not again:
            self._next_player(s)

    def _next_player(self, s: TrottelState) -> None:
        """The next player clockwise; anyone away is skipped and owed a beer."""
        n = len(s.players)
        i = s.current
        s.rerolls = False
        skipped = []
        for _ in range(n):  # the cap holder is never away, so someone is found
            i = (i + 1) % n
            q = s.players[i]
            if q not in s.away:
                s.current = i
                break
            skipped.append(q)
            self._give(s, q, "beer")
        if skipped:
            self._log(s, T("{players} skipped", players=join(skipped, "/")))

    # -- helpers -----------------------------------------------------------------------------------------
    def _dice(self, s: TrottelState, action: Action, name: str) -> tuple[int, int]:
        if name in action:
            return check_dice(action[name], name)
        return s.rng.die(), s.rng.die()

    def _player(self, s: TrottelState, action: Action) -> str:
        if "player" not in action:
            need(not s.contenders, T("{action} needs 'player' while the cap is rolled for", action=action["type"]))
            return s.players[s.current]
        return get_player(s, action)

    def _no_contest(self, s: TrottelState) -> None:
        need(not s.contenders, T("first the cap: {players} re-roll", players=join(s.contenders)))

    def _pending_reason(self, s: TrottelState) -> Text:
        p = s.players[s.current]
        if s.pending == "taxi":
            return T("{player} must choose a taxi target first", player=p)
        if s.pending == "invite":
            return T("{player} must invite someone first", player=p)
        if s.pending == "casino":
            return T("{player} must play the Spielothek first", player=p)
        return T("{player} must choose first", player=p)

    def _log(self, s: TrottelState, text: Text) -> None:
        s.log.append(text)

    def _may_pee(self, s: TrottelState, p: str) -> Text:
        """``p`` may go to the toilet: said without the name when the line is about ``p`` already
        (``Ann 3+4 Pinkeln, may pee``), so a line for six players stays whole on the panel."""
        return T("may pee") if s.players[s.current] == p and s.log else T("{player} may pee", player=p)

    def _begin(self, s: TrottelState) -> None:
        s.tally, s.tisch, s.log = {}, no_drinks(), []

    def _finish(self, s: TrottelState, effects: list[Effect]) -> None:
        drank = self.drink_line(s)
        text = join(s.log)
        s.line = join([drank, text], " | ") if drank else text
        s.log = []
        effects.append(say(s.line))
        if not s.over and s.tally:
            effects.append(signal("penalty"))

    def drink_line(self, s: TrottelState) -> Text:
        """Who drinks what in the action just done: ``all B``, ``Ann 2B+S, Ben/Cy B, Tisch+B``."""
        each = {p: self._amount(s, s.tally[p]) for p in s.players if p in s.tally}
        parts: list[str] = []
        if len(each) == len(s.players) and len(set(each.values())) == 1:
            parts.append(T("all {drinks}", drinks=next(iter(each.values()))))
        else:  # who drink the same, together: ``Ann/Ben/Cy B`` (a line for six players, whole)
            same: dict[str, list[str]] = {}
            for p, amount in each.items():
                same.setdefault(amount, []).append(p)
            parts += [join([join(names, "/"), amount], " ") for amount, names in same.items()]
        if any(s.tisch.values()):
            parts.append(T("Tisch+{drinks}", drinks=counts(s.tisch)))
        return join(parts)

    def _amount(self, s: TrottelState, drinks: dict[str, int]) -> str:
        return f"+{sum(drinks.values())}" if s.alcohol_free else counts(drinks)

    # -- reading ---------------------------------------------------------------------------------------
    def scores(self, s: TrottelState) -> dict[str, int]:
        return {p: sum(s.drinks[p].values()) for p in s.players}

    def winners(self, s: TrottelState) -> list[str]:
        """Nobody: the rules name no winner (``docs/trottel.md``)."""
        return []

    def turn(self, s: TrottelState) -> str | None:
        return None if s.contenders else s.players[s.current]

    def details(self, s: TrottelState) -> dict[str, Any]:
        return {
            "cap": s.cap,
            "positions": dict(s.positions),
            "stehtisch": dict(s.stehtisch),
            "drinks": {p: dict(s.drinks[p]) for p in s.players},
            "away": [p for p in s.players if p in s.away],
            "board": list(s.board),
            "pending": s.pending,
        }

    # -- prompts -----------------------------------------------------------------------------------------
    def prompt(self, s: TrottelState) -> Menu | None:
        if s.over:
            return None
        if s.contenders:
            options = (
                Option(T("Roll dice"), action={"type": "cap_roll"}),
                Option(T("Enter dice"), then=lambda: self._cap_dice_menu(s.contenders, {})),
            )
            return Menu(T("Cap tie: {players}", players=join(s.contenders)), options)
        p = s.players[s.current]
        if s.pending == "invite":
            guests = tuple(
                Option(
                    q,
                    then=self._drink_menu(
                        T("{player}+{guest} drink?", player=p, guest=q), {"type": "invite", "player": q}, p
                    ),
                )
                for q in s.players
                if q != p
            )
            return Menu(T("{player}: invite whom?", player=p), guests, p)
        if s.pending == "taxi":
            return Menu(T("{player}: taxi to?", player=p), self._taxi_targets(s, p), p)
        if s.pending == "casino":
            return Menu(T("{player}: Spielothek", player=p), self._dice_options(p, "casino"), p)
        options = self._dice_options(p, "roll")
        if not s.started:
            players = list(s.players)
            options += (Option(T("Cap roll: enter"), then=lambda: self._cap_dice_menu(players, {})),)
        return Menu(T("{player}: roll again", player=p) if s.rerolls else T("{player}: roll", player=p), options, p)

    def _taxi_targets(self, s: TrottelState, p: str) -> tuple[Option, ...]:
        """Where a taxi can go, by kind of field, nearest ahead first (``prev`` walks back from the
        far end): a kind on one field is one line, a kind on several opens its fields."""
        n = len(s.board)
        ahead = [(s.positions[p] + step) % n for step in range(1, n + 1)]
        fields: dict[str, list[int]] = {}
        for i in ahead:
            if s.board[i] != "taxi":
                fields.setdefault(s.board[i], []).append(i)
        options = []
        for kind, places in fields.items():
            rides = tuple(Option(field_label(s.board, i), action={"type": "taxi", "to": i}) for i in places)
            if len(rides) == 1:
                options.append(rides[0])
            else:
                label = join([KINDS[kind], f"({len(rides)})"], " ")
                options.append(Option(label, then=Menu(T("{player}: taxi to?", player=p), rides, p)))
        return tuple(options)

    def _dice_options(self, p: str, kind: str) -> tuple[Option, ...]:
        """Roll (seeded) or enter physical dice, for a ``roll`` or ``casino`` action."""

        def second(a: int) -> Menu:
            faces = tuple(Option(f"{a}+{b}", action={"type": kind, "dice": [a, b]}) for b in range(1, 7))
            return Menu(T("{player}: {a} + die 2?", player=p, a=a), faces, p)

        def first() -> Menu:
            faces = tuple(Option(str(a), then=lambda a=a: second(a)) for a in range(1, 7))
            return Menu(T("{player}: die 1?", player=p), faces, p)

        return (Option(T("Roll dice"), action={"type": kind}), Option(T("Enter dice"), then=first))

    def _cap_dice_menu(self, players: list[str], rolls: dict[str, list[int]], first: int | None = None) -> Menu:
        """Physical dice of the cap roll, one die at a time, player after player."""
        p = players[len(rolls)]
        if first is None:
            faces = tuple(Option(str(a), then=lambda a=a: self._cap_dice_menu(players, rolls, a)) for a in range(1, 7))
            return Menu(T("Cap: {player} die 1?", player=p), faces)
        options = []
        for b in range(1, 7):
            done = {**rolls, p: [first, b]}
            if len(done) == len(players):
                options.append(Option(f"{first}+{b}", action={"type": "cap_roll", "rolls": done}))
            else:
                options.append(Option(f"{first}+{b}", then=lambda done=done: self._cap_dice_menu(players, done)))
        return Menu(T("Cap: {player} {a} + die 2?", player=p, a=first), tuple(options))

    def _drink_menu(self, title: str, base: Action, player: str | None = None) -> Menu:
        options = tuple(Option(DRINK_NAMES[d], action={**base, "drink": d}) for d in DRINKS)
        return Menu(title, options, player)

    def _players_menu(self, title: str, players: list[str], build: Any) -> Menu:
        return Menu(title, tuple(Option(q, **build(q)) for q in players))

    def anytime(self, s: TrottelState) -> list[Option]:
        """Toilet trips, penalty shots, card effects and the end of the session, at any time."""
        if s.over:
            return []
        out: list[Option] = []
        if not s.contenders:
            for p in s.players:
                if p in s.away:
                    out.append(Option(T("{player} back from WC", player=p), action={"type": "return", "player": p}))
                elif p != s.cap:
                    leave = T("{player} to WC (allowed)", player=p) if p in s.passes else T("{player} to WC", player=p)
                    out.append(Option(leave, action={"type": "leave", "player": p}))
        everyone = list(s.players)
        out.append(
            Option(
                T("Penalty shot"),
                then=lambda: self._players_menu(
                    T("Penalty: who?"), everyone, lambda q: {"action": {"type": "penalty", "player": q}}
                ),
            )
        )
        if not s.contenders:
            out.append(Option(T("Card effect"), then=lambda: self._card_menu(s)))
        out.append(Option(T("End session"), action={"type": "end"}))
        return out

    def _card_menu(self, s: TrottelState) -> Menu:
        """The generic effects of the physical cards."""
        everyone = list(s.players)
        present = [p for p in s.players if p not in s.away]
        may_pee = [p for p in present if p != s.cap]
        board = list(s.board)

        def drink(q: str) -> dict[str, Any]:
            base = {"type": "effect", "kind": "drink", "player": q}
            return {"then": self._drink_menu(T("{player} drinks?", player=q), base)}

        def move(q: str) -> Menu:
            targets = tuple(
                Option(field_label(board, i), action={"type": "effect", "kind": "move", "player": q, "to": i})
                for i in range(len(board))
            )
            return Menu(T("Move {player} to?", player=q), targets)

        def field_drink() -> Menu:
            targets = tuple(
                Option(
                    field_label(board, i),
                    then=self._drink_menu(
                        T("Card on {field}?", field=i), {"type": "effect", "kind": "field_drink", "field": i}
                    ),
                )
                for i in range(len(board))
            )
            return Menu(T("Drink on which field?"), targets)

        options = [
            Option(T("Give a drink"), then=lambda: self._players_menu(T("Who drinks?"), everyone, drink)),
            Option(
                T("Give the cap"),
                then=lambda: self._players_menu(
                    T("Cap to?"), present, lambda q: {"action": {"type": "effect", "kind": "cap", "player": q}}
                ),
            ),
            Option(
                T("Move a piece"),
                then=lambda: self._players_menu(T("Move whom?"), everyone, lambda q: {"then": lambda: move(q)}),
            ),
        ]
        if may_pee:
            options.append(
                Option(
                    T("Toilet pass"),
                    then=lambda: self._players_menu(
                        T("Pass for?"),
                        may_pee,
                        lambda q: {"action": {"type": "effect", "kind": "pee_pass", "player": q}},
                    ),
                )
            )
        options.append(Option(T("Drink on a field"), then=field_drink))
        return Menu(T("Card effect"), tuple(options))

    # -- the screen ------------------------------------------------------------------------------------------
    def view(self, s: TrottelState) -> View:
        title = T("Cap {player}  Tisch {drinks}", player=s.cap or "?", drinks=counts(s.stehtisch))
        scores: list[tuple[str, str]] = []
        for p in s.players:
            cap = CAP if p == s.cap else ""  # the cap's glyph beside the number: six scores on two rows
            marks = ["WC"] if p in s.away else []
            scores.append((p, join([f"{sum(s.drinks[p].values())}{cap}", *marks], " ")))
        lines = [s.line, " ".join(f"{p}@{s.positions[p]}" for p in s.players)]
        cards = [join([counts(c), str(i)], "@") for i, c in sorted(s.cards.items()) if any(c.values())]
        if cards:
            lines.append(T("Cards {cards}", cards=join(cards, " ")))
        if s.over:
            over = (T("Session over"), *lines[:1])  # and who drank what, and why, last
            return View(self.title, tuple(scores), over, (), "over", needed=tuple(range(len(over))))

        active = tuple(s.contenders) if s.contenders else (s.players[s.current],)
        news = 1 if s.line else 0  # the last roll's dice, the field it reached, who drinks what
        return View(title, tuple(scores), tuple(lines), active, "playing", news)


ENGINE = Trottel()
"""Trottelmütze (a drinking board game)."""
