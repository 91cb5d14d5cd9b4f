"""The attacks of ``tablemate bench web``: each attack of :mod:`bench.webattack`
run from a process of its own against the live table, with presses, saves and a new client timed
throughout and, just before it, as long a window of the same with no attack; the table of them,
each judged against its targets (the module docstring of :mod:`bench.web`)."""

from __future__ import annotations

import contextlib
import json
import logging
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from bench import loopback6
from bench.webpress import PressTiming

FLOOD_FACTOR = 1.5
"""How much slower a press may be under load (p99) than in the idle window before it."""
BLOCK_MS = 20.0
"""The loop's longest stretch of its own work allowed, in ms."""


def quantile(values: list[float], q: float) -> float:
    """The ``q`` quantile of ``values`` (nan when there are none)."""
    if not values:
        return float("nan")
    values = sorted(values)
    return values[min(len(values) - 1, round(q * (len(values) - 1)))]


def p99_of(values: list[float]) -> float:
    """The 99th percentile of ``values``, nan left out."""
    return quantile([x for x in values if x == x], 0.99)


def mark(ok: bool) -> str:
    """A target's verdict as the tables print it."""
    return "ok" if ok else "MISSED"


# -- attacks ---------------------------------------------------------------------------------------------------
ATTACK_LOG_LINES = 10
"""Log lines a minute an attack may cost at most."""
RSS_BACK_MB = 5.0
"""How far the process's memory may stay above its start once an attack is over."""
NEW_CLIENT_S = 2.0
"""How long a new client may wait for the page's answer during an attack."""
NEW_CLIENT_SHARE = 11 / 12
"""The share of new clients that must be answered within :data:`NEW_CLIENT_S` (11 of 12)."""
CLOSED_WITHIN_S = 1.0
"""How soon a client sending empty continuation frames must be closed."""
FLOOD_CPU = 0.25
"""The share of a core five continuation-frame floods may cost the device (over its idle window's)."""
PAIR_WITHIN_S = 30.0
"""How long after a code appears the person at the table must have paired, whatever the jammer does."""


def _listen_overflows() -> int:
    """Connections the kernel dropped so far because a listening socket's queue was full (its
    ``ListenOverflows``, in this network namespace)."""
    with contextlib.suppress(OSError, ValueError, StopIteration):
        lines = Path("/proc/net/netstat").read_text().splitlines()
        head, values = next(
            (a.split(), b.split()) for a, b in zip(lines[::2], lines[1::2], strict=False) if a.startswith("TcpExt:")
        )
        return int(values[head.index("ListenOverflows")])
    return 0


def _rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def _ask(
    port: int, request: bytes, address: str = "127.0.0.250", timeout: float = 5.0, host: str = "127.0.0.1"
) -> tuple[int, float]:
    """One request on a new connection from ``address`` to ``host``: its status (0: none) and the seconds it took."""
    started = time.perf_counter()
    try:
        with socket.create_connection((host, port), timeout=timeout, source_address=(address, 0)) as conn:
            conn.sendall(request)
            head = conn.recv(64)
    except OSError:
        return 0, time.perf_counter() - started
    parts = head.split(b" ")
    return (int(parts[1]) if len(parts) > 1 and parts[1].isdigit() else 0), time.perf_counter() - started


PROBES = tuple(f"127.0.0.{250 + i}" for i in range(5))
"""The new clients' addresses (no attack uses them)."""


class _Probe:
    """A new client every second asking the page for its state, from the next of ``sources`` (an
    address and the page's address it asks at); the longest answer, and how many came within
    :data:`NEW_CLIENT_S`."""

    def __init__(
        self, port: int, sources: tuple[tuple[str, str], ...] = tuple((a, "127.0.0.1") for a in PROBES)
    ) -> None:
        self.port, self.sources = port, sources
        self.worst, self.failed, self.asked, self.answered = 0.0, 0, 0, 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.wait(1.0):
            address, host = self.sources[self.asked % len(self.sources)]
            name = f"[{host}]" if ":" in host else host
            request = f"GET /api/state HTTP/1.1\r\nHost: {name}:{self.port}\r\nConnection: close\r\n\r\n".encode()
            status, took = _ask(self.port, request, address, host=host)
            self.asked += 1
            self.worst = max(self.worst, took)
            self.failed += status != 200
            self.answered += status == 200 and took <= NEW_CLIENT_S

    def __enter__(self) -> _Probe:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(10)


