"""The tower: the USB-serial light's bytes on pyserial's loop:// and a pty, the GPIO stack on mock
pins, and the lights service's layers and patterns on virtual time."""

from __future__ import annotations

import asyncio
import os
import time

import pytest
import serial
from gpiozero.pins.mock import MockFactory

from drivers.tower import BLINK, DARK, ON, TowerState
from drivers.tower.gpio import GpioTower
from drivers.tower.sim import SimTower
from drivers.tower.usb import UsbTower, command, commands
from firmware_host.runtime.lights import SIGNALS, Lights
from tests.waits import scaled


def wait_until(condition, timeout: float = 10.0) -> None:
    """Wait for the tower's writer thread (bounded; returns as soon as the condition holds)."""
    end = time.monotonic() + scaled(timeout)
    while not condition():
        assert time.monotonic() < end, "timed out waiting for the tower thread"
        time.sleep(0.001)


def _read_into(port, got: bytearray) -> bool:
    """Add what ``port`` has received so far to ``got`` (True, for use in a wait's condition)."""
    got.extend(port.read(port.in_waiting))
    return True


def _shown(sent: bytes) -> dict[int, int]:
    """Each element's mode (high nibble) after the commands ``sent``, by element (low nibble)."""
    return {b & 0x0F: b >> 4 for b in sent}


def test_protocol_bytes():
    assert command("red", "on") == 0x11
    assert command("green", "off") == 0x24
    assert command("buzzer", "blink") == 0x48
    assert commands(None, DARK) == bytes([0x21, 0x22, 0x24, 0x28])
    assert commands(DARK, TowerState(yellow=BLINK)) == bytes([0x42])
    assert commands(TowerState(yellow=BLINK), TowerState(yellow=BLINK)) == b""


def test_usb_tower_on_loop_url_sends_full_state_then_changes_only():
    port = serial.serial_for_url("loop://", timeout=0.5)
    tower = UsbTower("loop://", opener=lambda _: port)
    tower.show(TowerState(green=ON))
    # the thread's first (dark) state may go out before this one or not, as the machine's speed
    # has it: wait for what the tower shows, never for a count of bytes
    got = bytearray()
    wait_until(lambda: _read_into(port, got) and _shown(got) == {1: 2, 2: 2, 4: 1, 8: 2})
    assert {b & 0x0F for b in got[:4]} == {1, 2, 4, 8}  # first the whole state
    before = len(got)
    tower.show(TowerState(green=ON, buzzer=ON))
    wait_until(lambda: _read_into(port, got) and _shown(got) == {1: 2, 2: 2, 4: 1, 8: 1})
    assert got[before:] == bytes([0x18])  # then what changed only
    tower.close()


def test_usb_tower_on_a_pty_like_a_real_device():
    master, slave = os.openpty()
    try:
        tower = UsbTower(os.ttyname(slave))
        tower.show(TowerState(red=BLINK))
        got = b""
        end = time.monotonic() + scaled(10)
        while 0x41 not in got and time.monotonic() < end:
            got += os.read(master, 16)
        # the red lamp's last command is blink (the whole state may follow it in one read: after a
        # (re)connection the tower is sent every element, in any order the reads cut it)
        assert [b for b in got if b & 0x0F == 0x01][-1] == 0x41
        tower.close()
    finally:
        os.close(master)
        os.close(slave)


def test_usb_tower_reconnects_with_backoff_and_resends_everything():
    statuses = []
    attempts = []
    ports = []

    class Flaky:
        """A port that fails on write once, as when the tower is unplugged."""

        def __init__(self, inner, fail):
            self.inner, self.fail = inner, fail

        def write(self, data):
            if self.fail:
                raise serial.SerialException("device disconnected")
            return self.inner.write(data)

        def flush(self):
            self.inner.flush()

        def close(self):
            pass

    def opener(_):
        attempts.append(time.monotonic())
        if len(attempts) in (2, 3):
            raise serial.SerialException("could not open port")
        port = serial.serial_for_url("loop://", timeout=0.5)
        ports.append(port)
        return Flaky(port, fail=len(attempts) == 1)

    tower = UsbTower("x", lambda s, d: statuses.append(s), opener, backoff=(0.001, 0.004))
    tower.show(TowerState(red=ON))
    # the writer thread resends, then reports: wait for both (the order between them is its own,
    # and whether its first dark state went out before the show is the machine's speed's)
    got = bytearray()
    red_on = {1: 1, 2: 2, 4: 2, 8: 2}
    wait_until(
        lambda: len(ports) == 2 and _read_into(ports[1], got) and _shown(got) == red_on and statuses[-1:] == ["ok"]
    )
    assert statuses[:2] == ["ok", "lost"] and statuses[-1] == "ok"
    assert {b & 0x0F for b in got[:4]} == {1, 2, 4, 8}  # the whole state is resent after reconnecting
    tower.close()


