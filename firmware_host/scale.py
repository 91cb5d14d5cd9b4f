"""The scale service: raw load-cell samples in, readings and game actions out.

Owned by the device; the scale driver's samples reach it on the loop. This first version keeps
the latest reading for the self-test screen; the event detector and calibration plug in here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from firmware_host.device import Device


class ScaleService:
    """Follows the load cell for the device."""

    def __init__(self, device: Device) -> None:
        self.device = device
        self.raw: int | None = None
        self.fault: str | None = None

    def sample(self, t: float, raw: int) -> None:
        """One raw sample from the driver (on the loop)."""
        self.raw = raw
        self.fault = None

    def on_fault(self, reason: str) -> None:
        """The driver reports a problem (no data, stuck line)."""
        self.fault = reason

    def line(self) -> str:
        """The reading for the self-test screen."""
        if self.fault:
            return f"Scale: {self.fault}"
        return f"Scale: {self.raw} raw" if self.raw is not None else "Scale: waiting"
