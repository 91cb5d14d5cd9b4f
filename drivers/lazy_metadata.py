"""``importlib_metadata`` for this process: the standard library's, imported when first asked.

gpiozero and pygal import the PyPI backport ``importlib_metadata`` whenever it is installed, in
preference to the standard library's ``importlib.metadata`` (pygal's own requirement installs it).
Both only ask for entry points by group, which the standard library answers the same way since
Python 3.10, and gpiozero asks only when a pin factory is named, which the service never does (it
hands gpiozero its own). Importing either module costs a dozen modules more (email, zipfile, csv,
tempfile…): 2.6 s of the service's start on the emulated arm64 board for the backport, 1.1 s for
the standard library's, before any pin is opened. :func:`install` puts this module in the
backport's place; the standard library's is imported on the first real use.
"""

from __future__ import annotations

import sys
from typing import Any


def entry_points(**selection: Any) -> Any:
    """The standard library's ``importlib.metadata.entry_points``."""
    from importlib import metadata

    return metadata.entry_points(**selection)


def __getattr__(name: str) -> Any:
    """Anything else the standard library's module has (not the import system's own questions,
    like ``__path__``, which would import it at once)."""
    if name.startswith("__"):
        raise AttributeError(name)
    from importlib import metadata

    return getattr(metadata, name)


def install() -> None:
    """Serve ``import importlib_metadata`` from this module (unless it was imported already)."""
    sys.modules.setdefault("importlib_metadata", sys.modules[__name__])
