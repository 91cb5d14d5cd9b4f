"""ぼむ！ (Bomb, Kisekiya): cards chosen in secret decide who rolls the bomb dice.

The rules as the device applies them, with its rulings: ``docs/bomb.md``. A round
is a reveal (every player still in, one card each), then one defusal per defuser (a roll or
``SAFE``), then its end (more dice after a clean round; after a failure the hand limit, one card
each and back to two dice). The engine keeps the lives, the dice in the centre and the red die;
the hands are physical and secret, so it only counts cards (hand sizes, the draw pile) to tell the
table what to draw or discard, and never refuses a card it cannot see.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from games.bomb.dice import (
    DEFAULT_RED,
    DEFAULT_WHITE,
    Face,
    FaceError,
    check_die,
    check_face,
    face_text,
    most,
    roll,
    spread,
    totals,
)
from games.bomb.ear import EAR
from games.core import (
    Action,
    BaseState,
    Collect,
    Effect,
    Engine,
    Menu,
    Option,
    Order,
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
)

LIVES = 3
START_DICE = 2
MAX_DICE = 10
HAND_LIMIT = 4
START_HAND = 4
"""The ``0`` card and three dealt cards."""
DECK = 37
"""Cards other than ``0`` (assumed: 42 cards, five of them ``0``); only counted, for draws."""
CLAIM_MARKS = 4
"""Card marks from which a successful defuser may take a life chip instead of cards."""
VALUES = tuple(str(v) for v in range(10))


@dataclass
class BombState(BaseState):
    """Lives, the centre, the round in progress, and the card counts the device can know.

    ``cards`` holds this round's revealed cards (empty while the reveal is awaited); ``defusers``
    those still to defuse, in order; ``ties`` the groups of defusers tied on life chips whose
    order the table may still choose (until the first defusal). ``hands``, ``pile``, ``used`` and
    ``table`` count cards (the last: cards played this round); they guide, they never refuse.
    """

    white: list[Face] = field(default_factory=list)
    red_die: list[Face] = field(default_factory=list)
    lives: dict[str, int] = field(default_factory=dict)
    out: list[str] = field(default_factory=list)
    dice: int = START_DICE
    red: bool = False
    round: int = 1
    cards: dict[str, str] = field(default_factory=dict)
    defusers: list[str] = field(default_factory=list)
    ties: list[list[str]] = field(default_factory=list)
    failed: bool = False
    claim: str | None = None
    claim_cards: int = 0
    last: dict[str, Any] | None = None
    hands: dict[str, int] = field(default_factory=dict)
    pile: int = 0
    used: int = 0
    table: int = 0
    notice: str = ""
    """What the table does between rounds after a failure (draws, discards): the next reveal's title."""


def defusers_of(cards: dict[str, str]) -> list[str]:
    """Who defuses, in seat order: the lowest card, or a lone ``6``/``7`` over low cards."""
    values = {p: int(v) for p, v in cards.items()}
    for p, v in values.items():
        others = [w for q, w in values.items() if q != p]
        if (v == 6 and all(w <= 2 for w in others)) or (v == 7 and all(w <= 3 for w in others)):
            return [p]
    low = min(values.values())
    return [p for p, v in values.items() if v == low]


def defusing(order: list[str]) -> Text:
    """Who defuses this round, in order: ``Ann defuses``, ``Cy, Ann and Ben defuse``."""
    if len(order) == 1:
        return T("{player} defuses", player=order[0])
    return T("{players} defuse", players=T("{some} and {last}", some=join(order[:-1]), last=order[-1]))


