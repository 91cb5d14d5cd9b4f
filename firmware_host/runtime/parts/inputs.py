"""The one way in for presses: the buttons' GPIO edges, the simulator's keys (on its mock pins),
and any other source (a phone's seat, a test) enter here, each with its seat or button, the
kind of press and its source.

An edge from a driver thread holds the page's work back (:class:`~firmware_host.runtime.precedence.Precedence`)
before it crosses into the loop; on the loop it goes to the ``presses`` part, which decodes it.
A finished press from a source that has no edges (``short`` or ``long``) goes to the screen on
top as a button's press would.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any

from drivers.buttons import Press
from firmware_host.core.config import BUTTONS
from firmware_host.runtime.hub import Hub

log = logging.getLogger(__name__)

KINDS = ("down", "up", "short", "long")
"""The kinds of input: a button's edge (``down``, ``up``) or a finished press (``short``, ``long``)."""


class Inputs:
    """Every press, whatever its source (``gpio``, ``sim``, ``phone``, ``test``…)."""

    def __init__(self, post: Callable[..., None], pins: str = "gpio") -> None:
        self._post = post
        """Runs a call on the loop (the device's one door in from other threads)."""
        self._presses: Any = None
        self._precedence: Any = None
        self.pins = pins
        """The source the buttons' edges come from: ``gpio``, or ``sim`` on the simulator's pins."""
        self.last_source: str | None = None
        """Where the last input came from."""

    def setup(self, hub: Hub) -> None:
        """Hand presses to the ``presses`` part; hold the page back behind a button's edge."""
        self._presses = hub.lookup("presses")
        self._precedence = hub.lookup("precedence")

    def edge_from_thread(self, button: str, pressed: bool, t: float) -> None:
        """A button's edge from its driver (any thread): the GPIO pins, or the simulator's mock
        pins (its keys, a script's presses)."""
        self._precedence.hold()  # before it is posted: the page's work already queued waits behind it
        self._post(self.edge, button, pressed, t, self.pins)

    def edge(self, button: str, pressed: bool, t: float, source: str = "gpio") -> None:
        """A button went down or up at ``t`` (on the loop)."""
        self.last_source = source
        self._presses.edge(button, pressed, t)

    def press(self, button: str, kind: str = "short", source: str = "test") -> bool:
        """A finished press of ``button`` (a seat ``p1``..``p6`` or ``prev``/``next``/``ok``/``back``)
        from a source without edges, on the loop; ``kind``: ``short`` or ``long``. False (and
        nothing done) for a button or a kind there is not."""
        if button not in BUTTONS or kind not in ("short", "long"):
            log.warning("input from %s refused: %r %r", source, button, kind)
            return False
        self.last_source = source
        t = asyncio.get_running_loop().time()
        self._presses.handle(Press(button, kind == "long", t, 1.0 if kind == "long" else 0.1))
        return True
