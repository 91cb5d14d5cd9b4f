"""The system calls a systemd unit's ``SystemCallFilter=`` lets through, as systemd reads it.

systemd turns the unit's ``SystemCallFilter=`` lines into a seccomp filter: an allow list (the
first non-empty line has no ``~``) lets the named calls and sets through, plus ``@default``, and
answers every other call with ``SystemCallErrorNumber=`` -- or, when that is not set, kills the
process with SIGSYS. Later lines add to the list, a line of the other polarity takes away from
it, an empty line starts it again. Sets (``@system-service``) are expanded with this machine's
``systemd-analyze syscall-filter`` where there is one, else with the sets of systemd 252
(Raspberry Pi OS Bookworm's) kept in :mod:`firmware_host.ops.syscall_sets_252`.

The doctor checks the installed unit against the calls the service makes with it, and the test
suite runs the service inside the very filter this module describes.

    python -m firmware_host.ops.syscall_filter --sets-module > firmware_host/ops/syscall_sets_252.py

rewrites the kept sets from this machine's ``systemd-analyze`` (on a systemd 252 only).
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

Sets = Mapping[str, tuple[str, ...]]
"""A set's name (``@system-service``) -> its members: call names and the names of other sets."""


@dataclass(frozen=True)
class SetsSource:
    """Sets and where they came from (``systemd-analyze of systemd 252 (252.38-1)``)."""

    sets: Sets
    origin: str


def parse_listing(listing: str) -> dict[str, tuple[str, ...]]:
    """The sets of ``systemd-analyze syscall-filter``'s output: a set's name at the start of a
    line, its members indented below it; lines starting with ``#`` (help, and the calls no set
    has) are not members."""
    sets: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in listing.splitlines():
        word = line.strip()
        if not word:
            continue
        if not line[0].isspace():
            current = sets.setdefault(word, []) if word.startswith("@") else None
        elif current is not None and not word.startswith("#"):
            current.append(word)
    return {name: tuple(members) for name, members in sets.items()}


def systemd_version(analyze: str = "systemd-analyze") -> str | None:
    """``systemd 252 (252.38-1~deb12u1)``, the first line of ``--version``; None without it."""
    try:
        out = subprocess.run([analyze, "--version"], capture_output=True, text=True, timeout=30, check=True).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    return out.splitlines()[0].strip() if out.strip() else None


