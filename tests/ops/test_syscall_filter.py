"""The unit's SystemCallFilter= read as systemd reads it: the calls that pass, and what the rest get."""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest

from firmware_host.ops import syscall_filter as sf
from tests.conftest import ROOT

UNIT = ROOT / "systemd" / "tablemate.service"

LISTING = """\
@default
    # System calls that are always permitted
    brk
    exit_group
    read

@clock
    # Change the system time
    adjtimex
    settimeofday

@io-event
    # Event loop system calls
    epoll_wait
    poll

@system-service
    # General system service operations
    @io-event
    ioctl

# Ungrouped System Calls (known but not included in any of the groups except @known):
#   kexec_load
"""
SETS = sf.SetsSource(sf.parse_listing(LISTING), "a listing")


def service(*lines: str) -> str:
    return "[Unit]\nSystemCallFilter=@clock\n\n[Service]\nType=notify\n" + "".join(f"{line}\n" for line in lines)


def test_a_listing_gives_each_set_its_members_and_no_comment_is_a_member():
    sets = sf.parse_listing(LISTING)
    assert sets["@system-service"] == ("@io-event", "ioctl")
    assert sets["@default"] == ("brk", "exit_group", "read")
    assert "kexec_load" not in {m for members in sets.values() for m in members}


def test_an_allow_list_lets_through_its_sets_nested_ones_and_default_and_kills_the_rest():
    f = sf.unit_filter([service("SystemCallFilter=@system-service")], SETS)
    assert f is not None and f.allow_list and f.error_number is None
    assert f.names == {"brk", "exit_group", "read", "epoll_wait", "poll", "ioctl"}
    assert f.refused(["read", "adjtimex", "poll"]) == ["adjtimex"]


def test_later_lines_add_take_away_and_an_empty_one_starts_again():
    f = sf.unit_filter(
        [service("SystemCallFilter=@system-service", "SystemCallFilter=~poll", "SystemCallFilter=adjtimex")], SETS
    )
    assert f is not None and not f.permits("poll") and f.permits("adjtimex")
    assert sf.unit_filter([service("SystemCallFilter=@clock", "SystemCallFilter=")], SETS) is None


def test_a_deny_list_lets_through_all_but_its_calls_and_per_call_errnos_are_read():
    f = sf.unit_filter([service("SystemCallFilter=~@clock:EPERM poll")], SETS)
    assert f is not None and not f.allow_list
    assert f.refused(["adjtimex", "settimeofday", "poll", "read", "anything"]) == ["adjtimex", "poll", "settimeofday"]


def test_the_error_number_and_the_drop_ins_count_and_other_sections_do_not():
    drop_in = "[Service]\nSystemCallFilter=adjtimex\nSystemCallErrorNumber=EPERM\n"
    f = sf.unit_filter([service("SystemCallFilter=@system-service"), drop_in], SETS)
    assert f is not None and f.permits("adjtimex") and f.error_number == "EPERM"
    assert f.entries == ("@system-service", "adjtimex")
    assert not f.permits("settimeofday")  # [Unit]'s line is not the service's
    assert sf.unit_filter([service("SystemCallErrorNumber=EPERM")], SETS) is None


def test_the_units_own_filter_keeps_adjtimex_out_and_refuses_with_eperm():
    for source in (sf.kept_sets(), sf.best_sets()):
        f = sf.unit_filter([UNIT.read_text()], source)
        assert f is not None and f.allow_list and f.error_number == "EPERM"
        assert not f.permits("adjtimex") and not f.permits("clock_adjtime")
        assert all(f.permits(c) for c in ("openat", "read", "write", "fsync", "epoll_wait", "ioctl", "execve"))


def test_the_kept_sets_are_systemd_252s():
    kept = sf.kept_sets()
    assert kept.origin.startswith("systemd-analyze of systemd 252 ")
    assert {"@default", "@system-service", "@clock", "@known"} <= set(kept.sets)
    assert "adjtimex" in sf.expand(["@clock"], kept.sets)


@pytest.mark.skipif(
    not (sf.systemd_version() or "").startswith("systemd 252 "), reason="needs systemd 252's systemd-analyze"
)
def test_the_kept_sets_are_what_this_systemd_252_lists():
    live, kept = sf.live_sets(), sf.kept_sets()
    assert live is not None and live.sets == kept.sets


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="systemd-analyze is not installed")
def test_the_units_exposure_stays_at_or_below_2_0():
    out = subprocess.run(["systemd-analyze", "security", "--offline=yes", str(UNIT)], capture_output=True, text=True)
    m = re.search(r"Overall exposure level for tablemate\.service: (\d+\.\d+)", out.stdout)
    assert m is not None, out.stdout + out.stderr
    assert float(m.group(1)) <= 2.0
