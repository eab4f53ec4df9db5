"""The import graph of the package: no circle, no upward arrow, no dagster in a domain package.

Every import counts, including function-local ones and those under ``TYPE_CHECKING``: a deferred
import hides a circle from the interpreter, not from a reader.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "trajectory_platform"

LAYERS = {
    "workdir": 0,
    "traces": 0,
    "gym": 1,
    "environments": 2,
    "curation": 3,
    "training": 3,
    "evaluation": 4,
    "rounds": 5,
    "resources": 6,
    "sensors": 7,
    "checks": 7,
    "assets": 8,
    "definitions": 9,
    "commands": 10,
    "cli": 11,
}
"""Each top-level part of the package and its layer: a module may import its own part and any
part of a lower layer, never a part of its own layer or above (``docs/architecture.md``)."""
DOMAIN = ("traces", "gym", "environments", "curation", "training", "evaluation", "rounds")
WINGS = {"training": {"data": 0, "optim": 1}}
"""Layers inside a part: training's data wing (serialization, masks, the loader) sits below its
optimizer wing (loss, objectives, loop, checkpoint)."""


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path, name: str) -> set[str]:
    """Every module name ``path`` imports (absolute, relative resolved), with imported members."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, *([base] if base else [])])
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)
    return found


def _graph() -> dict[str, set[str]]:
    modules = {_module_name(p): p for p in PACKAGE.rglob("*.py")}
    return {
        name: {t for t in _imports(path, name) if t in modules and t != name}
        for name, path in modules.items()
    }


GRAPH = _graph()


def _part(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else None


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
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
                    components.append(sorted(component))
    return components


def test_no_import_circle_anywhere():
    assert _cycles(GRAPH) == []


def test_the_circle_finder_finds_a_circle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_every_part_of_the_package_has_a_layer():
    parts = {_part(m) for m in GRAPH} - {None}
    assert parts <= set(LAYERS), f"parts without a layer: {sorted(parts - set(LAYERS))}"


def test_imports_only_point_down():
    upward = [
        f"{source} -> {target}"
        for source, targets in GRAPH.items()
        for target in targets
        if _part(source)
        and _part(target)
        and _part(source) != _part(target)
        and LAYERS[_part(target)] >= LAYERS[_part(source)]
    ]
    assert upward == []


def test_wings_only_point_down():
    def wing(module: str) -> tuple[str | None, str | None]:
        parts = module.split(".")
        return (parts[1], parts[2]) if len(parts) > 2 and parts[1] in WINGS else (None, None)

    upward = [
        f"{source} -> {target}"
        for source, targets in GRAPH.items()
        for target in targets
        if wing(source)[0]
        and wing(source)[0] == wing(target)[0]
        and wing(source)[1] != wing(target)[1]
        and WINGS[wing(source)[0]].get(wing(target)[1] or "", 99)
        >= WINGS[wing(source)[0]].get(wing(source)[1] or "", 99)
    ]
    assert upward == []


@pytest.mark.parametrize("part", DOMAIN)
def test_domain_packages_never_import_dagster(part):
    offenders = [
        str(path.relative_to(PACKAGE.parent))
        for path in (PACKAGE / part).rglob("*.py")
        if any(name.split(".")[0].startswith("dagster") for name in _imports(path, _module_name(path)))
    ]
    assert offenders == []


def test_the_package_never_imports_its_experiments():
    """``benchmarks/`` (the ablation's steps included) sits on top of the package, never inside it."""
    experiments = {
        p.stem for p in (PACKAGE.parent / "benchmarks").iterdir() if p.suffix == ".py" or p.is_dir()
    }
    offenders = [
        str(path.relative_to(PACKAGE.parent))
        for path in PACKAGE.rglob("*.py")
        if any(
            name.split(".")[0] in experiments | {"benchmarks"} for name in _imports(path, _module_name(path))
        )
    ]
    assert "ablation" in experiments and offenders == []


DAGSTER_DECORATORS = {"asset", "multi_asset", "asset_check", "multi_asset_check", "sensor", "schedule"}
MAX_BODY_LINES = 30


def _decorated_bodies() -> dict[str, int]:
    """Lines of every asset, check, sensor and schedule body (docstring and blank lines left out)."""
    sizes = {}
    for part in ("assets", "checks", "sensors"):
        for path in (PACKAGE / part).rglob("*.py"):
            source = path.read_text(encoding="utf-8").splitlines()
            for node in ast.walk(ast.parse("\n".join(source))):
                if not isinstance(node, ast.FunctionDef):
                    continue
                names = {
                    getattr(d.func if isinstance(d, ast.Call) else d, "id", None) for d in node.decorator_list
                }
                if not names & DAGSTER_DECORATORS:
                    continue
                body = node.body[1:] if ast.get_docstring(node) else node.body
                lines = source[body[0].lineno - 1 : node.end_lineno]
                sizes[f"{path.relative_to(PACKAGE)}::{node.name}"] = sum(1 for line in lines if line.strip())
    return sizes


def test_every_dagster_body_is_thin_glue():
    sizes = _decorated_bodies()
    assert len(sizes) > 20  # the walk found the bodies
    assert {name: n for name, n in sizes.items() if n > MAX_BODY_LINES} == {}
