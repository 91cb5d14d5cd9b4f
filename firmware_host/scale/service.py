"""The scale service: raw load-cell samples in, readings and game actions out.

Owned by the device; the scale driver's samples reach it on the loop (:meth:`ScaleService.sample`).
It feeds the event detector (:mod:`firmware_host.scale.detector`) with the calibration of ``scale.json``
and, while the game in play waits for a player's pieces, turns its events into the very actions
the buttons give, as the game's engine declares them (:class:`games.core.ScaleUse`, e.g.
``{"type": "place", "count": n}`` and ``{"type": "fall"}``), through its host's ``apply``,
journaled like any press. It names no game: any engine that declares scale use is served.

It reaches the table only through :class:`ScaleHost` (apply, confirm a table job, toast, redraw,
re-read the mood, a timer), the state folder's documents (:class:`Docs`), and two callables: the
scale driver (or ``None``) and whether a screen reads the scale itself (calibration).

- **Counting.** A settled step up is counted against every calibrated kind; the kind seen first
  in a turn is preferred (a player places one kind until it runs out). A count above what the
  player owes or the supply holds is cut to it, with a note on the screen.
- **Mood.** While the pile is disturbed during a placing turn the game's "playing" light turns
  "disturbed" (yellow); settled it is green again.
- **Re-filling the bin.** While the game shows its "empty and re-fill the bin" job, events change
  nothing. When calibrated, the job is confirmed once the bin has been seen empty and then holds
  the pre-fill's weight (at a game's start, when the scale has not watched the bin before, the
  calibration's zero stands for the empty bin until it is seen: a bin filled at once counts);
  the "Bin filled" button always works too. Once the job is done the
  level the pile stands at is the detector's new zero at once (the next settled level, when the
  button was pressed while it moved); after an undo and for a new game the detector starts afresh,
  but not after the scale's own take-back (the detector stands at the level it went back to).
- **Undoing a place.** An undo that takes back pieces placed (counted by the scale or pressed)
  tells the table to take them out of the bin, and the detector keeps its level: their removal
  is not a fall (nor a place of anyone's), so bin and supply agree again.
- **Manual presses.** "Placed" pressed while the scale has a change it has not reported yet (the
  pile moving, or a new weight being confirmed) is a credit: the scale's own count of that settle
  is reduced by it, so a piece is not counted twice.
- **Read only when needed.** The chip is read while someone asks for it (:meth:`ScaleService.want`:
  a Tonne turn, the calibration and self-test screens) and powered down otherwise, so an idle
  device never wakes for it. After a pause the detector starts afresh (re-zeroed).
- **Taken back.** A place the detector takes back (a hand that held as still as pieces, then
  lifted straight off) is undone while it is still the last action (journaled as an undo).
- **Faults** (from the driver, or the detector's ``fault`` events) show as the title bar's mark
  and on the self-test line; the buttons keep working throughout.
"""

from __future__ import annotations

import logging
import statistics
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from drivers.scale.faults import ALL_ONES_FAULT, GLITCH_CODES, NO_DATA, SATURATED, SLOW_CLOCK
from firmware_host.scale.calibration import Calibration
from firmware_host.scale.detector import (
    DISTURBED,
    FALL,
    FAULT,
    GAP,
    PLACE,
    RETRACT,
    SETTLED,
    Detector,
    ScaleEvent,
    Tuning,
    piece_fit,
)
from games.core import Action, Engine, ScaleNow, ScaleUse, T, Task

log = logging.getLogger(__name__)

LEVEL_SAMPLES = 5
"""Samples of the median that gives the absolute level (re-fill check, self-test)."""
CREDIT_SECONDS = Tuning().odd_place_confirm_s + 1.0
"""A manual "Placed" credit lapses once the pile has been settled this long: longer than the
detector takes to confirm a place, so the settle it stands for is always absorbed."""
REMOVE_SECONDS = 8.0
"""How long the table is told to take out pieces an undo took back."""
FAULT_CLEAR_SECONDS = 5.0
"""A detector fault clears once the pile has been settled this long."""
KIND_SLACK = 0.35
"""How far (in pieces) a step may be from a whole number of the turn's kind and still count as it."""


