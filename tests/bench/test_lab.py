"""The lab stays out of the product: the benches but the device's own live in the checkout's
``bench/``, which no installed module imports and the wheel does not carry."""

from __future__ import annotations

import ast
import os
import tomllib
from pathlib import Path

import pytest

import firmware_host
from firmware_host.cli import cmd_bench
from firmware_host.cli.common import Fail

ROOT = Path(__file__).resolve().parents[2]
DEVICE_BENCHES = {"__init__", "idle", "journal", "process", "start"}
"""What an installed Pi measures of itself (docs/commands.md says why these)."""


def test_the_installed_package_holds_only_the_benches_a_pi_runs_on_itself():
    shipped = {p.stem for p in (ROOT / "firmware_host/cli/bench").glob("*.py")}
    assert shipped == DEVICE_BENCHES


def test_no_installed_module_but_the_bench_command_imports_the_lab():
    for folder in ("firmware_host", "drivers", "games"):
        for path in (ROOT / folder).rglob("*.py"):
            if path == ROOT / "firmware_host/cli/cmd_bench.py":
                continue  # it loads a lab bench from a checkout, and says so without one
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
                if isinstance(node, ast.ImportFrom) and not node.level:
                    names = [node.module or ""]
                assert not any(n == "bench" or n.startswith("bench.") for n in names), path


def test_the_package_list_leaves_the_lab_out():
    found = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"]["find"]
    assert not any(pattern.startswith("bench") for pattern in found["include"])


def test_a_lab_bench_without_a_checkout_says_it_needs_one(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(firmware_host, "__file__", str(tmp_path / "site/firmware_host/__init__.py"))
    with pytest.raises(Fail, match=r"`tablemate bench web` runs from a checkout of tablemate"):
        cmd_bench.checkout("web")


def test_a_lab_bench_finds_the_checkout_from_anywhere_its_package_was_installed_from(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PYTHONPATH", "")
    assert cmd_bench.checkout("web") == ROOT
    assert str(ROOT) in os.environ["PYTHONPATH"].split(os.pathsep)


def test_a_lab_bench_in_the_checkout_leaves_the_environment_as_it_was(monkeypatch):
    monkeypatch.chdir(ROOT)
    monkeypatch.delenv("PYTHONPATH", raising=False)
    assert cmd_bench.checkout("web") == ROOT
    assert "PYTHONPATH" not in os.environ  # later processes of the same run see no checkout forced on them
