"""The load cell: the scale service, event detector, calibration and trace tools.

Owns turning raw HX711 counts into events and the game's actions (as the engine declares
them, :class:`games.core.ScaleUse`); names no game. Imports ``games.core``, ``drivers``, ``core``
and ``timers``; reaches the table only through :class:`~firmware_host.scale.service.ScaleHost`.
"""
