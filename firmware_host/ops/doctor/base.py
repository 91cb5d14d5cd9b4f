"""The doctor's vocabulary: a part's :class:`Result` and its line, the statuses, the fixes that
recur, and the GPIO lines the service requests (:func:`configured_lines`)."""

from __future__ import annotations

from dataclasses import dataclass

from firmware_host.core.config import BUTTONS, Config
from firmware_host.core.pi_layout import UDEV_RULES

MIN_FREE_MB = 50
SLOW_FSYNC_MS = 100.0
REINSTALL = "sudo systemd/install.sh"
NO_REVISION = "Pi revision"
"""In gpiozero's words when a board has no Pi revision: "unable to locate Pi revision in ..."."""
UDEV_FIX = f"{REINSTALL} (its udev rule /{UDEV_RULES} sets the group at every boot)"

OK, FAIL, SKIP = "ok", "FAIL", "skip"


@dataclass(frozen=True)
class Result:
    """One part: its name, ``ok``/``FAIL``/``skip``, what was found, and the fix when it failed."""

    part: str
    status: str
    found: str
    fix: str = ""

    @property
    def failed(self) -> bool:
        """True when this part stops the device working as configured."""
        return self.status == FAIL

    def line(self) -> str:
        """``part: status: found -- fix: ...``, on one line."""
        text = f"{self.part:<9} {self.status:<4}  {self.found}"
        return f"{text} -- fix: {self.fix}" if self.fix else text


@dataclass(frozen=True)
class Line:
    """A GPIO line the service requests: its BCM number, what it is for, and its direction."""

    pin: int
    role: str
    output: bool = False


def configured_lines(config: Config) -> list[Line]:
    """The lines the service requests through its pin factory: every button, and the GPIO
    tower's LEDs, buzzer and bar (the HX711's lines are the scale check's, an SPI panel's DC and
    RES are luma's, opened by the display check)."""
    lines = []
    if config["buttons"]["backend"] == "gpio":
        lines += [Line(config["buttons"][b], f"button {b}") for b in BUTTONS]
    t = config["tower"]
    if t["backend"] == "gpio":
        lines += [Line(t[part], f"tower {part}", True) for part in ("red", "yellow", "green", "buzzer")]
        lines += [Line(pin, f"tower bar {n}", True) for n, pin in enumerate(t["bar"], 1)]
    return lines


def reason(exc: BaseException) -> str:
    """The first line of what ``exc`` says that has words in it (Blinka's start with a blank
    line), else its class name: never an empty reason."""
    text = getattr(exc, "strerror", None) or str(exc) or ""
    return next((line.strip() for line in text.splitlines() if line.strip()), type(exc).__name__)
