"""Benchmarks behind ``tablemate bench``: figures the README quotes, measured, not guessed."""
