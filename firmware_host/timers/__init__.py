"""Turn timers: clocks, presets, statistics and the timer service."""
