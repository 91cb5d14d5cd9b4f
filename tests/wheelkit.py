"""A wheelhouse made with no network: the distributions installed in this venv packed back into
wheels, beside the project's own wheel built from the checkout.

The wheels are real (``*.dist-info`` with ``WHEEL``, ``METADATA`` and a ``RECORD`` of hashes,
tagged as pip installed them), so ``pip install --no-index`` takes them as it takes PyPI's.
"""

from __future__ import annotations

import base64
import csv
import hashlib
import io
import zipfile
from importlib import metadata
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

SKIPPED = {"INSTALLER", "REQUESTED", "direct_url.json", "RECORD"}


def _record_hash(data: bytes) -> str:
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def repack(dist: metadata.Distribution, dest: Path) -> Path:
    """Pack an installed distribution back into a wheel in ``dest``."""
    info = next(f for f in dist.files or () if f.name == "WHEEL" and f.parent.name.endswith(".dist-info"))
    wheel_meta = info.read_text() or ""
    tags = [line.split(":", 1)[1].strip().split("-") for line in wheel_meta.splitlines() if line.startswith("Tag:")]
    tag = "-".join(".".join(dict.fromkeys(t[i] for t in tags)) for i in range(3))  # py2.py3-none-any
    name = canonicalize_name(dist.metadata["Name"]).replace("-", "_")
    path = dest / f"{name}-{dist.version}-{tag}.whl"
    record_name = f"{info.parent}/RECORD"
    rows = []
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as archive:
        for file in dist.files or ():
            text = str(file)
            if text.startswith("..") or "__pycache__" in text or (file.name in SKIPPED and file.parent == info.parent):
                continue
            located = Path(str(file.locate()))
            if not located.is_file():
                continue
            data = located.read_bytes()
            archive.writestr(text, data)
            rows.append((text, _record_hash(data), str(len(data))))
        out = io.StringIO()
        csv.writer(out, lineterminator="\n").writerows([*rows, (record_name, "", "")])
        archive.writestr(record_name, out.getvalue())
    return path


def closure(roots: list[str], env: dict[str, str] | None = None) -> list[metadata.Distribution]:
    """The installed distributions ``roots`` need here (this machine's markers, with ``env``'s
    values over them), roots included."""
    env_extras: dict[str, set[str]] = {}
    queue = [Requirement(r) for r in roots]
    found: dict[str, metadata.Distribution] = {}
    while queue:
        req = queue.pop()
        name = canonicalize_name(req.name)
        extras = set(req.extras)
        if name in found and extras <= env_extras.get(name, set()):
            continue
        env_extras.setdefault(name, set()).update(extras)
        dist = metadata.distribution(req.name)
        found[name] = dist
        for text in dist.requires or ():
            dep = Requirement(text)
            if dep.marker is None or any(
                dep.marker.evaluate({**(env or {}), "extra": e}) for e in (*env_extras[name], "")
            ):
                queue.append(dep)
    return list(found.values())


def project_wheel(source: Path, dest: Path, packages: tuple[str, ...] = ("firmware_host", "drivers", "games")) -> Path:
    """The project's wheel from the checkout with no build backend and no index: its packages'
    files beside the metadata of the project as installed here (``pip install -e``)."""
    dist = metadata.distribution("tablemate")
    info = f"tablemate-{dist.version}.dist-info"
    path = dest / f"tablemate-{dist.version}-py3-none-any.whl"
    rows = []
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:

        def add(name: str, data: bytes) -> None:
            archive.writestr(name, data)
            rows.append((name, _record_hash(data), str(len(data))))

        for package in packages:
            for file in sorted((source / package).rglob("*")):
                if file.is_file() and "__pycache__" not in file.parts and file.suffix in (".py", ".po", ".toml"):
                    add(file.relative_to(source).as_posix(), file.read_bytes())
        add(f"{info}/METADATA", dist.metadata.as_string().encode())  # METADATA, or an egg-info's PKG-INFO
        add(f"{info}/entry_points.txt", (dist.read_text("entry_points.txt") or "").encode())
        wheel_text = b"Wheel-Version: 1.0\nGenerator: tests.wheelkit\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
        add(f"{info}/WHEEL", wheel_text)
        out = io.StringIO()
        csv.writer(out, lineterminator="\n").writerows([*rows, (f"{info}/RECORD", "", "")])
        archive.writestr(f"{info}/RECORD", out.getvalue())
    return path
