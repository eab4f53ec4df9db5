"""The environment format: load / write round trip, the digest, the fixture, and every refusal."""

from __future__ import annotations

import json
import os
import shutil
import tarfile
from dataclasses import replace

import pytest
from env_factory import FIXED, FIXED_OTHER, S0, TASK_ID, make_env, spec

from trajectory_platform.curation.verify.dynamic import fixture_context
from trajectory_platform.environments.format import (
    EnvironmentFormatError,
    load_environment,
    write_environment,
)


def test_round_trip_keeps_content_and_digest(tmp_path):
    env = load_environment(make_env(tmp_path / "in"))
    written = write_environment(env, tmp_path / "out" / "copy")
    again = load_environment(written)
    assert again == env
    assert again.digest == env.digest and env.digest.startswith("sha256:")
    assert sorted(p.name for p in (written / "references").iterdir()) == ["000.diff", "001.diff"]
    with pytest.raises(FileExistsError):
        write_environment(env, written)


def test_digest_is_independent_of_the_path_and_follows_every_file(tmp_path):
    first = make_env(tmp_path / "a")
    moved = tmp_path / "somewhere" / "else"
    shutil.copytree(first, moved)
    digest = load_environment(first).digest
    assert load_environment(moved).digest == digest
    (moved / "sealed_tests" / "test_ops.py").write_text(
        (moved / "sealed_tests" / "test_ops.py").read_text() + "\n# changed\n"
    )
    assert load_environment(moved).digest != digest
    spec_path = first / "environment.json"
    spec_path.write_text(json.dumps({**json.loads(spec_path.read_text()), "statement": "other"}))
    assert load_environment(first).digest != digest


def test_a_workspace_archive_stands_for_the_folder(tmp_path):
    folder = make_env(tmp_path / "a")
    archived = make_env(tmp_path / "b")
    with tarfile.open(archived / "workspace.tar.gz", "w:gz") as tar:
        tar.add(archived / "workspace", arcname=".")
    shutil.rmtree(archived / "workspace")
    assert load_environment(archived).digest == load_environment(folder).digest


def test_fixture_is_the_gym_shape_with_the_environments_own_parts(tmp_path):
    env = load_environment(make_env(tmp_path, replay={"shell": True, "normalize": [r"\d+ms"]}))
    fixture = env.fixture()
    assert fixture.source == "environment" and fixture.fixture_id == TASK_ID
    assert fixture.environment_digest == env.digest
    assert fixture.reference_files == {**S0, "calc/ops.py": FIXED}
    assert fixture.extra_references == [{**S0, "calc/ops.py": FIXED_OTHER}]
    assert fixture.plan == [] and fixture.tools == env.tools
    assert fixture.tool_manifest[0]["name"] == "run_shell"
    assert fixture.replay is not None and fixture.replay.shell and fixture.replay.normalize == (r"\d+ms",)
    assert fixture.sealed_tests.keys() == {"tests/test_ops.py"}
    assert fixture.edited_paths == ["calc/ops.py"]
    # the task's declared oracle time limit is the one the verifier runs it under (and re-runs by)
    assert fixture.oracle_timeout_s == env.oracle_timeout_s
    assert fixture_context(fixture).timeout_s(default=1.0) == env.oracle_timeout_s
    assert fixture_context(replace(fixture, oracle_timeout_s=None)).timeout_s(default=1.0) == 1.0


def test_tools_folder_becomes_the_replay_implementation(tmp_path):
    env_dir = make_env(tmp_path, replay={"shell": False, "tools_entry_point": "acme_tools:call"})
    (env_dir / "tools").mkdir()
    (env_dir / "tools" / "acme_tools.py").write_text("def call(name, arguments, root):\n    return ''\n")
    env = load_environment(env_dir)
    assert env.replay.tools_files == {"acme_tools.py": "def call(name, arguments, root):\n    return ''\n"}
    assert load_environment(write_environment(env, tmp_path / "copy")) == env


def _oracle(**changes: object) -> dict:
    return {**spec()["oracle"], **changes}


