"""No two modules of agentmem import each other, directly or round a loop, counting every import
statement: at the top, inside a function, under TYPE_CHECKING, relative or absolute. A cycle that
only closes inside a function still ties the modules together (neither can move or be tested
alone) and turns into an ImportError the day someone hoists the import, so it is held to the same
bar as one at the top.

An edge goes to the module named, not to the packages above it: `import a.b.c` runs `a/__init__`
and `a/b/__init__` first, but that is Python's order of loading, not a dependency of the code."""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

import agentmem

PACKAGE = Path(agentmem.__file__).parent


@dataclass(frozen=True)
class Edge:
    target: str
    where: str
    """`path:line` of the import statement, for the failure message."""


def module_names(package_dir: Path) -> dict[str, Path]:
    """Every module under `package_dir`, by dotted name (a package by its `__init__.py`)."""
    root = package_dir.parent
    names: dict[str, Path] = {}
    for path in sorted(package_dir.rglob("*.py")):
        parts = list(path.relative_to(root).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        names[".".join(parts)] = path
    return names


def _targets(
    module: str, path: Path, node: ast.Import | ast.ImportFrom, modules: dict[str, Path]
) -> set[str]:
    """The package's modules one statement loads: `from x import y` loads `x.y` when that is a
    module, else the module `x` that defines y."""
    if isinstance(node, ast.Import):
        return {_nearest_module(alias.name, modules) for alias in node.names}
    base = node.module or ""
    if node.level:
        # `from .m import x` is relative to the package that holds this module (or is it).
        package = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
        anchor = ".".join(package[: len(package) - node.level + 1])
        base = f"{anchor}.{base}" if base else anchor
    return {
        f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else _nearest_module(base, modules)
        for alias in node.names
    }


def import_graph(package_dir: Path) -> dict[str, list[Edge]]:
    """Module -> the package's modules it imports anywhere in its source, with where."""
    modules = module_names(package_dir)
    graph: dict[str, list[Edge]] = {}
    for module, path in modules.items():
        edges: dict[str, Edge] = {}
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, ast.Import | ast.ImportFrom):
                for target in sorted(_targets(module, path, node, modules) - {"", module}):
                    where = f"{path.relative_to(package_dir.parent)}:{node.lineno}"
                    edges.setdefault(target, Edge(target, where))
        graph[module] = list(edges.values())
    return graph


def _nearest_module(name: str, modules: dict[str, Path]) -> str:
    """`name` itself, or the closest enclosing module of the package; "" outside it."""
    while name and name not in modules:
        name = name.rpartition(".")[0]
    return name


def cycles(graph: dict[str, list[Edge]]) -> list[list[Edge]]:
    """One loop for each strongly connected group of two or more modules (Tarjan's), starting
    from the group's first module by name and ending back at it."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    groups: list[set[str]] = []

    def visit(node: str) -> None:  # recursion depth is bounded by the package's module count
        index[node] = low[node] = len(index)
        stack.append(node)
        for edge in graph.get(node, []):
            if edge.target not in index:
                visit(edge.target)
                low[node] = min(low[node], low[edge.target])
            elif edge.target in stack:
                low[node] = min(low[node], index[edge.target])
        if low[node] == index[node]:
            group = set()
            while (member := stack.pop()) != node:
                group.add(member)
            if group:
                groups.append({node, *group})

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return [_loop(graph, min(group), group) for group in sorted(groups, key=min)]


def _loop(graph: dict[str, list[Edge]], start: str, group: set[str]) -> list[Edge]:
    """The shortest path from `start` back to itself inside `group` (breadth first)."""
    paths: dict[str, list[Edge]] = {start: []}
    frontier = [start]
    while frontier:
        following: list[str] = []
        for node in frontier:
            for edge in graph[node]:
                if edge.target == start:
                    return [*paths[node], edge]
                if edge.target in group and edge.target not in paths:
                    paths[edge.target] = [*paths[node], edge]
                    following.append(edge.target)
        frontier = following
    raise AssertionError(f"{start} is in a cycle group but no loop returns to it")


def describe(loop: list[Edge]) -> str:
    """`a -> b (where a imports b) -> ... -> a (where the last one imports a)`."""
    return " -> ".join([loop[-1].target, *(f"{edge.target} ({edge.where})" for edge in loop)])


def test_no_module_of_agentmem_is_in_an_import_cycle() -> None:
    graph = import_graph(PACKAGE)
    found = [describe(loop) for loop in cycles(graph)]
    assert found == [], "import cycles:\n" + "\n".join(found)


def test_the_graph_holds_function_level_and_type_checking_imports() -> None:
    # Guards the test above against passing on a graph that lost the imports it is meant to see.
    targets = {module: {edge.target for edge in edges} for module, edges in import_graph(PACKAGE).items()}
    assert "agentmem.entrypoints.shadow_command" in targets["agentmem.entrypoints.cli"]  # in a function
    assert "agentmem.memory" in targets["agentmem"]  # under TYPE_CHECKING and in __getattr__
    assert "agentmem.wiring.subjects" in targets["agentmem.wiring.services"]  # in a cached_property


def _package(root: Path, files: dict[str, str]) -> Path:
    for name, source in files.items():
        path = root / "pkg" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(source, encoding="utf-8")
    return root / "pkg"


def test_a_cycle_closed_inside_a_function_through_relative_imports_is_found(tmp_path: Path) -> None:
    # Given a -> b (relative, in a function) -> c.d (relative, two levels) -> a (TYPE_CHECKING)
    package = _package(
        tmp_path,
        {
            "__init__.py": "",
            "a.py": "def f():\n    from . import b\n",
            "b.py": "from .c.d import thing\n",
            "c/__init__.py": "",
            "c/d.py": "import typing\nif typing.TYPE_CHECKING:\n    from ..a import f\nthing = 1\n",
        },
    )
    # When the graph is searched
    found = [describe(loop) for loop in cycles(import_graph(package))]
    # Then the loop is reported with where each import is
    assert found == ["pkg.a -> pkg.b (pkg/a.py:2) -> pkg.c.d (pkg/b.py:1) -> pkg.a (pkg/c/d.py:3)"]


def test_an_edge_goes_to_the_module_named_not_the_packages_above_it(tmp_path: Path) -> None:
    # Given pkg/__init__ imports m, and m imports a name defined in pkg.x (loading pkg first)
    package = _package(
        tmp_path,
        {"__init__.py": "import pkg.m\n", "m.py": "from pkg.x import helper\n", "x.py": "helper = 1\n"},
    )
    # When the graph is built
    graph = import_graph(package)
    # Then m depends on x only, and pkg -> m -> pkg is no cycle
    assert {edge.target for edge in graph["pkg.m"]} == {"pkg.x"}
    assert {edge.target for edge in graph["pkg"]} == {"pkg.m"}
    assert cycles(graph) == []