class Bomb(Engine[BombState]):
    """The Bomb engine."""

    id = "bomb"
    title = T("Bomb")
    ear = EAR
    min_players = 2
    max_players = 5
    option_keys = frozenset({"white", "red"})
    timeout_action = False
    rules_pick_start = True  # the reveal's lowest cards decide who defuses: nobody "starts"

    def setup(self, players: list[str], rng: Rng, options: dict[str, Any]) -> BombState:
        try:
            white = check_die(options["white"], "white") if "white" in options else DEFAULT_WHITE
            red = check_die(options["red"], "red") if "red" in options else DEFAULT_RED
        except FaceError as exc:
            raise SetupError(str(exc)) from None
        return BombState(
            players=players,
            rng=rng,
            options=options,
            white=[dict(f) for f in white],
            red_die=[dict(f) for f in red],
            lives={p: LIVES for p in players},
            hands={p: START_HAND for p in players},
            pile=DECK - (START_HAND - 1) * len(players),
        )

    # -- helpers ------------------------------------------------------------------------------------
    def alive(self, s: BombState) -> list[str]:
        """Players still in, in seat order."""
        return [p for p in s.players if p not in s.out]

    def phase(self, s: BombState) -> str:
        """``"over"``, ``"claim"``, ``"defuse"`` or ``"reveal"``."""
        if s.over:
            return "over"
        if s.claim is not None:
            return "claim"
        return "defuse" if s.defusers else "reveal"

    def _waiting(self, s: BombState, wanted: str) -> None:
        phase = self.phase(s)
        if phase == wanted:
            return
        if phase == "claim":
            raise Refused(T("{player} first chooses: life or cards", player=str(s.claim)))
        if phase == "defuse":
            raise Refused(T("{player} must defuse first", player=s.defusers[0]))
        raise Refused(T("reveal the cards first"))

    def _player(self, s: BombState, action: Action, expected: str) -> str:
        named = get_player(s, action, expected)
        need(named not in s.out, T("{player} is out", player=named))
        return named

    def _draw(self, s: BombState, player: str, count: int) -> int:
        """``player`` draws up to ``count`` cards (used cards reshuffled when the pile is empty)."""
        drawn = 0
        for _ in range(count):
            if s.pile == 0:
                s.pile, s.used = s.used, 0
            if s.pile == 0:
                break
            s.pile -= 1
            s.hands[player] += 1
            drawn += 1
        return drawn

    def _add_die(self, s: BombState) -> None:
        s.dice = min(MAX_DICE, s.dice + 1)

    def _defuser(self, s: BombState, action: Action) -> str:
        self._waiting(s, "defuse")
        player = self._player(s, action, s.defusers[0])
        need(player in s.defusers, T("{player} is not defusing this round", player=player))
        need(player == s.defusers[0], T("{first} defuses before {player}", first=s.defusers[0], player=player))
        s.ties = []
        s.defusers.pop(0)
        return player

    # -- moves --------------------------------------------------------------------------------------
    def move_reveal(self, s: BombState, action: Action, effects: list[Effect]) -> None:
        """Every player still in reveals one card; card effects, then the defusers and their order."""
        self._waiting(s, "reveal")
        cards = get_field(action, "cards", dict)
        for name, value in cards.items():
            need(name in s.players, T("unknown player {player!r}", player=name))
            need(name not in s.out, T("{player} is out", player=name))
            need(not (isinstance(value, str) and value.upper() == "SAFE"), T("SAFE cannot be chosen in a reveal"))
            need(
                isinstance(value, str) and value in VALUES,
                T("{player}: a card is '0' to '9', not {value!r}", player=name, value=value),
            )
        alive = self.alive(s)
        missing = [p for p in alive if p not in cards]
        need(not missing, T("no card for {players}", players=join(missing)))

        s.cards = {p: cards[p] for p in alive}
        s.notice = ""
        s.last = None  # the last round's final roll stays on screen until this reveal
        for p, value in s.cards.items():
            if value == "0":  # draw 1, add a die, the 0 goes back to hand
                self._draw(s, p, 1)
                self._add_die(s)
                continue
            s.hands[p] = max(1, s.hands[p] - 1)
            s.table += 1
            if value == "2":
                s.red = True
            elif value == "3":
                self._add_die(s)

        chosen = defusers_of(s.cards)
        order: list[str] = []
        s.ties = []
        for chips in sorted({s.lives[p] for p in chosen}, reverse=True):
            group = [p for p in chosen if s.lives[p] == chips]
            if len(group) > 1:
                group = s.rng.shuffled(group)
                s.ties.append(list(group))
            order += group
        s.defusers = order
        effects.append(say(defusing(order)))

    def move_order(self, s: BombState, action: Action, effects: list[Effect]) -> None:
        """The table's order for defusers tied on life chips (replacing the random one)."""
        self._waiting(s, "defuse")
        need(s.ties, T("no tie to settle (or the defusals have begun)"))
        players = get_field(action, "players", list)
        need(players, T("order names no player"))
        for p in players:
            need(isinstance(p, str) and p in s.players, T("unknown player {player!r}", player=p))
            need(p not in s.out, T("{player} is out", player=p))
            need(p in s.defusers, T("{player} is not defusing this round", player=p))
        need(len(set(players)) == len(players), T("order names a player twice"))
        named = set(players)
        groups = [g for g in s.ties if named & set(g)]
        for p in players:
            need(any(p in g for g in groups), T("{player} is not tied with anyone", player=p))
        for g in groups:
            left = [p for p in g if p not in named]
            need(not left, T("{players} is tied too: order the whole tie", players=join(left)))
        for g in groups:
            slots = sorted(s.defusers.index(p) for p in g)
            for slot, p in zip(slots, [p for p in players if p in g], strict=True):
                s.defusers[slot] = p
        s.ties = [g for g in s.ties if g not in groups]
        effects.append(say(T("{player} defuses first", player=s.defusers[0])))

    def move_safe(self, s: BombState, action: Action, effects: list[Effect]) -> None:
        """The next defuser plays SAFE: discarded, the defusal succeeds without a roll."""
        player = self._defuser(s, action)
        s.hands[player] = max(1, s.hands[player] - 1)
        s.used += 1
        s.last = {"player": player, "round": s.round, "safe": True}
        effects += [signal("success"), say(self._roll_head(s.last))]
        self._advance(s, effects)

    def move_roll(self, s: BombState, action: Action, effects: list[Effect]) -> None:
        """The next defuser rolls every die in the centre (given ``faces``, else seeded)."""
        self._waiting(s, "defuse")
        self._player(s, action, s.defusers[0])
        count = s.dice + (1 if s.red else 0)
        given = get_field(action, "faces", list, None)
        if given is not None:
            n = len(given)
            if s.red:
                wrong = T("{count} dice in the centre with the red die, not {faces} faces", count=count, faces=n)
            else:
                wrong = T("{count} dice in the centre, not {faces} faces", count=count, faces=n)
            need(len(given) == count, wrong)
            try:
                faces = [check_face(f, T("face {n}", n=i + 1)) for i, f in enumerate(given)]
            except FaceError as exc:
                raise Refused(str(exc)) from None
        player = self._defuser(s, action)
        if given is None:
            faces = roll(s.rng, [s.white] * s.dice + ([s.red_die] if s.red else []))
        marks = totals(faces)
        bombs, fuses, cards = marks["bomb"], marks["fuse"], marks["card"]
        s.last = {"player": player, "round": s.round, "faces": faces, "red": s.red}
        if bombs and fuses:
            lost = min(bombs, fuses, s.lives[player])
            s.lives[player] -= lost
            s.failed = True
            s.last["lost"] = lost
            effects.append(signal("explosion"))
            if s.lives[player] == 0:
                self._eliminate(s, player)
                s.last["out"] = True
        else:
            effects.append(signal("success"))
            ending = not s.defusers and len(self.alive(s)) <= 1
            if cards >= CLAIM_MARKS and not ending:
                s.claim, s.claim_cards = player, cards
            else:
                s.last["drawn"] = self._draw(s, player, cards)
        effects.append(say(self._roll_head(s.last)))  # the same words as the screen's line: one line
        self._advance(s, effects)

    def move_claim(self, s: BombState, action: Action, effects: list[Effect]) -> None:
        """After a success with 4+ card marks: ``take`` ``"life"`` or ``"cards"``."""
        self._waiting(s, "claim")
        claimant = s.claim
        assert claimant is not None
        player = self._player(s, action, claimant)
        need(player == claimant, T("{claimant} chooses, not {player}", claimant=claimant, player=player))
        take = get_field(action, "take", str)
        need(
            take in ("life", "cards"),
            T("take {life!r} or {cards!r}, not {take!r}", life="life", cards="cards", take=take),
        )
        if take == "life":
            s.lives[player] += 1
        if s.last is not None and s.last.get("player") == player:
            if take == "life":
                s.last["life"] = True
            else:
                s.last["drawn"] = self._draw(s, player, s.claim_cards)
            effects.append(say(self._roll_head(s.last)))  # the roll's line, now with the choice
        elif take == "cards":
            self._draw(s, player, s.claim_cards)
        s.claim, s.claim_cards = None, 0
        self._advance(s, effects)

    # -- the round's course ---------------------------------------------------------------------------
    def _eliminate(self, s: BombState, player: str) -> None:
        """Out: the hand but the ``0`` goes to the used cards, the ``0`` leaves the game."""
        s.out.append(player)
        s.used += max(0, s.hands[player] - 1)
        s.hands[player] = 0

    def _advance(self, s: BombState, effects: list[Effect]) -> None:
        if s.claim is not None or s.defusers:
            return
        alive = self.alive(s)
        if len(alive) <= 1:
            s.over = True
            effects.append(say(T("{player} wins!", player=alive[0]) if alive else T("Everyone loses!")))
            return
        s.used += s.table
        s.table = 0
        if s.failed:
            over = [p for p in alive if s.hands[p] > HAND_LIMIT]
            for p in over:
                s.used += s.hands[p] - HAND_LIMIT
                s.hands[p] = HAND_LIMIT
            for p in alive:
                self._draw(s, p, 1)
            s.pile += s.used
            s.used = 0
            s.dice = START_DICE
            if over:
                s.notice = T("{players} to {limit}, all +1 card", players=join(over, ","), limit=HAND_LIMIT)
            else:
                s.notice = T("Everyone +1 card")
        else:
            self._add_die(s)
        s.red = False
        s.failed = False
        s.cards = {}
        s.round += 1

    # -- reading ------------------------------------------------------------------------------------
    def scores(self, s: BombState) -> dict[str, int]:
        return dict(s.lives)

    def winners(self, s: BombState) -> list[str]:
        return self.alive(s) if len(self.alive(s)) == 1 else []

    def places(self, s: BombState) -> dict[str, int]:
        """Players still in first (by their lives), then the others in the reverse order they went
        out: the last one out is placed best of them."""
        alive = self.alive(s)
        lives = sorted((s.lives[p] for p in alive), reverse=True)
        places = {p: lives.index(s.lives[p]) + 1 for p in alive}
        for i, p in enumerate(reversed(s.out)):
            places[p] = len(alive) + i + 1
        return places

    def turn(self, s: BombState) -> str | None:
        if s.over:
            return None
        if s.claim is not None:
            return s.claim
        return s.defusers[0] if s.defusers else None

    def details(self, s: BombState) -> dict[str, Any]:
        return {
            "lives": dict(s.lives),
            "dice": s.dice,
            "red": s.red,
            "defusers": list(s.defusers),
            "out": list(s.out),
            "round": s.round,
        }

    def prompt(self, s: BombState) -> Prompt | None:
        phase = self.phase(s)
        if phase == "over":
            return None
        if phase == "reveal":
            alive = tuple(self.alive(s))
            return Collect(  # the cards are revealed on the table; each player holds to theirs
                s.notice or T("Cards shown? (no SAFE)"),
                alive,
                {p: VALUES for p in alive},
                build=lambda answers: {"type": "reveal", "cards": dict(answers)},
                counting=True,
                others={p: T("{player} is out: no lives left", player=p) for p in s.out},
            )
        if phase == "claim":
            p, n = s.claim, s.claim_cards
            options = (
                Option(T("Draw {n} cards", n=n), action={"type": "claim", "player": p, "take": "cards"}),
                Option(T("Take 1 life"), action={"type": "claim", "player": p, "take": "life"}),
            )
            return Menu(T("{player}: {n} card marks", player=str(p), n=n), options, p)
        menu = self._defuse_menu(s)
        if not s.ties:
            return menu
        tied = tuple(p for p in s.defusers if any(p in g for g in s.ties))
        untied = {p: T("{player} is not in the tie", player=p) for p in s.players if p not in tied}
        choose = Order(
            T("Press in defusal order"), tied, lambda order: {"type": "order", "players": list(order)}, untied
        )
        options = (Option(T("Random order"), then=menu), Option(T("Choose on screen"), then=choose))
        return Menu(T("Tie on lives: order?"), options)

    def _defuse_menu(self, s: BombState) -> Menu:
        p = s.defusers[0]
        count = s.dice + (1 if s.red else 0)
        dice = [s.white] * s.dice + ([s.red_die] if s.red else [])
        top = {mark: sum(most(die, mark) for die in dice) for mark in ("bomb", "fuse", "card")}
        label = T("Roll {dice} dice +red", dice=s.dice) if s.red else T("Roll {dice} dice", dice=s.dice)

        def entered(bombs: int, fuses: int, cards: int) -> Action:
            return {"type": "roll", "player": p, "faces": spread(count, bombs, fuses, cards)}

        def card_menu(bombs: int, fuses: int) -> Menu:
            options = tuple(Option(str(c), action=entered(bombs, fuses, c)) for c in range(top["card"] + 1))
            return Menu(T("B{bombs} F{fuses}: card marks?", bombs=bombs, fuses=fuses), options, p)

        def fuse_menu(bombs: int) -> Menu:
            options = []
            for f in range(top["fuse"] + 1):
                if bombs and f:
                    boom = T("{fuses}  boom -{lost}", fuses=f, lost=min(bombs, f))
                    options.append(Option(boom, action=entered(bombs, f, 0)))
                else:
                    options.append(Option(str(f), then=lambda f=f: card_menu(bombs, f)))
            return Menu(T("B{bombs}: fuse marks?", bombs=bombs), tuple(options), p)

        def bomb_menu() -> Menu:
            options = tuple(Option(str(b), then=lambda b=b: fuse_menu(b)) for b in range(top["bomb"] + 1))
            return Menu(T("{player}: bomb marks?", player=p), options, p)

        options = (
            Option(label, action={"type": "roll", "player": p}),
            Option(T("Play SAFE"), action={"type": "safe", "player": p}),
            Option(T("Enter dice"), then=bomb_menu),
        )
        return Menu(T("{player} defuses", player=p), options, p)

    def view(self, s: BombState) -> View:
        # a heart beside each number: lives, not cards (the card entry shows both beside the names);
        # while a round runs, each player's revealed card beside them, as the reveal recorded it
        scores = tuple((p, self._score(s, p)) for p in s.players)
        if s.red:
            title = T("Bomb R{round} {dice}d+red", round=s.round, dice=s.dice)
        else:
            title = T("Bomb R{round} {dice}d", round=s.round, dice=s.dice)
        phase = self.phase(s)
        if phase == "over":
            win = self.winners(s)
            head = T("Winner: {players}", players=win[0]) if win else T("Everyone lost")
            lines = (head, *self._roll_lines(s))  # the winners, and the roll that ended the game
            return View(title, scores, lines, tuple(win), "over", len(lines), (0, 1) if s.last else (0,))
        lines: list[str] = []  # Texts, and the revealed cards (names and values: no words)
        if s.last is not None:  # also the roll that ended the last round, until the next reveal
            lines += self._roll_lines(s)
        if "0" in s.cards.values() and s.last is None:  # before the first defusal: a 0 draws, a die more
            lines.append(T("each 0: +1 card, +1 die"))  # (who: the 0s beside the names, needed there)
        news = len(lines)
        needed: tuple[int, ...] = ()
        lines.append(T("Hands {hands}", hands=" ".join(f"{p} {s.hands[p]}" for p in self.alive(s))))
        if phase == "reveal":
            return View(title, scores, tuple(lines), tuple(self.alive(s)), "choosing", news)
        # every revealed card, to check against the table while the round runs
        cards = tuple(join([p, value], " ") for p, value in scores if p in s.cards)
        if phase == "claim":
            return View(title, scores, tuple(lines), (str(s.claim),), "playing", news, needed, cards)
        if s.ties:  # the table settles the tie (or takes the random order)
            tied = tuple(p for p in s.defusers if any(p in g for g in s.ties))
            return View(title, scores, tuple(lines), tied, "rolling", news, needed, cards)
        return View(title, scores, tuple(lines), (s.defusers[0],), "rolling", news, needed, cards)

    def _score(self, s: BombState, player: str) -> str:
        """A player's lives (``3♥``), and their card while the round runs (``3♥ [0]``); ``out``."""
        if player in s.out:
            return T("out")
        card = f" [{s.cards[player]}]" if player in s.cards and not s.over else ""
        return f"{s.lives[player]}♥{card}"

    def _roll_lines(self, s: BombState) -> list[str]:
        """The last defusal: who, the totals and what came of them, then each die's marks."""
        last = s.last
        if last is None:
            return []
        head = self._roll_head(last)
        if last.get("safe"):
            return [head]
        shown: list[str] = [face_text(f) for f in last["faces"]]
        if last.get("red") and shown:
            shown[-1] = join(["R:", shown[-1]], "")
        return [head, join(shown, " ")]

    @staticmethod
    def _roll_head(last: dict[str, Any]) -> Text:
        """What a defusal brought, as the table hears it and the screen shows it: the player, the
        totals of the marks, and the outcome (``Ben: B2 F3 C0 boom -2``, ``… -3, out!``)."""
        p = last["player"]
        if last.get("safe"):
            return T("{player}: SAFE", player=p)
        marks = dict(totals(last["faces"]))
        if "lost" in last:
            if last.get("out"):
                return T("{player}: B{bomb} F{fuse} C{card} -{lost}, out!", player=p, lost=last["lost"], **marks)
            return T("{player}: B{bomb} F{fuse} C{card} boom -{lost}", player=p, lost=last["lost"], **marks)
        if last.get("life"):
            return T("{player}: B{bomb} F{fuse} C{card} +1 life", player=p, **marks)
        if last.get("drawn") == 1:
            return T("{player}: B{bomb} F{fuse} C{card} +1 card", player=p, **marks)
        if last.get("drawn"):
            return T("{player}: B{bomb} F{fuse} C{card} +{drawn} cards", player=p, drawn=last["drawn"], **marks)
        return T("{player}: B{bomb} F{fuse} C{card} ok", player=p, **marks)


ENGINE = Bomb()
"""ぼむ！ (Bomb, Kisekiya)."""
