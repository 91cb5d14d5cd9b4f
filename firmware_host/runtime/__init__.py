"""The device loop and its parts: device, hardware, display service, lights, rendering."""

import drivers.luma_threads  # noqa: F401 - before any luma import: no idle luma threads
