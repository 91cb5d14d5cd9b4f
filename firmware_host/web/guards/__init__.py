"""The page's guards: what stands between the LAN and the routes so that no client, or crowd of
them, slows the table -- the listening socket and the names ``Host`` may give (``net``), the
connections' gate with its kernel SYN filter (``gate``, ``syn_filter``), the requests' rate per
address (``ratelimit``), the loop's time the page may take (``budget``) and the table's turn
before the page's (``pacing``).

Imports nothing of the page's routes or views (``web.door``'s types at most); ``web.server`` and the
routes import these.
"""
