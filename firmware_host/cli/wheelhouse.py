"""``tablemate wheelhouse DIR``: every wheel a Raspberry Pi needs, made on any machine with network,
so that ``systemd/install.sh --wheelhouse DIR`` installs and updates a table with no network at all.

What goes in ``DIR``:

* the project's own wheel, built from the checkout;
* for each target -- Raspberry Pi OS Bookworm (CPython 3.11, glibc 2.36) and Trixie (CPython 3.13,
  glibc 2.41) on a 64-bit Pi (aarch64) by default -- the binary wheel of every dependency, the
  ``pi`` extra's included, fetched by ``pip download --only-binary=:all: --platform ...``: no
  source distribution ever, so nothing is ever built on the Pi;
* ``requirements-<target>.txt`` per target (``requirements-cp311-aarch64.txt``): the exact
  versions, which ``install.sh`` installs with ``--no-index --no-deps``, so pip never looks
  further than this folder and never resolves anything on the Pi.

pip evaluates the environment markers of dependencies against the machine it runs on, not the
``--platform`` asked for (``platform_machine == 'aarch64'`` is false on a laptop). So the
dependency tree is walked here once more with the target's markers (:func:`lock`), and whatever
pip left out is downloaded in a further round; a requirement no wheel satisfies fails loudly.

Some packages come from apt instead (:data:`FROM_APT`): ``spidev`` has no wheel at all, and
``install.sh`` takes Debian's ``python3-spidev`` through the venv's ``--system-site-packages``.
``lgpio`` (:data:`APT_WHEN_NO_WHEEL`) is taken from its wheel where PyPI has one for the target
(``lgpio-0.2.2.0-cp311-cp311-manylinux_2_34_aarch64.whl``: Bookworm's Python on a 64-bit Pi), so
plain Debian, which has no ``python3-lgpio`` (only Raspberry Pi OS's archive has it), installs
offline too; only where no wheel exists (CPython 3.13, 32-bit Pis) is it left to apt's
``python3-lgpio``. pip would build it from source, so it is never asked to.
"""

from __future__ import annotations

import email.parser
import shutil
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

PROJECT = "tablemate"
FROM_APT = {"spidev": "python3-spidev"}
"""Packages the Pi takes from apt, never from a wheel or a build (none exists)."""
APT_WHEN_NO_WHEEL = {"lgpio": "python3-lgpio"}
"""Packages taken from their wheel where the target has one, else from apt (Raspberry Pi OS's)."""
SOURCES = ("pyproject.toml", "README.md", "firmware_host", "drivers", "games")
"""What the project's wheel is built from (copied aside, so the checkout gets no build/ folder)."""


@dataclass(frozen=True)
class Target:
    """A Python on a Pi: version, machine and C library, as wheel tags and marker values see it."""

    python: tuple[int, int]
    machine: str = "aarch64"
    glibc: tuple[int, int] = (2, 36)
    host: bool = False
    """This very interpreter (tests): its own tags and markers."""

    @property
    def name(self) -> str:
        """``cp311-aarch64``: the suffix of its requirements file."""
        return f"cp{self.python[0]}{self.python[1]}-{self.machine}"

    def platforms(self) -> list[str]:
        """The manylinux platform tags this C library runs, newest first."""
        major, newest = self.glibc
        return [f"manylinux_{major}_{minor}_{self.machine}" for minor in range(newest, 16, -1)] + [
            f"manylinux2014_{self.machine}"
        ]

    def tags(self) -> frozenset[Any]:
        """Every wheel tag this target installs."""
        from packaging import tags

        if self.host:
            return frozenset(tags.sys_tags())
        abi = f"cp{self.python[0]}{self.python[1]}"
        plats = self.platforms()
        cpython = tags.cpython_tags(self.python, abis=[abi, "abi3", "none"], platforms=plats)
        return frozenset([*cpython, *tags.compatible_tags(self.python, abi, plats)])

    def environment(self) -> dict[str, str]:
        """The values of the environment markers on this target."""
        from packaging.markers import default_environment

        env = dict(default_environment())
        if self.host:
            return env
        version = f"{self.python[0]}.{self.python[1]}"
        env.update(
            python_version=version,
            python_full_version=f"{version}.0",
            implementation_version=f"{version}.0",
            implementation_name="cpython",
            platform_python_implementation="CPython",
            platform_machine=self.machine,
            platform_system="Linux",
            sys_platform="linux",
            os_name="posix",
        )
        return env

    @classmethod
    def this(cls) -> Target:
        """The interpreter running now."""
        import platform

        return cls(sys.version_info[:2], platform.machine(), host=True)


TARGETS = (Target((3, 11), glibc=(2, 36)), Target((3, 13), glibc=(2, 41)))
"""Bookworm's and Trixie's Python on a 64-bit Pi (3B and newer, Zero 2 W)."""


