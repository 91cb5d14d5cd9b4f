"""Ab in die Tonne (Abacusspiele 2013): stack the supply's rubbish on the bin, let nothing fall.

The rules as the device applies them, with its rulings: ``docs/tonne.md``.
A round: every player reveals a card (1..10, each value once per game), then in ascending
order (ties: fewer mice first) places that many pieces. A fall ends the turn with the top chip
minus side up; placing the supply's last piece ends it with the top chip plus side up; either
way the bin is emptied and pre-filled again and the round goes on. The game ends after round 10
or at once when the last chip is taken.

The engine counts pieces, not kinds: the contract's ``place`` has only a count, and which kind a
player picks changes nothing the companion keeps score of.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

from games.core import (
    Action,
    BaseState,
    Collect,
    Effect,
    Engine,
    Menu,
    Option,
    Order,
    Piece,
    Prompt,
    Refused,
    Rng,
    ScaleNow,
    ScaleUse,
    SetupError,
    T,
    Task,
    Text,
    View,
    get_field,
    get_player,
    hear,
    join,
    need,
    say,
    signal,
    top_scorers,
)
from games.tonne.ear import EAR

KINDS = ("milk", "can", "bottle", "apple")
"""The four kinds of piece, 10 of each."""
KIND_LABELS = {"milk": T("milk carton"), "can": T("can"), "bottle": T("bottle"), "apple": T("apple core")}
PIECE_GRAMS = {"milk": 6.5, "can": 5.0, "bottle": 8.0, "apple": 4.0}
"""About what one piece of each kind weighs (the simulated table's pieces)."""
EACH_KIND = 10
PIECES = EACH_KIND * len(KINDS)
LOW_SUPPLY = 5
"""From this many pieces left down, the voice tells the supply after every placement."""
PREFILL_EACH = {2: 3, 3: 2, 4: 1, 5: 0}
"""Pieces of each kind in the bin at the start and after every emptying, by player count."""
CHIPS = (1, 2, 3, 4, 5, 6)
"""The score chips' values, top of the stack first."""
ROUNDS = 10
VALUES = tuple(range(1, 11))

REVEAL, PLACE = "reveal", "place"


ROUND_ORDER = "R{round} order: {cards}"
"""The news of a reveal: the round's order of play, with each player's card."""


@dataclass
class TonneState(BaseState):
    """One game of Ab in die Tonne.

    ``queue`` holds the players still to place this round, the current one first; ``owed`` is
    what the current one still has to place. ``resets`` counts the bin's fillings (0 = the set-up
    one); ``refill`` says the table has not touched the game since the last filling was due.
    """

    round: int = 1
    phase: str = REVEAL
    played: dict[str, list[int]] = field(default_factory=dict)
    cards: dict[str, int] = field(default_factory=dict)
    queue: list[str] = field(default_factory=list)
    owed: int = 0
    chips: dict[str, list[int]] = field(default_factory=dict)
    stack: list[int] = field(default_factory=lambda: list(CHIPS))
    supply: int = PIECES
    bin: int = 0
    resets: int = 0
    refill: bool = True
    news: list[str] = field(default_factory=list)
    """What the last move brought (the round's order, a turn placed in full, a fall, the supply
    emptied), as the table heard it: on screen until the next one."""


def prefill(players: int) -> int:
    """Pieces in the freshly filled bin for this many players."""
    return PREFILL_EACH[players] * len(KINDS)


def _check_mice(mice: Any) -> dict[str, list[int]]:
    if not isinstance(mice, dict):
        raise SetupError(T("option {option!r} must map player names to 10 mouse counts", option="mice"))
    out = {}
    for name, counts in mice.items():
        if (
            not isinstance(counts, list)
            or len(counts) != len(VALUES)
            or not all(isinstance(c, int) and not isinstance(c, bool) and c >= 0 for c in counts)
        ):
            raise SetupError(
                T(
                    "option {option!r}: {player!r} needs a list of 10 mouse counts (values 1..10)",
                    option="mice",
                    player=name,
                )
            )
        out[str(name)] = list(counts)
    return out


class Tonne(Engine[TonneState]):
    """The Ab in die Tonne engine."""

    id = "tonne"
    title = T("Ab in die Tonne")
    ear = EAR
    min_players = 2
    max_players = 5
    option_keys = frozenset({"mice"})
    rules_pick_start = True
    confirm: ClassVar[dict[str, str]] = {"fall": T("Something fell? The player takes a minus chip.")}
    scale = ScaleUse(tuple(Piece(k, KIND_LABELS[k], PIECE_GRAMS[k]) for k in KINDS))
    """The scale under the bin counts placed pieces (``place``) and sees a fall (``fall``)."""

    def setup(self, players: list[str], rng: Rng, options: dict[str, Any]) -> TonneState:
        if "mice" in options:
            options["mice"] = _check_mice(options["mice"])
        full = prefill(len(players))
        return TonneState(
            players=players,
            rng=rng,
            options=options,
            played={p: [] for p in players},
            chips={p: [] for p in players},
            bin=full,
            supply=PIECES - full,
        )

    # -- turn order -----------------------------------------------------------------------------
    def mice(self, s: TonneState, player: str, value: int) -> int | None:
        """Mice on ``player``'s card of ``value``, if the ``mice`` option knows them."""
        table = s.options.get("mice") or {}
        counts = table.get(player)
        return counts[value - 1] if counts else None

    def ties(self, s: TonneState, cards: dict[str, int]) -> list[list[str]]:
        """Groups of players (seat order) whose order the values and mice leave open."""
        groups: list[list[str]] = []
        for value in sorted(set(cards.values())):
            same = [p for p in s.players if cards.get(p) == value]
            if len(same) < 2:
                continue
            mice = [self.mice(s, p, value) for p in same]
            if any(m is None for m in mice):
                groups.append(same)
                continue
            for m in sorted(set(mice)):  # type: ignore[type-var]
                tied = [p for p, n in zip(same, mice, strict=True) if n == m]
                if len(tied) > 1:
                    groups.append(tied)
        return groups

    def turn_order(self, s: TonneState, cards: dict[str, int], order: list[str] | None) -> list[str]:
        """Players in placing order: ascending value, then fewer mice, then ``order``."""
        rank = {p: i for i, p in enumerate(order or [])}
        for group in self.ties(s, cards):
            missing = [p for p in group if p not in rank]
            if missing:
                value = cards[group[0]]
                raise Refused(T("{players} tie on {value}: give their order", players=join(group), value=value))

        def key(p: str) -> tuple[int, int, int]:
            value = cards[p]
            known = all(self.mice(s, q, value) is not None for q in s.players if cards[q] == value)
            return value, (self.mice(s, p, value) or 0) if known else 0, rank.get(p, len(rank))

        return sorted(s.players, key=key)

    # -- moves ------------------------------------------------------------------------------------
    def move_reveal(self, s: TonneState, action: Action, effects: list[Effect]) -> None:
        """Every player's card for the round; ``order`` settles ties the mice leave open."""
        need(s.phase == REVEAL, T("{player} still has {owed} to place", player=str(self._current(s)), owed=s.owed))
        cards = get_field(action, "cards", dict)
        for name in cards:
            need(name in s.players, T("unknown player {player!r}", player=name))
        for p in s.players:
            need(p in cards, T("reveal needs {player}'s card", player=p))
            value = cards[p]
            need(
                isinstance(value, int) and not isinstance(value, bool) and value in VALUES,
                T("{player}'s card must be 1 to 10, not {value!r}", player=p, value=value),
            )
            need(value not in s.played[p], T("{player} already played a {value}", player=p, value=value))
        order = get_field(action, "order", list, None)
        if order is not None:
            for name in order:
                need(isinstance(name, str) and name in s.players, T("order: unknown player {player!r}", player=name))
            need(len(set(order)) == len(order), T("order names a player twice"))
        queue = self.turn_order(s, cards, order)
        for p in s.players:
            s.played[p].append(cards[p])
        s.cards = {p: cards[p] for p in s.players}
        s.queue = queue
        s.phase = PLACE
        s.owed = s.cards[queue[0]]
        s.refill = False
        order = join([f"{p} {s.cards[p]}" for p in queue], ", ")  # names and card values: no words
        s.news = [T("R{round} order: {cards}", round=s.round, cards=order)]  # ROUND_ORDER
        effects.append(say(s.news[0]))
        effects.append(signal("turn"))

    def move_place(self, s: TonneState, action: Action, effects: list[Effect]) -> None:
        """The current player put ``count`` pieces (default 1) from the supply into the bin."""
        player = self._acting(s, action)
        count = get_field(action, "count", int, 1)
        need(count >= 1, T("count must be 1 or more, not {count}", count=count))
        need(count <= s.owed, T("{player} owes only {owed}", player=player, owed=s.owed))
        need(count <= s.supply, T("only {supply} left in the supply", supply=s.supply))
        s.refill = False
        s.supply -= count
        s.bin += count
        s.owed -= count
        if s.supply == 0:
            chip = self._take_chip(s, player, +1)
            s.news = [T("{player} +{chip}: supply empty", player=player, chip=chip)]
            effects.append(say(s.news[0]))
            effects.append(signal("success"))
            self._empty_bin(s)
            self._end_turn(s, effects, quiet=True)
        elif s.owed == 0:
            s.news = [T("{player} placed {count}", player=player, count=s.cards[player])]
            effects.append(say(s.news[0]))
            self._low_supply(s, effects)
            self._end_turn(s, effects)
        else:
            self._low_supply(s, effects)

    @staticmethod
    def _low_supply(s: TonneState, effects: list[Effect]) -> None:
        """The supply running low, for the ear (the panel's title shows the supply all along):
        from :data:`LOW_SUPPLY` pieces down, after every placement."""
        if s.supply == 1:
            effects.append(hear(T("Only one piece left in the supply.")))
        elif 1 < s.supply <= LOW_SUPPLY:
            effects.append(hear(T("Only {supply} pieces left in the supply.", supply=s.supply)))

    def move_fall(self, s: TonneState, action: Action, effects: list[Effect]) -> None:
        """Something fell off the bin during the current player's turn."""
        player = self._acting(s, action)
        s.refill = False
        chip = self._take_chip(s, player, -1)
        s.news = [T("{player} fell: -{chip}", player=player, chip=chip)]
        effects.append(say(s.news[0]))
        effects.append(signal("fall"))
        self._empty_bin(s)
        self._end_turn(s, effects, quiet=True)

    # -- move helpers -----------------------------------------------------------------------------
    def _current(self, s: TonneState) -> str | None:
        return s.queue[0] if s.phase == PLACE and s.queue else None

    def _acting(self, s: TonneState, action: Action) -> str:
        player = self._current(s)
        need(player is not None, T("nothing is owed: reveal the cards first"))
        return get_player(s, action, player, turn_of=player)

    def _take_chip(self, s: TonneState, player: str, sign: int) -> int:
        chip = s.stack.pop(0)
        s.chips[player].append(sign * chip)
        return chip

    def _empty_bin(self, s: TonneState) -> None:
        full = prefill(len(s.players))
        s.bin, s.supply = full, PIECES - full
        s.resets += 1
        s.refill = True

    def _end_turn(self, s: TonneState, effects: list[Effect], quiet: bool = False) -> None:
        """Next player, next round or the end; ``quiet``: no turn beep over a fall or a win."""
        s.queue.pop(0)
        if not s.stack:
            self._game_over(s, effects)
        elif s.queue:
            s.owed = s.cards[s.queue[0]]
            if not quiet:
                effects.append(signal("turn"))
        elif s.round == ROUNDS:
            self._game_over(s, effects)
        else:
            s.round += 1
            s.phase, s.cards, s.owed = REVEAL, {}, 0

    def _game_over(self, s: TonneState, effects: list[Effect]) -> None:
        s.over = True
        s.owed = 0
        s.queue = []

    # -- reading ------------------------------------------------------------------------------------
    def describe(self, s: TonneState, action: Action) -> Text | None:
        """A place as the pieces it put (``Ann placed 1 (3/3)``): the turn's news named them all."""
        player = self._current(s)
        if action.get("type") != "place" or player is None:
            return None
        count, total = action.get("count", 1), s.cards[player]
        done = total - s.owed + count
        return T("{player} placed {count} ({done}/{total})", player=player, count=count, done=done, total=total)

    def placing(self, s: TonneState) -> str | None:
        """The player whose pieces the bin is waiting for, if any."""
        return None if s.over else self._current(s)

    def scale_now(self, s: TonneState) -> ScaleNow | None:
        """The scale counts the current player's pieces; a re-filled bin holds the pre-fill."""
        fill = {kind: PREFILL_EACH[len(s.players)] for kind in KINDS} if s.refill else None
        return ScaleNow(self.placing(s), min(s.owed, s.supply), fill)

    def scores(self, s: TonneState) -> dict[str, int]:
        return {p: sum(s.chips[p]) for p in s.players}

    def winners(self, s: TonneState) -> list[str]:
        return top_scorers(self.scores(s), s.players)

    def turn(self, s: TonneState) -> str | None:
        return self._current(s)

    def details(self, s: TonneState) -> dict[str, Any]:
        return {
            "round": s.round,
            "chips": {p: list(s.chips[p]) for p in s.players},
            "stack": list(s.stack),
            "supply": s.supply,
            "bin": s.bin,
            "owed": s.owed,
        }

    def prompt(self, s: TonneState) -> Prompt | None:
        if s.over:
            return None
        step: Prompt = self._reveal_prompt(s) if s.phase == REVEAL else self._place_prompt(s)
        if s.refill:
            return self._fill_task(s, step)
        return step

    def _fill_task(self, s: TonneState, then: Prompt) -> Task:
        each = PREFILL_EACH[len(s.players)]
        lines: tuple[str, ...]
        if s.resets == 0:
            title = T("Set up the bin")
            first = T("Empty bin, then put {each} of each kind in", each=each)
            if not each:
                first = T("Empty bin, then leave it empty")
            lines = (first, T("Supply: {supply} pieces", supply=s.supply))
        else:
            title = T("Empty the bin")
            fill = T("Put {each} of each kind in", each=each) if each else T("Leave it empty")
            lines = (T("All pieces out, then"), fill)
        return Task(title, lines, f"bin{s.resets}", then, T("Bin filled"))

    def _reveal_prompt(self, s: TonneState) -> Collect:
        values = {p: tuple(str(v) for v in VALUES if v not in s.played[p]) for p in s.players}

        def build(answers: dict[str, str]) -> Action | Prompt:
            cards = {p: int(v) for p, v in answers.items()}
            reveal: Action = {"type": "reveal", "cards": cards}
            groups = self.ties(s, cards)
            tied = [p for group in groups for p in group]
            if not tied:
                return reveal
            values = join(sorted({str(cards[g[0]]) for g in groups}, key=int), ",")
            title = T("Tie on {values}: fewer mice first", values=values)
            untied = {p: T("{player} is not in the tie", player=p) for p in s.players if p not in tied}
            return Order(title, tuple(tied), lambda order: {**reveal, "order": order}, untied)

        title = T("Round {round}: cards", round=s.round)
        return Collect(title, tuple(s.players), values, build=build, counting=True)

    def _place_prompt(self, s: TonneState) -> Menu:
        player = s.queue[0]
        options = [
            Option(T("Placed"), action={"type": "place", "count": 1}),
            Option(T("Fell"), action={"type": "fall"}),
        ]
        options += [
            Option(T("Placed {n}", n=n), action={"type": "place", "count": n})
            for n in range(2, min(s.owed, s.supply) + 1)
        ]
        return Menu(T("{player}: {owed} to place", player=player, owed=s.owed), tuple(options), player)

    def view(self, s: TonneState) -> View:
        scores = tuple((p, f"{sum(s.chips[p]):+d}" if s.chips[p] else "0") for p in s.players)
        title = T("Tonne R{round}/{rounds}", round=s.round, rounds=ROUNDS)
        if s.over:  # the winners, and the turn that ended the game
            return self.final_view(s, title, scores, tuple(s.news))
        stock = T("Supply {supply} bin {bin}", supply=s.supply, bin=s.bin)
        news = tuple(s.news)
        if s.phase == REVEAL:
            return View(title, scores, (*news, stock, T("Reveal your cards")), (), "choosing", len(news))
        player = s.queue[0]
        # the table must see the supply while placing: in the title bar, which nothing covers
        title = T("R{round}/{rounds} supply {supply}", round=s.round, rounds=ROUNDS, supply=s.supply)
        later = " ".join(f"{p} {s.cards[p]}" for p in s.queue[1:])  # names and card values: no words
        ordered = bool(news) and getattr(news[0], "msgid", None) == ROUND_ORDER  # the round's whole order
        lines = (stock, T("Next: {players}", players=later)) if later else (stock,)
        # and the order of play: the round's whole order while it is the news, else who comes next
        needed = (0,) if ordered else (len(news) + 1,) if later else ()
        facts = () if s.refill else (title,)  # the supply, while pieces are placed (not while the bin is re-filled)
        return View(title, scores, (*news, *lines), (player,), "playing", len(news), needed, facts)


ENGINE = Tonne()
