"""Where tablemate lives on a Raspberry Pi: what ``tablemate install`` lays down and what
``tablemate doctor`` checks, named once for both."""

SERVICE_USER = "tablemate"
"""The system user the service runs as."""
SERVICE_GROUPS = ("gpio", "i2c", "dialout")
"""The groups that user needs: buttons and LEDs, the panel's bus, the USB tower."""
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
