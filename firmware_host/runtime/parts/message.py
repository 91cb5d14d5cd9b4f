"""The message line: the passing word above the hint (a refusal, an outcome, a fault).

Messages of one moment (the outcomes of one action) show together; a refusal or a fault
replaces what shows; an outcome stays until the next press, anything else goes after a few
seconds. The line belongs to :class:`~firmware_host.ui.table.Table` (every screen's door).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from firmware_host.runtime.events import ActionDurable, ActionRefused, Event
from firmware_host.runtime.hub import Hub
from firmware_host.ui.render import PARTS
from games.core import Text, join
from games.core.text import Joined

TOAST_SECONDS = 2.5
"""How long a passing message (a refusal, a fault, a setting changed) stays on its line."""
MESSAGE_PARTS = 6
"""The most messages of one moment shown together (the newest): more than two lines hold."""
TOAST_CHARS = 160
"""The longest message: more than its two lines show, short enough to fit in a blink."""


def cut(text: str) -> str:
    """``text`` shortened to :data:`TOAST_CHARS` (a message longer than its lines anyway)."""
    return text if len(text) <= TOAST_CHARS else text[: TOAST_CHARS - 1] + "…"


class MessageLine:
    """The one message line of the panel (and of the page's snapshot)."""

    def __init__(self) -> None:
        self._publish: Callable[[Event], None] = lambda event: None
        self.redraw: Callable[[], None] = lambda: None
        """Draws the screen again soon (the screens part's, from :meth:`setup`)."""
        self.text = ""
        """The message showing (a :class:`~games.core.Text` translated when drawn), or ``""``."""
        self._parts: list[str] = []
        """The messages of one moment that show together on the message line."""
        self.at = -1.0
        """The loop's time the message was given."""
        self._sticky = False
        self._handle: asyncio.TimerHandle | None = None

    def setup(self, hub: Hub) -> None:
        """Say what each durable action says; tell the hub of each refusal; draw with the screens."""
        self._publish = hub.publish
        screens = hub.get("screens")  # none when the line is tried on its own
        if screens is not None:
            self.redraw = screens.redraw
        hub.subscribe(ActionDurable, self._durable)

    def _durable(self, event: ActionDurable) -> None:
        """An action's outcomes stay on the line until the next press."""
        for text in event.said():
            self.toast(text, until_input=True)

    def toast(self, text: str, seconds: float = TOAST_SECONDS, now: bool = False, until_input: bool = False) -> None:
        """Show ``text`` on the message line (above the hint and the highlighted option).

        A new message replaces the one showing, except that messages of the same moment (the
        outcomes of one action) are shown together. A refusal or a fault (``now``) always
        replaces. An outcome (``until_input``) stays until the next press; any other message
        goes after ``seconds``.
        """
        if not isinstance(text, Text):  # a refusal may quote a player's input: keep fitting it cheap
            text = cut(text)
        elif len(text) > TOAST_CHARS and not isinstance(text, Joined):  # its quoted values cut, still translatable
            text = Text(text.msgid, **{k: cut(v) if type(v) is str else v for k, v in text.values.items()})
        loop = asyncio.get_running_loop()
        t = loop.time()
        parts = [text]
        if self.text and not now and self.at == t:
            if text in self._parts:
                return
            parts = [*self._parts[-(MESSAGE_PARTS - 1) :], text]  # each part is translated when drawn
            until_input = until_input or self._sticky
        self._parts = parts
        message = parts[0] if len(parts) == 1 else join(parts, PARTS)
        self.text, self.at, self._sticky = message, t, until_input
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None
        if not until_input:
            self._handle = loop.call_later(seconds, self.clear_message)
        self.redraw()

    def refuse(self, reason: str) -> None:
        """Show why an action was refused, at once; the tower (a listener) signals it."""
        self.toast(reason, now=True)
        self._publish(ActionRefused(reason))

    def clear_message(self) -> None:
        """Take the message off its line (its time is up, or the state it spoke of changed)."""
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None
        if self.text:
            self.text, self._sticky = "", False
            self.redraw()

    def showing(self) -> list[str]:
        """The messages showing together now (the parts :attr:`text` joins), oldest first."""
        return list(self._parts) if self.text else []

    def message_lasts(self) -> bool:
        """Whether the message showing stays until the next press (an outcome), rather than
        passing in a few seconds (a refusal, a hint, a setting changed)."""
        return bool(self.text) and self._sticky

    def toast_text(self) -> str | None:
        """The message showing now, if any."""
        return cut(self.text) if self.text else None
