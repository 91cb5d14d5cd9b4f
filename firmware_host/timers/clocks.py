"""The arithmetic of the turn timers, in whole milliseconds, with no clock and no loop.

A :class:`Clocks` object knows the players' time and whose clock runs; whoever owns the time (the
timer service, a test) tells it how many milliseconds have run with :meth:`Clocks.run`. Each mode
derives everything from the banks at the start of the turn and the time used in it, so the
result is the same whether the time arrives in one piece or in a thousand.

Modes (:data:`MODES`):

- ``turn`` — every turn gets ``seconds``; what is left does not carry over;
- ``hourglass`` — every player starts with ``seconds`` of sand; while one player thinks, their
  sand runs out and flows, in equal parts, to the players who wait; an empty glass stops the flow;
- ``bank`` — a chess clock: every player has a bank of ``seconds`` for the whole game, plus a
  Fischer ``increment`` added after each of their turns and/or a Bronstein ``delay`` (the time
  used in a turn, up to ``delay``, is given back after it). As on a FIDE clock, a turn in which
  the time ran out earns neither; and an undone turn gives its bonus back (:meth:`Clocks.revoke`);
- ``countup`` — measures; ``seconds`` (when not 0) is a par time that lights the tower;
- ``off`` — no timer.

A simultaneous choice (every player answers at once) is a *phase*: one shared countdown of
``phase`` seconds (0: untimed) that runs while someone has not answered; banks stand still.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

MODES = ("off", "turn", "hourglass", "bank", "countup")
TIMEOUTS = ("soft", "hard")

Key = tuple[str, ...] | None
"""Whose clock runs: ``("turn", NAME)``, ``("phase", NAME, NAME…)`` or ``None`` (nobody's)."""

RUNNING, WARNING, TIMEOUT = "running", "warning", "timeout"
MAX_CREDITS = 64
"""How many turns' bonus times are remembered for undo (and journaled with the clocks)."""
LEVELS = (RUNNING, WARNING, TIMEOUT)


def ms(seconds: float) -> int:
    """Seconds as whole milliseconds."""
    return round(seconds * 1000)


@dataclass(frozen=True)
class Preset:
    """How a game is timed: the mode and its numbers (seconds), as the owner set them.

    ``warn`` is when the tower turns yellow: a number of seconds left (``10``) or a share of the
    full time (``"20%"``). ``timeout`` ``"hard"`` hands the game a ``timeout`` action when time
    runs out; ``"soft"`` only lights and sounds the tower.
    """

    mode: str = "off"
    seconds: float = 60.0
    increment: float = 0.0
    delay: float = 0.0
    timeout: str = "soft"
    warn: float | str = "20%"
    phase: float = 30.0

    @property
    def on(self) -> bool:
        """Whether any timer runs."""
        return self.mode != "off"

    def warn_ms(self, full: int) -> int:
        """Milliseconds left at which the warning starts, for a clock whose full time is ``full``."""
        if isinstance(self.warn, str):
            return round(full * float(self.warn.rstrip("%")) / 100)
        return ms(self.warn)

    def to_dict(self) -> dict[str, Any]:
        """The preset as plain data (journal, settings, history)."""
        return asdict(self)


def seat_shares(amount: int, parts: int) -> list[int]:
    """``amount`` split into ``parts`` whole shares that differ by at most 1, larger ones first."""
    base, extra = divmod(amount, parts)
    return [base + (1 if i < extra else 0) for i in range(parts)]


class Clocks:
    """The time of every player of one game, and whose clock runs now."""

    def __init__(self, preset: Preset, players: Sequence[str]) -> None:
        self.preset = preset
        self.players = list(players)
        self.banks: dict[str, int] = {p: ms(preset.seconds) for p in self.players}
        """Time left per player (bank and hourglass); may go below 0 in bank mode (overtime)."""
        self.key: Key = None
        self.start: dict[str, int] = dict(self.banks)
        """The banks when the current turn began."""
        self.used = 0
        """Milliseconds run in the current turn or phase."""
        self.answers: dict[str, int] = {}
        """Phase: when (``used``) each player locked their answer in."""
        self.pending: set[str] = set()
        """Phase: players who have not answered yet."""
        self.credits: list[tuple[str, int, int]] = []
        """Bank: bonus time credited at each turn's end, as (player, ms, actions in effect then)."""
        self.extra: dict[str, int] = {}
        """Hourglass: sand given to waiting players on a resume, so nobody has less than at the cut."""

    # -- whose clock runs ------------------------------------------------------------------------
    @property
    def active(self) -> str | None:
        """The player whose own clock runs (a turn), else ``None``."""
        return self.key[1] if self.key and self.key[0] == "turn" else None

    @property
    def phase(self) -> bool:
        """Whether a simultaneous choice is being timed."""
        return bool(self.key) and self.key[0] == "phase"

    @property
    def running(self) -> bool:
        """Whether time passing changes anything now (a turn, or a phase someone still owes)."""
        return self.active is not None or (self.phase and bool(self.pending))

    def begin(self, key: Key, locked: Iterable[str] = ()) -> None:
        """Start a turn (or phase, or nobody's time) from the banks as they are."""
        self.key = key
        self.start = dict(self.banks)
        self.used = 0
        self.extra = {}
        in_phase = set(key[1:]) if key and key[0] == "phase" else set()
        self.pending = in_phase - set(locked)
        self.answers = {p: 0 for p in in_phase & set(locked)}

    def narrow(self, players: Sequence[str]) -> None:
        """The phase goes on with fewer players (the others have answered and left it)."""
        assert self.phase
        self.key = ("phase", *players)
        self.pending &= set(players)

    def lock(self, players: Iterable[str], locked: Iterable[str]) -> None:
        """Of the phase's ``players``, ``locked`` have answered now (the rest have not)."""
        locked = set(locked)
        for p in players:
            if p not in self.key[1:]:  # type: ignore[index]
                continue
            if p in locked:
                self.answers.setdefault(p, self.used)
                self.pending.discard(p)
            else:
                self.answers.pop(p, None)
                self.pending.add(p)

    def end(self, at: int | None = None, bonus: bool = True) -> int:
        """End the turn or phase; returns the milliseconds it took.

        In bank mode the player's bonus time is added (Bronstein give-back up to ``delay``, then
        the Fischer ``increment``) unless ``bonus`` is false (a turn cut short by an undo) or the
        time ran out in it (a turn lost on time earns nothing, as on a FIDE clock). ``at``: the
        actions in effect when the turn ended, so an undo past it can take the bonus back.
        """
        player = self.active
        if player is not None and self.preset.mode == "bank" and bonus and self.banks[player] > 0:
            credit = min(self.used, ms(self.preset.delay)) + ms(self.preset.increment)
            if credit:
                self.banks[player] += credit
                if at is not None:
                    self.credits.append((player, credit, at))
                    del self.credits[:-MAX_CREDITS]
        used = self.used
        self.start = dict(self.banks)
        self.key, self.used, self.answers, self.pending, self.extra = None, 0, {}, set(), {}
        return used

    def revoke(self, actions: int) -> None:
        """An undo back to ``actions`` actions in effect: the bonus time of every turn that ended
        after that point is taken back (the time the turns used stays spent)."""
        while self.credits and self.credits[-1][2] > actions:
            player, credit, _ = self.credits.pop()
            self.banks[player] -= credit
            self.start[player] -= credit

    # -- time passing ----------------------------------------------------------------------------
    def run(self, elapsed: int) -> None:
        """``elapsed`` milliseconds ran on the clock that runs now."""
        if elapsed <= 0 or not self.running:
            return
        self.used += elapsed
        player = self.active
        if player is None:
            return
        mode = self.preset.mode
        if mode == "bank":
            self.banks[player] = self.start[player] - self.used
        elif mode == "hourglass":
            flowed = max(0, min(self.used, self.start[player]))
            self.banks[player] = self.start[player] - flowed
            i = self.players.index(player)
            waiting = self.players[i + 1 :] + self.players[:i]
            for p, share in zip(waiting, seat_shares(flowed, len(waiting)), strict=True):
                self.banks[p] = self.start[p] + share + self.extra.get(p, 0)

    # -- reading ---------------------------------------------------------------------------------
    def full(self) -> int | None:
        """The full time of the running clock (for the bar and the warning), or ``None``."""
        if self.phase:
            return ms(self.preset.phase) or None
        if self.active is None:
            return None
        if self.preset.mode == "countup":
            return ms(self.preset.seconds) or None
        return ms(self.preset.seconds)

    def remaining(self) -> int | None:
        """Milliseconds left on the running clock (below 0: overtime), or ``None`` (nothing to run out)."""
        full = self.full()
        if full is None:
            return None
        player = self.active
        if player is not None and self.preset.mode in ("bank", "hourglass"):
            return self.banks[player]
        return full - self.used

    def level(self) -> str | None:
        """``running``, ``warning`` or ``timeout`` for the running clock; ``None`` when none runs."""
        if self.key is None or (self.phase and not self.full()):
            return None
        left = self.remaining()
        if left is None:
            return RUNNING
        if left <= 0:
            return TIMEOUT
        if left <= self.preset.warn_ms(self.full() or 0):
            return WARNING
        return RUNNING

    def fraction(self) -> float | None:
        """Time left as a share of the full time (0..1), or ``None``."""
        left, full = self.remaining(), self.full()
        if left is None or not full:
            return None
        return max(0.0, min(1.0, left / full))

    # -- saving ----------------------------------------------------------------------------------
    def snapshot(self, grace: int = 0) -> dict[str, Any]:
        """What a resumed game needs to go on where this one stands.

        ``grace``: how long the clock may run on after this save before the power goes (the
        saving interval): an hourglass resumed from it gives the waiting players that much more
        flow, so none of them gets back less sand than they had at the cut.
        """
        snap: dict[str, Any] = {"key": list(self.key) if self.key else None, "used": self.used}
        if self.preset.mode in ("bank", "hourglass"):
            snap["start"] = dict(self.start)
        if self.credits:
            snap["credits"] = [list(c) for c in self.credits]
        if self.extra:
            snap["extra"] = dict(self.extra)
        if grace and self.preset.mode == "hourglass" and self.active is not None:
            snap["grace"] = grace
        if self.phase:
            snap["answers"] = dict(self.answers)
            snap["pending"] = sorted(self.pending)
        return snap

    def restore(self, snap: dict[str, Any]) -> None:
        """Go on from a :meth:`snapshot` (players that are not in this game are ignored)."""
        key = snap.get("key")
        self.key = tuple(key) if key else None
        self.start = {p: int(snap.get("start", {}).get(p, self.banks[p])) for p in self.players}
        self.banks = dict(self.start)
        used = int(snap.get("used", 0))
        self.answers = {p: int(v) for p, v in snap.get("answers", {}).items()}
        self.pending = set(snap.get("pending", [])) & set(self.players)
        self.credits = [(str(p), int(ms_), int(at)) for p, ms_, at in snap.get("credits", []) if p in self.players]
        self.extra = {p: int(v) for p, v in snap.get("extra", {}).items() if p in self.players}
        self.used = 0
        if self.running:
            self.run(used)
        else:
            self.used = used
        self._grace(int(snap.get("grace", 0)))

    def _grace(self, grace: int) -> None:
        """Hourglass resumed after a cut up to ``grace`` ms after the save: the waiting players get
        the flow of those ms too (the player who thinks keeps the sand of the save: more than at
        the cut). Nobody gets back less than they had; the glass may hold up to ``grace`` more."""
        player = self.active
        if grace <= 0 or player is None or self.preset.mode != "hourglass":
            return
        i = self.players.index(player)
        waiting = self.players[i + 1 :] + self.players[:i]
        if not waiting:
            return
        now = max(0, min(self.used, self.start[player]))
        later = max(0, min(self.used + grace, self.start[player]))
        shares = zip(waiting, seat_shares(now, len(waiting)), seat_shares(later, len(waiting)), strict=True)
        for p, before, after in shares:
            self.extra[p] = self.extra.get(p, 0) + after - before
            self.banks[p] += after - before
