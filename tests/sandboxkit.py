"""The real service run inside the seccomp filter its own systemd unit asks for, with the kill action.

The unit's ``SystemCallFilter=`` lines are expanded to call names (:mod:`firmware_host.runtime.
syscall_filter`: this machine's ``systemd-analyze syscall-filter``, else systemd 252's kept sets)
and written to a file; :mod:`tests.seccomp_jail` loads a libseccomp filter of exactly those names
with ``KILL_PROCESS`` as the default action -- what systemd loads for the unit when it has no
``SystemCallErrorNumber=`` -- and ``exec``'s a fresh interpreter running ``tablemate ARGS``
through :mod:`tests.sandboxed_service`. Interpreter start-up, imports, the device, its threads,
the journal's fsyncs, the watchdog's notify socket and the shutdown all run inside the filter; any
call outside it kills the process by SIGSYS, which :meth:`Ran.check` turns into a
:class:`SandboxViolation` naming the command and the filter.

Only ``SystemCallFilter=`` is modelled: the unit's other settings answer calls with an error,
never a kill (``RestrictAddressFamilies=``, ``ProtectClock=``, ...), and need root to apply.

    python -m tests.sandboxkit derive    # rewrite the service's calls (strace) for the doctor

runs the same paths under ``strace -f`` instead and writes
:mod:`firmware_host.ops.service_syscalls`, the calls the doctor checks an installed unit
against.
"""

from __future__ import annotations

import functools
import os
import platform
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from firmware_host.ops import syscall_filter
from tests.conftest import ROOT
from tests.waits import scaled

UNIT = ROOT / "systemd" / "tablemate.service"
DATA = ROOT / "tests" / "data"
GAMES = {  # each game's whole-game script and the seed its header names
    "tonne": 5,
    "bomb": 4,
    "arschbombe": None,
    "antartik": 3,
    "trottel": 3,
}
EXIT_SETUP = 125
""":data:`tests.seccomp_jail.EXIT_SETUP`: the filter could not be loaded."""


class SandboxViolation(AssertionError):
    """The service made a system call its unit's filter does not let through: SIGSYS killed it."""


@functools.cache
def unavailable() -> str | None:
    """Why a filter cannot be loaded here (no libseccomp binding, no seccomp), or None."""
    if platform.system() != "Linux":
        return "seccomp is Linux's"
    try:
        from tests.seccomp_jail import binding

        binding()
    except (ImportError, OSError, RuntimeError) as exc:
        return f"no libseccomp Python binding (python3-seccomp or pyseccomp): {exc}"
    status = Path("/proc/self/status").read_text(errors="replace")
    if "Seccomp:" not in status:
        return "this kernel has no seccomp"
    probe = "from tests.seccomp_jail import binding as b; s = b(); s.SyscallFilter(s.ALLOW).load()"
    loaded = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, timeout=scaled(60))
    if loaded.returncode != 0:  # a container that refuses seccomp() itself
        return f"a seccomp filter cannot be loaded here: {loaded.stderr.strip().splitlines()[-1:]}"
    return None


@functools.cache
def unit_filter() -> syscall_filter.UnitFilter:
    """The filter of ``systemd/tablemate.service``, expanded as this machine's systemd would."""
    found = syscall_filter.unit_filter([UNIT.read_text(encoding="utf-8")])
    assert found is not None and found.allow_list, "the unit has no SystemCallFilter= allow list"
    return found


def describe(f: syscall_filter.UnitFilter) -> str:
    """``SystemCallFilter=@system-service (376 calls, systemd-analyze of systemd 252 (...))``."""
    return f"SystemCallFilter={' '.join(f.entries)} ({len(f.names)} calls, {f.origin})"


