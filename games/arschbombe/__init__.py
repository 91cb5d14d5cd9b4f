"""Arschbombe (Zoch 2011)."""
