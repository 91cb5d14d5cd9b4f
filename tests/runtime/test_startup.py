"""Lazy start-up: a command loads only what it uses (measured with `python -X importtime`)."""

from __future__ import annotations

import json
import subprocess
import sys

from firmware_host.cli import main as cli_main
from firmware_host.core import config
from tests.conftest import ROOT
from tests.waits import scaled

HEAVY = ("asyncio", "gpiozero", "PIL", "luma", "serial", "adafruit_hx711", "board", "tomllib")
PROBE = """
import contextlib, io, json, sys
from firmware_host.cli.main import main
with contextlib.redirect_stdout(io.StringIO()):
    main(sys.argv[1:])
heavy = {heavy!r}
print(json.dumps(sorted({{m.split('.')[0] for m in sys.modules}} & set(heavy))))
"""


def loaded_by(*args: str) -> list[str]:
    code = PROBE.format(heavy=HEAVY)
    out = subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, text=True, cwd=ROOT, check=True, timeout=scaled(60)
    ).stdout
    return json.loads(out.splitlines()[-1])


def test_replay_and_state_load_no_event_loop_no_driver_and_no_config_reader(tmp_path):
    script = tmp_path / "s.json"
    script.write_text(json.dumps({"game": "bomb", "players": ["Ann", "Ben"], "seed": 1, "actions": []}))
    assert loaded_by("replay", str(script)) == []
    assert loaded_by("state", "--state-dir", str(tmp_path / "state")) == []


def test_the_parsers_default_config_path_is_the_config_readers():
    assert str(config.DEFAULT_PATH) == cli_main.DEFAULT_CONFIG


def test_bench_start_baseline_takes_every_library_the_device_loaded_and_none_of_ours():
    from firmware_host.cli.bench.start import _libraries

    importtime = "\n".join(
        [
            "import time: self [us] | cumulative | imported package",
            "import time:       266 |     116968 |   asyncio",
            "import time:       100 |        100 |   firmware_host.runtime.device",
            "import time:       100 |        100 |   __editable___tablemate_0_1_0_finder",
            "import time:       100 |        100 |     gpiozero.pins.mock",
            "import time:       100 |        100 |     games.core",
            "import time:       100 |        100 |     gpiozero.pins.mock",
        ]
    )
    assert _libraries(importtime) == ["asyncio", "gpiozero.pins.mock"]


def test_the_device_imports_no_importlib_metadata_and_gpiozero_and_pygal_still_find_entry_points():
    """Fixed start-up cost: gpiozero took the PyPI backport (installed for pygal) over the standard
    library's module, and either brings a dozen modules (email, zipfile…) before any pin is opened."""
    code = (
        "import sys, firmware_host.runtime.device, gpiozero.devices\n"
        "names = ('importlib.metadata', 'email')\n"
        "loaded = [m for m in sys.modules if m.startswith('importlib_metadata') or m in names]\n"
        "print(sorted(loaded))\n"
        "print('mock' in {e.name for e in gpiozero.devices.entry_points(group='gpiozero_pin_factories')})\n"
        "import pygal\n"
        "print(pygal.__name__, sys.modules['importlib_metadata'].version('gpiozero') is not None)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert out.stdout.split("\n")[:3] == ["['importlib_metadata']", "True", "pygal True"], out.stderr


def test_a_command_alone_parses_as_it_does_among_all_the_others():
    """``main`` builds only the parser of the command asked for; it must be the same parser."""
    samples = {
        "replay": ["s.json"],
        "state": ["--state-dir", "d"],
        "history": ["--csv"],
        "run": ["--sim", "--config", "c.toml", "--state-dir", "d"],
        "sim": ["--script", "x.sim", "--seed", "3", "--realtime"],
        "install": ["--dry-run", "--root", "/r"],
        "wheelhouse": ["out", "--python", "3.11"],
        "doctor": ["--config", "c.toml"],
        "calibrate": ["--sim", "--weight", "100"],
    }
    assert set(samples) == set(cli_main.LEAF_COMMANDS)
    full = cli_main.build_parser()
    for name, rest in samples.items():
        alone = cli_main.build_parser(name)
        assert vars(alone.parse_args([name, *rest])) == vars(full.parse_args([name, *rest])), name
        sub_full = full._subparsers._group_actions[0].choices[name]
        sub_alone = alone._subparsers._group_actions[0].choices[name]
        assert sub_alone.format_help() == sub_full.format_help(), name


def test_bench_start_baseline_is_a_program_that_says_it_is_up():
    """Fixed: the baseline's datagram held a raw newline inside its bytes literal, so the baseline
    never ran and the bench waited until its timeout."""
    from firmware_host.cli.bench.start import BASELINE
    from firmware_host.runtime import sdnotify

    code = BASELINE.format(modules=["json"])
    compile(code, "<baseline>", "exec")
    assert 'b"READY=1\\nSTATUS=ready"' in code and sdnotify.is_up(b"READY=1\nSTATUS=ready")


def test_bench_start_baseline_leaves_out_what_the_device_loads_after_it_is_up():
    """Fixed: the page starts once the table is up, and its aiohttp, imported before the bench
    stopped the device, went into the baseline (426 modules instead of ~300)."""
    from firmware_host.cli.bench.start import UP_LINE, _libraries

    err = "import time: 1 | 1 | gpiozero\nINFO device: the table is up 0.3 s after its start\n"
    err += "import time: 1 | 1 | aiohttp\n"
    assert _libraries(err.split(UP_LINE, 1)[0]) == ["gpiozero"]
    assert UP_LINE in (ROOT / "firmware_host" / "runtime" / "device.py").read_text(encoding="utf-8")


PRELOADED = """
import sys
from firmware_host.core import config
from firmware_host.runtime.hardware import build, preload
conf = config.defaults().with_sim()
preload(conf)
before = {m for m in sys.modules if m.startswith("drivers.")}
build(conf, lambda *a: None, lambda *a: None, lambda: 0.0, lambda d, f: None).close()
print(sorted({m for m in sys.modules if m.startswith("drivers.")} - before))
"""


def test_run_imports_the_drivers_before_its_loop_so_opening_them_imports_nothing_on_it():
    out = subprocess.run(
        [sys.executable, "-c", PRELOADED], capture_output=True, text=True, cwd=ROOT, check=True, timeout=scaled(60)
    ).stdout
    assert out.strip().splitlines()[-1] == "[]"
