"""The simulator: the device on simulated hardware, in a terminal or fed by a script."""
