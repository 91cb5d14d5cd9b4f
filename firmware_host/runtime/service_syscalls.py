"""The system calls the service makes inside its unit's filter, as ``strace -f`` saw them.

The doctor checks the installed unit's ``SystemCallFilter=`` against them. Written by
``python -m tests.sandboxkit derive``: the paths of the sandbox test (``tablemate run --sim`` to
the watchdog and SIGTERM, a whole game of each game with the clock synced and not, a stop and
its resume, ``state`` and ``history``) run inside the filter under ``strace -f``, with
Python 3.11.7 on x86_64 (Linux 6.18.44-fc-v857). The hardware's own paths (libgpiod, I2C, serial, lgpio) are not among
them: by their sources they add ioctl, poll and thread calls, all in ``@system-service``.
"""

CALLS = frozenset(
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
)
"""Each call's name, as systemd's sets name it."""
