"""The device loop and its parts: device, hardware, display service, lights, rendering."""
