"""The companion page: the table's live scoreboard, history, statistics and rules on the LAN.

The room of the web views. It imports ``core`` and ``ui`` (the rules' data), never ``runtime``:
it sees the device only through the door of :mod:`firmware_host.web.door` (a plain-data snapshot
in, commands out), which the device implements. What guards the table from the LAN (the
socket, the gate, the rates, the page's budget and turns) is ``guards/``. Importing this package loads nothing heavy:
aiohttp, segno and pygal are imported by the modules that use them, when they are used.
"""
