"""``tablemate doctor``'s sandbox line: the installed unit's filter against the calls the service makes."""

from __future__ import annotations

from pathlib import Path

import pytest

from firmware_host.core.config import defaults
from firmware_host.core.pi_layout import UNIT
from firmware_host.ops import syscall_filter
from firmware_host.ops.doctor import CHECKS, REINSTALL, System, check_sandbox, run_checks
from firmware_host.ops.doctor.sandbox import clock_note, sandbox_verdict
from firmware_host.ops.service_syscalls import calls
from tests import sandboxkit
from tests.conftest import ROOT

REPO_UNIT = (ROOT / "systemd" / "tablemate.service").read_text()
OLD_UNIT = REPO_UNIT.replace("SystemCallErrorNumber=EPERM\n", "")
"""The unit as the first release installed it: the filter, and a kill for any call outside it."""
KEPT = syscall_filter.kept_sets()
CALLS = calls("x86_64")
"""The list the tests check against: the same on every machine."""


def installed(tmp_path: Path, unit: str | None, **drop_ins: str) -> Path:
    root = tmp_path / "pi"
    path = root / UNIT
    path.parent.mkdir(parents=True)
    if unit is not None:
        path.write_text(unit)
    for name, text in drop_ins.items():
        (root / f"{UNIT}.d").mkdir(exist_ok=True)
        (root / f"{UNIT}.d" / f"{name}.conf").write_text(text)
    return root


@pytest.mark.parametrize("sets", [KEPT, None], ids=["systemd-252-kept", "this-machine"])
def test_the_current_unit_lets_every_call_of_the_service_through_and_refuses_the_rest_with_eperm(tmp_path, sets):
    result = sandbox_verdict(installed(tmp_path, REPO_UNIT), REINSTALL, sets, "x86_64")
    assert result.status == "ok", result.line()
    assert f"all {len(CALLS)} calls the service makes on x86_64" in result.found and "@system-service" in result.found
    assert "EPERM" in result.found


def test_the_unit_the_first_release_installed_fails_it_would_kill_the_device(tmp_path):
    result = sandbox_verdict(installed(tmp_path, OLD_UNIT), REINSTALL, KEPT, "x86_64")
    assert result.status == "FAIL" and "kills the service (SIGSYS)" in result.found
    assert REINSTALL in result.fix


def test_a_drop_in_that_takes_calls_away_is_named_with_the_calls(tmp_path):
    root = installed(
        tmp_path, REPO_UNIT, spi="[Service]\nSupplementaryGroups=spi\n", tight="[Service]\nSystemCallFilter=~@sync\n"
    )
    result = sandbox_verdict(root, REINSTALL, KEPT, "x86_64")
    assert result.status == "FAIL" and "refuses 1 call(s) the service makes: fsync" in result.found
    assert "SystemCallFilter=fsync" in result.fix


def test_a_narrow_filter_names_the_first_refused_calls_and_counts_the_rest(tmp_path):
    unit = "[Service]\nExecStart=/bin/true\nSystemCallFilter=@basic-io\nSystemCallErrorNumber=EPERM\n"
    result = sandbox_verdict(installed(tmp_path, unit), REINSTALL, KEPT, "x86_64")
    refused = syscall_filter.unit_filter([unit], KEPT).refused(CALLS)
    assert result.status == "FAIL" and f"refuses {len(refused)} call(s)" in result.found
    assert ", ".join(refused[:6]) in result.found and f"and {len(refused) - 6} more" in result.found


def test_no_filter_passes_every_call_and_no_unit_is_left_to_the_service_line(tmp_path):
    assert (
        sandbox_verdict(installed(tmp_path / "a", "[Service]\nExecStart=/bin/true\n"), REINSTALL, KEPT, "x86_64").status
        == "ok"
    )
    assert sandbox_verdict(installed(tmp_path / "b", None), REINSTALL, KEPT).status == "skip"


