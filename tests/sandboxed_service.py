"""``tablemate ARGS`` as the unit starts it, with the timesyncd flag file put where a test says.

    python -m tests.sandboxed_service SYNC_FLAG [--ask-kernel] ARGS...

The clock reads as synced when ``SYNC_FLAG`` exists and as not synced when it does not (the
tests of :mod:`firmware_host.core.wallclock` move the flag the same way). ``--ask-kernel`` puts
back the behaviour the service had before it knew about its sandbox -- ask the kernel's NTP status
(``adjtimex``) whenever the flag is missing -- so a test can show the sandbox kills that.
"""

from __future__ import annotations

import sys
from pathlib import Path

from firmware_host.cli.main import main
from firmware_host.core import wallclock

if __name__ == "__main__":
    args = sys.argv[1:]
    wallclock.SYNC_FLAG = Path(args.pop(0))
    if args[:1] == ["--ask-kernel"]:
        args.pop(0)
        wallclock.sandboxed = lambda: False
    sys.exit(main(args))
