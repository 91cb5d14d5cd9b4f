"""``bench web``'s "not preempted" presses: the loop thread's involuntary switches are read when
its frame is handed over, so the wake-ups the frame itself causes never count against a press."""

from __future__ import annotations

import io
import threading
from contextlib import redirect_stdout

from bench.siege import print_attacks
from bench.webpress import first_frame, timed


class LoopThread:
    """The loop thread's involuntary context switches, moved by whoever takes its CPU."""

    def __init__(self) -> None:
        self.switches = 0

    def preempted(self) -> None:
        self.switches += 1


def _press(loop: LoopThread, frames: list, frame: threading.Event, show, released: float) -> tuple[float, bool]:
    """A press on the hooked display: its release, then the loop draws and hands the frame over."""
    before = loop.switches
    show(object())
    found = first_frame(frames, released, before)
    assert found is not None
    return found


def test_a_press_whose_frame_wakes_the_display_writer_still_counts_as_not_preempted():
    # bug: on a quiet machine the bench read the switches only after the frame had woken the
    # bench and the display's writer -- wake-ups that preempt the loop thread on any machine --
    # so no press was ever "not preempted" and the column printed nan.
    loop, frames, frame = LoopThread(), [], threading.Event()
    handed = []

    def display_show(image: object) -> None:  # the writer thread wakes and takes the loop's CPU
        loop.preempted()
        handed.append(image)

    show = timed(display_show, frames, frame, lambda: loop.switches)
    took, quiet = _press(loop, frames, frame, show, released=0.0)
    assert quiet and took > 0 and frame.is_set() and len(handed) == 1
    assert loop.switches == 1  # the switch happened, after the frame: it is not the press's


def test_a_press_preempted_before_its_frame_counts_as_preempted():
    loop, frames, frame = LoopThread(), [], threading.Event()
    show = timed(lambda image: None, frames, frame, lambda: loop.switches)
    before = loop.switches
    loop.preempted()  # another process took the loop's CPU between the release and the frame
    show(object())
    assert first_frame(frames, 0.0, before) == (frames[0][0], False)


def test_only_a_frame_after_the_release_answers_the_press():
    frames = [(1.0, 0), (2.5, 3)]
    assert first_frame(frames, 2.0, 3) == (0.5, True)
    assert first_frame(frames, 3.0, 3) is None


def _attack(presses: list[float], idle: list[float]) -> dict:
    return {
        "presses": presses,
        "quiet": presses,
        "idle": idle,
        "idle_quiet": idle,
        "worst_busy_ms": 9.0,
        "worst_block_ms": 12.0,
        "worst_gc_ms": 7.5,  # wall time: another process had the CPU meanwhile
        "gc_counts": [40, 4, 0],
        "gc_cpu_ms": [0.8, 2.4, 0.0],
        "jumps": 10,
        "accepted": 10,
        "new_client_worst_s": 0.1,
        "new_client_failed": 0,
        "new_client_asked": 5,
        "new_client_answered": 5,
        "cpu": 0.2,
        "idle_cpu": 0.1,
        "saves": 10,
        "saves_ok": 10,
        "log_lines_a_minute": 1.0,
        "rss_start_mb": 50.0,
        "rss_after_mb": 50.5,
        "pairings": [],
        "load": {"http 200": 100},
    }


def test_the_attacks_table_gives_the_not_preempted_idle_presses_as_a_number():
    loop, frame = LoopThread(), threading.Event()
    idle, quiet = [], []
    for _ in range(10):
        frames: list = []
        show = timed(lambda image: loop.preempted(), frames, frame, lambda: loop.switches)
        took, q = _press(loop, frames, frame, show, released=0.0)
        idle.append(took)
        quiet.append(q)
    assert all(quiet)
    out = io.StringIO()
    with redirect_stdout(out):
        print_attacks({"attacks": {"flood-50": _attack(idle, idle)}})
    assert "nan" not in out.getvalue() and "1.00×, 10)" in out.getvalue()


def test_each_attack_is_measured_against_the_idle_window_just_before_it():
    """The machine's own noise drifts over minutes: an attack run while it was noisy is compared
    with presses from that minute, not with a quiet minute before another attack."""
    out = io.StringIO()
    with redirect_stdout(out):
        ok = print_attacks(
            {
                "attacks": {
                    "slow-headers": _attack([0.004] * 20, [0.004] * 20),
                    "ws-storm": _attack([0.012] * 20, [0.010] * 20),  # a noisy minute: 1.2× its idle
                }
            }
        )
    assert ok, out.getvalue()
    assert "12.00 ms vs 10.00 ms = 1.20×" in out.getvalue()
    with redirect_stdout(io.StringIO()):
        assert not print_attacks({"attacks": {"ws-storm": _attack([0.016] * 20, [0.010] * 20)}})


def test_the_attacks_table_says_each_attacks_collections_and_the_longest_in_cpu_time():
    out = io.StringIO()
    with redirect_stdout(out):
        ok = print_attacks({"attacks": {"flood-50": _attack([0.005] * 20, [0.005] * 20)}})
    assert ok
    assert "collections 40/4/0, longest 2.4 ms CPU (gen 1)" in out.getvalue()


def test_an_attack_meets_its_target_when_11_new_clients_of_12_are_answered_within_2_s():
    def judged(answered: int) -> tuple[bool, str]:
        attack = _attack([0.005] * 20, [0.005] * 20) | {"new_client_asked": 12, "new_client_answered": answered}
        out = io.StringIO()
        with redirect_stdout(out):
            ok = print_attacks({"attacks": {"ws-storm-2000": attack}})
        return ok, out.getvalue()

    assert judged(11)[0] and "| 11 of 12 (longest 100 ms) |" in judged(11)[1]
    assert not judged(10)[0]


def test_continuation_floods_must_be_closed_within_a_second_for_a_quarter_of_a_core():
    def judged(closed: float, cpu: float) -> bool:
        attack = _attack([0.005] * 20, [0.005] * 20) | {"cpu": cpu, "idle_cpu": 0.1}
        attack["load"] = {"ws opened": 5, "closed within s": closed}
        with redirect_stdout(io.StringIO()):
            return print_attacks({"attacks": {"continuation-5": attack}})

    assert judged(0.2, 0.3) and not judged(1.5, 0.3) and not judged(0.2, 0.4)
