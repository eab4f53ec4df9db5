"""The judge's warm start (gym/warm_start.py): the same verdicts as cold workers, on the library's
fixtures and on workspaces built to tell the two apart."""

from __future__ import annotations

import os

import pytest

from trajectory_platform.gym.judge import run_tests_in
from trajectory_platform.gym.library import build_library
from trajectory_platform.gym.oracle import run_oracle
from trajectory_platform.gym.sandbox import Workspace
from trajectory_platform.gym.warm_start import WarmStart, imported_names, imports_of_tests, plan


def _fixtures_one_per_family():
    seen, picked = set(), []
    for fixture in build_library(0):
        family = fixture.fixture_id.split("/")[0]
        if family not in seen:
            seen.add(family)
            picked.append(fixture)
    return picked


@pytest.mark.parametrize("fixture", _fixtures_one_per_family(), ids=lambda f: f.fixture_id.split("/")[0])
def test_warm_and_cold_workers_give_the_same_verdicts(fixture):
    for files in (fixture.s0_files, fixture.reference_files):
        warm = run_oracle(fixture, files, run_label="warm-vs-cold")
        cold = run_oracle(fixture, files, run_label="warm-vs-cold", warm=False)
        assert (warm.fail_to_pass, warm.pass_to_pass, warm.passed) == (
            cold.fail_to_pass,
            cold.pass_to_pass,
            cold.passed,
        )


def _messages(files: dict[str, str], ids: list[str], *, warm: bool = True) -> dict[str, str]:
    with Workspace(files) as ws:
        results = run_tests_in(ws.root, ids=ids, warm=warm).results
    return {tid: f"{r['status']}: {r['message']}" for tid, r in results.items()}


def test_plan_warms_what_the_tests_reach_and_compiles_the_workspace_modules_they_import(tmp_path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("from .core import f\n")
    (tmp_path / "pkg" / "core.py").write_text("import json\nimport ctypes\n")
    (tmp_path / "unused.py").write_text("import asyncio\n")
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_a.py").write_text("import pathlib, os.path as p\nfrom pkg import f\n")
    os.symlink("/etc/hostname", tmp_path / "pkg" / "linked.py")
    assert plan(tmp_path, "tests") == WarmStart(
        modules=("json", "os", "pathlib"), sources=("pkg/__init__.py", "pkg/core.py")
    )
    (tmp_path / "json.py").write_text("")  # shadows the standard library's json for every worker
    assert plan(tmp_path, "tests").modules == ()


def test_imported_names_reads_import_lines_only():
    source = "import a.b, c as d\nfrom e.f import g\nfrom . import h\n  import i  # note\nx = 'import'\n"
    assert imported_names(source) == {"a", "c", "e", "i"}


def test_a_workspace_module_shadowing_the_standard_library_is_what_the_tests_import():
    files = {
        "json.py": "def dumps(obj):\n    return 'workspace json'\n",
        "tests/test_a.py": "import json\n\n\ndef test_x():\n    assert json.dumps(1) == 'workspace json'\n",
    }
    assert _messages(files, ["tests/test_a.py::test_x"]) == {"tests/test_a.py::test_x": "passed: "}


def test_each_test_gets_fresh_modules_and_a_fresh_random_state():
    body = (
        "import json\nimport random\nfrom pkg import core\n\n\n"
        "def test_a():\n    json.dumps = None\n    core.VALUE = 2\n    assert False, random.random()\n\n\n"
        "def test_b():\n    assert json.dumps is not None and core.VALUE == 1\n"
        "    assert False, random.random()\n"
    )
    files = {"pkg/__init__.py": "", "pkg/core.py": "VALUE = 1\n", "tests/test_a.py": body}
    ids = ["tests/test_a.py::test_a", "tests/test_a.py::test_b"]
    messages = _messages(files, ids)
    assert all(m.startswith("failed: AssertionError: 0.") for m in messages.values()), messages
    assert len(set(messages.values())) == 2, "every worker draws its own random numbers"


def test_a_module_a_test_rewrote_is_compiled_again():
    body = (
        "import pathlib\n\n\n"
        "def test_rewrite():\n    pathlib.Path('pkg/core.py').write_text('VALUE = 22\\n')\n\n\n"
        "def test_reads_the_new_source():\n    from pkg import core\n"
        "    assert core.VALUE == 22, core.VALUE\n"
    )
    files = {"pkg/__init__.py": "", "pkg/core.py": "VALUE = 1\n", "tests/test_a.py": body}
    ids = ["tests/test_a.py::test_rewrite", "tests/test_a.py::test_reads_the_new_source"]
    with Workspace(files) as ws:
        assert plan(ws.root, "tests").sources == ("pkg/core.py",)  # an empty __init__ has nothing to compile
    assert _messages(files, ids) == dict.fromkeys(ids, "passed: ")


def test_the_tests_own_imports_are_listed_dotted_and_never_the_workspaces(tmp_path):
    """What the comparison probe lets compare as it likes (``mock.ANY``): the modules the test
    files import, with the modules around them, and none of the workspace's own."""
    (tmp_path / "tests").mkdir()
    (tmp_path / "calc.py").write_text("import unittest.mock\n")
    (tmp_path / "tests" / "test_calc.py").write_text(
        "from unittest import mock\nimport xml.etree.ElementTree as ET, json\nfrom calc import add\n"
        "from . import helpers\n"
    )
    assert imports_of_tests(tmp_path, "tests") == (
        "json",
        "unittest",
        "unittest.mock",
        "xml",
        "xml.etree",
        "xml.etree.ElementTree",
    )
