"""The page's guards: what stands between the LAN and the routes so that no client, or crowd of
them, slows the table -- the listening socket and the names ``Host`` may give (``net``), the
connections' gate with its kernel SYN filter (``gate``, ``syn_filter``), each connection's
protocol (``connection``: requests one at a time, ``onebyone``; every WebSocket frame counted,
``frames``), the connections shared by what each address holds (``shares``), the requests' rate
per address (``ratelimit``), the loop's time the page may take (``budget``, with ``decay``'s
fading counts) and the table's turn before the page's (``pacing``).

Imports nothing of the page's routes or views (``web.door``'s types at most); ``web.server`` and the
routes import these.
"""