SPEC_ERRORS = [
    (
        {"oracle": _oracle(fail_to_pass=[])},
        "environment.json: oracle.fail_to_pass: must be a non-empty list of test ids",
    ),
    ({"format_version": 2}, "format_version: unsupported version 2; this platform reads format_version 1"),
    ({"oracel": {}}, "oracel: unknown key"),
    ({"oracle": {**_oracle(), "timeout": 3}}, "oracle.timeout: unknown key"),
    ({"oracle": _oracle(pass_to_pass=[])}, "oracle.pass_to_pass: must be a non-empty list"),
    ({"oracle": _oracle(timeout_s=0)}, "oracle.timeout_s: must be a number of seconds"),
    ({"oracle": _oracle(tests_dir="../tests")}, "oracle.tests_dir: '../tests' must be a plain relative path"),
    (
        {"oracle": _oracle(fail_to_pass=["tests/test_ops.py::test_nothing"])},
        "oracle.fail_to_pass: tests/test_ops.py::test_nothing: no module-level function test_nothing",
    ),
    (
        {"oracle": _oracle(pass_to_pass=["tests/test_io.py::test_read"])},
        "oracle.pass_to_pass: tests/test_io.py::test_read: no such sealed test file "
        "(expected sealed_tests/test_io.py)",
    ),
    ({"oracle": _oracle(fail_to_pass=["test_add"])}, "oracle.fail_to_pass: 'test_add' is not a test id"),
    ({"statement": ""}, "statement: must be a non-empty string"),
    ({"tools": [{"name": "x", "parameters": []}]}, "tools[0].parameters: must be a JSON Schema object"),
    ({"runtime": {"python": "3.11+"}}, "runtime.python: not a version specifier"),
    ({"runtime": {"packages": ["requests>=2"]}}, "runtime.packages: 'requests>=2' is not a module name"),
    ({"replay": {"normalize": ["("]}}, "replay.normalize[0]: not a regular expression"),
    ({"replay": {"tools_entry_point": "acme:call"}}, "replay.tools_entry_point: acme:call: no tools/acme.py"),
]


@pytest.mark.parametrize(("changes", "message"), SPEC_ERRORS, ids=[m.split(":")[0] for _, m in SPEC_ERRORS])
def test_spec_errors_name_the_file_and_the_field(tmp_path, changes, message):
    env_dir = make_env(tmp_path, **changes)
    with pytest.raises(EnvironmentFormatError) as caught:
        load_environment(env_dir)
    assert caught.value.path == str(env_dir / "environment.json")
    assert message.removeprefix("environment.json: ") in caught.value.reason
    assert str(caught.value) == f"{caught.value.path}: {caught.value.reason}"


def test_unreadable_spec_files(tmp_path):
    env_dir = make_env(tmp_path)
    (env_dir / "environment.json").write_text('{"format_version": 1,\n  "task_id": }')
    with pytest.raises(EnvironmentFormatError, match=r"environment.json: not valid JSON: line 2 column"):
        load_environment(env_dir)
    (env_dir / "environment.json").unlink()
    with pytest.raises(EnvironmentFormatError, match="environment.json: missing"):
        load_environment(env_dir)


def test_binary_workspace_file_is_refused_with_its_path(tmp_path):
    env_dir = make_env(tmp_path)
    (env_dir / "workspace" / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n\0\0")
    with pytest.raises(EnvironmentFormatError) as caught:
        load_environment(env_dir)
    assert (
        caught.value.path == str(env_dir / "workspace" / "logo.png") and "binary file" in caught.value.reason
    )


def test_links_out_of_the_directory_are_refused(tmp_path):
    env_dir = make_env(tmp_path)
    outside = tmp_path / "secret.txt"
    outside.write_text("not yours")
    os.symlink(outside, env_dir / "workspace" / "leak.txt")
    with pytest.raises(EnvironmentFormatError, match="leak.txt: only plain files"):
        load_environment(env_dir)


def test_archive_members_escaping_the_workspace_are_refused(tmp_path):
    env_dir = make_env(tmp_path)
    evil = tmp_path / "evil.py"
    evil.write_text("x = 1\n")
    with tarfile.open(env_dir / "workspace.tar.gz", "w:gz") as tar:
        tar.add(evil, arcname="../evil.py")
    shutil.rmtree(env_dir / "workspace")
    with pytest.raises(
        EnvironmentFormatError, match=r"workspace.tar.gz!../evil.py: path escapes the workspace"
    ):
        load_environment(env_dir)


def test_reference_problems_name_the_diff(tmp_path):
    env_dir = make_env(tmp_path)
    (env_dir / "references" / "01.diff").write_text(
        "--- a/calc/ops.py\n+++ b/calc/ops.py\n@@ -1,2 +1,2 @@\n"
        " def sub(a, b):\n-    return 0\n+    return 1\n"
    )
    with pytest.raises(EnvironmentFormatError) as caught:
        load_environment(env_dir)
    assert caught.value.path == str(env_dir / "references" / "01.diff")
    assert "does not apply to the workspace" in caught.value.reason
    for diff in (env_dir / "references").iterdir():
        diff.unlink()
    with pytest.raises(EnvironmentFormatError, match="references: no reference solution"):
        load_environment(env_dir)


def test_sealed_test_that_does_not_parse_names_its_line(tmp_path):
    env_dir = make_env(tmp_path, sealed={"test_ops.py": "def test_add(:\n    pass\n"})
    with pytest.raises(EnvironmentFormatError, match=r"sealed_tests/test_ops.py: line 1: does not parse"):
        load_environment(env_dir)
