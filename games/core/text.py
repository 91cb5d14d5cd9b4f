"""Words as data: what an engine says is a message id and its values, never a finished sentence.

:class:`Text` is a message in English (the msgid, with ``{name}`` fields) and the values that fill
it. It *is* a ``str``: its string value is the English sentence, so ``tablemate replay``, the logs
and the tests read the same in every language. The host translates a Text when it draws it
(``firmware_host.core.i18n.tr``): the msgid is looked up in the players' catalogue and the values
are filled in, each value that is itself a Text translated first (a jumper kind inside a menu
label, a card name inside a refusal).

Write ``T("{player} has no {jumper} left", player=p, jumper=T("rascal"))``; the scan that checks
the catalogues finds every ``T("…")`` literal, so a msgid must be a literal string, never a
variable or an f-string. Numbers keep their format spec in the msgid (``{points:+d}``).
"""

from __future__ import annotations

from typing import Any


class Text(str):
    """An English message (``msgid``, with ``{name}`` fields) and its ``values``; ``str()`` is
    the English sentence."""

    msgid: str
    values: dict[str, Any]

    def __new__(cls, msgid: str, /, **values: Any) -> Text:
        """The message ``msgid`` filled with ``values`` (the English sentence is the string value)."""
        self = super().__new__(cls, msgid.format(**values) if values else msgid)
        self.msgid = msgid
        self.values = values
        return self

    def __getnewargs__(self) -> tuple[str]:  # copy and pickle keep the msgid and the values
        return (self.msgid,)

    def __reduce__(self) -> tuple[Any, ...]:
        return (_remake, (self.msgid, self.values))

    def __repr__(self) -> str:
        values = "".join(f", {k}={v!r}" for k, v in self.values.items())
        return f"T({self.msgid!r}{values})"


def _remake(msgid: str, values: dict[str, Any]) -> Text:
    return Text(msgid, **values)


T = Text
"""The short name engines write messages with (and the catalogue scan looks for)."""


class Joined(Text):
    """Parts joined by a separator: each part is translated, the pattern itself is not looked up."""

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rejoin, (self.msgid, self.values))


def _rejoin(msgid: str, values: dict[str, Any]) -> Joined:
    return Joined(msgid, **values)


def join(parts: list[str] | tuple[str, ...], sep: str = ", ") -> Joined:
    """``parts`` joined by ``sep`` as one Text whose parts are translated each (a list of names
    and words); the separator is not translated."""
    fields = {f"p{i}": part for i, part in enumerate(parts)}
    return Joined(sep.replace("{", "{{").replace("}", "}}").join("{" + key + "}" for key in fields), **fields)


class Told:
    """Mixed into an exception whose one argument is what players read: ``str()`` gives it back
    as it is, so a :class:`Text` keeps its message id and values (and stays translatable) through
    ``str(exc)`` and through an exception re-raised as ``Other(str(exc))``."""

    args: tuple[Any, ...]

    def __str__(self) -> str:
        if len(self.args) == 1 and isinstance(self.args[0], str):
            return self.args[0]
        return super().__str__()
