"""Benchmarks that must run on the Pi itself: idle cost and journal fsync time."""
