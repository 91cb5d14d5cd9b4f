"""The options of the benchmarks, kept light: every ``tablemate`` command builds its parser, and
only ``bench scale`` should pay for importing the trace generator and the detector."""

from __future__ import annotations

import argparse

TUNE, HELD_OUT = "tune", "held-out"
"""The two splits of seeds and recordings: tune on one, report on the other."""


def add_scale_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``tablemate bench scale``."""
    parser.add_argument(
        "--split",
        choices=(HELD_OUT, TUNE),
        default=HELD_OUT,
        help="held-out seeds and recordings (the default: the figures to quote) or the tuning ones",
    )
    parser.add_argument(
        "--traces",
        type=int,
        default=3,
        metavar="N",
        help="game traces per rate and cell (default 3: 1.6 h of traces in seconds; 30: 16 h in under a minute)",
    )
    parser.add_argument("--minutes", type=float, default=4.0, metavar="M", help="length of a game trace (default 4)")
    parser.add_argument(
        "--seed-offset",
        type=int,
        default=0,
        metavar="K",
        help="skip the split's first K seeds (a fresh set of seeds; default 0)",
    )
    parser.add_argument(
        "--data", metavar="DIR", help="the coffee-pot recordings (default: bench/data/hx711-coffee-pot)"
    )
    parser.add_argument("--verbose", action="store_true", help="list every miss, false event and wrong count")
    parser.add_argument(
        "--check", action="store_true", help="exit status 1 when a target is missed (an aim missed is only reported)"
    )