def _pair_as_the_person(table: Any) -> tuple[bool, float]:
    """Open the Phone screen's code, type it 1 s later (again each second while refused, as a
    person would); whether it paired within :data:`PAIR_WITHIN_S` of the code appearing, and when."""
    device = table.device
    offer = table.call(lambda: device.phone_offer())
    appeared = time.perf_counter()
    port = table.page.port
    body = json.dumps({"code": offer[1]}).encode()
    request = (
        f"POST /api/pair HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nOrigin: http://127.0.0.1:{port}\r\n"
        f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\nConnection: close\r\n\r\n"
    ).encode() + body
    time.sleep(1.0)
    while time.perf_counter() - appeared < PAIR_WITHIN_S:
        status, _ = _ask(port, request, "127.0.0.254")
        if status == 200:
            return True, time.perf_counter() - appeared
        time.sleep(1.0)
    return False, time.perf_counter() - appeared


class _Lines(logging.Handler):
    """Counts the log lines the device writes (INFO and up, as the journal would get them)."""

    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.count = 0

    def emit(self, record: logging.LogRecord) -> None:
        self.count += 1


JUMPS_A_SETTING = 2
"""Jumps timed between two changes of a setting (each change must be saved before the next)."""


def _window(
    table: Any, timing: PressTiming, state: Path, seconds: float, pair: bool = False, v6: bool = False
) -> dict[str, Any]:
    """Presses timed for ``seconds`` as during an attack: :data:`JUMPS_A_SETTING` jumps, then a
    setting changed (its save checked at the next change), a new client asking every second, and
    for ``pair`` the person at the table pairing (three times in a long window); ``v6``: every
    other new client comes from an address of the IPv6 attack's /64, as a phone on its LAN would."""
    pressed: list[float] = []
    q0 = len(timing.quiet)
    jumps, saves, saves_ok, pairings = 0, 0, 0, []
    brightness = int(table.call(lambda: table.device.settings.get("brightness", 100)))
    sources = tuple((a, "127.0.0.1") for a in PROBES)
    if v6:
        lan = tuple((f"{loopback6.PREFIX}ffff:{i + 1:x}", loopback6.PAGE) for i in range(5))
        sources = tuple(x for pair_ in zip(sources, lan, strict=True) for x in pair_)
    started = time.monotonic()
    cpu = time.process_time()
    with _Probe(table.page.port, sources) as probe:
        while time.monotonic() - started < seconds:
            brightness = 100 + (brightness - 99) % 100
            table.call(lambda b=brightness: table.device.change_setting("brightness", b))
            for _ in range(JUMPS_A_SETTING):
                pressed += timing.jump()
                jumps += 1
            saves += 1
            saves_ok += json.loads((state / "settings.json").read_text()).get("brightness") == brightness
            if pair and (not pairings or (len(pairings) < 3 and time.monotonic() - started < seconds - 15)):
                pairings.append(_pair_as_the_person(table))
    return {
        "presses": pressed,
        "quiet": [v for v, q in zip(pressed, timing.quiet[q0:], strict=False) if q],
        "jumps": jumps,
        "saves": saves,
        "saves_ok": saves_ok,
        "pairings": pairings,
        "new_client_worst_s": probe.worst,
        "new_client_failed": probe.failed,
        "new_client_asked": probe.asked,
        "new_client_answered": probe.answered,
        "cpu": (time.process_time() - cpu) / max(1e-9, time.monotonic() - started),
    }


