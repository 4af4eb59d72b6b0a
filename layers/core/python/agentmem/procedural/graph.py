"""Dependency graph walks for the skill library: cycle detection at write time, closures at read time."""

from __future__ import annotations


def find_cycle(graph: dict[str, list[str]], start: str) -> list[str] | None:
    """A path `start -> ... -> start` through `graph`, or None. Deterministic for an ordered graph."""
    parent: dict[str, str | None] = {start: None}
    stack = [start]
    while stack:
        node = stack.pop()
        for dep in graph.get(node, []):
            if dep == start:
                path = [node]
                while (prev := parent[path[-1]]) is not None:
                    path.append(prev)
                return [*reversed(path), start]
            if dep not in parent:
                parent[dep] = node
                stack.append(dep)
    return None


def dependency_order(graph: dict[str, list[str]], root: str) -> list[str]:
    """`root` and its transitive dependencies, each after all of its own (iterative post-order)."""
    order: list[str] = []
    seen = {root}
    stack = [(root, iter(graph.get(root, [])))]
    while stack:
        node, deps = stack[-1]
        for dep in deps:
            if dep not in seen:
                seen.add(dep)
                stack.append((dep, iter(graph.get(dep, []))))
                break
        else:
            stack.pop()
            order.append(node)
    return order
