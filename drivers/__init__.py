"""Hardware drivers, each with a real and a simulated backend behind one small interface.

Importing the package puts :mod:`drivers.lazy_metadata` in the place of the ``importlib_metadata``
backport, which gpiozero would otherwise import before any pin is opened (see that module)."""

from drivers import lazy_metadata as _lazy_metadata

_lazy_metadata.install()
