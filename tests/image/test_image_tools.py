"""The pure parts of ``dev.py image`` and ``dev.py vm``: the card's partition table, the boot
files, the first-boot file, and the check lines (the builds and boots themselves are too long
for the suite: they are separate commands)."""

from __future__ import annotations

import struct

import pytest

from firmware_host.core import boot_config
from image import bootfiles, checks, disk, firstboot

MiB = 1024 * 1024


# -- the partition table ---------------------------------------------------------------------------
def test_the_partitions_start_4_mib_in_aligned_to_4_mib_fat_first_then_the_root():
    fat, root = disk.layout(256 * MiB, 1000 * MiB + 1)
    assert (fat.offset, fat.size, fat.kind, fat.bootable) == (4 * MiB, 256 * MiB, 0x0C, True)
    assert root.offset == 260 * MiB and root.offset % disk.ALIGN == 0 and root.kind == 0x83
    assert root.size == 1004 * MiB  # rounded up to the next 4 MiB
    assert disk.image_size([fat, root]) == root.end


def test_the_mbr_holds_the_partitions_the_disk_id_and_the_signature_and_reads_back():
    parts = disk.layout(256 * MiB, 1500 * MiB)
    record = disk.mbr(parts, 0x7AB1E0DE)
    assert len(record) == 512 and record[510:] == b"\x55\xaa"
    assert struct.unpack("<I", record[440:444]) == (0x7AB1E0DE,)
    assert disk.read_mbr(record) == parts
    assert record[446] == 0x80 and record[462] == 0  # only the firmware partition is marked bootable


def test_the_file_systems_land_at_their_offsets_and_zero_blocks_stay_holes(tmp_path):
    fat, root = tmp_path / "fat", tmp_path / "root"
    fat.write_bytes(b"F" * 1000)
    root.write_bytes(bytes(3 * MiB) + b"R" * 10)
    parts = disk.layout(fat.stat().st_size, root.stat().st_size)
    out = tmp_path / "card.img"
    disk.assemble(out, parts, [fat, root], 1)
    data = out.read_bytes()
    assert data[parts[0].offset : parts[0].offset + 1000] == b"F" * 1000
    assert data[parts[1].offset + 3 * MiB : parts[1].offset + 3 * MiB + 10] == b"R" * 10
    assert out.stat().st_blocks * 512 < 2 * MiB  # the 3 MiB of zeros were not written


def test_a_file_system_larger_than_its_partition_is_refused(tmp_path):
    big = tmp_path / "big"
    big.write_bytes(b"x" * (5 * MiB))
    parts = disk.layout(4 * MiB, 4 * MiB)
    with pytest.raises(ValueError, match="does not fit"):
        disk.assemble(tmp_path / "card.img", parts, [big, big], 1)


# -- the boot files --------------------------------------------------------------------------------
def test_the_custom_boot_lines_load_the_image_s_overlays_on_every_board_and_keep_the_uart_off():
    debian = "arm_64bit=1\nenable_uart=1\nupstream_kernel=1\nkernel=vmlinuz-6.1.0-57-arm64\n"
    custom = bootfiles.raspi_firmware_custom(["dtoverlay=spi1-1cs"])
    generated = debian + "\n# Inserted by /etc/default/raspi-firmware-custom\n" + custom
    for board in boot_config.BOARDS:
        assert boot_config.overlays(generated, board) == {"spi1-1cs", *bootfiles.OVERLAYS}
        assert boot_config.params(generated, board) == {}  # the mainline trees would ignore any
        assert boot_config.setting(generated, board, "enable_uart") == "0"  # the later line wins
    assert boot_config.upstream_trees(generated)  # so tablemate install leaves the file alone


def test_the_root_and_the_firmware_partition_are_found_by_their_labels():
    assert 'ROOTPART="LABEL=RASPIROOT"' in bootfiles.raspi_firmware_defaults()
    assert 'CONSOLES="tty0"' in bootfiles.raspi_firmware_defaults()  # no serial console on GPIO 14/15
    fstab = bootfiles.fstab().splitlines()
    assert fstab[0].split()[:3] == ["LABEL=RASPIROOT", "/", "ext4"]
    assert fstab[1].split()[:3] == ["LABEL=RASPIFIRM", "/boot/firmware", "vfat"]


# -- the first-boot file ---------------------------------------------------------------------------
GOOD = """
hostname = "table-2"
[wifi]
country = "DE"
ssid = "Home \\"net\\""
password = "correct horse"
[ssh]
authorized_keys = ["ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOn0 you@laptop"]
[config.table]
seats = ["p1", "p2"]
names = { p1 = "Ann" }
[config.timers.bomb]
mode = "turn"
seconds = 60
"""


