"""The table's voice: what the game's events are said as, and the part that says them.

:mod:`firmware_host.voice.words` turns what an engine says (a :class:`~games.core.text.Text`) into
words for the ear, from the same catalogues as the screens; :mod:`firmware_host.voice.part` is the
voice part, whose whole interface is handlers for the table's events plus its life cycle; the
speaker under it is :mod:`drivers.voice`.
"""
