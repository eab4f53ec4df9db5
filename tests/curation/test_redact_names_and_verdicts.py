"""A key written where a name or an id belongs (a tool's name, a participant's, the task id) is
pseudonymized like one in text, one name for the spec, its calls and their answers; and the
verifier's findings, which quote the record as it was before redaction, are redacted with their
episode, so a redacted corpus holds the key in no column."""

from __future__ import annotations

import dataclasses
import json

from _verify_factory import CALC_S0, FIXED_OPS, GYM, call, make_episode, make_fixture
from redact_factory import AWS_KEY, GITHUB_TOKEN, SALT

from trajectory_platform.curation.redact import redact_corpus, redact_episode
from trajectory_platform.curation.verify.cascade import CascadeConfig
from trajectory_platform.curation.verify.tables import verify_table
from trajectory_platform.traces.record import ToolSpec
from trajectory_platform.traces.schema import episodes_to_table

FIXTURE = make_fixture()
FIXED = {**CALC_S0, "calc/ops.py": FIXED_OPS}


def test_a_key_as_a_tool_participant_or_task_name_is_replaced_by_one_pseudonym():
    episode = make_episode("named", [([(GITHUB_TOKEN, "{}"), call("list_files", path=".")], [])])
    episode.tools.append(ToolSpec(GITHUB_TOKEN, "posts a note", "{}", "path@1.0"))
    episode.events[2].name = AWS_KEY
    episode.events.append(dataclasses.replace(episode.events[0], kind="tool", tool_name=GITHUB_TOKEN))
    episode.task.fixture_id = AWS_KEY
    redacted, findings = redact_episode(episode, SALT)
    stored = json.dumps(redacted.to_dict())
    assert GITHUB_TOKEN not in stored and AWS_KEY not in stored
    spec, call_name = redacted.tools[-1].name, redacted.events[2].tool_calls[0].name
    assert spec == call_name == redacted.events[-1].tool_name and spec.startswith("<REDACTED_GITHUB")
    assert redacted.task.fixture_id == redacted.events[2].name, "one key, one pseudonym"
    assert redacted.events[2].tool_calls[1].name == "list_files", "an ordinary name is left as it is"
    assert {f.field for f in findings} >= {"task.fixture_id", "tools[5].name", "events[2].name"}


def test_the_verifiers_quotes_of_a_key_are_redacted_with_their_episode():
    episodes = [
        make_episode("undeclared", [([(GITHUB_TOKEN, "{}")], [("ok", "x", 0)])], final_files=FIXED),
        make_episode(
            "schema",
            [
                (
                    [
                        call("read_file", file_path={"k": AWS_KEY}),
                        call("list_files", path=".", **{GITHUB_TOKEN: 1}),
                    ],
                    [],
                )
            ],
        ),
        make_episode("task", [([call("list_files", path=".")], [("ok", "x", 0)])], fixture_id=AWS_KEY),
    ]
    verified, _ = verify_table(
        episodes_to_table(episodes), lambda fid: FIXTURE if fid == "calc-add" else None, CascadeConfig()
    )
    before = json.dumps(
        verified.drop_columns([c for c in verified.column_names if c in ("events", "task")]).to_pylist()
    )
    assert GITHUB_TOKEN in before and AWS_KEY in before, "the verifier quotes the keys it read"
    rows = {r["episode_id"]: r for r in redact_corpus(verified, b"k" * 32).table.to_pylist()}
    for episode_id, row in rows.items():
        for column, value in row.items():
            text = json.dumps(value, default=str)
            assert GITHUB_TOKEN not in text and AWS_KEY not in text, f"{episode_id}.{column} keeps a key"
    (finding,) = json.loads(rows["undeclared"]["stage_verdicts_json"])[0]["findings"]
    assert rows["undeclared"]["events"][2]["tool_calls"][0]["name"] in finding["detail"], "the same pseudonym"
    assert rows["task"]["task"]["fixture_id"] in rows["task"]["stage_verdicts_json"], "unknown_task names it"


def test_the_triage_report_published_as_run_metadata_masks_a_key_its_subjects_quote():
    missing = make_episode(
        "missing",
        [([call("read_file", file_path=f"config/{GITHUB_TOKEN}.env")], [GYM])],
    )
    verified, result = verify_table(
        episodes_to_table([missing]), lambda fid: FIXTURE if fid == "calc-add" else None, CascadeConfig()
    )
    (group,) = result.triage.to_pylist()
    assert group["failure_class"] == "context_deficit" and group["subject"].startswith(
        "missing config/<REDACTED_"
    )
    assert GITHUB_TOKEN not in json.dumps(result.triage.to_pylist())
    assert GITHUB_TOKEN in verified.column("triage_subject")[0].as_py(), "kept for redaction to pseudonymize"