@dataclass
class Lock:
    """The outcome of walking the dependencies in a folder of wheels for one target."""

    pins: dict[str, tuple[str, Path]] = field(default_factory=dict)
    """Every package by its normalised name: the version chosen and its wheel."""
    missing: list[str] = field(default_factory=list)
    """Requirements no wheel in the folder satisfies (without their markers: they apply)."""
    conflicts: list[str] = field(default_factory=list)
    """Requirements the version already chosen does not satisfy."""
    from_apt: set[str] = field(default_factory=set)
    """Debian packages that provide what was required (``python3-lgpio``)."""

    def requirements(self) -> str:
        """The requirements file: one ``name==version`` a line."""
        return "".join(f"{name}=={version}\n" for name, (version, _) in sorted(self.pins.items()))


def _wheels(folder: Path, target: Target) -> dict[str, list[tuple[Any, Path]]]:
    """The wheels in ``folder`` this target can install, by normalised name."""
    from packaging.utils import parse_wheel_filename

    tags = target.tags()
    found: dict[str, list[tuple[Any, Path]]] = {}
    for path in sorted(folder.glob("*.whl")):
        try:
            name, version, _, wheel_tags = parse_wheel_filename(path.name)
        except ValueError:
            continue
        if wheel_tags & tags:
            found.setdefault(name, []).append((version, path))
    return found


def _requires(wheel: Path) -> list[str]:
    """The ``Requires-Dist`` lines of a wheel's metadata."""
    with zipfile.ZipFile(wheel) as archive:
        name = next(n for n in archive.namelist() if n.count("/") == 1 and n.endswith(".dist-info/METADATA"))
        metadata = email.parser.BytesParser().parsebytes(archive.read(name), headersonly=True)
    return metadata.get_all("Requires-Dist") or []


def _applies(requirement: Any, env: dict[str, str], extras: Iterable[str]) -> bool:
    if requirement.marker is None:
        return True
    return any(requirement.marker.evaluate({**env, "extra": extra}) for extra in (*extras, ""))


def lock(folder: Path, target: Target, roots: Sequence[str], apt_fallback: bool = True) -> Lock:
    """Walk ``roots`` (requirement strings) and their dependencies through the wheels in
    ``folder`` with ``target``'s markers: the newest wheel satisfying each requirement is pinned.
    A package of :data:`APT_WHEN_NO_WHEEL` with no wheel is apt's (``apt_fallback``) or missing
    (not: a download of it is still to be tried)."""
    from packaging.requirements import Requirement
    from packaging.utils import canonicalize_name

    wheels, env, result = _wheels(folder, target), target.environment(), Lock()
    queue = [(Requirement(text), ()) for text in roots]
    seen: set[tuple[str, str, tuple[str, ...]]] = set()
    while queue:
        requirement, parent_extras = queue.pop(0)
        if not _applies(requirement, env, parent_extras):
            continue
        name = canonicalize_name(requirement.name)
        key = (name, str(requirement.specifier), tuple(sorted(requirement.extras)))
        if key in seen:
            continue
        seen.add(key)
        if name in FROM_APT:
            result.from_apt.add(FROM_APT[name])
            continue
        fitting = [(v, p) for v, p in wheels.get(name, []) if requirement.specifier.contains(v, prereleases=True)]
        if name in APT_WHEN_NO_WHEEL and not fitting and name not in result.pins and apt_fallback:
            result.from_apt.add(APT_WHEN_NO_WHEEL[name])
            continue
        bare = f"{requirement.name}{'[' + ','.join(sorted(requirement.extras)) + ']' if requirement.extras else ''}"
        bare += str(requirement.specifier)
        if name in result.pins:
            if not requirement.specifier.contains(result.pins[name][0], prereleases=True):
                result.conflicts.append(f"{bare} (chosen: {name}=={result.pins[name][0]})")
            version, path = result.pins[name][0], result.pins[name][1]
        elif not fitting:
            result.missing.append(bare)
            continue
        else:
            version, path = max(fitting)
            result.pins[name] = (str(version), path)
        extras = tuple(requirement.extras)
        queue += [(Requirement(text), extras) for text in _requires(path)]
    return result


def project_requirements(wheel: Path, extras: Sequence[str]) -> list[str]:
    """The project wheel's own requirement with its ``extras``: the root of every lock."""
    from packaging.utils import parse_wheel_filename

    name, version, _, _ = parse_wheel_filename(wheel.name)
    return [f"{name}[{','.join(extras)}]=={version}" if extras else f"{name}=={version}"]


