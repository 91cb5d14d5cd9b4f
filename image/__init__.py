"""The SD-card image for 64-bit Raspberry Pis (``python3 dev.py image``) and its boot check on an
emulated arm64 board (``python3 dev.py vm``): tooling only, never part of the installed package.

Everything here runs on the build machine with the standard library alone, except
:mod:`image.firstboot`, which is copied into the image and runs on the Pi at its first boot.
"""
