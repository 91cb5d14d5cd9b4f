"""The system calls the service makes inside its unit's filter, as ``strace -f`` saw them, per machine.

The doctor checks the installed unit's ``SystemCallFilter=`` against the list of the machine it
runs on (:func:`calls`): the names differ between architectures (x86-64 has ``access``,
``arch_prctl``, ``mkdir``, ``rename``, ``epoll_wait``; aarch64 has only ``faccessat``,
``mkdirat``, ``renameat``, ``epoll_pwait``), so a list recorded on one is no check on another.
Written by ``python -m tests.sandboxkit derive`` on each machine (aarch64's: inside
``python3 dev.py vm``, on Debian's arm64 kernel): the paths of the sandbox test (``tablemate run
--sim`` to the watchdog and SIGTERM, a whole game of each game with the clock synced and not, a
stop and its resume, ``state`` and ``history``) run inside the filter under ``strace -f``. The
hardware's own paths (libgpiod, I2C, serial, lgpio) are not among them: by their sources they add
ioctl, poll and thread calls, all in ``@system-service``.
"""

from __future__ import annotations

import platform

RECORDED_ON = {
    "aarch64": "Python 3.11.2 on aarch64 (Linux 6.1.0-57-arm64, QEMU virt, cortex-a72)",
    "x86_64": "Python 3.11.7 on x86_64 (Linux 6.18.44-fc-v857)",
}
"""Where each machine's list was recorded."""

CALLS_BY_MACHINE: dict[str, frozenset[str]] = {
    "aarch64": frozenset(
        (
            "bind",
            "brk",
            "clone",
            "close",
            "connect",
            "epoll_create1",
            "epoll_ctl",
            "epoll_pwait",
            "execve",
            "exit",
            "exit_group",
            "faccessat",
            "fcntl",
            "flock",
            "fsync",
            "ftruncate",
            "futex",
            "getcwd",
            "getdents64",
            "getegid",
            "geteuid",
            "getgid",
            "getpid",
            "getrandom",
            "getsockname",
            "gettid",
            "getuid",
            "ioctl",
            "listen",
            "lseek",
            "madvise",
            "mkdirat",
            "mmap",
            "mprotect",
            "mremap",
            "munmap",
            "newfstatat",
            "openat",
            "prlimit64",
            "pwrite64",
            "read",
            "readlinkat",
            "recvfrom",
            "renameat",
            "rseq",
            "rt_sigaction",
            "rt_sigprocmask",
            "rt_sigreturn",
            "sendto",
            "set_robust_list",
            "set_tid_address",
            "setsockopt",
            "socket",
            "socketpair",
            "sysinfo",
            "uname",
            "write",
        )
    ),
    "x86_64": frozenset(
        (
            "access",
            "arch_prctl",
            "brk",
            "clone3",
            "close",
            "connect",
            "epoll_create1",
            "epoll_ctl",
            "epoll_wait",
            "execve",
            "exit",
            "exit_group",
            "fcntl",
            "fsync",
            "futex",
            "getcwd",
            "getdents64",
            "getpid",
            "getrandom",
            "getsockname",
            "gettid",
            "ioctl",
            "lseek",
            "madvise",
            "mkdir",
            "mmap",
            "mprotect",
            "mremap",
            "munmap",
            "newfstatat",
            "openat",
            "pread64",
            "prlimit64",
            "pwrite64",
            "read",
            "readlink",
            "recvfrom",
            "rename",
            "rseq",
            "rt_sigaction",
            "rt_sigprocmask",
            "rt_sigreturn",
            "sendto",
            "set_robust_list",
            "set_tid_address",
            "socket",
            "socketpair",
            "sysinfo",
            "write",
        )
    ),
}
"""Each machine's calls (``platform.machine()``), each call's name as systemd's sets name it."""


def calls(machine: str | None = None) -> frozenset[str] | None:
    """The calls recorded on ``machine`` (default: this one), ``None`` when none were."""
    return CALLS_BY_MACHINE.get(machine or platform.machine())
