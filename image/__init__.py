"""The SD-card image for 64-bit Raspberry Pis (``python3 dev.py image``) and its boot check on
emulated boards (``python3 dev.py vm``): tooling only, never part of the installed package.

Everything here runs on the build machine, from ``.venv`` (``dev.py`` runs it there: the build
and the device-tree check read the product's own settings), with Debian's tools for the rest
(mmdebstrap, qemu, mtools, ``device-tree-compiler``); :mod:`image.firstboot` is copied into the
image and runs on the Pi at its first boot, with the standard library alone.
"""
