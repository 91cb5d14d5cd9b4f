"""Load a seccomp filter that kills the process at any call outside a list, then run a command.

    python -m tests.seccomp_jail ALLOWED COMMAND...

``ALLOWED`` is a file of call names, one a line. The filter is built with libseccomp's own
Python binding (Debian's ``python3-seccomp``, else PyPI's ``pyseccomp``, which wraps the same
libseccomp through ctypes with the same API), default action ``KILL_PROCESS`` as systemd's
``SystemCallFilter=`` without ``SystemCallErrorNumber=``, only the native architecture (as
``SystemCallArchitectures=native``). libseccomp sets ``no_new_privs`` first, as systemd does with
``NoNewPrivileges=yes``. The command is then ``exec``'d, so its interpreter starts inside the
filter: a call it makes outside the list kills it by SIGSYS.

This module imports nothing of the project: only the filter and ``exec`` run before the command.
"""

from __future__ import annotations

import os
import sys

EXIT_SETUP = 125
"""Exit status when the filter cannot be built or loaded (not a call the command made)."""


def binding():
    """libseccomp's Python binding: ``seccomp`` (Debian's) or ``pyseccomp`` (PyPI's)."""
    try:
        import seccomp
    except ImportError:
        import pyseccomp as seccomp
    return seccomp


def build(names: list[str]):
    """The filter: kill the process, except for ``names`` (names this architecture lacks are left
    out, as systemd leaves them out)."""
    seccomp = binding()
    syscall_filter = seccomp.SyscallFilter(seccomp.KILL_PROCESS)
    for name in names:
        try:
            syscall_filter.add_rule(seccomp.ALLOW, name)
        except (OSError, ValueError, RuntimeError):
            continue  # unknown to this libseccomp: systemd skips it too
    return syscall_filter


def main(argv: list[str]) -> int:
    """Load the filter of ``argv[0]``'s names and exec ``argv[1:]``."""
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    with open(argv[0], encoding="ascii") as f:
        names = [line.strip() for line in f if line.strip()]
    try:
        syscall_filter = build(names)
        syscall_filter.load()
    except Exception as exc:
        print(f"seccomp_jail: cannot load the filter: {exc!r}", file=sys.stderr)
        return EXIT_SETUP
    os.execv(argv[1], argv[1:])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
