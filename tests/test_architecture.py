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


DEVICE_PUBLIC = {
    "run",
    "stop",
    "stopped",
    "post",
    "hub",
    "door",
    "config",
    "store",
    "wall",
    "hw",
    "ready",
    "stop_reason",
}
"""What the composition root shows: build (its constructor), run, stop and post; the hub and the
door it built; what it was built with; the hardware, whether it is up, why it stopped."""


def calls_to(tree: ast.AST, name: str) -> list[ast.Call]:
    return [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == name
    ]


def test_only_the_doors_and_the_parts_setting_up_look_parts_up():
    """Parts are found by name in one module, ``runtime/doors.py`` (the doors every client is
    built with), and in a part's own ``setup(hub)`` (the parts it uses); no screen, service or
    web module looks a part up (the benches, outside the package, may reach a running device's parts)."""
    found = []
    for path in HOST.rglob("*.py"):
        rel = path.relative_to(ROOT).as_posix()
        if rel == "firmware_host/runtime/doors.py":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        in_setup = {
            id(call)
            for fn in ast.walk(tree)
            if isinstance(fn, ast.FunctionDef) and fn.name == "setup" and rel.startswith("firmware_host/runtime/parts/")
            for call in calls_to(fn, "lookup")
        }
        found += [f"{rel}:{c.lineno}" for c in calls_to(tree, "lookup") if id(c) not in in_setup]
    assert found == []


def test_the_root_shows_build_run_stop_and_post_only():
    """``Device`` has no aliases of its parts' methods and no forwarding properties: its public
    names are :data:`DEVICE_PUBLIC`."""
    tree = ast.parse((HOST / "runtime/device.py").read_text(encoding="utf-8"))
    device = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Device")
    names = {n.name for n in device.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)}
    names |= {
        t.attr
        for n in ast.walk(device)
        if isinstance(n, ast.Assign | ast.AnnAssign)
        for t in (n.targets if isinstance(n, ast.Assign) else [n.target])
        if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self"
    }
    public = {n for n in names if not n.startswith("_")}
    assert public <= DEVICE_PUBLIC, sorted(public - DEVICE_PUBLIC)


def test_no_screen_service_or_web_module_receives_the_device():
    """The screens, the services and the page are built with the door, never the device: none of
    their modules imports it or names it in an annotation."""
    found = []
    for folder in ("ui", "web", "scale", "timers", "runtime/parts"):
        for path in (HOST / folder).rglob("*.py"):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            named = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)} | {
                n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)
            }
            if "firmware_host.runtime.device" in imported(path) or "Device" in named:
                found.append(path.relative_to(ROOT).as_posix())
    assert found == []


def test_no_part_imports_a_part_it_does_not_use():
    """Each part's imports of other parts are used beyond the import (the wiring is the hub's)."""
    unused = []
    for path in (HOST / "runtime/parts").glob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        used = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
        used |= {n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)}
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("firmware_host.runtime.parts"):
                unused += [f"{path.name}: {a.name}" for a in node.names if (a.asname or a.name) not in used]
    assert unused == []


STACK_CHANGES = {"append", "pop", "insert", "clear", "extend", "remove"}


def test_one_part_owns_the_screen_stack():
    """Only the screens part (the navigator) changes a screen stack; every other module pushes,
    pops or replaces through it."""
    owner = HOST / "runtime/parts/screens.py"
    found = []
    for path in HOST.rglob("*.py"):
        if path == owner:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            targets = (
                node.targets
                if isinstance(node, ast.Assign)
                else [node.target]
                if isinstance(node, ast.AugAssign)
                else []
            )
            stores = [t for t in targets if isinstance(t, ast.Attribute) and t.attr == "stack"]
            calls = (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr in STACK_CHANGES
                and isinstance(node.func.value, ast.Attribute)
                and node.func.value.attr == "stack"
            )
            if stores or calls:
                found.append(f"{path.relative_to(ROOT).as_posix()}:{node.lineno}")
    assert found == []


def test_every_event_published_is_named_in_the_event_list():
    """A part publishes only the events of ``runtime/events.py`` (what listeners build against)."""
    from firmware_host.runtime import events

    listed = set(events.__all__) - {"EVENTS", "Event", "TimerMoment"}
    assert {cls.__name__ for cls in events.EVENTS.values()} == listed
    for path in HOST.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr in ("publish", "_publish")
            ):
                made = node.args[0] if node.args else None
                if isinstance(made, ast.Call) and isinstance(made.func, ast.Name):
                    assert made.func.id in listed, f"{path.relative_to(ROOT)}:{node.lineno} publishes {made.func.id}"
