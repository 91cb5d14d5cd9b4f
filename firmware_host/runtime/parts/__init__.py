"""The device's parts, one job each, built by :mod:`firmware_host.runtime.device` and added to
its hub by name (:mod:`firmware_host.runtime.hub`).

Each part keeps one area of the table and implements the doors of :mod:`firmware_host.ui.table`
and :mod:`firmware_host.web.door` that belong to it; :mod:`firmware_host.runtime.doors` hands each
door's members to the screens, the services and the page. A part imports only the parts below it
in this order: :mod:`.message`, :mod:`.signals`, :mod:`.screens`, :mod:`.dimmer`, :mod:`.saving`,
:mod:`.settings`, :mod:`.phones`, :mod:`.health`, :mod:`.game`, :mod:`.resume`, :mod:`.presses`;
:mod:`.inputs`, :mod:`.timing` and :mod:`.page` find the parts they use by name in their
``setup(hub)``. What a part must tell others it publishes as an event
(:mod:`firmware_host.runtime.events`: the tower and the message line hear every durable action);
a few hooks the device still sets remain (a redraw, the scale's ask), never an import upward.
"""
