"""Turn timers: clock arithmetic, presets, statistics and the timer service.

Owns what a turn timer counts, shows and saves. The lowest room: imports only ``games``
(``games.core`` and the engine registry) and the standard library. The service reaches the
table through :class:`~firmware_host.timers.service.TimerHost`, never the device.
"""