def attacks(seconds: float, names: tuple[str, ...] | None = None) -> dict[str, Any]:
    """Each attack of :mod:`bench.webattack` for ``seconds`` against the live
    table under the unit's descriptor limit, with presses timed throughout and, just before it, as
    long a window of the same presses with no attack (its idle: the machine's own noise drifts
    over minutes, so each attack is compared with the minute it ran in); per attack: press p99 and
    its idle's, the loop's longest busy stretch, actions lost, a new client's longest wait, saves,
    log lines a minute, memory afterwards (and for the jammer: the person's pairings)."""
    import gc
    import resource

    from bench.webattack import ATTACKS
    from bench.webtable import LiveTable

    names = names or ATTACKS
    out: dict[str, Any] = {"attacks": {}, "not run": {}}
    bind = "127.0.0.1"
    if "ipv6-1000" in names:
        why = loopback6.prepare()  # before the table's thread and the attackers start
        if why is None:
            bind = "::"  # IPv4 and IPv6 (in the bench's own network namespace, where it made one)
        else:
            out["not run"]["ipv6-1000"] = why
            names = tuple(n for n in names if n != "ipv6-1000")
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(1024, hard), hard))  # the unit's LimitNOFILE
    lines = _Lines()
    root = logging.getLogger()
    for handler in root.handlers:
        handler.setLevel(max(handler.level, logging.WARNING))
    level = root.level
    root.setLevel(logging.INFO)
    root.addHandler(lines)
    ramp = min(3.0, seconds / 4)  # the attack ramps up for this long before presses are timed
    measured = max(1.0, seconds - 5 - ramp)
    try:
        with tempfile.TemporaryDirectory() as tmp, LiveTable(state := Path(tmp) / "state", bind=bind) as table:
            timing = PressTiming(table)
            table.call(timing.install)
            for _ in range(5):
                timing.jump()
            for name in names:
                v6 = name == "ipv6-1000"
                idle = _window(table, timing, state, measured, pair=name == "pair-jam", v6=v6)
                table.call(gc.collect)
                rss, logged, accepted, overflows = _rss_mb(), lines.count, timing.accepted, _listen_overflows()
                timing.reset_worst()
                load = subprocess.Popen(
                    [
                        sys.executable,
                        "-m",
                        "bench.webattack",
                        table.url,
                        name,
                        "--seconds",
                        str(seconds),
                    ],
                    stdout=subprocess.PIPE,
                    text=True,
                )
                started = time.monotonic()
                time.sleep(ramp)
                window = _window(table, timing, state, measured, pair=name == "pair-jam", v6=v6)
                worst_busy, worst_block, worst_gc = timing.worst_busy, timing.worst_block, timing.worst_gc
                gc_counts, gc_cpu = list(timing.gc_counts), list(timing.gc_cpu)
                result, _ = load.communicate(timeout=seconds + 120)
                took_minutes = (time.monotonic() - started) / 60
                time.sleep(3.0)  # the attack's connections close
                table.call(gc.collect)
                out["attacks"][name] = {
                    **window,
                    "idle": idle["presses"],
                    "idle_quiet": idle["quiet"],
                    "idle_cpu": idle["cpu"],
                    "worst_busy_ms": worst_busy * 1e3,
                    "worst_block_ms": worst_block * 1e3,
                    "worst_gc_ms": worst_gc * 1e3,
                    "gc_counts": gc_counts,
                    "gc_cpu_ms": [t * 1e3 for t in gc_cpu],
                    "accepted": timing.accepted - accepted,
                    "log_lines_a_minute": (lines.count - logged) / max(took_minutes, 1e-9),
                    "rss_start_mb": rss,
                    "rss_after_mb": _rss_mb(),
                    "load": json.loads(result.strip().splitlines()[-1]) if result.strip() else {},
                    "listen_overflows": _listen_overflows() - overflows,
                    "tally": dict(table.page.gate.tally.counts),
                }
            out["errors"] = timing.errors
    finally:
        root.removeHandler(lines)
        root.setLevel(level)
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    return out


