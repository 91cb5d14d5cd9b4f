"""The screens of the device: menus, the game screen, dialogs, and the frame model they draw.

Owns what the buttons do and what the OLED shows. Every screen sees the table only through a
door of :mod:`firmware_host.ui.table` (and, where it needs one, a small second door: the
scale's calibration, the timer presets). Imports ``games``, ``drivers``, ``core``, ``scale``
and ``timers``; never ``runtime`` (the device builds the screens, not the reverse).
"""

import drivers.luma_threads  # noqa: F401 - before the font's luma import: no idle luma threads
