"""A small brought environment on disk: a calculator whose ``add`` subtracts, sealed tests, two
reference diffs. ``make_env`` writes it under a folder with any spec key or file overridden."""

from __future__ import annotations

import json
from pathlib import Path

from trajectory_platform.gym.sandbox import unified_diff

BUGGY = "def add(a, b):\n    return a - b\n\n\ndef mul(a, b):\n    return a * b\n"
FIXED = BUGGY.replace("return a - b", "return a + b")
FIXED_OTHER = BUGGY.replace("return a - b", "return b + a")
S0 = {"calc/__init__.py": "", "calc/ops.py": BUGGY, "README.md": "A calculator.\n"}
SEALED = {
    "test_ops.py": (
        "from calc.ops import add, mul\n\n\n"
        "def test_add():\n    assert add(2, 3) == 5\n\n\n"
        "def test_mul():\n    assert mul(2, 3) == 6\n"
    )
}
TASK_ID = "acme/calc-add"
TOOLS = [
    {
        "name": "run_shell",
        "description": "Run a shell command in the repository.",
        "parameters": {"type": "object", "properties": {"cmd": {"type": "string"}}, "required": ["cmd"]},
    }
]


def spec(**overrides: object) -> dict:
    base: dict = {
        "format_version": 1,
        "task_id": TASK_ID,
        "statement": "add() returns the wrong sum; fix it.",
        "repo_family": "calc",
        "domain": "bug_repair",
        "license": "MIT",
        "tool_family": "acme-shell",
        "tools": TOOLS,
        "oracle": {
            "tests_dir": "tests",
            "fail_to_pass": ["tests/test_ops.py::test_add"],
            "pass_to_pass": ["tests/test_ops.py::test_mul"],
            "timeout_s": 10,
        },
        "runtime": {"python": ">=3.11", "packages": []},
        "replay": {"shell": True, "tools_entry_point": None, "normalize": []},
        "depends_on": [],
        "reference_answer": None,
    }
    base.update(overrides)
    return base


def write_tree(folder: Path, files: dict[str, str]) -> None:
    for rel, content in files.items():
        path = folder / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content, encoding="utf-8")


def make_env(
    root: Path,
    name: str = "calc-env",
    *,
    s0: dict[str, str] | None = None,
    sealed: dict[str, str] | None = None,
    references: list[dict[str, str]] | None = None,
    **overrides: object,
) -> Path:
    """An environment directory ``root/name``; ``references`` are end states (diffed against S0)."""
    s0 = dict(S0 if s0 is None else s0)
    ends = (
        [{**s0, "calc/ops.py": FIXED}, {**s0, "calc/ops.py": FIXED_OTHER}]
        if references is None
        else references
    )
    env = root / name
    env.mkdir(parents=True)
    (env / "environment.json").write_text(json.dumps(spec(**overrides), indent=2), encoding="utf-8")
    write_tree(env / "workspace", s0)
    write_tree(env / "sealed_tests", SEALED if sealed is None else sealed)
    (env / "references").mkdir()
    for i, end in enumerate(ends):
        (env / "references" / f"{i:02d}.diff").write_text(unified_diff(s0, end), encoding="utf-8")
    return env
