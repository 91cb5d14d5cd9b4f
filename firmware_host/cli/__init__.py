"""Command-line front ends: `tablemate` and its sub-commands (placeholder docstring, see issue 8)."""
