"""The SD card's layout, as Debian's Raspberry Pi images have it, written without a loop device.

An MBR partition table (the Pi's boot ROM and firmware read MBR, not GPT) with two primary
partitions, each aligned to 4 MiB (an SD card's erase block): the firmware partition, FAT32
(type ``0x0c``, LBA) labelled ``RASPIFIRM``, which the firmware reads ``config.txt``,
``cmdline.txt``, the kernel, its initrd and device trees from; then the root, ext4 (type
``0x83``) labelled ``RASPIROOT``. Each file system is made as a file of its own (``mkfs.ext4
-d``, ``mkfs.vfat`` with ``mtools``) and copied into the image at its partition's offset: no
loop device, no mount, no root needed for this part.
"""

from __future__ import annotations

import os
import struct
from dataclasses import dataclass
from pathlib import Path

SECTOR = 512
ALIGN = 4 * 1024 * 1024
"""Partitions start on 4 MiB boundaries (and the first one 4 MiB in, as Debian's images)."""
FAT32_LBA, LINUX = 0x0C, 0x83


@dataclass(frozen=True)
class Partition:
    """One MBR partition: its type byte, first sector and size in sectors."""

    kind: int
    start: int
    sectors: int
    bootable: bool = False

    @property
    def offset(self) -> int:
        """Where it starts in the image, in bytes."""
        return self.start * SECTOR

    @property
    def size(self) -> int:
        """Its size in bytes."""
        return self.sectors * SECTOR

    @property
    def end(self) -> int:
        """The byte just after it."""
        return self.offset + self.size


def align_up(n: int, to: int = ALIGN) -> int:
    """``n`` rounded up to a multiple of ``to``."""
    return -(-n // to) * to


def layout(firmware_bytes: int, root_bytes: int) -> list[Partition]:
    """The two partitions for file systems of these sizes (each rounded up to 4 MiB)."""
    fat = Partition(FAT32_LBA, ALIGN // SECTOR, align_up(firmware_bytes) // SECTOR, bootable=True)
    root = Partition(LINUX, align_up(fat.end) // SECTOR, align_up(root_bytes) // SECTOR)
    return [fat, root]


def image_size(parts: list[Partition]) -> int:
    """The image's size in bytes: up to the end of the last partition."""
    return max(p.end for p in parts)


def _chs(lba: int) -> bytes:
    """The CHS address of ``lba`` as MBRs store it (255 heads, 63 sectors; past 1023 cylinders, the maximum)."""
    cylinder, rest = divmod(lba, 255 * 63)
    if cylinder > 1023:
        return bytes((0xFE, 0xFF, 0xFF))
    head, sector = divmod(rest, 63)
    return bytes((head, ((cylinder >> 2) & 0xC0) | (sector + 1), cylinder & 0xFF))


def mbr(parts: list[Partition], disk_id: int) -> bytes:
    """The 512-byte master boot record holding ``parts`` (at most four) and ``disk_id`` (the
    ``PARTUUID=xxxxxxxx-0N`` prefix)."""
    if len(parts) > 4:
        raise ValueError("an MBR holds four primary partitions")
    entries = b""
    for p in parts:
        entries += bytes((0x80 if p.bootable else 0,)) + _chs(p.start) + bytes((p.kind,))
        entries += _chs(p.start + p.sectors - 1) + struct.pack("<II", p.start, p.sectors)
    entries += bytes(16 * (4 - len(parts)))
    return bytes(440) + struct.pack("<I", disk_id) + bytes(2) + entries + b"\x55\xaa"


def read_mbr(data: bytes) -> list[Partition]:
    """The partitions of a master boot record (the inverse of :func:`mbr`, for checks)."""
    if data[510:512] != b"\x55\xaa":
        raise ValueError("no MBR signature")
    parts = []
    for i in range(4):
        entry = data[446 + 16 * i : 462 + 16 * i]
        kind = entry[4]
        start, sectors = struct.unpack("<II", entry[8:16])
        if kind:
            parts.append(Partition(kind, start, sectors, entry[0] == 0x80))
    return parts


def copy_sparse(src: Path, dest_fd: int, offset: int, chunk: int = 1 << 20) -> None:
    """Copy the file ``src`` into ``dest_fd`` at ``offset``, leaving its zero blocks as holes."""
    with open(src, "rb") as fh:
        position = offset
        while block := fh.read(chunk):
            if block.count(0) != len(block):
                os.pwrite(dest_fd, block, position)
            position += len(block)


def assemble(out: Path, parts: list[Partition], filesystems: list[Path], disk_id: int) -> None:
    """Write the image: the MBR, then each file system at its partition's offset (a sparse file)."""
    for p, fs in zip(parts, filesystems, strict=True):
        if fs.stat().st_size > p.size:
            raise ValueError(f"{fs.name} ({fs.stat().st_size} bytes) does not fit its partition ({p.size})")
    fd = os.open(out, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    try:
        os.ftruncate(fd, image_size(parts))
        os.pwrite(fd, mbr(parts, disk_id), 0)
        for p, fs in zip(parts, filesystems, strict=True):
            copy_sparse(fs, fd, p.offset)
    finally:
        os.close(fd)
