"""The shipped real-project example: environments built from installed libraries, logs recorded in
the sandbox, and what the verifier and the redaction engine make of them."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from trajectory_platform.cli import main
from trajectory_platform.curation.redact.episode import redact_episode
from trajectory_platform.curation.verify.cascade import CascadeConfig, fixtures_lookup, verify_episodes
from trajectory_platform.environments import real_projects as rp
from trajectory_platform.environments.format import load_environment
from trajectory_platform.environments.registry import import_environments
from trajectory_platform.environments.validate import validate_environment
from trajectory_platform.traces.ingest import ingest_paths


@pytest.fixture(scope="module")
def example(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, rp.Example]:
    out = tmp_path_factory.mktemp("example")
    return out, rp.build_example(out)


def _tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_three_real_libraries_each_with_its_own_task() -> None:
    assert len({p.distribution for p in rp.PROJECTS}) >= 3
    assert len({p.task_id for p in rp.PROJECTS}) == len(rp.PROJECTS)
    kinds = {s.kind for s in rp.SCRIPTS}
    assert kinds == {"success", "recovery", "failure", "secret"}
    assert {s.log_format for s in rp.SCRIPTS} == {"swe-agent", "openai"}


def test_a_library_at_another_version_is_refused() -> None:
    moved = replace(rp.PROJECTS[0], version="0.0.1")
    with pytest.raises(rp.RealProjectError, match=r"pinned to 0\.0\.1 \(pyproject\.toml\)"):
        rp.build_environment(moved)


def test_a_bug_edit_that_no_longer_matches_is_refused() -> None:
    project = rp.PROJECTS[0]
    stale = replace(project, bug=(rp.Edit(project.files[0], "text no release contains", "x"),))
    with pytest.raises(rp.RealProjectError, match="matches 0 places"):
        rp.build_environment(stale)


def test_the_example_key_has_real_shapes_and_is_not_stored_here() -> None:
    key_id, secret = rp.fake_aws_credentials()
    assert key_id.startswith("AKIA") and len(key_id) == 20 and key_id.isupper()
    assert len(secret) == 40
    shipped = [rp.DATA_DIR, Path(rp.__file__)]
    texts = [p.read_text() for root in shipped for p in ([root] if root.is_file() else root.rglob("*.py"))]
    assert not any(key_id in t or secret in t for t in texts)


def test_build_is_deterministic_and_env_example_writes_it(
    example: tuple[Path, rp.Example], tmp_path: Path
) -> None:
    out, _ = example
    assert main(["env", "example", "--out", str(tmp_path)]) == 0
    first, second = _tree(out), _tree(tmp_path)
    assert first == second
    assert any(path.endswith(".traj") for path in first) and any(path.endswith(".jsonl") for path in first)


def test_each_environment_validates_the_oracle_rejects_s0_and_accepts_the_library(
    example: tuple[Path, rp.Example],
) -> None:
    _, built = example
    assert len(built.environments) == len(rp.PROJECTS)
    for path in built.environments:
        env = load_environment(path)
        verdict = validate_environment(env, runs=1)
        assert verdict.ok, (env.task_id, verdict.reasons)
        assert verdict.rejects_s0 and verdict.accepts_references
        assert env.fixture().source == "environment" and env.replay.shell


def test_logs_parse_with_the_real_adapters_and_name_their_task(example: tuple[Path, rp.Example]) -> None:
    _, built = example
    result = ingest_paths(built.logs)
    assert not result.rejects
    by_format = {e.source_format: e for e in result.episodes}
    assert set(by_format) == {"swe-agent", "openai"}
    tasks = {e.task.fixture_id for e in result.episodes}
    assert tasks == {p.task_id for p in rp.PROJECTS}
    for episode in result.episodes:
        tool_events = [e for e in episode.events if e.kind == "tool"]
        assert tool_events and any(e.tool_calls for e in episode.events if e.kind == "assistant")
    swe = [e for e in result.episodes if e.source_format == "swe-agent"]
    assert all(e.outcome.workspace_diff for e in swe)


def test_every_log_records_its_final_workspace_diff(example: tuple[Path, rp.Example]) -> None:
    _, built = example
    for log in built.logs:
        if log.suffix == ".traj":
            diff = json.loads(log.read_text())["info"]["submission"]
        else:
            diff = json.loads(log.read_text().splitlines()[0])["metadata"]["workspace_diff"]
        assert diff.startswith("diff --git a/"), log.name


def test_the_secret_is_seen_by_the_agent_and_removed_by_redaction(example: tuple[Path, rp.Example]) -> None:
    _, built = example
    key_id, secret = rp.fake_aws_credentials()
    secret_log = next(p for p in built.logs if p.stem == "toposort-secret")
    assert key_id in secret_log.read_text()
    (episode,) = ingest_paths([secret_log]).episodes
    redacted, findings = redact_episode(episode, b"test-salt")
    assert findings
    text = json.dumps(redacted.to_dict())
    assert key_id not in text and secret not in text


@pytest.fixture(scope="module")
def outcomes(example: tuple[Path, rp.Example], tmp_path_factory: pytest.TempPathFactory) -> dict:
    """(sink, role) per script name, from the real cascade over the registered environments."""
    _, built = example
    registry = tmp_path_factory.mktemp("registry") / "environments"
    imports = import_environments(built.environments, registry, runs=1)
    assert [r.status for r in imports] == ["imported"] * len(rp.PROJECTS)
    episodes = ingest_paths(built.logs).episodes
    config = CascadeConfig(lint=False, cost_monolithic=False, progress=False)
    result = verify_episodes(episodes, fixtures_lookup(0, registry), config)
    names = {e.episode_id: Path(e.source_file).name.split(".")[0] for e in episodes}
    return {names[v.episode_id]: (v.sink, v.role) for v in result.verdicts}


def test_success_failure_and_secret_episodes_land_in_their_sinks(outcomes: dict) -> None:
    assert outcomes["toposort-success"] == ("admitted", "pristine")
    assert outcomes["tomli-failure"] == ("hard_negative", "hard_negative")
    assert outcomes["toposort-secret"] == ("admitted", "pristine")


def test_the_recovery_episode_is_admitted_as_recovery(outcomes: dict) -> None:
    assert outcomes["mdurl-recovery"] == ("admitted", "recovery")


def test_lay_example_imports_once_and_leaves_unchanged_logs_alone(tmp_path: Path) -> None:
    registry, traces = tmp_path / "environments", tmp_path / "trace_source"
    first = rp.lay_example(registry, traces)
    assert first.logs_updated == len(rp.SCRIPTS)
    assert sorted(r.status for r in first.imports) == ["imported"] * len(rp.PROJECTS)
    laid = sorted((traces / rp.TRACE_DAY / "real_projects").iterdir())
    mtimes = [p.stat().st_mtime_ns for p in laid]
    second = rp.lay_example(registry, traces)
    assert second.logs_updated == 0
    assert [r.status for r in second.imports] == ["unchanged"] * len(rp.PROJECTS)
    assert [p.stat().st_mtime_ns for p in laid] == mtimes
