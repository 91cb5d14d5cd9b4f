"""Trottelmütze: the drinking board game with the dunce cap (``games.trottel.engine``)."""
