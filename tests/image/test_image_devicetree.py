"""The image's device tree, read as the Raspberry Pi firmware reads it, for every board the image
supports (the 3B, 3B+, 4 and Zero 2 W, all on the 64-bit kernel): Debian's own trees
(``tests/data/devicetree``, from the kernel package the image installs), ``config.txt`` as
Debian's hook writes it with the image's lines appended, the image's overlays compiled from their
sources with ``dtc``, applied with ``fdtoverlay``. A card that would give no ``/dev/spidev1.0``
(no scale in Ab in die Tonne), a panel bus at 100 kHz or a UART on a button's pin is refused --
as the card of the image built before these overlays is (its ``config.txt`` is a fixture)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from firmware_host.cli.install import Installer, boot_config_edit, scale_boot_lines
from image import bootfiles, devicetree, fdt

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data" / "devicetree"
BEFORE = DATA / "config-f2399c1.txt"
"""``config.txt`` of the image built from f2399c1 (``dev.py image``), before the image had overlays."""
INSERTED = "\n# Inserted by /etc/default/raspi-firmware-custom\n"

pytestmark = pytest.mark.skipif(
    not all(shutil.which(t) for t in ("dtc", "fdtoverlay", "fdtput")),
    reason="Debian's device-tree-compiler (dtc, fdtoverlay) is not installed",
)


def generated(custom: str) -> str:
    """``config.txt`` as raspi-firmware's hook writes it: its own lines (as on the card of
    f2399c1), then ``/etc/default/raspi-firmware-custom`` after a blank line and a comment (the
    hook's ``$(cat ...)`` drops the file's trailing newlines; its here-document ends with one)."""
    head = BEFORE.read_text(encoding="utf-8").split(INSERTED)[0]
    return head + INSERTED + custom.rstrip("\n") + "\n"


def image_config() -> str:
    """The ``config.txt`` of a card made by ``dev.py image`` now."""
    return generated(bootfiles.raspi_firmware_custom(scale_boot_lines(ROOT / "hardware" / "config.toml")))


def card(tmp_path: Path, config: str, sources: Path | None = devicetree.SOURCES) -> Path:
    """A FAT partition's files: Debian's trees, ``config``, and the overlays of ``sources``."""
    fat = tmp_path / "fat"
    fat.mkdir(parents=True)
    for dtb in DATA.glob("*.dtb"):
        shutil.copy(dtb, fat / dtb.name)
    (fat / "config.txt").write_text(config, encoding="utf-8")
    if sources is not None:
        devicetree.compile_overlays(fat / "overlays", sources)
    return fat


def findings(fat: Path, tmp_path: Path) -> dict[tuple[str, str], devicetree.Finding]:
    return {(f.board, f.name): f for f in devicetree.check_card(fat, tmp_path / "work")}


def copied_sources(tmp_path: Path) -> Path:
    """A copy of the overlays' sources to change."""
    folder = tmp_path / "sources"
    shutil.copytree(devicetree.SOURCES, folder)
    return folder


def edited_sources(tmp_path: Path, name: str, old: str, new: str) -> Path:
    """The overlays' sources with ``old`` replaced by ``new`` in ``name``.dts."""
    folder = copied_sources(tmp_path)
    path = folder / f"{name}.dts"
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new), encoding="utf-8")
    return folder


BOARDS = tuple(devicetree.TREES)


# -- the image as it is built now --------------------------------------------------------------------
def test_every_board_gets_spidev1_0_on_the_hx711_pins_i2c1_at_400_khz_and_its_buttons_free(tmp_path):
    found = findings(card(tmp_path, image_config()), tmp_path)
    failed = [f.line() for f in found.values() if not f.ok]
    assert failed == []
    assert {board for board, _ in found} == {"Pi 3B", "Pi 3B+", "Pi 4B", "Pi Zero 2 W"}
    for board in BOARDS:
        assert found[(board, "spidev")].detail.startswith("/dev/spidev1.0: spidev@0 ")
        assert "pins {18: 'alt4', 19: 'alt4', 20: 'alt4', 21: 'alt4'}" in found[(board, "spi1")].detail
        assert "400000 Hz" in found[(board, "i2c1")].detail
        assert found[(board, "uart")].detail.endswith("GPIO 14/15 free")
        assert found[(board, "dtparams")].detail == "none"  # nothing the trees would ignore