def count_pieces(grams: float, weights: Mapping[str, float], prefer: str | None = None) -> tuple[int, str | None]:
    """How many pieces (at least 1) of which kind a settled step of ``grams`` stands for.

    Pieces placed together are of one kind. ``prefer`` (the kind seen earlier in the turn) wins
    when the step is within :data:`KIND_SLACK` pieces of a whole number of it; otherwise the kind
    that fits best, fewer pieces on a tie.
    """
    if not weights:
        return 0, None
    if prefer in weights:
        n, off = piece_fit(grams, [weights[prefer]])
        if off <= KIND_SLACK:
            return n, prefer
    (off, n), kind = min((piece_fit(grams, [w])[::-1], kind) for kind, w in weights.items())
    return n, kind


def fill_tolerance(expected: float, lightest: float) -> float:
    """How far (grams) a re-filled bin may be from its expected weight: half the lightest piece,
    widened by 3 % of the load for the pieces' own spread, and never under 1.5 g."""
    return max(0.5 * lightest, 0.03 * expected, 1.5)


DRIVER_FAULTS = {
    NO_DATA: T("no data"),
    ALL_ONES_FAULT: T("all ones"),
    SATURATED: T("saturated"),
    SLOW_CLOCK: T("slow clock"),
}
"""The driver's fault lines, in the players' language when shown."""


def driver_fault_words(reason: str) -> str:
    """A fault line of the scale's driver as a Text the panel translates (unknown lines as they are)."""
    if reason in DRIVER_FAULTS:
        return DRIVER_FAULTS[reason]
    if reason.startswith("stuck at "):
        return T("stuck at {raw}", raw=reason.removeprefix("stuck at "))
    return reason


@dataclass
class _Gather:
    count: int
    after: float
    done: Callable[[list[int] | None], None]
    samples: list[int] = field(default_factory=list)
    handle: Any = None


class ScaleHost(Protocol):
    """What the scale service may do at the table."""

    def apply(self, action: Action) -> bool:
        """Hand an action to the game in play (journaled, then shown); False when refused."""
        ...

    def confirm_task(self, key: str) -> None:
        """Confirm the table job ``key`` (the bin was re-filled)."""
        ...

    def toast(self, text: str, seconds: float = ..., now: bool = False) -> None:
        """Say ``text`` for a moment on the bottom line."""
        ...

    def redraw(self) -> None:
        """Draw the screen again soon."""
        ...

    def update_mood(self) -> None:
        """Ask the tower's lasting light again (the pile's stillness tints it)."""
        ...

    def call_later(self, delay: float, fn: Callable[[], None]) -> Any:
        """Run ``fn`` on the loop in ``delay`` seconds; returns a handle with ``cancel()``."""
        ...

    def undo(self, why: str | None = None) -> bool:
        """Take back the last action (a place the detector took back), telling the table ``why``;
        False when there is none."""
        ...


class Docs(Protocol):
    """The state folder's small JSON documents (``scale.json``)."""

    def read_doc(self, name: str) -> dict[str, Any]:
        """The document ``name`` (empty when missing)."""
        ...

    def write_doc(self, name: str, doc: dict[str, Any]) -> None:
        """Write the document ``name`` durably."""
        ...

    def note_problem(self, text: str) -> None:
        """Tell the table what was wrong with a document (the "Files checked" screen)."""
        ...


class WeighedGame(Protocol):
    """What the scale service reads of the game in play."""

    engine: Engine
    state: Any
    actions: list[Action]
    journal: Any
    undone: tuple[Action, ...]
    """The actions the last undo took back."""

    def prompt(self) -> Any:
        """The prompt the game waits for."""
        ...


