"""Ab in die Tonne said aloud: the order of a round, the pieces placed, a fall and its chip, the
supply running out."""

from __future__ import annotations

from collections.abc import Callable

from games.core import T, Text, join


def _order(t: Text) -> Text:
    """``R2 order: Ann 3, Ben 7`` → "Round 2. Ann with 3, then Ben with 7." (the panel's parts are
    a name and a card each)."""
    cards = t.values["cards"]
    parts = [cards.values[f"p{i}"] for i in range(len(cards.values))] if isinstance(cards, Text) else [cards]
    said = []
    for part in parts:
        name, _, card = str(part).rpartition(" ")
        said.append(T("{player} with {card}", player=name, card=card) if name else part)
    return T("Round {round}. The order: {cards}.", round=t.values["round"], cards=join(said))


EAR: dict[str, Callable[[Text], Text]] = {
    "R{round} order: {cards}": _order,
    "{player} fell: -{chip}": lambda t: T(
        "Something fell! {player} takes a minus chip worth {chip}.", player=t.values["player"], chip=t.values["chip"]
    ),
    "{player} placed {count}": lambda t: T(
        "{player} placed {count} pieces.", player=t.values["player"], count=t.values["count"]
    ),
    "{player} +{chip}: supply empty": lambda t: T(
        "The supply is empty! {player} takes a plus chip worth {chip}.",
        player=t.values["player"],
        chip=t.values["chip"],
    ),
}
"""The panel's short lines, said in full."""
