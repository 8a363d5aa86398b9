"""The layers of docs/architecture.md, kept true: every import points down, and none closes a circle.

The imports are read from the source with `ast` (those inside functions too, since a circle
through a deferred import is still a circle for a reader), so the test needs nothing compiled.
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# Bottom first. A module may import from its own unit and from the units of lower layers only.
# A unit is a subpackage of hub_engine, a top-level module of hub_engine, or `protocol`.
LAYERS: list[tuple[str, ...]] = [
    ("protocol",),                                        # the Hub protocol, no draughts at all
    ("hub_engine.core",),                                 # the compiled core
    ("hub_engine.rules",),                                # variants, positions, notation, PDN
    ("hub_engine", "hub_engine.datafiles", "hub_engine.lifetime", "hub_engine.program",
     "hub_engine.quality"),
    ("hub_engine.executors",),                            # tasks on a pool or a Dask cluster
    ("hub_engine.tables",),                               # endgame tables
    ("hub_engine.learn",),                                # learned evaluation: weights, training
    ("hub_engine.book",),                                 # opening books
    ("hub_engine.engine",),                               # the engine behind a Hub session
    ("hub_engine.report",),                               # the HTML report
    ("hub_engine.analysis",),                             # batch analysis
    ("hub_engine.matches",),                              # matches, tournaments, latency
    ("hub_engine.gui",),                                  # the board in the browser
    ("hub_engine.cli",),                                  # the command line
    ("hub_engine.__main__",),                             # `python -m hub_engine`
]
LAYER_OF = {unit: k for k, units in enumerate(LAYERS) for unit in units}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def source_modules() -> dict[str, Path]:
    files = [*ROOT.glob("hub_engine/**/*.py"), *ROOT.glob("protocol/**/*.py")]
    return {module_name(p): p for p in files if "__pycache__" not in p.parts}


def imports_of(path: Path, name: str, modules: dict[str, Path]) -> set[str]:
    """The project modules `name` imports (`from pkg import mod` counts as importing pkg.mod)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(anchor + ([base] if base else []))
            # `from pkg import mod` imports pkg.mod; `from mod import name` imports mod
            targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base
                       for a in node.names]
        else:
            continue
        for target in targets:
            while target and target not in modules:
                target = target.rpartition(".")[0]
            if target and target != name:
                found.add(target)
    return found


def unit_of(module: str) -> str:
    parts = module.split(".")
    if parts[0] == "protocol":
        return "protocol"
    if len(parts) >= 2 and ".".join(parts[:2]) in LAYER_OF:
        return ".".join(parts[:2])
    return parts[0]


@pytest.fixture(scope="module")
def graph() -> dict[str, set[str]]:
    modules = source_modules()
    return {name: imports_of(path, name, modules) for name, path in modules.items()}


def test_every_unit_has_a_layer(graph):
    units = {unit_of(m) for m in graph}
    missing = sorted(u for u in units if u not in LAYER_OF)
    assert not missing, f"place these in LAYERS (and docs/architecture.md): {missing}"


def upward_imports(graph: dict[str, set[str]]) -> list[str]:
    """Imports from a unit into one of the same or a higher layer (another unit)."""
    upward = []
    for module, targets in graph.items():
        for target in targets:
            a, b = unit_of(module), unit_of(target)
            if a != b and LAYER_OF.get(a, -1) <= LAYER_OF.get(b, -1):
                upward.append(f"{module} -> {target}")
    return sorted(upward)


def test_imports_point_down(graph):
    upward = upward_imports(graph)
    assert not upward, "imports that do not point down:\n" + "\n".join(upward)


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    found: list[list[str]] = []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in graph:
                    continue
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_no_import_closes_a_circle(graph):
    assert cycles(graph) == []


def test_the_checks_catch_an_upward_import_and_a_circle():
    """The checks themselves: a made-up graph with one upward import and one circle."""
    made_up = {"hub_engine.core._core": {"hub_engine.engine.engine"},
               "hub_engine.engine.engine": {"hub_engine.core._core"},
               "protocol.client": set()}
    assert cycles(made_up) == [["hub_engine.core._core", "hub_engine.engine.engine"]]
    assert upward_imports(made_up) == ["hub_engine.core._core -> hub_engine.engine.engine"]
    assert upward_imports({"protocol.client": {"hub_engine.rules.position"}}) == [
        "protocol.client -> hub_engine.rules.position"]
