"""A flattened device tree (``.dtb``, ``.dtbo``) read into nodes and properties, with the standard
library alone.

The format (the Devicetree Specification, chapter 5): a big-endian header, then the structure
block, a stream of 32-bit tokens -- ``BEGIN_NODE`` and its NUL-ended name, ``PROP`` with its
length, the offset of its name in the strings block and its bytes, ``END_NODE``, ``NOP``,
``END`` -- each item padded to 4 bytes. Only reading: applying overlays is ``fdtoverlay``'s job
(Debian's ``device-tree-compiler``), which does what the Raspberry Pi firmware does.
"""

from __future__ import annotations

import struct
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

MAGIC = 0xD00DFEED
BEGIN_NODE, END_NODE, PROP, NOP, END = 1, 2, 3, 4, 9


class FdtError(ValueError):
    """Not a flattened device tree, or a damaged one."""


@dataclass
class Node:
    """One node: its name (``spi@7e215080``), path, properties (raw bytes) and children."""

    name: str
    path: str
    props: dict[str, bytes] = field(default_factory=dict)
    children: dict[str, Node] = field(default_factory=dict)

    def string(self, prop: str) -> str | None:
        """A string property's first string (``status``), or ``None`` when absent."""
        raw = self.props.get(prop)
        return None if raw is None else raw.split(b"\0", 1)[0].decode("utf-8", "replace")

    def strings(self, prop: str) -> list[str]:
        """A string-list property's strings (``compatible``), ``[]`` when absent."""
        raw = self.props.get(prop, b"")
        return [s.decode("utf-8", "replace") for s in raw.split(b"\0")[:-1]] if raw else []

    def cells(self, prop: str) -> list[int]:
        """A property's 32-bit cells (``reg``, ``brcm,pins``), ``[]`` when absent."""
        raw = self.props.get(prop, b"")
        return list(struct.unpack(f">{len(raw) // 4}I", raw[: len(raw) // 4 * 4]))

    def enabled(self) -> bool:
        """Whether the kernel sees it as a device: no ``status``, or ``okay``/``ok``."""
        return self.string("status") in (None, "okay", "ok")


@dataclass
class Tree:
    """A whole tree, its nodes by path and by phandle."""

    root: Node
    by_path: dict[str, Node]
    by_phandle: dict[int, Node]

    def get(self, path: str) -> Node | None:
        """The node at ``path`` (``/soc/spi@7e215080``), or ``None``."""
        return self.by_path.get(path)

    def walk(self) -> Iterator[Node]:
        """Every node, parents before children."""
        return iter(self.by_path.values())

    def enabled_nodes(self) -> Iterator[Node]:
        """Every node the kernel probes: enabled, and every parent enabled too."""
        stack = [self.root]
        while stack:
            node = stack.pop()
            if node.enabled():
                yield node
                stack.extend(node.children.values())


def _string_at(blob: bytes, offset: int) -> str:
    end = blob.index(b"\0", offset)
    return blob[offset:end].decode("utf-8", "replace")


def parse(blob: bytes) -> Tree:
    """The tree of a ``.dtb``/``.dtbo``'s bytes; :class:`FdtError` when it is not one."""
    if len(blob) < 40 or struct.unpack_from(">I", blob, 0)[0] != MAGIC:
        raise FdtError("not a flattened device tree (no d00dfeed magic)")
    _, total, off_struct, off_strings, _, _, _, _, _, size_struct = struct.unpack_from(">10I", blob, 0)
    if total > len(blob):
        raise FdtError(f"cut short: {len(blob)} of {total} bytes")
    strings = blob[off_strings:]
    pos, end = off_struct, off_struct + size_struct
    stack: list[Node] = []
    by_path: dict[str, Node] = {}
    root: Node | None = None
    while pos < end:
        (token,) = struct.unpack_from(">I", blob, pos)
        pos += 4
        if token == BEGIN_NODE:
            name_end = blob.index(b"\0", pos)
            name = blob[pos:name_end].decode("utf-8", "replace")
            pos = (name_end + 4) & ~3
            parent = stack[-1] if stack else None
            path = "/" if parent is None else (parent.path.rstrip("/") + "/" + name)
            node = Node(name, path)
            if parent is None:
                root = node
            else:
                parent.children[name] = node
            by_path[path] = node
            stack.append(node)
        elif token == END_NODE:
            if not stack:
                raise FdtError("END_NODE outside any node")
            stack.pop()
        elif token == PROP:
            length, name_offset = struct.unpack_from(">II", blob, pos)
            pos += 8
            if not stack:
                raise FdtError("a property outside any node")
            stack[-1].props[_string_at(strings, name_offset)] = blob[pos : pos + length]
            pos = (pos + length + 3) & ~3
        elif token == NOP:
            continue
        elif token == END:
            break
        else:
            raise FdtError(f"unknown token {token:#x} at byte {pos - 4}")
    if root is None or stack:
        raise FdtError("no root node, or a node left open")
    by_phandle = {}
    for node in by_path.values():
        for prop in ("phandle", "linux,phandle"):
            if len(node.props.get(prop, b"")) == 4:
                by_phandle[node.cells(prop)[0]] = node
    return Tree(root, by_path, by_phandle)


def load(path: Path) -> Tree:
    """The tree in the file at ``path``."""
    return parse(Path(path).read_bytes())