def test_the_image_names_only_overlays_it_carries_and_loads_them_on_every_board(tmp_path):
    fat = card(tmp_path, image_config())
    carried = {p.stem for p in (fat / "overlays").glob("*.dtbo")}
    assert carried == {p.stem for p in devicetree.SOURCES.glob("*.dts")}
    for board in BOARDS:
        boot = devicetree.firmware_boot(fat, devicetree.board(board))
        assert boot.tree == fat / devicetree.TREES[board][0]  # upstream_kernel=1: the mainline name
        assert set(boot.overlays) == {*bootfiles.OVERLAYS, "spi1-1cs"} <= carried


def test_the_installer_leaves_debian_s_config_txt_as_it_is_and_says_why(tmp_path):
    root = tmp_path / "root"
    boot = root / "boot/firmware/config.txt"
    boot.parent.mkdir(parents=True)
    boot.write_text(image_config(), encoding="utf-8")
    installer = Installer(ROOT, root, run=lambda cmd: 0, booted=False)
    installer.ensure_i2c(overlays=scale_boot_lines(ROOT / "hardware" / "config.toml"))
    assert boot.read_text(encoding="utf-8") == image_config()  # no dtparam= the trees would ignore
    assert installer.reboot == [] and any("upstream_kernel=1" in note for note in installer.notes())
    # where the firmware's own trees are used (Raspberry Pi OS), the same call edits as before
    _, changes = boot_config_edit("arm_64bit=1\n")
    assert "enable I2C" in changes


# -- the image built before (f2399c1): refused ---------------------------------------------------------
def test_the_card_of_f2399c1_is_refused_on_every_board_for_what_a_table_would_miss(tmp_path):
    found = findings(card(tmp_path, BEFORE.read_text(encoding="utf-8"), sources=None), tmp_path)
    for board in BOARDS:
        assert not found[(board, "overlays")].ok and "spi1-1cs" in found[(board, "overlays")].detail
        assert not found[(board, "dtparams")].ok and "i2c_arm_baudrate=400000" in found[(board, "dtparams")].detail
        assert not found[(board, "spi1")].ok and "status disabled" in found[(board, "spi1")].detail
        assert not found[(board, "spidev")].ok  # no /dev/spidev1.0: the scale cannot open
        assert not found[(board, "i2c1")].ok and "100000 Hz" in found[(board, "i2c1")].detail
        assert not found[(board, "uart")].ok and "/soc/serial@7e215040" in found[(board, "uart")].detail
    assert "14 (button prev)" in found[("Pi 3B", "lines")].detail  # the UART's TXD, driven from boot


# -- what else would break the table, each caught ---------------------------------------------------------
@pytest.mark.parametrize(
    ("name", "old", "new", "check", "said"),
    [
        # Raspberry Pi OS's way: a mainline spidev makes no /dev/spidev for it
        ("spi1-1cs", '"lineartechnology,ltc2488"', '"spidev"', "spidev", "spidev binds to none"),
        # the tree's own spi1_gpio16 pins: GPIO 16 is the next button, 17 the GPIO tower's red lamp
        ("spi1-1cs", "<18 19 20 21>", "<16 17 18 19 20 21>", "lines", "16 (button next)"),
        # no alias: the only SPI bus on would be spi0, /dev/spidev0.0
        ("spi1-1cs", 'spi1 = "/soc/spi@7e215080";', "", "spidev", "alias spi1 is None"),
        ("spi1-1cs", "reg = <0>; // CE0", "reg = <1>;", "spidev", "no device on CE0"),
        ("tablemate-i2c1-400k", "<400000>", "<100000>", "i2c1", "100000 Hz"),
        ("tablemate-uart1-off", 'status = "disabled";', 'status = "okay";', "uart", "uart1_gpio14"),
    ],
)
def test_an_overlay_that_would_fail_the_table_is_refused_on_every_board(tmp_path, name, old, new, check, said):
    sources = edited_sources(tmp_path, name, old, new)
    found = findings(card(tmp_path, image_config(), sources), tmp_path)
    for board in BOARDS:
        assert not found[(board, check)].ok and said in found[(board, check)].detail


