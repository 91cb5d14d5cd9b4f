"""The simulator: the device on simulated hardware, in a terminal or fed by a script.

Imports ``runtime`` (the device), ``core``, ``games`` and ``drivers``; only ``cli`` imports it.
"""
