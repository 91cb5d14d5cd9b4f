"""The hub: the device's parts added by name, found by name, and the events they publish.

Like Klipper's ``Printer`` (``add_object``, ``lookup_object``, ``register_event_handler``,
``send_event``) and kvmd's components: the composition root (:mod:`firmware_host.runtime.device`)
adds each part under its name, and every part has the same few hooks, all optional —

- ``setup(hub)``: find the parts it uses, subscribe to events (called once every part is added,
  in the order they were added);
- ``start()``: the hardware is up, the loop runs (in the order added);
- ``task()``: a coroutine that runs until the device stops (a long task);
- ``state()``: the part's state for the page, as plain data;
- ``close()``: let go (in reverse order).

Events are the frozen dataclasses of :mod:`firmware_host.runtime.events`; handlers run on the
loop, in the order they subscribed, when one is published. A handler that raises is logged and
the others still run.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any, Generic, TypeVar

from firmware_host.runtime.events import Event

log = logging.getLogger(__name__)

E = TypeVar("E", bound=Event)


class Listener(Generic[E]):
    """A part that is one function hearing one kind of event: a new listener is a new part."""

    def __init__(self, event: type[E], fn: Callable[[E], None]) -> None:
        self.event, self.fn = event, fn

    def setup(self, hub: Hub) -> None:
        """Subscribe the function."""
        hub.subscribe(self.event, self.fn)


class Hub:
    """Parts by name, and the events they publish to each other."""

    def __init__(self) -> None:
        self._parts: dict[str, Any] = {}
        self._handlers: dict[type[Event], list[Callable[[Any], None]]] = {}

    # -- parts -------------------------------------------------------------------------------------
    def add(self, name: str, part: Any) -> Any:
        """Add ``part`` under ``name`` (a name is added once); returns the part."""
        if name in self._parts:
            raise ValueError(f"a part named {name!r} is already added")
        self._parts[name] = part
        return part

    def lookup(self, name: str) -> Any:
        """The part added under ``name`` (a name not added fails loudly)."""
        try:
            return self._parts[name]
        except KeyError:
            raise KeyError(f"no part named {name!r} (added: {', '.join(self._parts)})") from None

    def get(self, name: str) -> Any | None:
        """The part added under ``name``, or ``None``."""
        return self._parts.get(name)

    def names(self) -> tuple[str, ...]:
        """The parts' names, in the order added."""
        return tuple(self._parts)

    def parts(self) -> tuple[Any, ...]:
        """The parts, in the order added."""
        return tuple(self._parts.values())

    # -- the hooks, over every part ------------------------------------------------------------------
    def each(self, hook: str) -> list[tuple[str, Callable[..., Any]]]:
        """The parts that have ``hook``, with it bound, in the order added."""
        out = []
        for name, part in self._parts.items():
            fn = getattr(part, hook, None)
            if callable(fn):
                out.append((name, fn))
        return out

    def setup(self) -> None:
        """Each part's ``setup(hub)``, in the order added."""
        for _, fn in self.each("setup"):
            fn(self)

    def start(self) -> None:
        """Each part's ``start()``, in the order added."""
        for _, fn in self.each("start"):
            fn()

    def close(self, names: tuple[str, ...] | None = None) -> None:
        """Each part's ``close()`` (of ``names`` only, when given), in reverse order; one that
        fails does not stop the others."""
        for name, fn in reversed(self.each("close")):
            if names is not None and name not in names:
                continue
            try:
                fn()
            except Exception:
                log.exception("closing %s failed", name)

    def state(self) -> dict[str, Any]:
        """Each part's ``state()`` by its name (the parts that have one)."""
        return {name: fn() for name, fn in self.each("state")}

    # -- events ------------------------------------------------------------------------------------
    def subscribe(self, event: type[E], handler: Callable[[E], None]) -> None:
        """Call ``handler(event)`` whenever an event of this class is published."""
        self._handlers.setdefault(event, []).append(handler)

    def publish(self, event: Event) -> None:
        """Hand ``event`` to its handlers, in the order they subscribed (on the loop)."""
        for handler in self._handlers.get(type(event), ()):
            try:
                handler(event)
            except Exception:
                log.exception("a handler of %s failed", event.name)

    def listens(self, event: type[Event]) -> bool:
        """Whether anyone subscribed to ``event`` (so a costly payload can be skipped)."""
        return bool(self._handlers.get(event))