def test_the_zero_2_w_s_own_boot_state_on_three_buttons_is_reported_not_refused(tmp_path):
    # its tree sets GPIO 4 and 5 to alt0 and 6 to an output when the GPIO controller probes; a
    # line the service requests becomes an input all the same, and nothing is driven against a
    # pressed button meanwhile unless a device holds the pin
    found = findings(card(tmp_path, image_config()), tmp_path)
    detail = found[("Pi Zero 2 W", "lines")].detail
    assert found[("Pi Zero 2 W", "lines")].ok and "free of every device" in detail
    assert "5 (button p1)" in detail and "6 (button p2)" in detail and "gpioout, output" in detail
    assert "own boot state" not in found[("Pi 3B", "lines")].detail


EMPTY_STATE = """/dts-v1/;
/plugin/;
/ {
	fragment@0 {
		target-path = "/soc/gpio@7e200000";
		__overlay__ {
			pinctrl-0;
		};
	};
};
"""


def test_an_empty_pin_state_on_the_gpio_controller_is_refused_for_it_kills_the_boot(tmp_path):
    # the image's first try at freeing the Zero 2 W's GPIO 4-6: Debian's 6.1 kernel oopsed in
    # create_pinctrl on the emulated BCM2837 (dev.py vm --board raspi3b), every board alike
    sources = copied_sources(tmp_path)
    (sources / "tablemate-pins-off.dts").write_text(EMPTY_STATE, encoding="utf-8")
    config = image_config() + "dtoverlay=tablemate-pins-off\n"
    found = findings(card(tmp_path, config, sources), tmp_path)
    for board in BOARDS:
        assert not found[(board, "pin-states")].ok and "oopses" in found[(board, "pin-states")].detail
    assert findings(card(tmp_path / "now", image_config()), tmp_path / "now")[("Pi 3B", "pin-states")].ok


@pytest.mark.parametrize(
    ("extra", "check", "said"),
    [
        # a Raspberry Pi OS dtparam (on the base tree: dtoverlay= alone): the mainline trees have no
        # __overrides__
        ("dtoverlay=\ndtparam=i2c_arm_baudrate=400000\n", "dtparams", "i2c_arm_baudrate=400000 (bcm2"),
        # after a dtoverlay= a dtparam is that overlay's parameter: ours take none
        ("dtoverlay=spi1-1cs\ndtparam=cs0_pin=18\n", "dtparams", "cs0_pin=18 (overlay spi1-1cs)"),
        ("dtoverlay=tablemate-hx711-iio\n", "overlays", "not on the card: tablemate-hx711-iio"),
        # the amplifier's overlay beside the HX711 left on SPI1: both devices on GPIO 18, 19, 21
        (
            "dtoverlay=tablemate-max98357a\n",
            "pins-shared",
            "{18: '/soc/spi@7e215080 (tablemate-spi1-pins, alt4); /soc/i2s@7e203000 (tablemate-pcm-pins, alt0)'",
        ),
    ],
)
def test_a_config_line_the_card_cannot_honour_is_refused(tmp_path, extra, check, said):
    found = findings(card(tmp_path, image_config() + extra), tmp_path)
    for board in BOARDS:
        assert not found[(board, check)].ok and said in found[(board, check)].detail


def test_a_model_filter_that_hides_the_scale_s_overlay_fails_the_boards_it_hides_it_from(tmp_path):
    config = image_config().replace("dtoverlay=spi1-1cs\n", "[pi4]\ndtoverlay=spi1-1cs\n[all]\n")
    found = findings(card(tmp_path, config), tmp_path)
    assert [b for b in BOARDS if not found[(b, "spidev")].ok] == ["Pi 3B", "Pi 3B+", "Pi Zero 2 W"]


def test_without_upstream_kernel_the_firmware_looks_for_raspberry_pi_s_tree_names(tmp_path):
    fat = card(tmp_path, image_config().replace("upstream_kernel=1", "upstream_kernel=0"))
    assert devicetree.firmware_boot(fat, devicetree.board("Pi 3B")).tree is None  # no bcm2710-rpi-3-b.dtb
    assert not findings(fat, tmp_path)[("Pi 3B", "tree")].ok


def test_the_upstream_prefix_is_ignored_when_the_tree_is_not_under_it(tmp_path):
    fat = card(tmp_path, image_config())
    (fat / "upstream").mkdir()
    boot = devicetree.firmware_boot(fat, devicetree.board("Pi 4B"))
    assert boot.tree == fat / "bcm2711-rpi-4-b.dtb" and boot.overlay_dir == fat / "overlays"
    shutil.copy(fat / "bcm2711-rpi-4-b.dtb", fat / "upstream")  # found under it: os_prefix counts
    boot = devicetree.firmware_boot(fat, devicetree.board("Pi 4B"))
    assert boot.tree == fat / "upstream/bcm2711-rpi-4-b.dtb" and boot.overlay_dir == fat / "upstream/overlays"


