"""The device and its parts: the composition root (``device``), its parts (``parts/``), hardware,
display, tower lights.

Owns the asyncio loop, the one door in from driver threads, and building the services and
screens, handing each its narrow door. Imports ``games``, ``drivers``, ``core``, ``timers``,
``scale``, ``ui``, ``web`` and ``ops`` (the doctor's self-checks); nothing above it (``sim``,
``cli``) imports back into it but to run it.
"""
