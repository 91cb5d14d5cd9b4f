"""Antartik (Ilopeli 2012): push your luck diving, with bets from the other players.

The rules as the device applies them, with its rulings: ``docs/antartik.md``. The
companion runs the draw pile (seeded) or follows a physical one (the diver names each card),
gates every decision of the diver on the other players' pass-or-bet, detects the belly flop,
settles bets, and handles referee, parachute and exchange.

A turn, as this engine walks it:

1. The **betting window**: every other player who has not bet this turn passes or bets one
   face-up card (``pass`` / ``bet``, in any order, each on their own button).
2. The diver's **decision**: ``draw`` (a card onto the dive), ``stop`` (gain the dive), or
   ``referee`` (look at the top three cards). At the start of a turn with a failed dive on the
   table, ``new_dive`` may come first. A draw or a stop settles the open bets; a draw that does
   not flop and a referee open a new window.
3. A belly flop ends the turn; right after it a junior diver may open a ``parachute``.
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from games.antartik.cards import (
    DEFAULT_DECK,
    FACE_DOWN_POINTS,
    by_number,
    check_deck,
    face_up_points,
    is_code,
    is_parachute,
    is_referee,
    number,
)
from games.antartik.ear import EAR
from games.core import (
    Action,
    BaseState,
    Collect,
    Effect,
    Engine,
    Menu,
    Option,
    Prompt,
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
    top_scorers,
)

ENTERED_FIRST = 2
"""Cards entered in a row after which ``Enter card`` leads the diver's menu: a table playing a
physical pile enters every card, while one stray entry leaves the menu as it was."""
REFEREE_LOOK = 3
"""A referee looks at this many cards from the top of the pile."""
PASS = "pass"


@dataclass
class AntartikState(BaseState):
    """The table: cards everywhere, whose dive it is, and the betting window."""

    current: int = 0
    """Index in ``players`` of the diver."""
    pile: list[str] = field(default_factory=list)
    """The draw pile, top first (the engine's order; a physical pile's order is unknown to it)."""
    dive: list[str] = field(default_factory=list)
    face_up: dict[str, list[str]] = field(default_factory=dict)
    face_down: dict[str, list[str]] = field(default_factory=dict)
    bets: dict[str, str] = field(default_factory=dict)
    """Unsettled bets on the diver's next decision: bettor → card."""
    betted: list[str] = field(default_factory=list)
    """Who has bet this turn (each bets at most once a turn)."""
    passed: list[str] = field(default_factory=list)
    """Who raised a hand for the diver's next decision."""
    turned: int = 0
    """Cards the diver has turned this turn."""
    chute: str | None = None
    """The diver who just belly-flopped, while a parachute may still be opened."""
    flop: str | None = None
    """The card of that belly flop."""
    juniors: list[str] = field(default_factory=list)
    physical: bool = False
    """Whether the table named a turned card: the pile is a physical one."""
    entered: int = 0
    """Cards in a row the table named (a card the device turned resets it): from
    :data:`ENTERED_FIRST` on, the diver's menu offers ``Enter card`` first."""
    discarded: list[str] = field(default_factory=list)
    """Referee and parachute cards out of the game."""
    news: list[str] = field(default_factory=list)
    """What the last decision of a diver brought (a turned card, a flop, a stop, a referee, a
    parachute, an exchange), as the table heard it: it stays on screen until the next one."""


