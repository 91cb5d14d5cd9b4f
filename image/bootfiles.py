"""The files the image writes into its root for booting a Pi the way Debian's images do.

Debian's ``raspi-firmware`` generates ``/boot/firmware/config.txt`` and ``cmdline.txt`` at every
kernel or firmware upgrade ("Do not modify this file!") from ``/etc/default/raspi-firmware``
(the root partition, the consoles) and appends ``/etc/default/raspi-firmware-custom``: the lines
tablemate needs go there, so an upgrade keeps them. Those lines name overlays of the image's own,
built for Debian's device trees (:mod:`image.devicetree`), which the hook never touches.
"""

from __future__ import annotations

ROOT_LABEL, FIRMWARE_LABEL = "RASPIROOT", "RASPIFIRM"
"""The partitions' labels, as in Debian's images: the kernel and fstab find them by label."""
HOSTNAME = "tablemate"


def raspi_firmware_defaults() -> str:
    """``/etc/default/raspi-firmware``: the root by label; the console on the screen only (the
    UART's pins, GPIO 14 and 15, carry buttons)."""
    return (
        "# Written by the tablemate image (python3 dev.py image).\n"
        f'ROOTPART="LABEL={ROOT_LABEL}"\n'
        'CONSOLES="tty0"\n'
        "CMA=64M\n"
    )


OVERLAYS = ("tablemate-i2c1-400k", "tablemate-uart1-off")
"""The image's own overlays every card loads (``image/overlays/NAME.dts``, :mod:`image.devicetree`):
I2C1 at 400 kHz as bus 1; the mini UART off, GPIO 14 and 15 free for the buttons. The scale's
(``spi1-1cs``) comes from the configuration's ``[scale]``."""


def raspi_firmware_custom(scale_lines: list[str], overlays: tuple[str, ...] = OVERLAYS) -> str:
    """``/etc/default/raspi-firmware-custom``, which Debian's hook appends to the ``config.txt`` it
    writes at every kernel or firmware upgrade: the image's overlays (the mainline trees honour no
    ``dtparam=``: :mod:`image.devicetree`), the scale's lines (``dtoverlay=spi1-1cs``: the HX711 on
    SPI1), and the UART off in the firmware too (``enable_uart=1``, which the hook writes first,
    would have it set GPIO 14/15 up for a console where the buttons are)."""
    lines = [
        "# tablemate: I2C1 at 400 kHz for the panel, SPI1 for the HX711, GPIO 14/15 and the other",
        "# buttons' pins free; overlays of the image's own (image/overlays/*.dts), in overlays/",
        "[all]",
        *(f"dtoverlay={name}" for name in overlays),
        *scale_lines,
        "enable_uart=0",
    ]
    return "\n".join(lines) + "\n"


def amplifier_lines(scale_lines: list[str]) -> list[str]:
    """The custom lines for a card with the I2S amplifier (``[audio] amplifier = "max98357a"``,
    ``[scale] spi_bus = 0``), from those of ``scale_lines`` (Raspberry Pi OS's): the HX711's SPI
    (``dtparam=spi=on``, which these trees ignore) is ``tablemate-spi0`` (SPI1's pins are the
    amplifier's), and ``tablemate-max98357a`` is loaded on
    the BCM2837 boards (3B, 3B+, Zero 2 W), whose trees give the I2S its DMA; the Pi 4's does not
    (it has a jack and USB for the voice)."""
    moved = ["dtoverlay=tablemate-spi0" if line == "dtparam=spi=on" else line for line in scale_lines]
    return [*moved, "[pi3]", "dtoverlay=tablemate-max98357a", "[pi02]", "dtoverlay=tablemate-max98357a", "[all]"]


def fstab() -> str:
    """``/etc/fstab``: both partitions by label (a card from any reader, in any slot)."""
    return (
        f"LABEL={ROOT_LABEL}\t/\text4\trw,noatime,errors=remount-ro\t0\t1\n"
        f"LABEL={FIRMWARE_LABEL}\t/boot/firmware\tvfat\trw,noatime,nofail,x-systemd.device-timeout=5min\t0\t2\n"
    )


def hosts(hostname: str = HOSTNAME) -> str:
    """``/etc/hosts``."""
    return f"127.0.0.1\tlocalhost\n127.0.1.1\t{hostname}\n::1\tlocalhost ip6-localhost ip6-loopback\n"


NETWORKS = {
    "etc/systemd/network/20-wired.network": "[Match]\nName=eth* en*\n\n[Network]\nDHCP=yes\nMulticastDNS=yes\n",
    "etc/systemd/network/25-wireless.network": "[Match]\nName=wlan*\n\n[Network]\nDHCP=yes\nMulticastDNS=yes\n",
}
"""systemd-networkd: DHCP on the Ethernet port and on the Wi-Fi the first-boot file names."""

FIRSTBOOT_UNIT = """\
[Unit]
Description=tablemate first boot: host keys, the card's size, tablemate-firstboot.toml
Documentation=https://github.com/tablemate/tablemate#the-sd-card-image
After=local-fs.target
Before=network-pre.target systemd-networkd.service wpa_supplicant@wlan0.service ssh.service tablemate.service
Wants=network-pre.target
# The first boot (the image has no SSH host keys), or a new file on the FAT partition.
ConditionPathExists=|!/etc/ssh/ssh_host_ed25519_key
ConditionPathExists=|/boot/firmware/tablemate-firstboot.toml

[Service]
Type=oneshot
ExecStart=/usr/bin/python3 /usr/local/lib/tablemate/firstboot.py
RemainAfterExit=yes
# tablemate starts after it: never wait for ever (a oneshot has no start time-out of its own)
TimeoutStartSec=15min

[Install]
WantedBy=multi-user.target
"""

FIRSTBOOT_EXAMPLE = """\
# tablemate: rename this file to tablemate-firstboot.toml and fill in what you want; it is read at
# the next boot, applied once, and renamed tablemate-firstboot.done (the Wi-Fi password is not
# kept). A mistake changes nothing and is explained in tablemate-firstboot.error.txt here.

# hostname = "tablemate"

# [wifi]
# country = "DE"
# ssid = "Home"
# password = "the network's password"

# [ssh]
# authorized_keys = ["ssh-ed25519 AAAA... you@laptop"]   # then: ssh root@tablemate.local

# The device's configuration (/etc/tablemate/config.toml): any section of hardware/config.toml
# as [config.SECTION], last in this file, e.g.:
# [config.table]
# names = { p1 = "Ann", p2 = "Ben" }
# [config.display]
# kind = "sh1106"
"""
