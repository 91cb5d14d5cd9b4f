"""The device runtime: one asyncio loop that wires games to drivers."""