@dataclass
class Ran:
    """A finished command: what it printed and how it ended."""

    args: tuple[str, ...]
    """The command as a person would type it (``tablemate sim ...``)."""
    returncode: int
    stdout: str
    stderr: str
    filter_text: str
    refused: list[str] | None = None
    """The calls outside the filter a rerun under ``strace`` saw, when the filter killed it."""

    @property
    def killed_by_filter(self) -> bool:
        """Whether the kernel killed it for a call outside the filter (SIGSYS)."""
        return self.returncode == -signal.SIGSYS

    def check(self) -> Ran:
        """Raise :class:`SandboxViolation` when the filter killed it; then return it unchanged."""
        if self.returncode == EXIT_SETUP:
            raise RuntimeError(f"the seccomp filter could not be loaded: {self.stderr.strip()}")
        if self.killed_by_filter:
            tail = " | ".join(self.stderr.strip().splitlines()[-5:]) or "nothing on stderr"
            command = " ".join(self.args).replace("\n", "; ")
            command = command if len(command) <= 160 else command[:157] + "..."
            named = f" ({', '.join(self.refused)}, seen by a rerun under strace)" if self.refused else ""
            raise SandboxViolation(
                f"`{command}` was killed by SIGSYS: it made a system call outside "
                f"the unit's {self.filter_text}{named}; its stderr ended: {tail}"
            )
        return self


class Sandbox:
    """Runs ``tablemate`` commands inside the unit's filter, with the clock synced or not."""

    def __init__(
        self,
        folder: Path,
        synced: bool,
        allowed: Iterable[str] | None = None,
        ask_kernel: bool = False,
    ) -> None:
        """``allowed``: the calls let through (default: the unit's); ``ask_kernel``: put back the
        service's old clock check (``adjtimex`` when the timesyncd flag is missing)."""
        folder.mkdir(parents=True, exist_ok=True)
        names = unit_filter().names if allowed is None else set(allowed)
        self.names = frozenset(names)
        self.allowed_file = folder / "allowed-calls"
        self.allowed_file.write_text("".join(f"{n}\n" for n in sorted(names)), encoding="ascii")
        self.filter_text = describe(unit_filter()) if allowed is None else f"filter of {len(names)} calls"
        self.flag = folder / "synchronized"
        if synced:
            self.flag.touch()
        self.ask_kernel = ask_kernel

    def jailed(self, argv: Sequence[str]) -> list[str]:
        """``argv`` (a program and its arguments) started inside the filter."""
        return [sys.executable, "-m", "tests.seccomp_jail", str(self.allowed_file), *map(str, argv)]

    def command(self, *args: object) -> list[str]:
        """``tablemate ARGS`` inside the filter, with this sandbox's clock."""
        service = [sys.executable, "-m", "tests.sandboxed_service", str(self.flag)]
        return self.jailed([*service, *(["--ask-kernel"] if self.ask_kernel else []), *map(str, args)])

    def popen(self, *args: object, env: dict[str, str] | None = None, **kwargs) -> subprocess.Popen:
        """Start ``tablemate ARGS`` inside the filter (for signals and kill -9)."""
        return subprocess.Popen(self.command(*args), cwd=ROOT, env=child_env(env), text=True, **kwargs)

    def run(self, *args: object, timeout: float = 120, env: dict[str, str] | None = None) -> Ran:
        """Run ``tablemate ARGS`` inside the filter to its end."""
        return self._run(self.command(*args), ("tablemate", *map(str, args)), timeout, env)

    def run_argv(self, argv: Sequence[str], timeout: float = 60) -> Ran:
        """Run any program inside the filter to its end (for the tests of the filter itself)."""
        return self._run(self.jailed(argv), tuple(map(str, argv)), timeout, None)

    def _run(self, jailed: list[str], shown: tuple[str, ...], timeout: float, env: dict[str, str] | None) -> Ran:
        done = subprocess.run(
            jailed, cwd=ROOT, env=child_env(env), capture_output=True, text=True, timeout=scaled(timeout)
        )
        ran = self.ran(shown, done.returncode, done.stdout, done.stderr)
        if ran.killed_by_filter:  # name the call: run it again under strace, which sees it made
            seen = traced_calls(jailed, env, timeout)
            ran.refused = sorted(seen - self.names) if seen is not None else None
        return ran

    def ran(self, args: Sequence[object], returncode: int, stdout: str, stderr: str) -> Ran:
        """A :class:`Ran` of this sandbox."""
        return Ran(tuple(map(str, args)), returncode, stdout or "", stderr or "", self.filter_text)


