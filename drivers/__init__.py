"""Hardware drivers, each with a real and a simulated backend behind one small interface."""