def build_project(source: Path, dest: Path, python: str = sys.executable) -> Path:
    """Build the project's wheel into ``dest`` from a copy of the checkout's sources."""
    for old in dest.glob(f"{PROJECT}-*.whl"):
        old.unlink()
    with tempfile.TemporaryDirectory(prefix="tablemate-wheel-") as tmp:
        staged = Path(tmp) / "src"
        staged.mkdir()
        for name in SOURCES:
            src = source / name
            if src.is_dir():
                shutil.copytree(src, staged / name, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
            else:
                shutil.copy2(src, staged / name)
        command = [python, "-m", "pip", "wheel", "--quiet", "--no-deps", "--wheel-dir", str(dest), str(staged)]
        subprocess.run(command, check=True)
    (wheel,) = dest.glob(f"{PROJECT}-*.whl")
    return wheel


def _name(requirement: str) -> str:
    from packaging.requirements import Requirement
    from packaging.utils import canonicalize_name

    return canonicalize_name(Requirement(requirement).name)


def download(
    dest: Path, target: Target, requirements: Sequence[str], python: str = sys.executable, check: bool = True
) -> None:
    """``pip download`` binary wheels of ``requirements`` (and what pip finds they need) for
    ``target``; ``check=False``: a requirement with no wheel is let pass (it is apt's)."""
    abi = f"cp{target.python[0]}{target.python[1]}"
    command = [python, "-m", "pip", "download", "--quiet", "--only-binary=:all:", "--dest", str(dest)]
    command += [f"--platform={p}" for p in target.platforms()]
    command += [f"--python-version={target.python[0]}.{target.python[1]}", "--implementation=cp"]
    command += [f"--abi={abi}", "--abi=abi3", "--abi=none", *requirements]
    subprocess.run(command, check=check, **({} if check else {"stderr": subprocess.DEVNULL}))


def write_lock(dest: Path, target: Target, roots: Sequence[str]) -> Lock:
    """Lock ``roots`` for ``target`` from the wheels in ``dest``; write its requirements file
    (without the project, which ``install.sh`` installs from its own wheel)."""
    result = lock(dest, target, roots)
    project = {k: v for k, v in result.pins.items() if k != PROJECT}
    written = Lock(project, result.missing, result.conflicts, result.from_apt)
    (dest / f"requirements-{target.name}.txt").write_text(written.requirements(), encoding="utf-8")
    return written


def make(
    dest: Path, source: Path, targets: Sequence[Target] = TARGETS, extras: Sequence[str] = ("pi",), rounds: int = 4
) -> list[str]:
    """Fill ``dest`` for ``targets``; the lines to print. Raises ``RuntimeError`` when a
    requirement has no wheel for a target."""
    dest.mkdir(parents=True, exist_ok=True)
    wheel = build_project(source, dest)
    roots = project_requirements(wheel, extras)
    lines = [f"{wheel.name}: built from {source}"]
    for target in targets:
        result = lock(dest, target, roots, apt_fallback=False)
        for _ in range(rounds):
            if not result.missing:
                break
            wheel_or_apt = [m for m in result.missing if _name(m) in APT_WHEN_NO_WHEEL]
            if len(wheel_or_apt) < len(result.missing):
                download(dest, target, [m for m in result.missing if m not in wheel_or_apt])
            for requirement in wheel_or_apt:  # no wheel for this target: apt's, then
                download(dest, target, [requirement], check=False)
            result = lock(dest, target, roots, apt_fallback=False)
            if all(_name(m) in APT_WHEN_NO_WHEEL for m in result.missing):
                break
        written = write_lock(dest, target, roots)
        if written.missing or written.conflicts:
            raise RuntimeError(f"{target.name}: no wheel for {', '.join(written.missing + written.conflicts)}")
        apt = f"; from apt: {', '.join(sorted(written.from_apt))}" if written.from_apt else ""
        lines.append(f"requirements-{target.name}.txt: {len(written.pins)} wheels{apt}")
    lines.append(f"install with no network: sudo systemd/install.sh --wheelhouse {dest}")
    return lines


def parse_target(text: str) -> Target:
    """``3.11`` (aarch64, glibc 2.36), ``3.13`` (glibc 2.41) or ``3.11:armv7l:2.36``."""
    version, _, rest = text.partition(":")
    machine, _, glibc = rest.partition(":")
    major, minor = (int(n) for n in version.split("."))
    known = {t.python: t for t in TARGETS}
    default = known.get((major, minor), Target((major, minor)))
    libc = tuple(int(n) for n in glibc.split(".")) if glibc else default.glibc
    return Target((major, minor), machine or default.machine, libc)  # type: ignore[arg-type]


def main(dest: str, source: Path, pythons: Sequence[str] | None, extras: Sequence[str]) -> int:
    """Make the wheelhouse and say what is in it."""
    targets = [parse_target(p) for p in pythons] if pythons else list(TARGETS)
    for line in make(Path(dest), source, targets, extras):
        print(line)
    return 0