def child_env(extra: dict[str, str] | None) -> dict[str, str]:
    """This environment without systemd's variables of the test run itself, plus ``extra``."""
    env = {k: v for k, v in os.environ.items() if k not in ("NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID")}
    return {**env, **(extra or {})}


def script(game: str) -> Path:
    """The committed whole-game script of ``game``."""
    return DATA / f"{game}_game.sim"


def seed_args(game: str) -> list[str]:
    """``--seed N`` as the script's header names it (none for a script that needs none)."""
    seed = GAMES[game]
    return [] if seed is None else ["--seed", str(seed)]


def journal_actions(state: Path) -> int:
    """Actions journaled in the unfinished game of ``state``."""
    try:
        return sum(1 for line in (state / "game.jsonl").read_text().splitlines() if line.startswith('{"a"'))
    except FileNotFoundError:
        return 0


def wait_for(condition, timeout: float = 30.0, proc: subprocess.Popen | None = None) -> None:
    """Poll ``condition`` until it holds; fail on timeout or when ``proc`` ended first."""
    end = time.monotonic() + scaled(timeout)
    while not condition():
        if proc is not None and proc.poll() is not None:
            raise AssertionError(f"the process ended first, with status {proc.returncode}")
        assert time.monotonic() < end, "timed out"
        time.sleep(0.02)


class NotifySocket:
    """A systemd notify socket: collects what the service says (READY=1, WATCHDOG=1, STOPPING=1)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind(str(path))
        self.sock.settimeout(scaled(30))
        self.messages: list[str] = []

    def env(self, watchdog_usec: int = 200_000) -> dict[str, str]:
        """The variables systemd gives a ``Type=notify`` service with ``WatchdogSec=``."""
        return {"NOTIFY_SOCKET": str(self.path), "WATCHDOG_USEC": str(watchdog_usec)}

    def wait_for(self, word: str, timeout: float = 30) -> None:
        """Receive until a message holds ``word`` (``timeout`` scaled: :func:`scaled`)."""
        self.sock.settimeout(scaled(timeout))
        while not any(word in m for m in self.messages):
            self.messages.append(self.sock.recv(4096).decode())

    def close(self) -> None:
        """Close the socket."""
        self.sock.close()


# -- deriving the calls the service makes (for the doctor) ------------------------------------------
_CALL = re.compile(r"^(?:\d+\s+)?(?:<\.\.\. )?([a-z_][a-z0-9_]*)[( ]")


def strace_calls(log: str) -> set[str]:
    """The call names in the ``strace -f`` output of a jailed command (``123 openat(...)``,
    ``<... read resumed>``), from the jail's ``exec`` of the command on: the calls that load the
    filter, before it, are not the command's."""
    lines = log.splitlines()
    leader = lines[0].split()[0] if lines else ""
    execs = [i for i, line in enumerate(lines) if line.split()[:1] == [leader] and "execve(" in line]
    calls = set()
    for line in lines[execs[1] if len(execs) > 1 else 0 :]:
        m = _CALL.match(line)
        if m:
            calls.add(m.group(1))
    return calls


def traced_calls(argv: Sequence[str], env: dict[str, str] | None = None, timeout: float = 120) -> set[str] | None:
    """The calls of a jailed command (:meth:`Sandbox.jailed`) run to its end under ``strace -f``;
    None without strace."""
    strace = shutil.which("strace")
    if strace is None:
        return None
    with tempfile.TemporaryDirectory(prefix="tablemate-strace-") as folder:
        log = Path(folder) / "log"
        subprocess.run(
            [strace, "-f", "-qq", "-o", str(log), *argv],
            cwd=ROOT,
            env=child_env(env),
            capture_output=True,
            timeout=scaled(timeout),
        )
        return strace_calls(log.read_text()) if log.exists() else None


