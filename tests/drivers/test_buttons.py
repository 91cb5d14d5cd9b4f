"""Buttons: gpiozero mock pins in, short and long presses out, bounce ignored."""

from __future__ import annotations

from drivers.buttons import ButtonPanel, Press, PressDecoder


def feed(decoder: PressDecoder, edges: list[tuple[bool, float]]) -> list[Press]:
    return [p for pressed, t in edges if (p := decoder.edge(pressed, t))]


def test_short_and_long_are_decided_on_release():
    d = PressDecoder("ok", long_press=0.8, debounce=0.03)
    presses = feed(d, [(True, 0.0), (False, 0.2), (True, 1.0), (False, 1.9)])
    assert [(p.long, round(p.duration, 3)) for p in presses] == [(False, 0.2), (True, 0.9)]
    assert d.edge(True, 3.0) is None and d.is_pressed  # nothing until the release


def test_contact_bounce_is_ignored():
    d = PressDecoder("p1", debounce=0.03)
    edges = [(True, 0.0), (False, 0.004), (True, 0.009), (False, 0.3), (True, 0.31), (False, 0.315)]
    presses = feed(d, edges)
    assert len(presses) == 1 and presses[0].t == 0.3 and not d.is_pressed


def test_a_release_hidden_in_bounce_is_recovered_at_the_next_press():
    d = PressDecoder("p1", debounce=0.03)
    presses = feed(d, [(True, 0.0), (False, 0.01), (True, 5.0), (False, 5.1)])
    assert [round(p.duration, 3) for p in presses] == [0.01, 0.1]
    assert not presses[0].long


def test_panel_on_mock_pins_reports_edges_with_the_injected_clock():
    now = [10.0]
    edges = []
    with ButtonPanel.simulated({"p1": 5, "ok": 12}, lambda *e: edges.append(e), lambda: now[0]) as panel:
        panel.press("p1")
        now[0] = 11.5
        panel.release("p1")
        assert edges == [("p1", True, 10.0), ("p1", False, 11.5)]
        assert panel.buttons["p1"].pull_up  # wired to GND, pressed = low
    panel.close()  # closing twice is fine


def test_the_panel_starts_no_thread_and_closes_at_once():
    """gpiozero's Button starts a HoldThread each (ten threads waking every 0.1 s); ours none."""
    import threading

    before = {t.ident for t in threading.enumerate()}
    pins = {"p1": 5, "p2": 6, "ok": 12, "back": 13}
    with ButtonPanel.simulated(pins, lambda *e: None, lambda: 0.0) as panel:
        assert {t.ident for t in threading.enumerate()} <= before
        panel.press("ok")
        panel.release("ok")
