"""The door between the device and the page: what the web layer may ask and tell, nothing more.

The table's door implements it (:class:`firmware_host.runtime.doors.Door`); the server holds only
this. Reading is a plain-data snapshot; every change is a call the device's own menus make too
(the settings, the seat names, the timer presets), run on the device's loop.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol


class TableFirst(Protocol):
    """The table's precedence over the page (:class:`firmware_host.runtime.precedence.Precedence`):
    busy from a button's edge until its frame is on its way to the panel."""

    def busy(self) -> bool:
        """Whether the page's work should wait now."""
        ...

    def after(self, fn: Callable[[], None]) -> None:
        """Call ``fn`` on the loop once the page may go on."""
        ...


class TableDoor(Protocol):
    """What the companion page sees of the table."""

    precedence: TableFirst
    """The table's work goes first (the page defers its own while it is busy)."""

    def snapshot(self) -> dict[str, Any]:
        """The table now, as plain data (JSON-ready)."""
        ...

    def watch(self, fn: Callable[[], None]) -> Callable[[], None]:
        """Call ``fn`` after every change shown; returns the function that stops it."""
        ...

    def history(self) -> list[dict[str, Any]]:
        """Finished games, oldest first."""
        ...

    def seat_name(self, seat: str) -> str:
        """The name of a seat now."""
        ...

    def set_names(self, names: dict[str, str]) -> None:
        """Set seat names (checked), kept over a restart and shown on the panel at once."""
        ...

    def change_setting(self, key: str, value: Any) -> None:
        """Change one setting (checked) as the settings menu does."""
        ...

    def set_timer_preset(self, game: str, preset: Any) -> None:
        """Save a game's turn-timer preset (checked) as the settings menu does."""
        ...

    def pair_phone(self, code: str) -> str | None:
        """A pairing token for the code shown on the panel, else ``None``."""
        ...

    def set_phone_time(self, epoch: float) -> bool:
        """A paired phone's time (seconds since 1970, UTC) for dating this boot's games; ``False``
        when it is not believable."""
        ...

    def phone_paired(self, token: str | None) -> bool:
        """Whether ``token`` belongs to a paired phone."""
        ...
