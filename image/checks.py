"""The lines the in-VM checks send (``image/guest.sh``) and the table ``dev.py vm`` makes of them.

A result is one line, ``ok NAME detail`` or ``FAIL NAME detail``; a line starting ``@@`` steers
the host (``@@ cut``: kill QEMU now, ``@@ done``: nothing more comes, ``@@ timing k=v ...``:
figures for the table) or is shown as it is. Anything else is noise and ignored.
"""

from __future__ import annotations

from dataclasses import dataclass

EXPECTED = (
    "ready",
    "seccomp",
    "capabilities",
    "port80",
    "ipaddressdeny",
    "game-tonne",
    "game-bomb",
    "game-arschbombe",
    "game-antartik",
    "game-trottel",
    "voice",
    "doctor",
    "buttons-pl061",
    "sandbox-test",
    "syn-filter",
    "watchdog",
    "ready-after-cut",
    "power-cut",
    "power-cut-ends",
    "offline-install",
    "start-ready",
)
"""Every check a run on ``virt`` must report; one not reported fails."""
EXPECTED_RASPI3B = (
    "ready",
    "gpiochip",
    "buttons-bcm2835",
    "spidev",
    "i2c",
    "uart-off",
    "doctor",
    "game-tonne",
    "voice",
    "resume-no-scale",
    "upgrade-keeps",
)
"""Every check a run on ``raspi3b`` (the BCM2837) must report."""


@dataclass(frozen=True)
class Result:
    """One check's outcome."""

    name: str
    ok: bool
    detail: str

    def line(self) -> str:
        """``ok NAME detail`` / ``FAIL NAME detail``."""
        return f"{'ok' if self.ok else 'FAIL'} {self.name} {self.detail}".rstrip()


@dataclass(frozen=True)
class Control:
    """An ``@@`` line: a word and the rest."""

    word: str
    rest: str


def parse(line: str) -> Result | Control | None:
    """What one line from the guest says (``None``: noise). Stray bytes before a line's first
    letter are dropped (a USB serial adapter, raspi3b's port, put ``!"$(`` before a few)."""
    line = line.strip().replace("\r", "")
    line = line.lstrip("".join(chr(c) for c in range(33, 127) if not chr(c).isalnum() and chr(c) != "@"))
    if line.startswith("@@"):
        word, _, rest = line[2:].strip().partition(" ")
        return Control(word, rest)
    status, _, rest = line.partition(" ")
    if status not in ("ok", "FAIL") or not rest.strip():
        return None
    name, _, detail = rest.strip().partition(" ")
    return Result(name, status == "ok", detail.strip())


def timings(controls: list[Control]) -> dict[str, float]:
    """The ``@@ timing k=v`` figures (seconds)."""
    found: dict[str, float] = {}
    for c in controls:
        if c.word != "timing":
            continue
        for item in c.rest.split():
            key, _, value = item.partition("=")
            try:
                found[key] = float(value)
            except ValueError:
                continue
    return found


def start_ready(figures: dict[str, float], limit: float = 2.0) -> Result:
    """start -> READY of the real service against a bare import of the command line, both on the
    settled board (``restart``: the median of three restarts of the unit, each followed by one of
    the three imports whose median is ``import``, so a host that gets busier or quieter meanwhile
    weighs on both); the boot's own start (``ready``), which shares the CPU with the rest
    of the first boot, is reported beside it and judged only when no restart was timed, and so is
    the time until the table is up (``up``: its menu drawn, its buttons read)."""
    ready, bare, boot = figures.get("restart"), figures.get("import"), figures.get("ready")
    if ready is None:
        ready, boot = boot, None
    if ready is None or not bare:
        return Result("start-ready", False, "no timing reported")
    ratio = ready / bare
    up = figures.get("up")
    judged = f"{ready:.1f} s start -> READY, {bare:.1f} s bare import: {ratio:.2f}x (target <= {limit:g}x)"
    beside = [f"the table up {up:.1f} s after its start"] if up is not None else []
    beside += [f"at boot, beside the first boot's own work: {boot:.1f} s"] if boot is not None else []
    return Result(
        "start-ready",
        ratio <= limit,
        "; ".join([judged, *beside]),
    )


def verdict(results: list[Result], expected: tuple[str, ...] = EXPECTED) -> list[Result]:
    """The results in order, the last word per name, each expected one not reported as a FAIL."""
    last: dict[str, Result] = {}
    for r in results:
        last[r.name] = r
    missing = [Result(name, False, "not reported (the run ended first)") for name in expected if name not in last]
    return [*last.values(), *missing]


def table(results: list[Result]) -> str:
    """The Markdown table the README keeps."""
    rows = ["| check | result | detail |", "|---|---|---|"]
    rows += [f"| {r.name} | {'ok' if r.ok else 'FAIL'} | {r.detail.replace('|', '/')} |" for r in results]
    return "\n".join(rows)