def derive_calls(folder: Path) -> set[str]:
    """Every call the service makes on the paths the sandbox test runs, inside the unit's filter,
    seen by ``strace -f`` (the calls of the filter's own loading are left out)."""
    strace = shutil.which("strace")
    if strace is None:
        raise SystemExit("derive needs strace (apt-get install strace)")
    calls: set[str] = set()
    box = Sandbox(folder / "box", synced=False)

    def traced(name: str, synced: bool, *args: object, notify: NotifySocket | None = None) -> None:
        flag = folder / f"flag-{name}"
        if synced:
            flag.touch()
        log = folder / f"strace-{name}"
        service = [sys.executable, "-m", "tests.sandboxed_service", str(flag)]
        argv = [strace, "-f", "-qq", "-o", str(log), *box.jailed(service)]
        env = child_env(notify.env() if notify else None)
        proc = subprocess.Popen([*argv, *map(str, args)], cwd=ROOT, env=env, stdout=subprocess.DEVNULL)
        if notify is not None:  # up to the watchdog, then SIGTERM to the service (strace would detach)
            notify.wait_for("WATCHDOG=1")
            child = Path(f"/proc/{proc.pid}/task/{proc.pid}/children").read_text().split()
            os.kill(int(child[0]), signal.SIGTERM)
        proc.wait(scaled(120))
        calls.update(strace_calls(log.read_text()))

    for game in GAMES:
        for synced in (False, True):
            state = folder / f"state-{game}-{synced}"
            traced(f"{game}-{synced}", synced, "sim", "--script", script(game), "--state-dir", state, *seed_args(game))
    lines = script("arschbombe").read_text().splitlines()
    cut = lines.index("snap 02-after-ben") + 1
    (folder / "first.sim").write_text("\n".join(lines[:cut]) + "\n")
    (folder / "rest.sim").write_text("\n".join(lines[cut:]) + "\n")
    traced("first", False, "sim", "--script", folder / "first.sim", "--state-dir", folder / "resume")
    traced("state", False, "state", "--state-dir", folder / "resume")
    traced("resume", False, "sim", "--script", folder / "rest.sim", "--state-dir", folder / "resume")
    traced("history", False, "history", "--state-dir", folder / "resume")
    notify = NotifySocket(folder / "notify.sock")
    try:
        traced("run", False, "run", "--sim", "--state-dir", folder / "run", notify=notify)
    finally:
        notify.close()
    return calls


def service_syscalls_module(calls: set[str], machine: str | None = None, recorded_on: str | None = None) -> str:
    """The source of :mod:`firmware_host.ops.service_syscalls` with ``calls`` as ``machine``'s
    list (default: this one's), the other machines' lists kept as they are."""
    from firmware_host.ops import service_syscalls

    machine = machine or platform.machine()
    version = recorded_on or f"Python {platform.python_version()} on {machine} (Linux {platform.release()})"
    lists = {**service_syscalls.CALLS_BY_MACHINE, machine: frozenset(calls)}
    where = {**service_syscalls.RECORDED_ON, machine: version}
    source = (ROOT / "firmware_host" / "runtime" / "service_syscalls.py").read_text(encoding="utf-8")
    head = source[: source.index("RECORDED_ON = {")]
    tail = source[source.index('"""Each machine\'s calls') :]
    lines = [head.rstrip("\n"), "", "RECORDED_ON = {"]
    lines += [f'    "{m}": "{where[m]}",' for m in sorted(lists)]
    lines += [
        "}",
        '"""Where each machine\'s list was recorded."""',
        "",
        "CALLS_BY_MACHINE: dict[str, frozenset[str]] = {",
    ]
    for m in sorted(lists):
        lines += [f'    "{m}": frozenset(', "        ("]
        lines += [f'            "{c}",' for c in sorted(lists[m])]
        lines += ["        )", "    ),"]
    lines += ["}"]
    return "\n".join(lines) + "\n" + tail


def main(argv: list[str]) -> int:
    """``derive``: rewrite :mod:`firmware_host.ops.service_syscalls` from a traced run."""
    if argv != ["derive"]:
        print(__doc__)
        return 2
    with tempfile.TemporaryDirectory(prefix="tablemate-derive-") as folder:
        calls = derive_calls(Path(folder))
    target = ROOT / "firmware_host" / "runtime" / "service_syscalls.py"
    target.write_text(service_syscalls_module(calls), encoding="utf-8")
    refused = unit_filter().refused(calls)
    machine = platform.machine()
    print(
        f"{len(calls)} calls of {machine} written to {target.relative_to(ROOT)}; "
        f"refused by the unit: {refused or 'none'}"
    )
    print(f"calls {machine}: {' '.join(sorted(calls))}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
