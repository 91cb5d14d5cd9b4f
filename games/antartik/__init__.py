"""Antartik (Ilopeli 2012)."""
