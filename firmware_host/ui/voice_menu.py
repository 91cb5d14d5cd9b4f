"""Settings → Voice: the voice on or off, its volume, and which calls it makes.

Each line cycles its values with ``ok``; a change is saved and heard at once. The calls line sets
the game in play's own calls when a game is in play (``[voice] game_calls``), else every game's.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from firmware_host.core.config import VOICE_CALLS
from firmware_host.core.i18n import _, tr
from firmware_host.ui.base import Item, ListScreen
from games.core import T

if TYPE_CHECKING:
    from firmware_host.ui.table import MenuTable

VOLUMES = (25, 50, 100, 150, 200)
"""The volumes the line cycles through: percent of the voice's own loudness."""
CALL_LABELS = {"all": T("all"), "results": T("results"), "turns": T("turns"), "beeps": T("beeps")}


class VoiceScreen(ListScreen):
    """The voice's three settings (``game``: the game in play, whose calls the third line sets)."""

    table: MenuTable

    def __init__(self, table: MenuTable, game: str | None = None) -> None:
        super().__init__(table, T("Voice"), self._entries)
        self.game = game

    def _entries(self) -> list[Item]:
        settings = self.table.settings
        return [
            Item(_("Voice"), self._toggle, _("on") if settings.get("voice") else _("off")),
            Item(_("Voice volume"), self._louder, f"{settings.get('voice_volume', 100)}%"),
            Item(_("Voice calls"), self._next_calls, tr(CALL_LABELS.get(self._calls(), CALL_LABELS["all"]))),
        ]

    def _calls(self) -> str:
        settings = self.table.settings
        return settings.get("voice_game_calls", {}).get(self.game) or settings.get("voice_calls", "all")

    def _toggle(self) -> None:
        self.table.change_setting("voice", not self.table.settings.get("voice", False))

    def _louder(self) -> None:
        now = self.table.settings.get("voice_volume", 100)
        louder = [v for v in VOLUMES if v > now]
        self.table.change_setting("voice_volume", louder[0] if louder else VOLUMES[0])

    def _next_calls(self) -> None:
        following = VOICE_CALLS[(VOICE_CALLS.index(self._calls()) + 1) % len(VOICE_CALLS)]
        if self.game is None:
            self.table.change_setting("voice_calls", following)
            return
        per_game = dict(self.table.settings.get("voice_game_calls", {}))
        per_game[self.game] = following
        self.table.change_setting("voice_game_calls", per_game)
