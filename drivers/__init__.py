"""Hardware drivers, each with a real and a simulated backend behind one small interface.

gpiozero (and pygal) import the PyPI backport ``importlib_metadata`` whenever it is installed, in
preference to the standard library's ``importlib.metadata``; pygal's own requirement installs it.
Both only ask for entry points by group, which the standard library answers the same way since
Python 3.10. The backport's import brings a dozen modules more (and zipfile, email, tempfile and
shutil with them): 2.6 s of the service's start on the emulated arm64 board, before any pin is
opened. So the standard library's module serves under the backport's name, for this process.
"""

import importlib.metadata as _metadata
import sys as _sys

_sys.modules.setdefault("importlib_metadata", _metadata)
