"""The doctor fails a button on GPIO 14/15 (the UART's TXD/RXD, ``prev`` by default) while a serial
console or the UART is on, with a fix in the boot files that survives a reboot."""

from __future__ import annotations

from firmware_host.core.config import defaults, parse
from firmware_host.core.serial_console import console_fix, header_consoles
from firmware_host.ops.doctor import check_uart, run_checks
from tests.ops.test_doctor import by_part, fake_pi

PI_5 = 0xD04170
# Raspberry Pi OS's cmdline.txt: the console line is there even while the UART is off
CMDLINE_TXT = "console=serial0,115200 console=tty1 root=PARTUUID=1234-02 rootfstype=ext4 fsck.repair=yes rootwait\n"
I2C = "dtparam=i2c_arm=on\ndtparam=i2c_arm_baudrate=400000\ndtoverlay=spi1-1cs\n"


def uart_result(tmp_path, *, proc="", cmdline_txt=CMDLINE_TXT, boot=I2C, config=None, revision=None):
    system = fake_pi(tmp_path)
    (system.root / "proc/cmdline").write_text(proc + "\n")
    (system.root / "boot/firmware/cmdline.txt").write_text(cmdline_txt)
    (system.root / "boot/firmware/config.txt").write_text(boot)
    if revision is not None:
        (system.root / "proc/device-tree/system/linux,revision").write_bytes(revision.to_bytes(4, "big"))
    return check_uart(config or defaults(), system)


def test_prev_on_txd_with_the_serial_console_on_fails_with_raspi_configs_fix(tmp_path):
    # the firmware hands the kernel the real device in place of serial0: ttyS0 on a Pi 4 with enable_uart=1
    result = uart_result(tmp_path, proc="coherent_pool=1M console=ttyS0,115200 console=tty1 root=x")
    assert result.failed and "console=ttyS0,115200" in result.found
    assert "button prev on GPIO 14 (TXD)" in result.found
    assert result.fix.startswith("sudo raspi-config nonint do_serial_cons 1, then sudo reboot")
    assert "chgrp" not in result.fix and "systemctl" not in result.fix  # lasts past the next boot


def test_the_console_line_alone_in_cmdline_txt_is_not_a_console(tmp_path):
    # the firmware drops console=serial0 while the UART is off: what the kernel got is what counts
    result = uart_result(tmp_path, proc="console=tty1 root=PARTUUID=1234-02 rootwait")
    assert result.status == "ok" and "button prev on GPIO 14" in result.found
    assert by_part(run_checks(defaults(), fake_pi(tmp_path / "b")))["uart"].status == "ok"


def test_enable_uart_in_config_txt_fails_as_the_firmware_reads_it(tmp_path):
    on = uart_result(tmp_path / "a", boot=I2C + "enable_uart=1\n")
    assert on.failed and "enable_uart=1 in config.txt for this Pi 4B" in on.found
    assert (
        on.fix
        == "sudo raspi-config nonint do_serial_hw 1, then sudo reboot (or wire it to a free pin and change the config)"
    )
    assert uart_result(tmp_path / "b", boot=I2C + "enable_uart=1\nenable_uart=0\n").status == "ok"  # the last wins
    assert uart_result(tmp_path / "c", boot=I2C + "[pi3]\nenable_uart=1\n").status == "ok"  # not this board
    assert uart_result(tmp_path / "d", boot=I2C + "[EDID=DEL-U2422H]\nenable_uart=1\n").failed  # maybe: fails


def test_a_console_raspi_config_would_not_remove_is_named_by_hand(tmp_path):
    text = "console=tty1 root=PARTUUID=1234-02 rootwait console=ttyS0,115200\n"
    result = uart_result(tmp_path, proc=text.strip(), cmdline_txt=text, boot=I2C + "enable_uart=1\n")
    assert result.failed and "do_serial_cons" not in result.fix
    assert result.fix.startswith(
        "sudo raspi-config nonint do_serial_hw 1; "
        "remove console=ttyS0,115200 from /boot/firmware/cmdline.txt (it stays one line), then sudo reboot"
    )


def test_raspi_config_removes_only_serial0_or_ttyama0_with_a_baud_rate_before_another_argument():
    fix = console_fix("console=serial0,115200 console=ttyAMA0 root=x", "boot/cmdline.txt", True, False)
    assert fix.commands == ("sudo raspi-config nonint do_serial_cons 1",) and fix.by_hand == ("console=ttyAMA0",)
    assert console_fix(None, "boot/firmware/cmdline.txt", True, False).commands[0].endswith("do_serial_cons 1")


def test_nothing_on_gpio_14_or_15_is_skipped_and_an_spi_panels_res_on_15_fails(tmp_path):
    moved = parse({"buttons": {"prev": 27}}, "config.toml")
    assert uart_result(tmp_path / "a", proc="console=ttyS0,115200", config=moved).status == "skip"
    panel = parse({"buttons": {"prev": 27}, "display": {"kind": "ssd1322"}}, "config.toml")
    result = uart_result(tmp_path / "b", proc="console=ttyAMA0,115200", config=panel)
    assert result.failed and "panel RES on GPIO 15 (RXD)" in result.found


def test_a_pi_5s_serial0_is_its_debug_connector_and_uart0_is_the_header(tmp_path):
    assert uart_result(tmp_path / "a", proc="console=ttyAMA10,115200", revision=PI_5).status == "ok"
    assert uart_result(tmp_path / "b", proc="console=serial0,115200", revision=PI_5).status == "ok"
    header = uart_result(tmp_path / "c", boot=I2C + "dtparam=uart0=on\n", revision=PI_5)
    assert header.failed and "dtparam=uart0=on" in header.found and "do_serial_hw 1" in header.fix
    assert uart_result(tmp_path / "d", proc="console=ttyAMA0,115200", revision=PI_5).failed
    assert header_consoles("console=serial0,115200 console=ttyS0 console=tty1") == [
        "console=serial0,115200",
        "console=ttyS0",
    ]


def test_the_wiring_guide_says_what_the_doctor_says():
    from tests.conftest import ROOT

    wiring = (ROOT / "hardware/wiring.md").read_text(encoding="utf-8")
    assert defaults()["buttons"]["prev"] == 14 and "| prev | 14 (8) |" in wiring
    for words in ("enable_uart=1", "console=serial0", "raspi-config nonint do_serial_cons 1", "do_serial_hw 1"):
        assert words in wiring, words
