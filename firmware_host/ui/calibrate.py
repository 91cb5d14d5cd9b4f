"""The "Calibrate scale" screen: the steps of :mod:`firmware_host.scale.calibration` on the buttons.

First the known weight is picked (prev/next or a seat tap change it, ok or a seat held picks);
then each step says what to do and ``ok`` measures it: the screen waits a second for the hand to
leave, gathers two seconds of samples from the scale service, and shows what it found or why the
step was refused (the step stays, to be measured again). After the last piece the result is
saved as ``scale.json`` and the scale service uses it at once. ``back`` leaves without saving.
While this screen is open the scale's events never reach a game.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from drivers.buttons import Press
from firmware_host.scale.calibration import (
    MEASURE_SECONDS,
    MIN_SAMPLES,
    SETTLE_SECONDS,
    WEIGHTS,
    CalibrationError,
    CalibrationRun,
)
from firmware_host.ui.base import Screen, footed, is_seat
from firmware_host.ui.layout import grid, text_rows
from firmware_host.ui.render import Frame, Row, panel
from games import scale_kinds

if TYPE_CHECKING:
    from firmware_host.ui.table import CalibrationScale, Table

TITLE = "Calibrate scale"


def kind_labels() -> dict[str, str]:
    """The pieces to calibrate: those of every game that weighs its pieces (loaded when calibrating)."""
    return scale_kinds()


class CalibrateScreen(Screen):
    """Walks the table through a calibration of the load cell."""

    mood = "test"
    uses_scale = True
    """Tells the scale service that this screen reads the scale itself."""

    def __init__(self, table: Table, scale: CalibrationScale) -> None:
        super().__init__(table)
        self.scale = scale
        saved = scale.calibration
        weight = int(saved.weight_grams) if saved and int(saved.weight_grams) in WEIGHTS else 100
        self.weight = WEIGHTS.index(weight)
        self.run: CalibrationRun | None = None
        self.note = ""
        self._cancel: Callable[[], None] | None = None
        self.phase = "weight" if scale.present else "none"

    # -- buttons --------------------------------------------------------------------------------------
    def press(self, press: Press) -> None:
        pick = press.button == "ok" or (is_seat(press) and press.long)
        if press.button == "back":
            self._leave()
        elif self.phase in ("none", "done"):
            if pick:
                self._leave()
        elif self.phase == "weight":
            if press.button == "next" or (is_seat(press) and not press.long):
                self.weight = (self.weight + 1) % len(WEIGHTS)
            elif press.button == "prev":
                self.weight = (self.weight - 1) % len(WEIGHTS)
            elif pick:
                self.run = CalibrationRun(WEIGHTS[self.weight], kind_labels())
                self.phase = "step"
        elif self.phase == "step" and pick:
            self._measure()

    def _leave(self) -> None:
        if self._cancel is not None:
            self._cancel()
            self._cancel = None
        if self.phase not in ("done", "none"):
            self.table.toast(TEXT["nothing_saved"])
        self.table.pop()

    def _measure(self) -> None:
        sps = self.scale.sps() or 10
        count = max(MIN_SAMPLES, round(sps * MEASURE_SECONDS))
        after = self.table.now() + SETTLE_SECONDS
        self.phase, self.note = "measuring", ""
        self._cancel = self.scale.gather(count, after, self._measured, SETTLE_SECONDS + MEASURE_SECONDS + 3.0)

    def _measured(self, samples: list[int] | None) -> None:
        self._cancel = None
        run = self.run
        assert run is not None
        self.phase = "step"
        if samples is None:
            self.note = TEXT["no_readings"].format(self.scale.fault or TEXT["check_wiring"])
            self.table.signal("refused")
        else:
            try:
                self.note = run.take(samples)
            except CalibrationError as exc:
                self.note = TEXT["refused"].format(exc)
                self.table.signal("refused")
        if run.done:
            self.scale.save(run.result())
            self.phase = "done"
            self.table.signal("success")
        self.table.redraw()

    # -- drawing -----------------------------------------------------------------------------------------
    def frame(self) -> Frame:
        if self.phase == "none":
            return self._page(TEXT["title"], TEXT["no_scale"], TEXT["hint_back"])
        if self.phase == "weight":
            rows = [
                Row.of(TEXT["known"]),
                Row.of(TEXT["weight"].format(WEIGHTS[self.weight]), invert=True),
                *text_rows(TEXT["steps"], 2),
            ]
            return self._rows(TEXT["title"], rows, TEXT["hint_start"])
        if self.phase == "done":
            cal = self.scale.calibration
            assert cal is not None
            pieces = [(kind_labels().get(k, k).split()[0], f"{g:.1f}") for k, g in cal.pieces.items()]
            rows = text_rows(TEXT["saved"].format(cal.counts_per_gram), 1) + grid(pieces, 2)
            return self._rows(TEXT["title"], rows, TEXT["hint_done"])
        run = self.run
        assert run is not None
        title = TEXT["step_title"].format(run.index + 1, len(run.steps))
        if self.phase == "measuring":
            return self._page(title, f"{run.step.text}.\n{TEXT['measuring']}", TEXT["hint_cancel"])
        text = f"{run.step.text}." + (f"\n{self.note}" if self.note else "")
        return self._page(title, text, TEXT["hint_measure"])

    def _page(self, title: str, text: str, hint: str) -> Frame:
        return self._rows(title, text_rows(text, panel().rows - 1), hint)

    def _rows(self, title: str, rows: list[Row], hint: str) -> Frame:
        return Frame(title, tuple(footed(rows, Row.of(hint, invert=True))))


TEXT = {
    "title": TITLE,
    "nothing_saved": "Nothing saved",
    "no_readings": "No readings from the scale: {}",
    "check_wiring": "check the wiring",
    "refused": "Refused: {}",
    "no_scale": "No scale: set [scale] backend in the config.",
    "hint_back": "ok: back",
    "known": "Known weight:",
    "weight": "< {} g >",
    "steps": "Have it ready; steps: empty, weight, pieces",
    "hint_start": "ok: start  back: leave",
    "saved": "Saved: {:.1f} counts/g",
    "hint_done": "ok: done",
    "step_title": "Calibrate {}/{}",
    "measuring": "Measuring: keep still...",
    "hint_cancel": "back: cancel",
    "hint_measure": "ok: measure  back",
}
"""Every word this screen shows, in one place (a translation replaces this table)."""
