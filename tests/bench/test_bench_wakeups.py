"""The wake-ups benchmark reads the kernel's per-thread accounting."""

from __future__ import annotations

import os
import threading

from bench.wakeups import switches
from tests.waits import scaled


def test_switches_counts_each_thread_and_a_blocked_wait_is_a_voluntary_switch():
    before = switches(os.getpid())
    assert os.getpid() in before
    done = threading.Event()
    t = threading.Timer(0.01, done.set)
    t.start()
    done.wait(scaled(5))  # the main thread sleeps in the kernel and is woken: one voluntary switch at least
    t.join()
    assert switches(os.getpid())[os.getpid()][0] > before[os.getpid()][0]