class ScaleService:
    """Follows the load cell for the device."""

    def __init__(
        self,
        host: ScaleHost,
        docs: Docs,
        driver: Callable[[], Any] = lambda: None,
        held: Callable[[], bool] = lambda: False,
    ) -> None:
        self.host = host
        self.docs = docs
        self._driver = driver
        """The scale driver now (``None``: no scale), asked when needed."""
        self._held = held
        """Whether a screen reads the scale itself (calibration): then events change nothing."""
        self.game: WeighedGame | None = None
        self.use: ScaleUse | None = None
        """How the game in play uses the scale, if it does."""
        self.raw: int | None = None
        self.driver_fault: str | None = None
        self.detector_fault: str | None = None
        self.calibration: Calibration | None = None
        self.detector: Detector | None = None
        self.recent: deque[int] = deque(maxlen=LEVEL_SAMPLES)
        self.credit = 0
        """Pieces pressed "Placed" by hand while the pile was moving, not yet seen settle."""
        self.kind: str | None = None
        """The kind of piece the current turn places, as far as the scale could tell."""
        self._gathers: list[_Gather] = []
        self._settled_since: float | None = None
        self._seen: tuple[Any, int, str | None] | None = None
        self._placing: str | None = None
        self._now: ScaleNow | None = None
        self._task: Task | None = None
        self._expected: float | None = None
        self._empty_level: float | None = None
        self._zero_empty = False
        """Whether the calibration's zero stands for the empty bin (a job at a game's start)."""
        self._own = False
        self._placed: list[int] = []
        """How many actions there were right after each of the scale's last two places (for a
        take-back: a hand counted twice is taken back twice)."""
        self.removing = 0
        """Pieces an undo took back that the table is still to take out of the bin (their
        removal is no fall)."""
        self._taken_back_to: int | None = None
        """How many actions a take-back left: that undo keeps the detector, which knows the level."""
        self._shown = ""
        self._fault_at = 0.0
        self._reader: Any = None
        """The driver :meth:`attach` gave, started and stopped as the wants come and go."""
        self._callbacks: tuple[Callable[[float, int], None], Callable[[str], None]] | None = None
        self.wants: set[str] = set()
        """Why the scale is being read now (empty: powered down)."""
        self.reading = False
        self.load()

    # -- reading only when needed -----------------------------------------------------------------
    def attach(self, driver: Any, on_sample: Callable[[float, int], None], on_fault: Callable[[str], None]) -> None:
        """Take the driver (powered down until someone wants it) and the callbacks it reports to."""
        self._reader, self._callbacks = driver, (on_sample, on_fault)
        self.reading = not self.wants  # a driver comes up powered: start it, or power it down
        self._power()

    def want(self, reason: str, on: bool = True) -> None:
        """Ask for readings for ``reason`` (``on=False`` gives the ask back); the chip is read
        while anyone asks and powered down otherwise."""
        if on:
            self.wants.add(reason)
        else:
            self.wants.discard(reason)
        self._power()

    def _power(self) -> None:
        driver = self._reader
        if driver is None or self._callbacks is None or bool(self.wants) == self.reading:
            return
        self.reading = bool(self.wants)
        if self.reading:
            self.rezero()  # the pile may have changed while nobody watched
            self.recent.clear()
            self.raw = None
            driver.start(*self._callbacks)
        else:
            driver.stop()

    # -- calibration --------------------------------------------------------------------------------
    def load(self) -> None:
        """Read ``scale.json`` from the state folder and start the detector afresh.

        A ``scale.json`` that reads as JSON but holds no usable calibration (a zero or missing
        scale factor) leaves the scale uncalibrated and says so, rather than silently."""
        doc = self.docs.read_doc("scale")
        self.calibration = Calibration.from_json(doc)
        if doc and self.calibration is None:
            self.docs.note_problem(T("scale.json holds no usable calibration: calibrate again"))
        self.rezero()

    def save(self, calibration: Calibration) -> None:
        """Keep a new calibration as ``scale.json`` and use it at once."""
        self.docs.write_doc("scale", calibration.to_json())
        self.load()

    def rezero(self) -> None:
        """Forget the pile's level: the detector starts over at the next still reading."""
        self.detector = None
        self.credit = 0
        self.removing = 0
        self._settled_since = None

    def _refilled(self) -> None:
        """The re-fill job was confirmed: the level the pile stands at now is the new zero, at once
        (a piece placed a moment later counts; a fresh detector would first take a still second,
        and a piece placed in it would sink into its zero)."""
        self.credit = 0
        if self.detector is None:
            return
        self.detector.rezero(now=True)

    @property
    def present(self) -> bool:
        """Whether the device has a scale at all."""
        return self._driver() is not None

    def sps(self) -> float | None:
        """The driver's samples per second, if it says."""
        return getattr(self._driver(), "sps", None)

    @property
    def fault(self) -> str | None:
        """What is wrong with the scale now, if anything."""
        return self.driver_fault or self.detector_fault

    @property
    def settled(self) -> bool:
        """Whether the detector sees the pile still."""
        return self.detector is not None and self.detector.state == SETTLED

    # -- samples in -----------------------------------------------------------------------------------
    def sample(self, t: float, raw: int) -> None:
        """One raw sample from the driver (on the loop)."""
        if not self.reading and self._reader is not None:
            return  # taken just before the pause; the next reading starts afresh
        self.raw = raw
        if self.driver_fault is not None:
            self.driver_fault = None
            self.host.redraw()
        if raw not in GLITCH_CODES:
            self.recent.append(raw)
        self._feed_gathers(t, raw)
        cal = self.calibration
        if cal is None:
            return
        if self.detector is None:
            # every kind's weight: two cans are 10 g, not two and a half apples
            self.detector = Detector(cal.counts_per_gram, cal.weights(), self.sps())
        detector = self.detector
        before = detector.state
        for event in detector.feed(t, raw):
            self._event(event)
        if self.detector is not detector:  # an event ended the job or the game: start over
            self.host.update_mood()
            return
        if detector.state == SETTLED:
            if self._settled_since is None:
                self._settled_since = t
            steady = t - self._settled_since
            if steady >= CREDIT_SECONDS:
                self.credit = 0
            if self.detector_fault and t - max(self._settled_since, self._fault_at) >= FAULT_CLEAR_SECONDS:
                self.detector_fault = None
                self.host.redraw()
            self._watch_task()
        else:
            self._settled_since = None
        if detector.state != before:
            self.host.update_mood()

    def on_fault(self, reason: str) -> None:
        """The driver reports a problem (no data, stuck line)."""
        reason = driver_fault_words(reason)
        if reason != self.driver_fault:
            self.driver_fault = reason
            log.warning("scale fault: %s", reason)
            self.host.redraw()

    def _event(self, event: ScaleEvent) -> None:
        if event.event == FAULT:
            if event.reason.startswith(GAP):
                return  # the driver already said so (no data, slow clock, stuck) while it lasted
            reason = event.reason or "fault"
            self._fault_at = event.t
            if reason != self.detector_fault:
                log.warning("scale fault: %s", reason)
                self.detector_fault = reason
                self.host.toast(T("Scale: {reason}", reason=reason), now=True)
            return
        if self.removing and event.event in (FALL, RETRACT):
            self.removing = max(0, self.removing - max(1, event.pieces))  # out again, as asked
            return
        if self._placing is None or self._paused():
            return
        if event.event == FALL:
            if event.joins:
                return  # more of the fall just applied: that turn has ended already
            fall = self.use.fall_action() if self.use is not None else None
            if fall is not None:
                self._apply(fall)
        elif event.event == PLACE:
            self._place(event)
        elif event.event == RETRACT:
            self._take_back()

    def _place(self, event: ScaleEvent) -> None:
        cal = self.calibration
        if cal is not None and cal.pieces:
            n, self.kind = count_pieces(event.grams, cal.pieces, self.kind)
        else:
            n = event.pieces
        absorbed = min(self.credit, n)
        self.credit -= absorbed
        n -= absorbed
        if n <= 0 or self.use is None or self._now is None:
            return
        count = min(n, self._now.owed)
        if count < n:
            self.host.toast(T("Scale saw {seen}, counted {count}", seen=n, count=count))
        if count > 0:
            self._apply(self.use.place_action(count))
            if self.game is not None:
                self._placed = [*self._placed[-1:], len(self.game.actions)]

    def _take_back(self) -> None:
        """The detector took its last place back: undo it, if nothing came after it. The detector
        stays: it stands at the level the place went back to, so a piece placed a moment later
        counts (a fresh one would take that moment as its zero)."""
        game = self.game
        if game is not None and self._placed and self._placed[-1] == len(game.actions):
            self._placed.pop()
            self._taken_back_to = len(game.actions) - 1  # before the undo: it may report back at once
            if not self.host.undo(T("Undone: a hand, not a piece")):
                self._taken_back_to = None

    def _apply(self, action: Action) -> None:
        self._own = True
        try:
            self.host.apply(action)
        finally:
            self._own = False

    def _paused(self) -> bool:
        """Whether a screen uses the scale itself (calibration): then events change nothing."""
        return self._held()

    # -- the game changed -----------------------------------------------------------------------------
    def changed(self, game: WeighedGame | None) -> None:
        """The game in play changed (an action, an undo, a confirmed job, a new or resumed game)."""
        session = self.game = game
        self.use = session.engine.scale if session is not None else None
        now = session.engine.scale_now(session.state) if session is not None and self.use is not None else None
        # the game declares when the scale is for something: read it then (Tonne: the whole game,
        # card reveals too, so the detector keeps its level for the first piece of the next turn)
        self.want("game", now is not None)
        if session is None or now is None:
            self._seen, self._placing, self._task, self._now = None, None, None, None
            return
        self._now = now
        prompt = session.prompt()
        task = prompt if isinstance(prompt, Task) else None
        placing = None if task is not None else now.placing
        seen = (session.journal.header.get("id"), len(session.actions), task.key if task else None)
        old = self._seen
        if old != seen:
            taken_back = old is not None and old[0] == seen[0] and seen[1] == self._taken_back_to
            if old is None or old[0] != seen[0]:
                self.rezero()
            elif seen[1] < old[1] and not taken_back:
                if not self._take_out(session):  # else the detector keeps its level: a removal comes
                    self.rezero()
            elif old[2] is not None and old[2] != seen[2]:
                self._refilled()
            elif seen[1] == old[1] + 1 and not self._own:
                self._manual(session.actions[-1])
            if task is not None and (old is None or old[2] != task.key):
                self._empty_level = None
                # a new (or resumed) game's bin was not watched before: the calibration's zero
                # stands for the empty bin until the scale sees it, so a bin filled before the
                # first still reading counts too
                self._zero_empty = old is None or old[0] != seen[0]
        self._taken_back_to = None
        if placing != self._placing:
            self.kind = None
        self._seen, self._placing, self._task = seen, placing, task
        self._expected = self._fill_grams(now) if task is not None else None

    def _take_out(self, session: WeighedGame) -> bool:
        """An undo took back pieces placed: ask the table to take them out (True), when the
        scale follows the pile; else the detector starts afresh."""
        use = self.use
        pieces = sum(use.placed(a) for a in getattr(session, "undone", ())) if use is not None else 0
        if pieces <= 0 or self.detector is None or self.calibration is None:
            return False
        self.removing = pieces
        self.credit = 0
        self.host.toast(T("Take {n} back out of the bin", n=pieces), seconds=REMOVE_SECONDS)
        return True

    def _manual(self, action: Action) -> None:
        """A "Placed" pressed while the scale has a change it has not reported yet (the pile
        moving, or a new weight still being confirmed) stands for that change: credit it."""
        placed = self.use.placed(action) if self.use is not None else 0
        if placed and self._unreported():
            self.credit += placed

    def _unreported(self) -> bool:
        detector, cal = self.detector, self.calibration
        if detector is None or cal is None:
            return False
        if detector.state == DISTURBED:
            return True
        if detector.settled_grams is None or self.raw is None or self.raw in GLITCH_CODES or cal.lightest is None:
            return False
        return abs(self.raw / cal.counts_per_gram - detector.settled_grams) >= 0.5 * cal.lightest

    def _fill_grams(self, now: ScaleNow) -> float | None:
        """The weight a re-filled bin holds, when the game says and every kind in it is calibrated."""
        cal, fill = self.calibration, now.fill
        if cal is None or fill is None or not all(k in cal.pieces for k in fill):
            return None
        return sum(n * cal.pieces[k] for k, n in fill.items())

    def _level(self) -> float | None:
        return statistics.median(self.recent) if self.recent else None

    def _watch_task(self) -> None:
        """While the bin is to be emptied and re-filled: confirm it when the scale sees it done."""
        task, expected, cal, level = self._task, self._expected, self.calibration, self._level()
        if task is None or expected is None or cal is None or level is None or cal.lightest is None or self._paused():
            return
        self._show_task_line()
        if abs(cal.grams(level)) <= fill_tolerance(0.0, cal.lightest):
            self._empty_level = level
        empty = self._empty_level
        if empty is None and self._zero_empty:
            empty = cal.offset
        if empty is None:
            return
        filled = (level - empty) / cal.counts_per_gram
        if abs(filled - expected) <= fill_tolerance(expected, cal.lightest):
            self.host.toast(T("Scale: bin filled"))
            self.host.confirm_task(task.key)

    def _show_task_line(self) -> None:
        line = self.task_line(self._task) if self._task is not None else None
        if line != self._shown:
            self._shown = line or ""
            self.host.redraw()

    # -- reading --------------------------------------------------------------------------------------
    def tint(self, mood: str) -> str:
        """The game's mood as the pile makes it: "disturbed" while it moves in a placing turn."""
        detector = self.detector
        moving = detector is not None and detector.state == DISTURBED
        if mood == "playing" and self._placing is not None and moving and not self._paused():
            return "disturbed"
        return mood

    def task_line(self, task: Task) -> str | None:
        """What the scale sees of the bin while ``task`` (emptying and re-filling it) is open."""
        cal, level = self.calibration, self._level()
        if self._task is None or task.key != self._task.key or self._expected is None or cal is None or level is None:
            return None
        grams = cal.grams(level) if self._empty_level is None else (level - self._empty_level) / cal.counts_per_gram
        return T("Scale {grams:.0f} g, want {want:.0f}", grams=grams, want=self._expected)

    def line(self) -> str:
        """The reading for the self-test screen."""
        if not self.present:
            return T("Scale: none")
        if self.fault:
            return T("Scale: {reason}", reason=self.fault)
        if self.raw is None:
            return T("Scale: waiting")
        level = self._level()
        if self.calibration is None or level is None:
            return T("Scale: {raw} raw, uncal.", raw=self.raw)
        grams = self.calibration.grams(level)
        return (
            T("Scale: {grams:.1f} g still", grams=grams)
            if self.settled
            else T("Scale: {grams:.1f} g moving", grams=grams)
        )

    # -- windows for calibration -------------------------------------------------------------------------
    def gather(
        self, count: int, after: float, done: Callable[[list[int] | None], None], timeout: float
    ) -> Callable[[], None]:
        """Collect ``count`` raw samples taken at ``after`` or later, then call ``done`` with them.

        ``done(None)`` when they have not come within ``timeout`` seconds. Returns a function
        that cancels the collection.
        """
        gather = _Gather(count, after, done)

        def expire() -> None:
            if gather in self._gathers:
                self._gathers.remove(gather)
                done(None)

        gather.handle = self.host.call_later(timeout, expire)
        self._gathers.append(gather)

        def cancel() -> None:
            if gather in self._gathers:
                self._gathers.remove(gather)
                gather.handle.cancel()

        return cancel

    def _feed_gathers(self, t: float, raw: int) -> None:
        for gather in list(self._gathers):
            if t < gather.after:
                continue
            gather.samples.append(raw)
            if len(gather.samples) >= gather.count:
                self._gathers.remove(gather)
                gather.handle.cancel()
                gather.done(gather.samples)
