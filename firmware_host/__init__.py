"""The device runtime: one asyncio loop that wires games to drivers.

Rooms, lowest first; each imports only ``games/``, ``drivers/``, libraries and the rooms before
it (``tests/test_architecture.py`` checks it, and that no import cycle exists):

1. ``timers``  — turn-timer arithmetic, presets, statistics and the timer service
2. ``core``    — journal, store, session, replay, configuration
3. ``scale``   — the scale service, event detector, calibration, trace tools
4. ``ui``      — the screens, the frame model they draw, the doors they see the table through
5. ``runtime`` — the device (composition root), hardware, display service, tower lights
6. ``sim``     — the device on simulated hardware, in a terminal or fed by a script
7. ``cli``     — ``tablemate`` and its sub-commands
"""
