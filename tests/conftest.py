"""Shared test helpers: the CLI in-process, scripts on disk, a virtual-time loop."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from firmware_host.cli.main import main
from firmware_host.core.i18n import set_language
from firmware_host.runtime.vtime import run_virtual

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(autouse=True)
def english():
    """Every test starts and ends in English (the language is process-wide, as on the device)."""
    set_language("en")
    yield
    set_language("en")


class Result:
    """What a ``tablemate`` call printed and returned."""

    def __init__(self, status: int, out: str, err: str) -> None:
        self.status, self.out, self.err = status, out, err

    def json(self) -> Any:
        return json.loads(self.out)


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str]) -> Callable[..., Result]:
    """Run ``tablemate ARGS`` in this process."""

    def run(*args: str) -> Result:
        status = main([str(a) for a in args])
        out, err = capsys.readouterr()
        return Result(status, out, err)

    return run


@pytest.fixture
def write_script(tmp_path: Path) -> Callable[..., Path]:
    """Write a replay SCRIPT (a dict) or any text to a file and return its path."""
    counter = iter(range(10_000))

    def write(content: dict[str, Any] | str, name: str | None = None) -> Path:
        path = tmp_path / (name or f"script{next(counter)}.json")
        path.write_text(content if isinstance(content, str) else json.dumps(content), encoding="utf-8")
        return path

    return write


def tablemate_run(*args: object) -> subprocess.CompletedProcess:
    """Run ``tablemate ARGS`` as a real process to its end (output captured, the wait scaled)."""
    from tests.waits import scaled

    return subprocess.run(
        [sys.executable, "-m", "firmware_host", *map(str, args)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=scaled(60),
    )


def tablemate_process(*args: str, **kwargs: Any) -> subprocess.Popen:
    """Start ``tablemate ARGS`` as a real process (for kill -9 and signals)."""
    return subprocess.Popen([sys.executable, "-m", "firmware_host", *map(str, args)], cwd=ROOT, **kwargs)


@pytest.fixture
def virtual() -> Callable[[Callable[[], Any]], Any]:
    """Run a coroutine function on a fresh virtual-time loop."""
    return run_virtual