def live_sets(analyze: str = "systemd-analyze") -> SetsSource | None:
    """This machine's sets, from ``systemd-analyze syscall-filter``; None where it cannot say."""
    if shutil.which(analyze) is None:
        return None
    try:
        out = subprocess.run(
            [analyze, "--no-pager", "syscall-filter"], capture_output=True, text=True, timeout=30, check=True
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    sets = parse_listing(out)
    if "@default" not in sets:
        return None
    return SetsSource(sets, f"systemd-analyze of {systemd_version(analyze) or 'systemd'}")


def kept_sets() -> SetsSource:
    """systemd 252's sets as kept in the project (for machines with no ``systemd-analyze``)."""
    from firmware_host.ops import syscall_sets_252 as kept

    return SetsSource({name: tuple(members.split()) for name, members in kept.SETS.items()}, kept.ORIGIN)


def best_sets() -> SetsSource:
    """This machine's sets where ``systemd-analyze`` can list them, else the kept systemd 252's."""
    return live_sets() or kept_sets()


def expand(entries: Iterable[str], sets: Sets) -> set[str]:
    """The call names ``entries`` (names and ``@sets``, nested sets included) stand for.

    A set the sets do not know stands for nothing, as systemd ignores it with a warning.
    """
    names: set[str] = set()
    todo, seen = list(entries), set()
    while todo:
        entry = todo.pop()
        if not entry.startswith("@"):
            names.add(entry)
        elif entry not in seen:
            seen.add(entry)
            todo.extend(sets.get(entry, ()))
    return names


def unit_settings(texts: Iterable[str], key: str) -> list[str]:
    """Every value of ``key=`` in the ``[Service]`` sections of a unit and its drop-ins, in order."""
    values = []
    for text in texts:
        section = None
        for raw in text.splitlines():
            line = raw.strip()
            if not line or line[0] in "#;":
                continue
            if line.startswith("[") and line.endswith("]"):
                section = line[1:-1]
                continue
            name, sep, value = line.partition("=")
            if sep and section == "Service" and name.strip() == key:
                values.append(value.strip())
    return values


@dataclass(frozen=True)
class UnitFilter:
    """The filter systemd builds from a unit: which calls pass, and what the others get."""

    allow_list: bool
    """True: only :attr:`names` pass. False: all but :attr:`names` pass."""
    names: frozenset[str]
    error_number: str | None
    """``SystemCallErrorNumber=`` (``EPERM``): what a refused call gets; None: the process is killed."""
    entries: tuple[str, ...]
    """The filter's lines as written (``@system-service``), for messages."""
    origin: str
    """Where the sets came from (which systemd)."""

    def permits(self, call: str) -> bool:
        """Whether ``call`` passes the filter."""
        return (call in self.names) == self.allow_list

    def refused(self, calls: Iterable[str]) -> list[str]:
        """The calls of ``calls`` that do not pass, sorted."""
        return sorted(c for c in set(calls) if not self.permits(c))


_ENTRY = re.compile(r":[A-Za-z0-9_]+$")


def unit_filter(texts: Iterable[str], source: SetsSource | None = None) -> UnitFilter | None:
    """The filter of a unit (its text, then its drop-ins' texts); None when it has none."""
    texts = list(texts)
    source = source or best_sets()
    allow_list: bool | None = None
    chosen: set[str] = set()
    lines: list[str] = []
    for value in unit_settings(texts, "SystemCallFilter"):
        if not value:  # an empty assignment starts again
            allow_list, chosen, lines = None, set(), []
            continue
        lines.append(value)
        invert = value.startswith("~")
        words = [_ENTRY.sub("", w) for w in value.lstrip("~").split()]  # "name:EPERM" -> "name"
        if allow_list is None:
            allow_list = not invert
            if allow_list:
                chosen |= expand(["@default"], source.sets)
        named = expand(words, source.sets)
        if invert != allow_list:  # same polarity as the list: add to it
            chosen |= named
        else:
            chosen -= named
    if allow_list is None:
        return None
    errors = unit_settings(texts, "SystemCallErrorNumber")
    error = errors[-1] if errors and errors[-1] not in ("", "kill") else None
    return UnitFilter(allow_list, frozenset(chosen), error, tuple(lines), source.origin)


def sets_module(source: SetsSource) -> str:
    """The Python source of :mod:`firmware_host.ops.syscall_sets_252` for ``source``."""
    out = [
        '"""systemd\'s system call sets as ``systemd-analyze syscall-filter`` lists them.',
        "",
        f"Listed by {source.origin}; written by",
        "``python -m firmware_host.ops.syscall_filter --sets-module``, read by",
        ":func:`firmware_host.ops.syscall_filter.kept_sets` where no ``systemd-analyze`` is installed.",
        '"""',
        "",
        f'ORIGIN = "{source.origin}"',
        '"""Which systemd listed these sets."""',
        "",
        "SETS = {",
    ]
    for name, members in source.sets.items():
        whole = f'    "{name}": "{" ".join(members)}",'
        if len(whole) <= 120:
            out.append(whole)
            continue
        out.append(f'    "{name}": (')
        line: list[str] = []
        for member in members:
            if line and len(" ".join([*line, member])) > 108:
                out.append(f'        "{" ".join(line)} "')
                line = []
            line.append(member)
        out.append(f'        "{" ".join(line)}"')
        out.append("    ),")
    out += ["}", '"""Each set\'s members (calls and other sets), separated by spaces, in systemd\'s order."""', ""]
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    """``--sets-module``: print the kept sets' module from this machine's ``systemd-analyze``."""
    argv = sys.argv[1:] if argv is None else argv
    if argv != ["--sets-module"]:
        print(__doc__)
        return 2
    source = live_sets()
    if source is None or not source.origin.startswith("systemd-analyze of systemd 252 "):
        print(f"needs systemd 252's systemd-analyze; here: {source.origin if source else 'none'}", file=sys.stderr)
        return 1
    sys.stdout.write(sets_module(source))
    return 0


if __name__ == "__main__":
    sys.exit(main())
