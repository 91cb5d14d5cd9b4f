"""Command-line front ends: ``tablemate`` and its sub-commands.

Owns argument parsing, one-line errors and the commands' own routines (install, calibrate,
scale monitor, the on-device benches). The top room: may import every room below; none
imports it.
"""
