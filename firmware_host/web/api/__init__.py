"""The page's routes by area, each a short table over the part of the table it reads or writes
(as PiKVM's ``kvmd/apps/kvmd/api/``): :mod:`.live` (the state and ``/ws``), :mod:`.history`
(finished games, plots, downloads), :mod:`.phone` (pairing, names, settings), :mod:`.pages` (the
pages, their files, the games and their rules)."""