def test_the_service_asks_the_clock_without_any_call_of_clock_and_the_doctor_runs_the_check():
    assert not CALLS & syscall_filter.expand(["@clock"], KEPT.sets)  # adjtimex, clock_adjtime: never
    assert {"openat", "fsync", "epoll_wait", "sendto", "execve"} <= CALLS  # files, journal, loop, notify, start
    assert check_sandbox in CHECKS


def test_on_this_machine_the_doctor_prints_the_sandbox_line_of_an_installed_unit(tmp_path):
    results = {r.part: r for r in run_checks(defaults(), System(root=installed(tmp_path, REPO_UNIT)))}
    assert results["sandbox"].status == "ok"
    old = check_sandbox(defaults(), System(root=installed(tmp_path / "old", OLD_UNIT)))
    assert old.failed and old.line().startswith("sandbox   FAIL") and "-- fix: sudo systemd/install.sh" in old.line()


def test_the_derivation_counts_the_commands_calls_from_the_jails_exec_on():
    log = (
        '100 execve("/venv/bin/python", ["python", "-m", "tests.seccomp_jail", "allowed"]) = 0\n'
        "100 seccomp(SECCOMP_SET_MODE_FILTER, 0, {len=700, filter=0x55}) = 0\n"
        '101 execve("/sbin/ldconfig", ["/sbin/ldconfig", "-p"], 0x7f /* 2 vars */) = 0\n'
        '100 execve("/venv/bin/python", ["python", "-m", "tests.sandboxed_service"]) = 0\n'
        '100 openat(AT_FDCWD, "game.jsonl", O_RDONLY|O_CLOEXEC) = 3\n'
        "102 futex(0x7f12, FUTEX_WAIT_BITSET_PRIVATE, 0, NULL <unfinished ...>\n"
        "100 <... clone3 resumed> => {parent_tid=[102]}, 88) = 102\n"
        "100 --- SIGTERM {si_signo=SIGTERM, si_code=SI_USER} ---\n"
        "100 +++ exited with 0 +++\n"
    )
    assert sandboxkit.strace_calls(log) == {"execve", "openat", "futex", "clone3"}


def test_a_clock_synced_by_other_than_timesyncd_is_noted_the_sandboxed_service_cannot_see_it(tmp_path):
    root = installed(tmp_path, REPO_UNIT)
    assert "dates" not in clock_note(root, lambda: None) and clock_note(root, lambda: False) == ""
    note = clock_note(root, lambda: True)  # chrony or ntpd synced it: no flag file
    assert "not by systemd-timesyncd" in note and "clock unset" in note and "apt install systemd-timesyncd" in note
    flag = root / "run/systemd/timesync/synchronized"
    flag.parent.mkdir(parents=True)
    flag.touch()
    assert clock_note(root, lambda: True) == ""


def test_the_doctor_checks_the_list_of_the_machine_it_runs_on_and_says_when_there_is_none(tmp_path, monkeypatch):
    from firmware_host.ops import service_syscalls

    arm = frozenset({"openat", "faccessat", "mkdirat", "epoll_pwait", "fsync"})
    monkeypatch.setitem(service_syscalls.CALLS_BY_MACHINE, "aarch64", arm)
    on_pi = sandbox_verdict(installed(tmp_path / "a", REPO_UNIT), REINSTALL, KEPT, "aarch64")
    assert on_pi.status == "ok" and f"all {len(arm)} calls the service makes on aarch64" in on_pi.found
    tight = "[Service]\nSystemCallFilter=~mkdirat\n"
    refused = sandbox_verdict(installed(tmp_path / "b", REPO_UNIT, tight=tight), REINSTALL, KEPT, "aarch64")
    assert refused.status == "FAIL" and "mkdirat" in refused.found  # aarch64's name, not x86-64's mkdir
    none = sandbox_verdict(installed(tmp_path / "c", REPO_UNIT), REINSTALL, KEPT, "riscv64")
    assert none.status == "skip" and "no list of the service's calls was recorded on riscv64" in none.found
