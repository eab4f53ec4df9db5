"""The registry: import validates and registers, the catalog serves fixtures, the cascade's lookup
finds gym ids and environment ids alike; and the ``env`` CLI around them."""

from __future__ import annotations

import json
import shutil

import pytest
from env_factory import TASK_ID, make_env

from trajectory_platform.cli import main
from trajectory_platform.curation.verify.cascade import fixtures_lookup
from trajectory_platform.environments.format import EnvironmentFormatError, load_environment
from trajectory_platform.environments.registry import (
    EnvironmentCatalog,
    import_environments,
    read_index,
    safe_dirname,
)
from trajectory_platform.gym.library import build_library


def test_import_registers_valid_environments_and_refuses_the_others(tmp_path):
    good = make_env(tmp_path / "src", "good")
    bad = make_env(tmp_path / "src", "bad", task_id="acme/broken", oracle={"fail_to_pass": []})
    registry = tmp_path / "registry"
    results = import_environments([good, bad], registry, runs=1)
    assert [r.status for r in results] == ["imported", "refused"]
    assert "oracle.fail_to_pass" in results[1].reasons[0]
    digest = load_environment(good).digest
    assert read_index(registry) == {TASK_ID: digest}
    assert (registry / "index.json").read_text() == json.dumps({TASK_ID: digest}, indent=2) + "\n"
    assert load_environment(registry / safe_dirname(TASK_ID)).digest == digest

    again = import_environments([good], registry, runs=1)
    assert [r.status for r in again] == ["unchanged"]

    changed = make_env(tmp_path / "src", "changed", statement="Another task under the same id.")
    refused = import_environments([changed], registry, runs=1)[0]
    assert refused.status == "refused" and "already registered with other content" in refused.reasons[0]
    assert read_index(registry) == {TASK_ID: digest}

    gym_id = build_library(0)[0].fixture_id
    shadowed = make_env(tmp_path / "src", "shadowed", task_id=gym_id)
    refused = import_environments([shadowed], registry, runs=1)[0]
    assert refused.status == "refused" and "is a gym fixture's id" in refused.reasons[0]
    assert gym_id not in read_index(registry)


def test_safe_dirnames_keep_distinct_ids_apart():
    assert safe_dirname("a/b") != safe_dirname("a_b")
    assert "/" not in safe_dirname("../../etc") and not safe_dirname("../../etc").startswith(".")


@pytest.fixture
def registry(tmp_path):
    root = tmp_path / "registry"
    assert import_environments([make_env(tmp_path / "src")], root, runs=1)[0].status == "imported"
    return root


def test_catalog_and_lookup_resolve_gym_and_environment_ids(registry):
    catalog = EnvironmentCatalog(registry)
    [env] = catalog.environments()
    assert env.task_id == TASK_ID and catalog.get("acme/unknown") is None
    fixture = catalog.fixture(TASK_ID)
    assert fixture is not None and fixture is catalog.fixture(TASK_ID)  # cached by digest

    gym_id = build_library(0)[0].fixture_id
    lookup = fixtures_lookup(0, registry)
    found_gym, found_env = lookup(gym_id), lookup(TASK_ID)
    assert found_gym is not None and found_gym.source == "gym"
    assert found_env is not None and found_env.source == "environment"
    assert found_env.environment_digest == env.digest
    assert lookup("acme/unknown") is None
    assert fixtures_lookup(0, None)(TASK_ID) is None
    assert fixtures_lookup(0, registry / "absent")(TASK_ID) is None


def test_an_environment_edited_after_registration_is_refused(registry):
    path = registry / safe_dirname(TASK_ID) / "sealed_tests" / "test_ops.py"
    path.write_text(path.read_text().replace("== 5", "!= 5"))
    with pytest.raises(EnvironmentFormatError, match="content changed since it was registered"):
        EnvironmentCatalog(registry).fixture(TASK_ID)


def _summary(capsys) -> tuple[list[str], dict]:
    lines = capsys.readouterr().out.strip().splitlines()
    return lines[:-1], json.loads(lines[-1])


def test_cli_validate_import_list(tmp_path, capsys):
    good = make_env(tmp_path / "src", "good")
    assert main(["env", "validate", str(good), "--runs", "1"]) == 0
    lines, summary = _summary(capsys)
    assert lines == [f"{good}\t{TASK_ID}\tok"] and summary["ok"] == 1 and summary["refused"] == 0

    bad = make_env(tmp_path / "src", "bad", oracle={"fail_to_pass": []})
    assert main(["env", "validate", str(good), str(bad), "--runs", "1"]) == 1
    lines, summary = _summary(capsys)
    assert lines[1].startswith(f"{bad}\tbad\trefused: ") and "oracle.fail_to_pass" in lines[1]
    assert summary["refused"] == 1 and summary["results"][1]["reasons"]

    registry = tmp_path / "registry"
    assert main(["env", "import", str(good), "--registry", str(registry), "--runs", "1"]) == 0
    _, summary = _summary(capsys)
    assert summary["imported"] == 1 and read_index(registry).keys() == {TASK_ID}
    assert main(["env", "import", str(bad), "--registry", str(registry), "--runs", "1"]) == 1
    assert _summary(capsys)[1]["refused"] == 1

    assert main(["env", "list", "--registry", str(registry)]) == 0
    lines, summary = _summary(capsys)
    assert summary["environments"] == 1 and summary["entries"][0]["task_id"] == TASK_ID
    assert lines[0].startswith(f"{TASK_ID}\tsha256:")


def test_cli_import_defaults_to_the_workdirs_registry(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("TRAJECTORY_PLATFORM_WORKDIR", str(tmp_path / "work"))
    env_dir = make_env(tmp_path / "src")
    shutil.copytree(env_dir, tmp_path / "copy")
    assert main(["env", "import", str(env_dir), str(tmp_path / "copy"), "--runs", "1"]) == 0
    _, summary = _summary(capsys)
    assert (summary["imported"], summary["unchanged"]) == (1, 1)
    assert read_index(tmp_path / "work" / "environments").keys() == {TASK_ID}
    assert main(["env", "list"]) == 0 and _summary(capsys)[1]["environments"] == 1


def test_verify_refuses_a_registry_that_is_not_there(tmp_path, capsys):
    logs = make_env(tmp_path / "src") / "environment.json"  # any existing path: the registry is checked first
    assert main(["verify", str(logs), "--out", str(tmp_path / "out"), "--envs", str(tmp_path / "nope")]) == 2
    assert f"{tmp_path / 'nope'}: no such environment registry" in capsys.readouterr().err
