"""Where tablemate lives on a Raspberry Pi: what ``tablemate install`` lays down and what
``tablemate doctor`` checks, named once for both."""

from drivers.tower import OLD_PORT, STABLE_PORT

SERVICE_USER = "tablemate"
"""The system user the service runs as."""
SERVICE_GROUPS = ("gpio", "i2c", "dialout", "audio")
"""The groups that user needs: buttons and LEDs, the panel's bus, the USB tower, the voice's sound
card (``/dev/snd/*``, group ``audio`` on Debian and Raspberry Pi OS)."""
UNIT = "etc/systemd/system/tablemate.service"
"""The service's unit, relative to the root."""
BOOT_CONFIGS = ("boot/firmware/config.txt", "boot/config.txt")
"""The Pi's boot configuration: Bookworm's place first, then the older one."""
I2C_BAUDRATE = 400_000
"""The I2C bus speed the panel wants (Hz); the firmware's default is 100 kHz."""
SPI_GROUP = "spi"
"""The group that may open ``/dev/spidev*``, for a panel on SPI."""
SPI_DROP_IN = "etc/systemd/system/tablemate.service.d/spi.conf"
"""The unit drop-in that gives the service :data:`SPI_GROUP` (written for a panel on SPI)."""
UDEV_RULES = "etc/udev/rules.d/60-tablemate.rules"
"""The udev rule (``systemd/60-tablemate.rules``): the tower's stable name, the buses' groups."""
TOWER_LINK = STABLE_PORT
"""The tower's stable name, which the udev rule gives it by its USB ids."""
TOWER_USB_IDS = (("1a86", "7523"), ("10c4", "ea60"))
"""The USB ``(vendor, product)`` ids of the tower's USB-serial chip: a CH340 or a CP210x."""
OLD_TOWER_PORT = OLD_PORT
"""The tower's port before the udev rule (and the one a config written then names)."""
REBOOT_MARKER = "run/tablemate.reboot-required"
"""Written by ``tablemate install`` when it changed the boot config: one reason a line. It lives
on /run (a tmpfs), so the reboot that applies the change also removes it."""
DEBIAN_REBOOT_MARKER = "run/reboot-required"
"""Debian's own flag that the system wants a reboot (some login messages show it)."""
