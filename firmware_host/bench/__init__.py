"""Benchmarks run by ``tablemate bench``: measured figures, not guesses (see ``docs/detector.md``)."""
