"""The house's one-way doors, computed from the source: a new import cycle fails the suite.

Every import counts: at the top of a module, inside a function, under ``TYPE_CHECKING``.
"""

from __future__ import annotations

import ast
from pathlib import Path

from games import ENGINES

ROOT = Path(__file__).resolve().parents[1]
HOST = ROOT / "firmware_host"

ROOMS = ("timers", "core", "scale", "ui", "web", "ops", "runtime", "sim", "cli")
"""The rooms of firmware_host/, lowest first: a room imports only the rooms before it."""


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules(folder: Path) -> dict[str, Path]:
    return {module_name(p): p for p in sorted(folder.rglob("*.py"))}


def imported(path: Path) -> set[str]:
    """Every module name ``path`` imports, wherever the import stands (absolute names)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = module_name(path) if path.name == "__init__.py" else module_name(path).rpartition(".")[0]
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[: len(parts) - node.level + 1] + ([base] if base else []))
            names.add(base)
            names.update(f"{base}.{alias.name}" for alias in node.names)
    return names


def host_graph() -> dict[str, set[str]]:
    """Module → the firmware_host modules it imports."""
    known = modules(HOST)
    return {name: {m for m in imported(path) if m in known and m != name} for name, path in known.items()}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one node (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def room_of(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def test_the_cycle_finder_finds_a_cycle():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_cycle_between_modules_of_the_host():
    assert cycles(host_graph()) == []


def test_no_import_cycle_between_rooms_and_each_imports_only_rooms_below_it():
    graph = host_graph()
    rooms: dict[str, set[str]] = {}
    upward = []
    for module, targets in graph.items():
        for target in targets:
            a, b = room_of(module), room_of(target)
            if a == b or a in ("", "__main__") or b == "":
                continue
            rooms.setdefault(a, set()).add(b)
            if a not in ROOMS or b not in ROOMS or ROOMS.index(b) > ROOMS.index(a):
                upward.append(f"{module} -> {target}")
    assert cycles(rooms) == []
    assert upward == []


def test_every_room_is_listed_and_says_what_it_may_import():
    found = sorted(p.name for p in HOST.iterdir() if p.is_dir() and (p / "__init__.py").exists())
    assert found == sorted(ROOMS)
    for room in ROOMS:
        doc = ast.get_docstring(ast.parse((HOST / room / "__init__.py").read_text(encoding="utf-8")))
        assert doc and "import" in doc.lower(), room
    assert len([p for p in HOST.iterdir() if p.name != "__pycache__"]) <= len(ROOMS) + 2  # and __init__, __main__


def test_the_web_guards_import_nothing_of_the_page_but_its_door():
    """The guards stand between the LAN and the routes: the routes import them, never the reverse."""
    for name, path in modules(HOST / "web" / "guards").items():
        page = {
            m
            for m in imported(path)
            if m.startswith("firmware_host.web.")
            and not m.startswith(("firmware_host.web.guards", "firmware_host.web.door"))
        }
        assert not page, f"{name} imports {sorted(page)}"


def test_games_and_drivers_import_nothing_of_the_host():
    for folder in ("games", "drivers"):
        for name, path in modules(ROOT / folder).items():
            assert not any(m.split(".")[0] == "firmware_host" for m in imported(path)), name


def test_no_host_module_imports_a_game_engine_or_names_a_game():
    for name, path in modules(HOST).items():
        games = {m for m in imported(path) if m.startswith("games.") and m.split(".")[1] in ENGINES}
        assert not games, f"{name} imports {sorted(games)}"
        named = {
            node.value
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
            if isinstance(node, ast.Constant) and node.value in ENGINES
        }
        assert not named, f"{name} names the game {sorted(named)}"


MAX_LINES = 650
MAX_METHODS = 40
LONG_ALLOWED = {"firmware_host/scale/detector.py"}
"""The event detector is one algorithm, documented where it runs; it may be longer."""


def test_the_parts_stay_small_the_composition_root_builds_and_wires_only():
    """The device as parts: no module over 650 lines (the detector excepted), no class with more
    than 40 methods, and ``runtime/device.py`` — the composition root — at most 400 lines."""
    long = {
        p.relative_to(ROOT).as_posix(): n
        for p in HOST.rglob("*.py")
        if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES
    }
    assert set(long) <= LONG_ALLOWED, long
    assert len((HOST / "runtime/device.py").read_text(encoding="utf-8").splitlines()) <= 400
    big = {}
    for path in HOST.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef):
                count = sum(isinstance(b, ast.FunctionDef | ast.AsyncFunctionDef) for b in node.body)
                if count > MAX_METHODS:
                    big[f"{path.relative_to(ROOT).as_posix()}:{node.name}"] = count
    assert big == {}