def test_a_good_first_boot_file_is_applied_and_its_password_is_not_kept(tmp_path):
    fb = firstboot.parse(GOOD)
    enable = firstboot.apply(fb, tmp_path)
    assert (tmp_path / "etc/hostname").read_text() == "table-2\n"
    assert "127.0.1.1\ttable-2" in (tmp_path / "etc/hosts").read_text()
    wpa = tmp_path / "etc/wpa_supplicant/wpa_supplicant-wlan0.conf"
    assert 'ssid="Home \\"net\\""' in wpa.read_text() and "country=DE" in wpa.read_text()
    assert wpa.stat().st_mode & 0o777 == 0o600 and enable == ["wpa_supplicant@wlan0.service"]
    assert (tmp_path / "root/.ssh/authorized_keys").read_text().startswith("ssh-ed25519 ")
    from firmware_host.core.config import load

    config = load(tmp_path / "etc/tablemate/config.toml")  # the device reads what the owner wrote
    assert config["table"]["seats"] == ["p1", "p2"] and config.seat_name("p1") == "Ann"
    assert config.timers["bomb"].seconds == 60
    assert "correct horse" not in firstboot.done_text(fb)


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ('hostname = "Table_2"', "hostname: expected"),
        ('[wifi]\nssid = "Home"\npassword = "short"\ncountry = "DE"', "[wifi] password: expected"),
        ('[wifi]\nssid = "Home"\npassword = "long enough"', "[wifi] country: expected"),
        ('[ssh]\nauthorized_keys = ["hello"]', "[ssh] authorized_keys: expected"),
        ('config = "[table]"', "config: expected tables like [config.table]"),
        ("[config]\ntable = 3", "[config.table] must be a table"),
        ('wlan = "x"', "unknown key 'wlan'"),
        ("hostname = ", "invalid TOML"),
    ],
)
def test_a_first_boot_file_with_a_mistake_names_the_file_and_the_key(text, named):
    with pytest.raises(firstboot.FirstBootError) as err:
        firstboot.parse(text, "firmware/tablemate-firstboot.toml")
    assert str(err.value).startswith("firmware/tablemate-firstboot.toml: ") and named in str(err.value)


def test_the_shipped_example_is_a_valid_first_boot_file_that_asks_nothing():
    fb = firstboot.parse(bootfiles.FIRSTBOOT_EXAMPLE)
    assert fb == firstboot.FirstBoot()


# -- the check lines -------------------------------------------------------------------------------
def test_check_lines_and_controls_are_parsed_and_noise_is_ignored():
    assert checks.parse("ok seccomp mode 2 (filter)\r\n") == checks.Result("seccomp", True, "mode 2 (filter)")
    assert checks.parse("FAIL watchdog NRestarts=1") == checks.Result("watchdog", False, "NRestarts=1")
    assert checks.parse("@@ timing ready=3.5 import=2.0") == checks.Control("timing", "ready=3.5 import=2.0")
    assert checks.parse("[   12.3] systemd[1]: Started") is None and checks.parse("ok") is None
    assert checks.parse('!"$(ok game-tonne played') == checks.Result("game-tonne", True, "played")
    assert checks.parse('!"$(@@ done') == checks.Control("done", "")


def test_a_check_not_reported_fails_and_the_last_word_on_a_check_counts():
    said = [checks.Result("ready", False, "slow"), checks.Result("ready", True, "3 s")]
    final = checks.verdict(said, ("ready", "watchdog"))
    assert [r.line() for r in final] == ["ok ready 3 s", "FAIL watchdog not reported (the run ended first)"]
    assert "| watchdog | FAIL |" in checks.table(final)


def test_start_to_ready_is_judged_against_twice_the_bare_import():
    figures = checks.timings([checks.Control("timing", "ready=7.0 import=4.0")])
    assert checks.start_ready(figures).ok and "1.75x" in checks.start_ready(figures).detail
    assert not checks.start_ready({"ready": 9.0, "import": 4.0}).ok
    assert not checks.start_ready({}).ok


def test_start_ready_judges_the_settled_restarts_and_names_the_boots_start_beside_them():
    figures = {"ready": 9.0, "restart": 2.0, "import": 1.25, "up": 6.5}
    result = checks.start_ready(figures)
    assert (
        result.ok and "2.0 s start -> READY" in result.detail and "the table up 6.5 s after its start" in result.detail
    )
    assert "at boot, beside the first boot's own work: 9.0 s" in result.detail
    assert not checks.start_ready({"ready": 2.0, "restart": 3.0, "import": 1.25}).ok


def test_the_images_byte_code_is_made_again_time_stamped_for_the_clamped_sources():
    """Fixed: made under SOURCE_DATE_EPOCH, the image's .pyc were hash-checked, so every import on
    the board opened and hashed its source too; they are made again after the clamp, stamped."""
    from image import build

    assert "env -u SOURCE_DATE_EPOCH" in build.PYC_SCRIPT and "--invalidation-mode timestamp" in build.PYC_SCRIPT
    venv = "/opt/tablemate/venv/lib/python3.11/site-packages"
    for tree in ("/usr/lib/python3.11", "/usr/lib/python3/dist-packages", venv):
        assert tree in build.PYC_SCRIPT
