"""A tower of GPIO LEDs and a buzzer, through gpiozero.

Red, yellow and green LEDs and an active buzzer, each on one BCM pin, plus an optional row of LEDs
(gpiozero's ``LEDBarGraph``) that shows the remaining turn time as a bar. Blinking uses gpiozero's
own background blinker. Tests pass ``MockFactory()`` as ``pin_factory``.
"""

from __future__ import annotations

from collections.abc import Sequence

from gpiozero import LED, Buzzer, LEDBarGraph

from drivers.tower import BLINK, DARK, ON, TowerState

BLINK_ON, BLINK_OFF = 0.4, 0.4


class GpioTower:
    """LEDs on ``red``/``yellow``/``green`` pins, a buzzer, and an optional LED bar."""

    def __init__(
        self,
        red: int,
        yellow: int,
        green: int,
        buzzer: int,
        bar: Sequence[int] = (),
        pin_factory: object | None = None,
    ) -> None:
        self._devices: dict[str, LED | Buzzer] = {}
        self._bar: LEDBarGraph | None = None
        self.state: TowerState | None = None
        try:
            for name, pin in (("red", red), ("yellow", yellow), ("green", green)):
                self._devices[name] = LED(pin, pin_factory=pin_factory)
            self._devices["buzzer"] = Buzzer(buzzer, pin_factory=pin_factory)
            if bar:
                self._bar = LEDBarGraph(*bar, pin_factory=pin_factory)
        except Exception:
            self.close()
            raise

    def show(self, state: TowerState) -> None:
        """Set each element that changed."""
        old = self.state
        for name, device in self._devices.items():
            mode = getattr(state, name)
            if old is not None and getattr(old, name) == mode:
                continue
            if mode == ON:
                device.on()
            elif mode == BLINK:
                device.blink(on_time=BLINK_ON, off_time=BLINK_OFF)
            else:
                device.off()
        if self._bar is not None and (old is None or old.bar != state.bar):
            self._bar.value = 0 if state.bar is None else max(0.0, min(1.0, state.bar))
        self.state = state

    def close(self) -> None:
        """Switch off and release the pins."""
        if self._devices and self.state is not None:
            self.show(DARK)
        for device in self._devices.values():
            device.close()
        self._devices.clear()
        if self._bar is not None:
            self._bar.close()
            self._bar = None