class Antartik(Engine[AntartikState]):
    """The Antartik engine."""

    id = "antartik"
    title = T("Antartik")
    ear = EAR
    min_players = 2
    max_players = 5
    option_keys = frozenset({"juniors", "deck"})
    timeout_action = True
    """A hard timeout of the betting window makes everyone who has not answered pass."""

    def setup(self, players: list[str], rng: Rng, options: dict[str, Any]) -> AntartikState:
        juniors = options.get("juniors", [])
        if not isinstance(juniors, list) or not all(isinstance(j, str) for j in juniors):
            raise SetupError(T("option 'juniors' must be a list of player names"))
        for name in juniors:
            if name not in players:
                raise SetupError(T("option 'juniors': {name} is not a player", name=repr(name)))

        deck = check_deck(options["deck"]) if "deck" in options else list(DEFAULT_DECK)
        count = len(players)
        rest = list(deck)
        face_up: dict[str, list[str]] = {}
        for p in players:  # each player gets a card showing the number of players
            i = next(i for i, c in enumerate(rest) if number(c) == count)
            face_up[p] = [rest.pop(i)]
        return AntartikState(
            players=players,
            rng=rng,
            options=options,
            pile=rng.shuffled(rest),
            face_up=face_up,
            face_down={p: [] for p in players},
            juniors=[p for p in players if p in juniors],
        )

    # -- who is who -------------------------------------------------------------------------------
    def diver(self, s: AntartikState) -> str:
        """The player whose dive it is."""
        return s.players[s.current]

    def others(self, s: AntartikState) -> list[str]:
        """The other players, clockwise from the diver's left."""
        n = len(s.players)
        return [s.players[(s.current + i) % n] for i in range(1, n)]

    def waiting(self, s: AntartikState) -> list[str]:
        """Who still has to pass or bet before the diver's next decision."""
        return [p for p in self.others(s) if p not in s.betted and p not in s.passed]

    def chute_open(self, s: AntartikState) -> bool:
        """Whether the diver who just flopped may open a parachute (a junior holding one)."""
        who = s.chute
        if who is None or who not in s.juniors:
            return False
        held = [c for c in s.face_up[who] + s.face_down[who] if is_parachute(c)]
        return len(held) > (1 if s.flop is not None and is_parachute(s.flop) else 0)

    # -- checks shared by moves ----------------------------------------------------------------
    def _diver_move(self, s: AntartikState, action: Action) -> str:
        diver = self.diver(s)
        named = get_player(s, action, diver)
        need(named == diver, T("it is {diver}'s dive, not {player}'s", diver=diver, player=named))
        return diver

    def _decision(self, s: AntartikState, action: Action) -> str:
        """Checks for a decision of the diver (draw, stop, referee): everyone has answered."""
        diver = self._diver_move(s, action)
        waiting = self.waiting(s)
        need(not waiting, T("waiting for {players} to pass or bet", players=join(waiting)))
        return diver

    def _card(self, action: Action, name: str, default: Any = ...) -> Any:
        code = get_field(action, name, str, default)
        if name in action:
            need(is_code(code), T("{action}: {code} is not a card", action=action["type"], code=repr(code)))
        return code

    def _answerer(self, s: AntartikState, action: Action) -> str:
        """The player of a pass or bet, checked to be one who has not answered this decision."""
        default = self.turn(s)
        player = get_player(s, action, default)
        need(player != self.diver(s), T("{player} is diving; only the others pass or bet", player=player))
        need(player not in s.passed, T("{player} has already passed", player=player))
        return player

    # -- moves ------------------------------------------------------------------------------------
    def move_pass(self, s: AntartikState, action: Action, effects: list[Effect]) -> None:
        """A player raises a hand: no bet on the diver's next decision.

        A player who has bet this turn is not asked again; their pass changes nothing.
        """
        player = self._answerer(s, action)
        if player not in s.betted:
            s.passed.append(player)
        s.chute = None

    def move_timeout(self, s: AntartikState, action: Action, effects: list[Effect]) -> None:
        """The turn timer ran out on the betting window: whoever has not answered passes.

        The diver's own decisions have no time limit in the rules: a timeout there is refused
        (the device then keeps it soft).
        """
        waiting = self.waiting(s)
        if "player" in action:  # one player's own time ran out (the flopper's parachute choice)
            named = [get_field(action, "player", str)]
        else:
            named = get_field(action, "players", list, waiting)
        need(waiting and all(p in waiting for p in named), T("the diver decides in their own time"))
        for player in named:
            s.passed.append(player)
        s.chute = None
        if named:
            effects.append(say(T("Time: {players} pass", players=join(named))))

    def move_bet(self, s: AntartikState, action: Action, effects: list[Effect]) -> None:
        """A player bets one of their face-up cards that the turn will stop."""
        player = self._answerer(s, action)
        need(player not in s.betted, T("{player} has already bet this turn", player=player))
        card = self._card(action, "card")
        need(card in s.face_up[player], T("{player} has no face-up {card}", player=player, card=card))
        s.face_up[player].remove(card)
        s.bets[player] = card
        s.betted.append(player)
        s.chute = None
        effects.append(say(T("{player} bets {card}", player=player, card=card)))

    def move_draw(self, s: AntartikState, action: Action, effects: list[Effect]) -> None:
        """The diver turns a card: the named one from a physical pile, else the engine's top card."""
        diver = self._decision(s, action)
        named = self._card(action, "card", None)
        if named is not None:
            need(named in s.pile, T("no {card} is left in the pile", card=named))
            s.pile.remove(named)
            s.physical = True
            s.entered += 1
            card = named
        else:
            card = s.pile.pop(0)
            s.entered = 0
        s.chute = None
        s.turned += 1
        bets = dict(s.bets)
        s.bets = {}
        if any(number(c) == number(card) for c in s.dive):
            for bettor, bet in bets.items():  # daredevil: the bets are won
                s.face_down[bettor].append(bet)
            s.face_up[diver].append(card)
            s.news = [T("Flop! {diver} keeps {card}", diver=diver, card=card)]
            effects += [signal("fall"), say(s.news[0])]
            self._next_turn(s)
            if s.pile:
                s.chute, s.flop = diver, card
            else:
                self._end(s, effects)
            return
        for bet in bets.values():  # bold: the bets are lost, to the diver
            s.face_up[diver].append(bet)
        s.dive.append(card)
        s.passed = []
        if bets:
            s.news = [T("{diver} turns {card} +{bets} bet", diver=diver, card=card, bets=len(bets))]
        else:
            s.news = [T("{diver} turns {card}", diver=diver, card=card)]
        effects.append(say(s.news[0]))
        if not s.pile:  # the last card, no flop: the diver gains the dive as if stopping
            s.news.append(gains(diver, len(s.dive)))
            effects.append(say(s.news[-1]))
            s.face_up[diver] += s.dive
            s.dive = []
            self._end(s, effects)

    def move_stop(self, s: AntartikState, action: Action, effects: list[Effect]) -> None:
        """The diver stops: a perfect entry, the dive is theirs; bets on it are won."""
        diver = self._decision(s, action)
        need(s.turned > 0, T("{diver} must turn a card first", diver=diver))
        for bettor, bet in s.bets.items():
            s.face_down[bettor].append(bet)
        gained = len(s.dive)
        s.face_up[diver] += s.dive
        s.dive = []
        s.chute = None
        s.news = [gains(diver, gained)]
        effects += [signal("success"), say(s.news[0])]
        self._next_turn(s)

    def move_new_dive(self, s: AntartikState, action: Action, effects: list[Effect]) -> None:
        """At the start of a turn, the failed dive goes under the pile and a new one begins.

        With no failed dive on the table the dive is new anyway: nothing changes.
        """
        diver = self._diver_move(s, action)
        need(s.turned == 0, T("{diver} has already turned a card this turn", diver=diver))
        s.pile += s.dive
        s.dive = []
        s.chute = None
        s.news = [T("{diver}: new dive", diver=diver)]
        effects.append(say(s.news[0]))

    def move_referee(self, s: AntartikState, action: Action, effects: list[Effect]) -> None:
        """The diver discards a referee card and rearranges the top cards, or puts them under."""
        diver = self._decision(s, action)
        need(not s.bets, T("no referee: someone has bet on this decision"))
        card = self._card(action, "card")
        need(is_referee(card), T("{card} is not a referee card", card=card))
        self._discard(s, diver, card)
        look = min(REFEREE_LOOK, len(s.pile))
        order = get_field(action, "order", list, None)
        bottom = get_field(action, "bottom", bool, False)
        top = s.pile[:look]
        if order is not None:
            need(len(order) == look, T("order must list {cards} card(s)", cards=look))
            for code in order:
                need(is_code(code), T("{action}: {code} is not a card", action="referee", code=repr(code)))
            if Counter(order) == Counter(top):
                s.pile[:look] = order
            else:  # not the engine's top cards: a physical pile, whose top only the table knows
                rest = list(s.pile)
                for code in order:
                    need(code in rest, T("no {card} is left in the pile", card=code))
                    rest.remove(code)
                s.pile = [*order, *rest]
                s.physical = True
            top = list(order)
        if bottom:
            s.pile = s.pile[look:] + top
        s.passed = []  # a new decision: the window opens again
        s.chute = None
        if bottom:
            s.news = [T("{diver}'s referee: under the pile", diver=diver)]
        else:
            s.news = [T("{diver}'s referee", diver=diver)]
        effects.append(say(s.news[0]))

    def move_parachute(self, s: AntartikState, action: Action, effects: list[Effect]) -> None:
        """Right after a junior's belly flop: the flop card goes under, the dive is theirs."""
        need(s.chute is not None and s.flop is not None, T("a parachute opens only right after a belly flop"))
        flopper, flop = s.chute, s.flop
        assert flopper is not None and flop is not None
        named = get_player(s, action, flopper)
        need(named == flopper, T("only {player} may open a parachute now", player=flopper))
        need(flopper in s.juniors, T("{player} is not a junior", player=flopper))
        card = self._card(action, "card")
        need(is_parachute(card), T("{card} is not a parachute card", card=card))
        s.face_up[flopper].reverse()
        s.face_up[flopper].remove(flop)  # the flop card it got last
        s.face_up[flopper].reverse()
        self._discard(s, flopper, card)
        s.pile.append(flop)
        gained = len(s.dive)
        s.face_up[flopper] += s.dive
        s.dive = []
        s.chute = s.flop = None
        s.news = [T("Parachute! {player} +{cards}", player=flopper, cards=gained)]
        effects += [signal("success"), say(s.news[0])]

    def move_exchange(self, s: AntartikState, action: Action, effects: list[Effect]) -> None:
        """A face-down card turns face up, and a second card comes from the bottom of the pile."""
        player = get_player(s, action, self.diver(s))
        card = self._card(action, "card")
        need(card in s.face_down[player], T("{player} has no face-down {card}", player=player, card=card))
        need(s.pile, T("the draw pile is empty"))
        need(len(s.pile) > 1, T("the last card is left for the dive"))
        drawn = self._card(action, "drawn", None)
        if drawn is not None:
            need(drawn in s.pile, T("no {card} is left in the pile", card=drawn))
            s.pile.reverse()
            s.pile.remove(drawn)  # the one nearest the bottom
            s.pile.reverse()
            s.physical = True
        else:
            drawn = s.pile.pop()
        s.face_down[player].remove(card)
        s.face_up[player] += [card, drawn]
        s.news = [T("{player}: {card} up, +{drawn}", player=player, card=card, drawn=drawn)]
        effects.append(say(s.news[0]))

    # -- helpers of moves ---------------------------------------------------------------------
    def _discard(self, s: AntartikState, player: str, card: str) -> None:
        """Put one of ``player``'s cards out of the game (a face-up copy first)."""
        for holding in (s.face_up[player], s.face_down[player]):
            if card in holding:
                holding.remove(card)
                s.discarded.append(card)
                return
        raise Refused(T("{player} has no {card}", player=player, card=card))

    def _next_turn(self, s: AntartikState) -> None:
        s.current = (s.current + 1) % len(s.players)
        s.bets, s.betted, s.passed = {}, [], []
        s.turned = 0
        s.chute = s.flop = None

    def _end(self, s: AntartikState, effects: list[Effect]) -> None:
        s.over = True
        win = self.winners(s)
        effects.append(say(T("Winner: {players}", players=join(win))))

    # -- reading ------------------------------------------------------------------------------
    def scores(self, s: AntartikState) -> dict[str, int]:
        return {
            p: sum(face_up_points(c) for c in s.face_up[p]) + FACE_DOWN_POINTS * len(s.face_down[p]) for p in s.players
        }

    def winners(self, s: AntartikState) -> list[str]:
        return top_scorers(self.scores(s), s.players)

    def turn(self, s: AntartikState) -> str | None:
        if self.chute_open(s):
            return s.chute
        waiting = self.waiting(s)
        if len(waiting) > 1:
            return None
        return waiting[0] if waiting else self.diver(s)

    def details(self, s: AntartikState) -> dict[str, Any]:
        return {
            "face_up": {p: list(s.face_up[p]) for p in s.players},
            "face_down": {p: list(s.face_down[p]) for p in s.players},
            "pile": len(s.pile),
            "dive": list(s.dive),
            "bets": dict(s.bets),
        }

    # -- prompts ------------------------------------------------------------------------------
    def prompt(self, s: AntartikState) -> Prompt | None:
        if s.over:
            return None
        if self.chute_open(s):
            return self._chute_menu(s)
        menu = self._diver_menu(s)
        waiting = self.waiting(s)
        if waiting:  # the others bet on their buttons while the diver chooses; the rest pass
            return dataclasses.replace(menu, side=self._betting(s, waiting))
        return menu

    def _betting(self, s: AntartikState, waiting: list[str]) -> Collect:
        values = {p: (PASS, *by_number(s.face_up[p])) for p in waiting}
        labels = {PASS: T("pass"), **{c: T("bet {card}", card=c) for p in waiting for c in s.face_up[p]}}

        def each(player: str, value: str) -> Action:
            if value == PASS:
                return {"type": "pass", "player": player}
            return {"type": "bet", "player": player, "card": value}

        if s.dive:
            title = T("Bet on {diver}? {cards}", diver=self.diver(s), cards=" ".join(s.dive))
        else:
            title = T("Bet on {diver}?", diver=self.diver(s))
        return Collect(title, tuple(waiting), values, each=each, labels=labels, default=PASS)

    def _chute_menu(self, s: AntartikState) -> Menu:
        who = s.chute
        assert who is not None
        held = by_number([c for c in s.face_up[who] + s.face_down[who] if is_parachute(c)])
        options = [
            Option(T("Parachute {card}", card=c), action={"type": "parachute", "player": who, "card": c}) for c in held
        ]
        options.append(Option(T("No: pass"), action={"type": "pass", "player": who}))
        options += [
            Option(T("No: bet {card}", card=c), action={"type": "bet", "player": who, "card": c})
            for c in by_number(s.face_up[who])
        ]
        return Menu(T("{player} flopped: parachute?", player=who), tuple(options), who)

    def _diver_menu(self, s: AntartikState) -> Menu:
        diver = self.diver(s)
        start = s.turned == 0 and bool(s.dive)
        draw = Option(T("Continue: draw") if start else T("Draw"), action={"type": "draw"})
        enter = Option(
            T("Enter card"), then=lambda: self._card_menu(s, diver, T("Card turned"), {"type": "draw"}, "card")
        )
        options = [enter, draw] if s.entered >= ENTERED_FIRST else [draw, enter]
        if s.turned:  # the diver's other everyday choice, one press from the first line
            options.insert(1, Option(T("Stop"), action={"type": "stop"}))
        if start:
            options.append(Option(T("New dive"), action={"type": "new_dive"}))
        if not s.bets:
            for card in by_number([c for c in s.face_up[diver] + s.face_down[diver] if is_referee(c)]):
                referee = T("Referee {card}", card=card)
                options.append(Option(referee, then=lambda card=card: self._referee_menu(s, diver, card)))
        if s.dive:
            title = T("{diver}'s dive: {cards}", diver=diver, cards=" ".join(s.dive))
        else:
            title = T("{diver}'s turn", diver=diver)
        return Menu(title, tuple(options), diver)

    def _card_menu(self, s: AntartikState, who: str, title: str, base: Action, key: str) -> Menu:
        """Which card came off a physical pile: its number, then its marks when several are left.

        Each choice is ``base`` with the card's code under ``key``.
        """
        options = []
        for n in sorted({number(c) for c in s.pile}):
            codes = by_number([c for c in s.pile if number(c) == n])
            if len(codes) == 1:
                options.append(Option(codes[0], action={**base, key: codes[0]}))
            else:
                sub = tuple(Option(c, action={**base, key: c}) for c in codes)
                options.append(Option(str(n), then=Menu(join([title, str(n)], ": "), sub, who)))
        return Menu(title, tuple(options), who)

    def _referee_menu(self, s: AntartikState, diver: str, card: str) -> Menu:
        base = {"type": "referee", "card": card}
        under = Option(T("Under the pile"), action={**base, "bottom": True})
        if s.physical:
            look = min(REFEREE_LOOK, len(s.pile))
            keep = Option(T("Sorted by hand"), action=base)
            return Menu(T("{card}: look at top {cards}", card=card, cards=look), (keep, under), diver)
        top = s.pile[:REFEREE_LOOK]
        orders = list(dict.fromkeys(itertools.permutations(top)))
        options = [Option(" ".join(o), action={**base, "order": list(o)}) for o in orders]
        return Menu(T("Top: {cards}", cards=" ".join(top)), (*options, under), diver)

    def anytime(self, s: AntartikState) -> list[Option]:
        if s.over:
            return []
        options = []
        diver = self.diver(s)
        if s.turned == 0 and s.dive and s.chute is None:
            options.append(Option(T("{diver}: new dive", diver=diver), action={"type": "new_dive"}))
        if len(s.pile) > 1:
            for p in s.players:
                if s.face_down[p]:
                    exchange = T("{player}: exchange", player=p)
                    options.append(Option(exchange, then=lambda p=p: self._exchange_menu(s, p)))
        return options

    def _exchange_menu(self, s: AntartikState, player: str) -> Menu:
        options = []
        for card in by_number(s.face_down[player]):
            base = {"type": "exchange", "player": player, "card": card}
            if s.physical:
                drawn = T("{card} up, drawn", card=card)
                sub = functools.partial(self._card_menu, s, player, drawn, base, "drawn")
                options.append(Option(T("Turn up {card}", card=card), then=sub))
            else:
                options.append(Option(T("Turn up {card}", card=card), action=base))
        return Menu(T("{player}: exchange", player=player), tuple(options), player)

    # -- the screen -----------------------------------------------------------------------------
    def view(self, s: AntartikState) -> View:
        points = self.scores(s)
        scores = tuple((p, str(points[p])) for p in s.players)
        title = T("Antartik  pile {cards}", cards=len(s.pile))
        news = len(s.news)
        if s.over:  # the winners, and the last draw that ended the game
            return self.final_view(s, title, scores, tuple(s.news))
        lines = list(s.news)
        needed: tuple[int, ...] = ()
        if s.bets:  # before the dive; the table must see them
            needed = (len(lines),)
            lines.append(T("Bets {bets}", bets=" ".join(f"{p}:{c}" for p, c in s.bets.items())))
        if s.dive:  # the very words of the diver's menu, which then says it (with the device's pile, only here)
            needed += (len(lines),)
            lines.append(T("{diver}'s dive: {cards}", diver=self.diver(s), cards=" ".join(s.dive)))
        else:
            lines.append(T("Dive empty"))

        if self.chute_open(s):
            return View(title, scores, tuple(lines), (s.chute or "",), "choosing", news, needed)
        # the diver is the one who acts (the others may bet on their buttons meanwhile)
        mood = "choosing" if self.waiting(s) else "playing"
        return View(title, scores, tuple(lines), (self.diver(s),), mood, news, needed)


ENGINE = Antartik()
"""Antartik (Ilopeli 2012)."""


def gains(diver: str, cards: int) -> Text:
    """What the table hears when ``diver`` takes ``cards`` cards (one, or a number of them)."""
    if cards == 1:
        return T("{diver} gains a card", diver=diver)
    return T("{diver} gains {cards} cards", diver=diver, cards=cards)
