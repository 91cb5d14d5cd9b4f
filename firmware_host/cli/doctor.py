"""``tablemate doctor``: check each part as the service sees it, one line per part with its fix.

Exit status 0 when every part is fine (or not configured), 1 when any part fails, 2 for a broken
configuration. Run it as the service's user to see exactly what the service sees:
``sudo -u tablemate /opt/tablemate/venv/bin/tablemate doctor``.
"""

from __future__ import annotations

import os
from pathlib import Path

from firmware_host.core.config import Config
from firmware_host.core.store import default_state_dir
from firmware_host.ops.doctor import SERVICE_USER, System, run_checks

SERVICE_STATE = Path("/var/lib/tablemate")


def state_folder(state_dir: str | None) -> Path:
    """``--state-dir``, else systemd's, else the installed service's, else the user's."""
    if state_dir:
        return Path(state_dir)
    if os.environ.get("STATE_DIRECTORY") or not SERVICE_STATE.exists():
        return default_state_dir()
    return SERVICE_STATE


def main(config: Config, state_dir: str | None) -> int:
    """Print one line per part; 0 when all is well, 1 otherwise."""
    results = run_checks(config, System(state_dir=state_folder(state_dir), user=SERVICE_USER))
    for result in results:
        print(result.line())
    failed = sum(r.failed for r in results)
    print(f"{failed} part{'s' if failed != 1 else ''} to fix" if failed else "all well")
    return 1 if failed else 0
