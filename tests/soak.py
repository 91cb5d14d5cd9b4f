"""The long crash soak: ``python -m tests.soak [--seeds N] [--games tonne,bomb]``.

For every game and seed: a kill at every write, fsync, rename, truncate and mkdir of a whole
game (its start, every action, its end and its filing), a second kill at every call of a boot
that mends a torn journal or history tail, then a power cut at every byte of the
journal's last two records, inside its last snapshot record, and of the game's history line (cut
short and zero-filled). Snapshots are written every ``--snap-every`` actions (default 3), so every
game crosses several. Each is
followed by a boot on the files left behind, which must lose no acknowledged action, file the
finished game exactly once with its real result and agree with replay. The suite runs seed 1
(``tests/core/test_crashes.py``); this runs more and prints the totals.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

from firmware_host.core import session as sessions
from tests.crashkit import GAMES, history_cuts, journal_cuts, kill_points, recovery_kills, snapshot_cuts


def main(argv: list[str] | None = None) -> int:
    """Run the soak; exit status 1 when anything was lost, misfiled or crashed."""
    parser = argparse.ArgumentParser(prog="python -m tests.soak", description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=3, help="seeds per game (default 3)")
    parser.add_argument("--games", default=",".join(sorted(GAMES)), help="comma-separated games")
    parser.add_argument("--snap-every", type=int, default=3, help="actions between snapshots (default 3)")
    args = parser.parse_args(argv)
    sessions.SNAP_EVERY = args.snap_every
    bad = 0
    totals = {"kills": 0, "recovery kills": 0, "journal cuts": 0, "snapshot cuts": 0, "history cuts": 0}
    started = time.monotonic()
    with tempfile.TemporaryDirectory() as tmp:
        for game in args.games.split(","):
            for seed in range(1, args.seeds + 1):
                row = []
                for name, model in (
                    ("kills", kill_points),
                    ("recovery kills", recovery_kills),
                    ("journal cuts", journal_cuts),
                    ("snapshot cuts", snapshot_cuts),
                    ("history cuts", history_cuts),
                ):
                    count, failures = model(Path(tmp) / name.replace(" ", "_"), game, seed)
                    totals[name] += count
                    bad += len(failures)
                    row.append(f"{name} {count} ({len(failures)} failed)")
                    for where, problems in list(failures.items())[:3]:
                        print(f"  {game} seed {seed} {name} at {where}: {'; '.join(problems)}")
                print(f"{game} seed {seed}: " + ", ".join(row), flush=True)
    spent = time.monotonic() - started
    print(
        f"total: {totals['kills']} kills in play, {totals['recovery kills']} kills while recovering, "
        f"{totals['journal cuts']} journal cuts, {totals['snapshot cuts']} cuts inside a snapshot record, "
        f"{totals['history cuts']} history cuts; "
        f"{bad} lost, misfiled or crashed ({spent:.0f} s)"
    )
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
