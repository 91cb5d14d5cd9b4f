"""The device's parts, one job each, built and wired by :mod:`firmware_host.runtime.device`.

Each part keeps one area of the table and implements the doors of :mod:`firmware_host.ui.table`
and :mod:`firmware_host.web.door` that belong to it; the device hands each door's members to the
screens and the page. A part imports only the parts below it in this order:
:mod:`.message`, :mod:`.signals`, :mod:`.screens`, :mod:`.dimmer`, :mod:`.saving`,
:mod:`.settings`, :mod:`.phones`, :mod:`.health`, :mod:`.game`, :mod:`.resume`, :mod:`.presses`.
What a lower part must tell a higher one goes through a hook the device sets (as Klipper's parts
register event handlers), never an import upward.
"""
