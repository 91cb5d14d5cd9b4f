"""ぼむ！ (Bomb): the dice-defusal elimination game."""
