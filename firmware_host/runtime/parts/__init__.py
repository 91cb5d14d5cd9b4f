"""The device's parts, one job each, built by :mod:`firmware_host.runtime.device` and added to
its hub by name (:mod:`firmware_host.runtime.hub`).

Each part keeps one area of the table and implements the doors of :mod:`firmware_host.ui.table`
and :mod:`firmware_host.web.door` that belong to it; :mod:`firmware_host.runtime.doors` hands each
door's members to the screens, the services and the page. A part imports only the parts below it
in this order, and only for its types: :mod:`.message`, :mod:`.signals`, :mod:`.screens`,
:mod:`.dimmer`, :mod:`.saving`, :mod:`.settings`, :mod:`.phones`, :mod:`.health`, :mod:`.game`,
:mod:`.resume`, :mod:`.presses`. A part is built with what it owns (the config, the store, a
clock); the parts it uses it finds by name in its ``setup(hub)``, and what it must tell others it
publishes as an event (:mod:`firmware_host.runtime.events`: the tower and the message line hear
every durable action). Nothing is wired from outside.
"""