def print_attacks(result: dict[str, Any]) -> bool:
    """The attacks' table (Markdown, as docs/measured.md has it); whether every target was met."""
    idles = [p99_of(a["idle"]) * 1e3 for a in result["attacks"].values()]
    print(
        f"  attacks (the unit's LimitNOFILE=1024; each against the window of presses just before it, "
        f"with no attack: idle press → display() p99 {min(idles, default=0):.2f}–{max(idles, default=0):.2f} ms)"
    )
    print(
        f"  | attack | what it sent | a new client answered within {NEW_CLIENT_S:g} s | press p99 vs its idle's "
        "(not preempted) | loop's longest busy stretch | CPU vs its idle's | actions lost | saves | log lines/min "
        "| RSS after | |"
    )
    print("  |---|---|---|---|---|---|---|---|---|---|---|")
    ok = True
    for name, a in result["attacks"].items():
        p99, idle = p99_of(a["presses"]) * 1e3, p99_of(a["idle"]) * 1e3
        quiet, idle_quiet = p99_of(a["quiet"]) * 1e3, p99_of(a["idle_quiet"]) * 1e3
        lost = a["jumps"] - a["accepted"]
        grown = a["rss_after_mb"] - a["rss_start_mb"]
        paired = all(done for done, _ in a["pairings"]) if name == "pair-jam" else True
        asked, answered = a["new_client_asked"], a.get("new_client_answered", 0)
        cpu, idle_cpu = a.get("cpu", 0.0), a.get("idle_cpu", 0.0)
        closed = a["load"].get("closed within s")
        good = (
            p99 <= FLOOD_FACTOR * idle
            and a["worst_busy_ms"] <= BLOCK_MS
            and lost <= 0
            and asked > 0
            and answered >= NEW_CLIENT_SHARE * asked - 1e-9
            and a["saves_ok"] == a["saves"]
            and a["log_lines_a_minute"] <= ATTACK_LOG_LINES
            and grown <= RSS_BACK_MB
            and paired
            and (name != "pair-jam" or bool(a["pairings"]))
            and (
                name != "continuation-5"
                or (closed is not None and closed <= CLOSED_WITHIN_S and cpu - idle_cpu <= FLOOD_CPU)
            )
        )
        ok &= good
        shown = ("attack", "seconds", "closed within s")
        sent = ", ".join(f"{k} {v}" for k, v in sorted(a["load"].items()) if k not in shown)
        extra = ""
        if name == "pair-jam":
            extra = "; the person paired " + ", ".join(f"{t:.1f} s" if done else "NOT" for done, t in a["pairings"])
        if closed is not None:
            extra += f"; each closed within {closed * 1e3:.0f} ms of its first frame"
        if a.get("listen_overflows"):
            extra += f"; {a['listen_overflows']} connects dropped by the kernel (the page's queue full)"
        print(
            f"  | {name} | {sent}{extra} | {answered} of {asked} (longest {a['new_client_worst_s'] * 1e3:.0f} ms) "
            f"| {p99:.2f} ms vs {idle:.2f} ms = {p99 / idle:.2f}×, {len(a['presses'])} "
            f"presses ({quiet:.2f} vs {idle_quiet:.2f} ms = {quiet / idle_quiet:.2f}×, {len(a['quiet'])}) "
            f"| {a['worst_busy_ms']:.1f} ms "
            f"(GC {a['worst_gc_ms']:.1f}; {_collections(a)}) "
            f"| {cpu * 100:.0f}% vs {idle_cpu * 100:.0f}% of a core "
            f"| {max(0, lost)} of {a['jumps']} | {a['saves_ok']}/{a['saves']} | {a['log_lines_a_minute']:.1f} "
            f"| {grown:+.1f} MB | {mark(good)} |"
        )
    for name, why in result.get("not run", {}).items():
        print(f"  {name}: not run ({why})")
        ok = False
    return ok


def _collections(a: dict[str, Any]) -> str:
    """An attack's garbage collections: how many of each generation (young/middle/full), and the
    longest in CPU time with its generation."""
    counts, cpu = a.get("gc_counts", [0, 0, 0]), a.get("gc_cpu_ms", [0.0, 0.0, 0.0])
    longest = max(range(3), key=lambda g: cpu[g])
    return f"collections {counts[0]}/{counts[1]}/{counts[2]}, longest {cpu[longest]:.1f} ms CPU (gen {longest})"
