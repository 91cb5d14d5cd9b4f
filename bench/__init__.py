"""The detector benchmark beside its data: labelled trace generator, real HX711 recordings, scoring.

Runs from a checkout: ``tablemate bench scale`` (or ``python -m bench.scale``). It imports the
host's detector; nothing in the installed package imports this folder.
"""
