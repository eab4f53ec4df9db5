"""``production_feedback`` and ``feedback_candidates`` materialized in-process on a temporary workdir:
a day of feedback read apart from the trace source, and an edit on a registered environment's
episode turned into a validated candidate environment a person can import, built from the redacted
corpus so no secret of the agent's or the user's reaches the table, its metadata or the artifacts."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pytest
from dagster import materialize

from trajectory_platform.assets.feedback import feedback_candidates, production_feedback
from trajectory_platform.assets.raw import raw_traces
from trajectory_platform.assets.redacted import redacted_corpus
from trajectory_platform.assets.verified import verified_traces
from trajectory_platform.checks.feedback import feedback_candidates_judged, production_feedback_rules
from trajectory_platform.environments.format import TaskEnvironment, load_environment, write_environment
from trajectory_platform.environments.registry import import_environments
from trajectory_platform.gym.sandbox import apply_diff, unified_diff
from trajectory_platform.resources import build_resources, read_asset_table
from trajectory_platform.traces.feedback import FEEDBACK_SCHEMA
from trajectory_platform.traces.record import Episode, Event, Outcome, TaskIdentity

pytestmark = pytest.mark.filterwarnings("ignore::dagster.PreviewWarning", "ignore::dagster.BetaWarning")

DAY = "2024-03-01"
OPS = "def add(a, b):\n    return a - b\n\n\ndef mul(a, b):\n    return a * b\n"
S0 = {"calc/__init__.py": "", "calc/ops.py": OPS}
WRONG = {**S0, "calc/ops.py": OPS.replace("a - b", "a - b  # checked")}
USER_FIX = {**S0, "calc/ops.py": OPS.replace("a - b", "b + a")}


def calc_env() -> TaskEnvironment:
    return TaskEnvironment(
        task_id="calc-add",
        statement="add() subtracts; fix it.",
        repo_family="calc",
        domain="bug_repair",
        license="MIT",
        tool_family="calc-tools",
        tools=[{"name": "edit_file", "description": "edit a file", "parameters": {"type": "object"}}],
        s0_files=dict(S0),
        sealed_tests={
            "tests/test_ops.py": "from calc.ops import add, mul\n\n\n"
            "def test_add():\n    assert add(2, 3) == 5\n\n\n"
            "def test_mul():\n    assert mul(2, 3) == 6\n"
        },
        tests_dir="tests",
        fail_to_pass=["tests/test_ops.py::test_add"],
        pass_to_pass=["tests/test_ops.py::test_mul"],
        oracle_timeout_s=10.0,
        references=[unified_diff(S0, {**S0, "calc/ops.py": OPS.replace("a - b", "a + b")})],
        python=">=3.11",
    )


def write_feedback(workdir: Path, lines: list[object], name: str = "fb.jsonl") -> Path:
    path = workdir / "feedback_source" / DAY / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(x if isinstance(x, str) else json.dumps(x) for x in lines) + "\n")
    return path


AWS_KEY = "AKIA" + "Z2X7C4V5B6N3M2K7"  # built at run time: no credential-shaped literal in the repository
GITHUB_TOKEN = "ghp_" + "Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4zA7bC"


def write_episode(workdir: Path, episode_id: str, final: dict[str, str]) -> None:
    episode = Episode(
        episode_id=episode_id,
        source_format="native",
        source_file="prod.jsonl",
        source_line=1,
        source_path=None,
        partition_date=None,
        task=TaskIdentity(fixture_id="calc-add"),
        events=[Event("user", content="add() subtracts; fix it."), Event("assistant", content="done")],
        outcome=Outcome(
            terminal_status="completed", final_answer="done", workspace_diff=unified_diff(S0, final)
        ),
    )
    path = workdir / "trace_source" / DAY / "prod.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a") as fh:
        fh.write(json.dumps(episode.to_dict()) + "\n")


def test_a_day_of_feedback_is_read_apart_from_the_traces_with_counted_drops(tmp_path: Path) -> None:
    write_feedback(
        tmp_path,
        [
            {"episode_id": "ep-1", "kind": "accepted"},
            {"episode_id": "ep-1", "kind": "rating", "stars": 4},
            {"episode_id": "ep-2", "kind": "thumbs_up"},
            "{oops",
        ],
    )
    resources = build_resources(tmp_path)
    result = materialize(
        [production_feedback, production_feedback_rules, raw_traces], partition_key=DAY, resources=resources
    )
    assert result.success
    checks = {e.check_name: e.passed for e in result.get_asset_check_evaluations()}
    assert checks["production_feedback_rules"]
    meta = result.asset_materializations_for_node("production_feedback")[0].metadata
    assert meta["records_in"].value == 4 and meta["kept"].value == 2
    assert meta["dropped_by_reason"].value == {"not_json": 1, "unknown_kind": 1}
    assert meta["counts_by_kind"].value["rating"] == 1 and meta["counts_by_kind"].value["accepted"] == 1
    assert meta["first_drops"].value == [
        f"{DAY}/fb.jsonl:3: field kind: missing or not one of accepted, edited, reverted, correction, "
        "retry, abandoned, rating",
        f"{DAY}/fb.jsonl:4: the line is not valid JSON",
    ]
    table = read_asset_table(tmp_path, "production_feedback")
    assert table is not None and table.num_rows == 2
    assert table["rating"].to_pylist() == [None, 0.75]
    traces = result.asset_materializations_for_node("raw_traces")
    assert next(m for m in traces if m.asset_key.path == ["raw_traces"]).metadata["records_in"].value == 0


def test_an_edit_on_a_registered_environment_becomes_a_candidate_to_import(tmp_path: Path) -> None:
    registry = tmp_path / "environments"
    [imported] = import_environments([write_environment(calc_env(), tmp_path / "brought")], registry, runs=1)
    assert imported.status == "imported", imported.reasons
    write_episode(tmp_path, "ep-edited", WRONG)
    write_episode(tmp_path, "ep-loved", WRONG)
    write_feedback(
        tmp_path,
        [
            {"episode_id": "ep-edited", "kind": "edited", "edit_diff": unified_diff(WRONG, USER_FIX)},
            {"episode_id": "ep-edited", "kind": "correction", "turn_index": 1},
            {"episode_id": "ep-loved", "kind": "rating", "rating": 1.0},
            {"episode_id": "ep-elsewhere", "kind": "accepted"},
        ],
    )
    result = materialize_candidates(tmp_path)
    assert [(e.check_name, e.passed) for e in result.get_asset_check_evaluations()] == [
        ("feedback_candidates_judged", True)
    ]
    meta = result.asset_materializations_for_node("feedback_candidates")[0].metadata
    assert (meta["linked"].value, meta["unlinked"].value) == (3, 1)
    assert meta["candidates"].value == {"validated": 1}
    assert meta["candidate_t_div"].value == [
        {"episode_id": "ep-edited", "turn_index": 1, "source": f"{DAY}/fb.jsonl:2"}
    ]
    assert [row["episode_id"] for row in meta["top_ranked"].value] == ["ep-loved", "ep-edited"]
    rows = read_asset_table(tmp_path, "feedback_candidates").to_pylist()
    assert [(r["episode_id"], r["status"], r["base_task_id"]) for r in rows] == [
        ("ep-edited", "validated", "calc-add")
    ]
    assert apply_diff(S0, rows[0]["reference_diff"]) == USER_FIX
    [written] = list((tmp_path / "artifacts" / "feedback_candidates").iterdir())
    proposed = load_environment(written)
    assert proposed.task_id == rows[0]["task_id"] and proposed.digest == rows[0]["environment_digest"]
    [registered] = import_environments([written], registry, runs=1)
    assert registered.status == "imported", registered.reasons


def materialize_candidates(workdir: Path):
    """Ingest, verify and redact the day, read its feedback, then materialize ``feedback_candidates``."""
    resources = build_resources(workdir)
    assert materialize([raw_traces, production_feedback], partition_key=DAY, resources=resources).success
    curated = materialize(
        [raw_traces, verified_traces, redacted_corpus],
        selection=["verified_traces", "triage_report", "redacted_corpus", "redaction_rejects"],
        resources=resources,
        partition_key=DAY,
    )
    assert curated.success
    result = materialize(
        [
            raw_traces,
            verified_traces,
            redacted_corpus,
            production_feedback,
            feedback_candidates,
            feedback_candidates_judged,
        ],
        selection=["feedback_candidates"],
        resources=resources,
    )
    assert result.success
    return result


def test_candidates_are_built_from_the_redacted_corpus_not_the_verified_traces() -> None:
    """The lineage a person sees in Dagster: feedback and the redaction stage's outputs (the corpus
    and the episodes it left out), nothing before redaction."""
    upstream = {key.to_user_string() for key in feedback_candidates.asset_deps[feedback_candidates.key]}
    assert upstream == {"production_feedback", "redacted_corpus", "redaction_rejects"}


def test_no_secret_of_the_agent_or_the_user_reaches_the_candidates_table_metadata_or_artifacts(
    tmp_path: Path,
) -> None:
    """The agent wrote its AWS key into deploy.env; the user's edit fixes the bug, keeps the key's
    line as context, adds a line beside it and pastes a token into a note. The candidate validates,
    and no byte of either secret is in what the asset stores, reports or writes."""
    registry = tmp_path / "environments"
    [imported] = import_environments([write_environment(calc_env(), tmp_path / "brought")], registry, runs=1)
    assert imported.status == "imported", imported.reasons
    agent = {**WRONG, "deploy.env": f"AWS_ACCESS_KEY_ID={AWS_KEY}\n"}
    user = {
        **USER_FIX,
        "deploy.env": f"AWS_ACCESS_KEY_ID={AWS_KEY}\nAWS_REGION=eu-west-1\n",
        "NOTES.md": f"reviewed; token {GITHUB_TOKEN}\n",
    }
    write_episode(tmp_path, "ep-secret", agent)
    write_feedback(
        tmp_path, [{"episode_id": "ep-secret", "kind": "edited", "edit_diff": unified_diff(agent, user)}]
    )
    result = materialize_candidates(tmp_path)
    rows = read_asset_table(tmp_path, "feedback_candidates").to_pylist()
    assert [(r["episode_id"], r["status"]) for r in rows] == [("ep-secret", "validated")]
    built = apply_diff(S0, rows[0]["reference_diff"])
    assert built["calc/ops.py"] == USER_FIX["calc/ops.py"]
    assert (
        built["deploy.env"].endswith("\nAWS_REGION=eu-west-1\n")
        and "<REDACTED_GITHUB_TOKEN:" in built["NOTES.md"]
    )
    needles = [secret.encode() for secret in (AWS_KEY, GITHUB_TOKEN)]
    stored = json.dumps(rows).encode()
    metadata = json.dumps(
        {
            k: v.value
            for k, v in result.asset_materializations_for_node("feedback_candidates")[0].metadata.items()
        },
        default=str,
    ).encode()
    artifacts = tmp_path / "artifacts" / "feedback_candidates"
    written = [p.read_bytes() for p in sorted(artifacts.rglob("*")) if p.is_file()]
    assert written, "the validated candidate is written for review"
    for blob in (stored, metadata, *written):
        assert not [needle for needle in needles if needle in blob]


def test_the_feedback_check_catches_rows_the_reader_would_have_refused() -> None:
    rows = [
        {"episode_id": "e", "kind": "rating", "rating": 4.0, "source_file": "f", "source_line": 1},
        {"episode_id": "e", "kind": "accepted", "rating": 0.5, "source_file": "f", "source_line": 2},
        {"episode_id": "e", "kind": "correction", "source_file": "f", "source_line": 3},
        {"episode_id": "e", "kind": "liked", "source_file": "f", "source_line": 4},
    ]
    result = production_feedback_rules(pa.Table.from_pylist(rows, schema=FEEDBACK_SCHEMA))
    assert not result.passed
    assert result.metadata["broken_by_rule"].value == {
        "unknown_kind": 1,
        "bad_rating": 2,
        "missing_edit_diff": 0,
        "missing_turn_index": 1,
    }
