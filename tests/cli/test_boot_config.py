"""``config.txt`` read as the firmware reads it: section filters, later values, every board."""

from __future__ import annotations

import pytest

from firmware_host.cli.install import BAUD_LINE, I2C_LINE, boot_config_edit
from firmware_host.core.boot_config import BOARDS, board_of_revision, param_for_sure, params, running_board

BY_NAME = {b.name: b for b in BOARDS}
PI4, PI5, PI400, CM5, ZERO2 = (BY_NAME[n] for n in ("Pi 4B", "Pi 5", "Pi 400", "CM5", "Pi Zero 2 W"))

# Raspberry Pi OS Bookworm's own config.txt ends in these sections
BOOKWORM_TAIL = "[cm4]\notg_mode=1\n\n[cm5]\ndtoverlay=dwc2,dr_mode=host\n\n[all]\n"


def test_i2c_on_inside_a_cm5_section_is_not_i2c_on_and_the_installer_turns_it_on_for_all():
    # bug (issue 23): the installer took `dtparam=i2c_arm=on` after [cm5] as I2C on, so a Pi 4 or
    # 5 kept I2C off and the panel never appeared
    text = "dtparam=audio=on\n[cm5]\ndtoverlay=dwc2,dr_mode=host\ndtparam=i2c_arm=on\n"
    assert params(text, CM5)["i2c_arm"] == "on"
    assert "i2c_arm" not in params(text, PI4) and "i2c_arm" not in params(text, PI5)
    edited, changes = boot_config_edit(text)
    assert "enable I2C" in changes
    assert edited.endswith(f"[all]\n{I2C_LINE}\n{BAUD_LINE}\n")
    assert all(params(edited, board)["i2c_arm"] == "on" for board in BOARDS)
    assert boot_config_edit(edited)[1] == []  # and only once


@pytest.mark.parametrize(
    "section", ["[pi4]", "[pi5]", "[cm4]", "[pi02]", "[pi3+]", "[none]", "[board-type=0x11]", "[EDID=DEL-U2422H]"]
)
def test_i2c_on_under_any_filter_is_not_enough_for_every_board(section):
    text = f"{section}\ndtparam=i2c_arm=on\n[all]\n{BAUD_LINE}\n"
    edited, changes = boot_config_edit(text)
    assert changes == ["enable I2C"] and edited == text + I2C_LINE + "\n"


def test_the_model_filters_match_the_boards_the_documentation_lists():
    text = "".join(
        f"[{f}]\ndtparam={p}=1\n" for f, p in zip(["pi4", "pi400", "pi5", "cm5", "pi0"], "abcde", strict=True)
    )
    assert set(params(text, PI4)) == {"a"}
    assert set(params(text, PI400)) == {"a", "b"}  # a Pi 400 sees [pi4] too
    assert set(params(text, PI5)) == {"c"}
    assert set(params(text, CM5)) == {"c", "d"}  # a CM5 sees [pi5] too
    assert set(params(text, ZERO2)) == {"e"}


def test_all_ends_a_filter_none_stops_everything_and_a_later_value_wins():
    text = "[pi4]\ndtparam=a=1\n[all]\ndtparam=b=1\n[none]\ndtparam=c=1\n[pi4]\ndtparam=d=1\n[all]\ndtparam=e=1\n"
    assert set(params(text, PI5)) == {"b", "e"}
    assert set(params(text, PI4)) == {"a", "b", "e"}  # [none] holds until [all], a model filter does not end it
    assert params("dtparam=i2c_arm=on\ndtparam=i2c_arm=off\n", PI4)["i2c_arm"] == "off"
    assert params("dtparam=i2c=on,i2c_baudrate=100000\n", PI4) == {"i2c_arm": "on", "i2c_arm_baudrate": "100000"}


def test_a_model_filter_replaces_the_one_before_and_other_kinds_combine():
    assert params("[pi4]\n[pi5]\ndtparam=a=1\n", PI4) == {}  # [pi5] replaced [pi4]
    text = "[EDID=VSC-TD2220]\n[pi4]\ndtparam=a=1\n"  # a monitor AND a Pi 4
    assert param_for_sure(text, PI4, "a") is None  # depends on the monitor
    assert param_for_sure("[HDMI:1]\ndtparam=a=1\n", PI4, "a") == "1"  # a port, not a condition
    assert params("[tryboot]\ndtparam=a=1\n", PI4) == {}


def test_a_line_every_board_reads_is_rewritten_in_place_an_off_turned_on():
    edited, changes = boot_config_edit("dtparam=i2c_arm=off,i2c_arm_baudrate=100000 # mine\n")
    assert edited == "dtparam=i2c_arm=on,i2c_arm_baudrate=400000 # mine\n"
    assert changes == ["enable I2C (was off)", "set the I2C bus to 400 kHz (was 100 kHz)"]
    # an off for one model after the [all] line: fixed by a later [all] line, the model's line kept
    text = f"{I2C_LINE}\n{BAUD_LINE}\n[pi5]\ndtparam=i2c_arm=off\n"
    edited, changes = boot_config_edit(text)
    assert changes == ["enable I2C"] and edited == text + f"[all]\n{I2C_LINE}\n"


def test_bookworms_own_config_gets_its_lines_after_all():
    text = "dtparam=audio=on\n" + BOOKWORM_TAIL
    edited, _ = boot_config_edit(text)
    assert edited == text + f"{I2C_LINE}\n{BAUD_LINE}\n"


def test_the_running_board_comes_from_the_device_trees_revision(tmp_path):
    assert running_board(tmp_path) is None  # not a Pi
    node = tmp_path / "proc/device-tree/system"
    node.mkdir(parents=True)
    (node / "linux,revision").write_bytes((0xD04170).to_bytes(4, "big"))  # a Pi 5 8 GB
    assert running_board(tmp_path) == PI5
    assert board_of_revision(0xC03111) == PI4 and board_of_revision(0x902120) == ZERO2
    assert board_of_revision(0x0010) is None  # an old-style code: a Pi 1