# -- what the firmware adds, for the emulated board --------------------------------------------------
def test_the_tree_handed_over_carries_the_board_s_revision_and_serial(tmp_path):
    fat = card(tmp_path, image_config())
    out = devicetree.firmware_tree(fat, "Pi 3B", tmp_path / "handed.dtb", 0xA02082, 0x00000000DEADBEEF)
    tree = fdt.load(out)
    assert tree.get("/system").cells("linux,revision") == [0xA02082]
    assert tree.get("/system").cells("linux,serial") == [0, 0xDEADBEEF]
    assert tree.get(devicetree.SPI1).enabled() and tree.get("/aliases").string("spi1") == devicetree.SPI1


def test_a_file_that_is_not_a_device_tree_is_refused(tmp_path):
    with pytest.raises(fdt.FdtError, match="magic"):
        fdt.parse(b"\0" * 64)
    blob = (DATA / "bcm2837-rpi-3-b.dtb").read_bytes()
    with pytest.raises(fdt.FdtError, match="cut short"):
        fdt.parse(blob[: len(blob) // 2])


# -- the I2S amplifier for the voice (opt-in), the HX711 moved to SPI0 ------------------------------
AMPLIFIED = ROOT / "tests" / "data" / "config-amplifier.toml"


def amplified_config() -> str:
    """``config.txt`` of a card with the amplifier: the image's lines, the HX711 on SPI0."""
    return generated(bootfiles.raspi_firmware_custom(bootfiles.amplifier_lines(scale_boot_lines(AMPLIFIED))))


def test_the_amplifier_becomes_one_sound_card_on_the_bcm2837_boards_with_the_hx711_on_spi0(tmp_path):
    fat = card(tmp_path, amplified_config())
    found = {
        (f.board, f.name): f for f in devicetree.check_card(fat, tmp_path / "work", want=devicetree.expected(AMPLIFIED))
    }
    for board in ("Pi 3B", "Pi 3B+", "Pi Zero 2 W"):
        assert [f.line() for (b, _), f in found.items() if b == board and not f.ok] == []
        amp = found[(board, "amplifier")].detail
        assert amp.startswith(
            "card 'MAX98357A' (/tablemate-sound): I2S /soc/i2s@7e203000 pins {18: 'alt0', 19: 'alt0', 21: 'alt0'}"
        )
        assert found[(board, "spidev")].detail.startswith("/dev/spidev0.0: spidev@0 ")
        assert "pins {8: 'alt0', 9: 'alt0', 10: 'alt0', 11: 'alt0'}" in found[(board, "spi0")].detail
        assert found[(board, "pins-shared")].detail == "no pin taken by two devices"
    # the Pi 4 does not load it (its I2S has no DMA): no card there, told so
    assert not found[("Pi 4B", "amplifier")].ok and "no DMA channels" in found[("Pi 4B", "amplifier")].detail


def test_the_amplifier_s_overlay_on_the_pi_4_is_refused_for_its_i2s_has_no_dma(tmp_path):
    config = amplified_config().replace(
        "[pi3]\ndtoverlay=tablemate-max98357a\n", "[all]\ndtoverlay=tablemate-max98357a\n"
    )
    found = {
        (f.board, f.name): f
        for f in devicetree.check_card(card(tmp_path, config), tmp_path / "w", want=devicetree.expected(AMPLIFIED))
    }
    assert found[("Pi 4B", "amplifier")].detail.endswith(
        "the I2S has no DMA channels (the Pi 4's tree gives it none): no sound"
    )
    assert found[("Pi 3B", "amplifier")].ok


def test_an_amplifier_overlay_whose_card_points_nowhere_is_refused(tmp_path):
    sources = edited_sources(
        tmp_path, "tablemate-max98357a", "sound-dai = <&tablemate_i2s>;", "sound-dai = <&tablemate_amp>;"
    )
    found = {
        (f.board, f.name): f
        for f in devicetree.check_card(
            card(tmp_path, amplified_config(), sources), tmp_path / "w", want=devicetree.expected(AMPLIFIED)
        )
    }
    assert found[("Pi Zero 2 W", "amplifier")].detail == "no simple-audio-card joining that I2S to that codec"
