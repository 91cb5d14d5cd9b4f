"""The runtime core: journal, store, session, replay and configuration.

Owns what is durable and what is read from files: the game journal, the state folder, the
session that replays and journals a game, the config file. Imports ``games``, ``drivers`` (the
button names), ``timers`` (the config's timer presets); never a room above.
"""
