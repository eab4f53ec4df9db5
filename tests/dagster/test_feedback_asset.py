"""``production_feedback`` and ``feedback_candidates`` materialized in-process on a temporary workdir:
a day of feedback read apart from the trace source, and an edit on a registered environment's
episode turned into a validated candidate environment a person can import."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pytest
from dagster import materialize

from trajectory_platform.assets.feedback import feedback_candidates, production_feedback
from trajectory_platform.assets.raw import raw_traces
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
    resources = build_resources(tmp_path)
    assert materialize([raw_traces, production_feedback], partition_key=DAY, resources=resources).success
    verified = materialize(
        [raw_traces, verified_traces],
        selection=["verified_traces", "triage_report"],
        resources=resources,
        partition_key=DAY,
    )
    assert verified.success
    result = materialize(
        [raw_traces, verified_traces, production_feedback, feedback_candidates, feedback_candidates_judged],
        selection=["feedback_candidates"],
        resources=resources,
    )
    assert result.success
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