def test_gpio_tower_on_mock_pins():
    factory = MockFactory()
    tower = GpioTower(17, 27, 22, 18, bar=[5, 6, 13, 19], pin_factory=factory)
    tower.show(TowerState(red=ON, bar=0.5))
    assert factory.pin(17).state and not factory.pin(22).state
    assert [factory.pin(p).state for p in (5, 6, 13, 19)] == [1, 1, 0, 0]
    tower.show(TowerState(green=ON, bar=1.0))
    assert not factory.pin(17).state and factory.pin(22).state
    tower.close()
    assert not factory.pin(22).state
    tower.close()


def test_lights_layers_signal_over_timer_over_mood_and_mute(virtual):
    tower = SimTower()

    async def main():
        lights = Lights(tower)
        lights.set_mood("choosing")
        assert tower.state == TowerState(yellow=ON)
        lights.set_timer(TowerState(green=ON))
        assert tower.state == TowerState(green=ON)
        lights.signal("fall")
        assert tower.state == SIGNALS["fall"][0][0]
        await asyncio.sleep(10)
        assert tower.state == TowerState(green=ON)  # the pattern ended, the timer shows again
        lights.set_sound(False)
        lights.signal("explosion")
        assert tower.state.buzzer == "off" and tower.state.red == BLINK
        lights.set_timer(None)
        await asyncio.sleep(10)
        assert tower.state == TowerState(yellow=ON)

    virtual(main)


def test_every_signal_differs_by_sound_or_rhythm_not_only_colour():
    def rhythm(steps):
        return tuple(
            (s.buzzer, round(d, 2), tuple(getattr(s, c) != "off" for c in ("red", "yellow", "green"))) for s, d in steps
        )

    shapes = {name: tuple((s.buzzer, round(d, 2)) for s, d in steps) for name, steps in SIGNALS.items()}
    assert len(set(shapes.values())) == len(shapes), "two signals differ only by colour"
    assert len({rhythm(s) for s in SIGNALS.values()}) == len(SIGNALS)


@pytest.mark.parametrize("thread_first", [False, True], ids=["show-first", "thread-first"])
def test_usb_tower_survives_termios_error_from_flush_and_resends_everything(thread_first):
    """Unplugged between write and drain: pyserial's flush() lets tcdrain's termios.error out,
    which is not an OSError. The writer must report the loss, reopen and resend the whole state."""
    import termios

    statuses: list[str] = []
    ports = []

    class UnpluggedAtDrain:
        def __init__(self, inner, fail):
            self.inner, self.fail = inner, fail

        def write(self, data):
            return self.inner.write(data)

        def flush(self):
            if self.fail:
                raise termios.error(5, "Input/output error")
            self.inner.flush()

        def close(self):
            pass

    def opener(_):
        port = serial.serial_for_url("loop://", timeout=0.5)
        ports.append(port)
        return UnpluggedAtDrain(port, fail=len(ports) == 1)

    tower = UsbTower("x", lambda s, d: statuses.append(s), opener, backoff=(0.001, 0.004))
    # the writer thread may send its first (dark) state before this one or not, as the machine's
    # speed has it (both orders are played): wait for what the tower shows, from every byte the
    # second port got
    got = bytearray()
    if thread_first:  # a busy machine: the thread has reconnected and sent dark before the show
        wait_until(lambda: len(ports) == 2 and _read_into(ports[1], got) and _shown(got) == {1: 2, 2: 2, 4: 2, 8: 2})
    tower.show(TowerState(yellow=BLINK))
    yellow_blinks = {1: 2, 2: 4, 4: 2, 8: 2}  # element (low nibble) -> mode (high nibble)
    wait_until(lambda: len(ports) == 2 and _read_into(ports[1], got) and _shown(got) == yellow_blinks)
    assert statuses == ["ok", "lost", "ok"]
    assert tower._thread.is_alive()
    assert {b & 0x0F for b in got[:4]} == {1, 2, 4, 8}  # resent whole after the reconnection, not a diff
    del got[:]
    tower.show(TowerState(green=ON))
    wait_until(lambda: _read_into(ports[1], got) and _shown(got) == {2: 2, 4: 1})
    assert set(got) == {0x22, 0x14}  # then only what changed
    tower.close()
