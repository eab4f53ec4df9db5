"""Sandbox isolation and cleanup, diffs, the clean interpreter, and limits of the sealed oracle."""

from __future__ import annotations

import dataclasses
import os
import time

import pytest

from trajectory_platform.gym.fixtures import Fixture, Step
from trajectory_platform.gym.oracle import run_oracle
from trajectory_platform.gym.sandbox import SandboxError, Workspace, apply_diff, s0_digest, unified_diff

S0 = {
    "pkg/__init__.py": "",
    "pkg/core.py": "def double(x):\n    return x + x\n\n\ndef half(x):\n    return x / 3\n",
    "tests/test_core.py": "from pkg.core import double\n\n\ndef test_double():\n    assert double(4) == 8\n",
}
SEALED = {
    "tests/test_core.py": (
        "from pkg.core import double, half\n\n\ndef test_double():\n    assert double(4) == 8\n\n\n"
        "def test_half():\n    assert half(8) == 4\n"
    )
}


def make_fixture(**changes) -> Fixture:
    reference = {**S0, "pkg/core.py": S0["pkg/core.py"].replace("x / 3", "x / 2")}
    base = Fixture(
        fixture_id="sandbox-test",
        repo_family="pkg",
        tool_family="path",
        domain="bug_repair",
        license="MIT",
        prompt="half() is wrong",
        s0_files=dict(S0),
        sealed_tests=SEALED,
        fail_to_pass=["tests/test_core.py::test_half"],
        pass_to_pass=["tests/test_core.py::test_double"],
        reference_files=reference,
        plan=[Step("answer", answer="done")],
    )
    return dataclasses.replace(base, **changes)


def test_oracle_rejects_s0_accepts_reference_and_cleans_up(tmp_path, monkeypatch):
    monkeypatch.setenv("TP_GYM_TMPDIR", str(tmp_path))
    fixture = make_fixture()
    rejected = run_oracle(fixture, fixture.s0_files)
    accepted = run_oracle(fixture, fixture.reference_files)
    assert not rejected.passed and rejected.fail_to_pass == {"tests/test_core.py::test_half": "failed"}
    assert rejected.pass_to_pass == {"tests/test_core.py::test_double": "passed"}
    assert accepted.passed and accepted.exit_codes == [0] and not accepted.timed_out
    assert accepted.wall_s < 2.0
    assert not list(tmp_path.iterdir()), "no temp directory may outlive an oracle run"


def test_oracle_accepts_the_diff_form_and_refuses_a_diff_that_does_not_apply():
    fixture = make_fixture()
    diff = unified_diff(fixture.s0_files, fixture.reference_files)
    assert run_oracle(fixture, diff).passed
    broken = diff.replace("-    return x / 3", "-    return x / 7")
    result = run_oracle(fixture, broken)
    assert not result.passed and "does not apply" in result.error


def test_diff_round_trips_created_deleted_and_unterminated_files():
    before = {"a.txt": "one\ntwo\nthree\n", "gone.txt": "bye\n", "tail.txt": "no newline"}
    after = {"a.txt": "one\n2\nthree\nfour", "new/b.txt": "fresh\n", "tail.txt": "no newline\nnow\n"}
    diff = unified_diff(before, after)
    assert "--- /dev/null" in diff and "+++ /dev/null" in diff and "\\ No newline at end of file" in diff
    assert apply_diff(before, diff) == after
    assert apply_diff(before, "") == before
    with pytest.raises(SandboxError, match="context mismatch"):
        apply_diff({**before, "a.txt": "changed\n"}, diff)


def test_workspace_refuses_escapes_and_is_removed():
    with Workspace({"a.py": "x = 1\n"}) as ws:
        root = ws.root
        assert ws.reset_s < 0.5
        for bad in ("../outside.txt", "/etc/passwd", "a/../../x"):
            with pytest.raises(SandboxError):
                ws.resolve(bad)
        os.symlink("/etc", root / "link")
        with pytest.raises(SandboxError):
            ws.read("link/passwd")
        ws.write("sub/b.txt", "hi")
        assert ws.snapshot()["sub/b.txt"] == "hi"
    assert not root.exists()


def test_clean_interpreter_ignores_sitecustomize_and_environment(monkeypatch):
    monkeypatch.setenv("PYTHONPATH", "/nonexistent")
    monkeypatch.setenv("SECRET_TOKEN", "leak")
    probe = (
        "import os, sys\n\n\ndef test_env():\n"
        "    assert 'SECRET_TOKEN' not in os.environ\n"
        "    assert 'sitecustomize_ran' not in os.environ\n"
        "    assert not any('site-packages' in p for p in sys.path)\n"
        "    assert sys.flags.isolated and sys.flags.no_site\n"
    )
    fixture = make_fixture(
        sealed_tests={**SEALED, "tests/test_env.py": probe},
        pass_to_pass=["tests/test_core.py::test_double", "tests/test_env.py::test_env"],
    )
    workspace = {
        **fixture.reference_files,
        "sitecustomize.py": "import os\nos.environ['sitecustomize_ran'] = '1'\n",
        "usercustomize.py": "raise SystemExit(3)\n",
    }
    result = run_oracle(fixture, workspace)
    assert result.pass_to_pass["tests/test_env.py::test_env"] == "passed"
    assert result.passed


def test_timeouts_and_memory_limits_are_enforced():
    slow = {
        **make_fixture().reference_files,
        "pkg/core.py": "def double(x):\n    while True:\n        pass\n\n\ndef half(x):\n    return x / 2\n",
    }
    start = time.perf_counter()
    result = run_oracle(make_fixture(), slow, timeout_s=1.0)
    assert result.timed_out and not result.passed and time.perf_counter() - start < 5
    hog = {
        **make_fixture().reference_files,
        "pkg/core.py": "def double(x):\n    b = bytearray(4 << 30)\n    return 8\n\n\ndef half(x):\n"
        "    return x / 2\n",
    }
    result = run_oracle(make_fixture(), hog)
    assert result.pass_to_pass["tests/test_core.py::test_double"] == "error" and not result.passed


def test_s0_digest_is_content_addressed():
    assert s0_digest(S0) == s0_digest(dict(reversed(list(S0.items()))))
    assert s0_digest(S0) != s0_digest({**S0, "pkg/__init__.py": " "})
    assert s0_digest({"ab": "c"}) != s0_digest({"a": "bc"})
