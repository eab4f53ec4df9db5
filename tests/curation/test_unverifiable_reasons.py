"""An episode no oracle can judge stays ``unverifiable`` with a reason that says which case it is:
the log names no task, names one nobody registered, or its fixture has no oracle. The reason is
the verified table's ``sink_reason``, the detail tells a person what to add, and the ``verify`` /
``run`` summaries and the asset's metadata count the reasons."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from _verify_factory import CALC_S0, fixed_files, make_episode, make_fixture, pristine_turns

from trajectory_platform.curation.verify import CascadeConfig, verified_table, verify_episodes
from trajectory_platform.curation.verify.cascade import CascadeResult, unverifiable_by_reason
from trajectory_platform.curation.verify.context import FixtureContext
from trajectory_platform.curation.verify.verdicts import UNVERIFIABLE_REASONS
from trajectory_platform.traces.ingest import ingest_paths
from trajectory_platform.traces.parquet import write_parquet
from trajectory_platform.workdir import WORKDIR_ENV

QUIET = CascadeConfig(progress=False, cost_monolithic=False)
MESSAGES = [{"role": "user", "content": "fix add() in calc/ops.py"}, {"role": "assistant", "content": "done"}]


def openai_log(path: Path, records: list[tuple[str, dict]]) -> Path:
    """One OpenAI chat record per line: (own id, extra top-level fields)."""
    lines = [json.dumps({"id": own, "messages": MESSAGES, **fields}) for own, fields in records]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


UNMATCHED = [
    ("plain", {}),
    ("chat-metadata", {"metadata": {"user": "alice"}}),
    ("unknown", {"metadata": {"task_id": "not-a-task"}}),
]


def note(result: CascadeResult, episode_id: str):
    """The finding stage 3 recorded for an episode it could not judge."""
    (finding,) = result.by_id()[episode_id].stage("dynamic").notes
    return finding


@pytest.fixture(scope="module")
def openai_batch(tmp_path_factory):
    path = openai_log(
        tmp_path_factory.mktemp("logs") / "chat.jsonl",
        [*UNMATCHED, ("known", {"metadata": {"task_id": "calc-add"}})],
    )
    episodes = ingest_paths([path]).episodes
    return episodes, verify_episodes(episodes, {"calc-add": make_fixture()}, QUIET)


def test_openai_logs_say_why_they_are_unverifiable(openai_batch):
    _, result = openai_batch
    outcome = {v.episode_id: (v.sink, v.reason) for v in result.verdicts}
    assert outcome["openai:plain"] == ("unverifiable", "no_task_identity")
    assert outcome["openai:chat-metadata"] == ("unverifiable", "no_task_identity")
    assert outcome["openai:unknown"] == ("unverifiable", "unknown_task")
    # the named task is a gym task, and the gym cannot replay another runtime's tools: its
    # observations would be trusted unchecked (a forged one was admitted on its diff alone)
    assert outcome["openai:known"] == ("unverifiable", "gym_log_not_replayable")
    assert result.unverifiable_by_reason() == {
        "gym_log_not_replayable": 1,
        "no_task_identity": 2,
        "unknown_task": 1,
    }


def test_the_detail_tells_a_person_what_to_fix(openai_batch):
    _, result = openai_batch
    missing = note(result, "openai:plain")
    assert missing.code == "no_task_identity"
    assert "the log names no task" in missing.detail and "metadata.task_id" in missing.detail
    unknown = note(result, "openai:unknown")
    assert unknown.detail == "task id 'not-a-task' matches no gym fixture or registered environment"


def test_the_verified_table_carries_the_reason_and_its_finding(openai_batch):
    episodes, result = openai_batch
    rows = {r["episode_id"]: r for r in verified_table(episodes, result).to_pylist()}
    assert rows["openai:plain"]["sink_reason"] == "no_task_identity"
    assert rows["openai:unknown"]["sink_reason"] == "unknown_task"
    dynamic = json.loads(rows["openai:unknown"]["stage_verdicts_json"])[-1]
    assert dynamic["stage"] == "dynamic" and dynamic["passed"] is None
    assert dynamic["notes"][0]["code"] == "unknown_task" and "not-a-task" in dynamic["notes"][0]["detail"]
    pairs = [(r["sink"], r["sink_reason"]) for r in rows.values()]
    assert unverifiable_by_reason(pairs) == result.unverifiable_by_reason()
    assert {r for s, r in pairs if s == "unverifiable"} <= set(UNVERIFIABLE_REASONS)


@pytest.mark.parametrize(
    ("source_format", "said"),
    [
        ("mini-swe-agent", "no task: mini-swe-agent records name it in `instance_id`"),
        ("anthropic", "no task: anthropic records name it in `metadata.task_id`"),
        ("claude-code", "claude-code logs record no task id; name it in a task_ids.json beside the logs"),
        ("gym:expert", "the log names no task: name it in a task_ids.json beside the logs, or write native"),
    ],
)
def test_the_hint_names_where_the_episodes_own_format_keeps_the_id(source_format, said):
    episode = make_episode("e", pristine_turns(), fixed_files(), fixture_id=None)
    episode.source_format = source_format
    result = verify_episodes([episode], {}, QUIET)
    assert (result.verdicts[0].sink, result.verdicts[0].reason) == ("unverifiable", "no_task_identity")
    assert said in note(result, "e").detail


def test_a_task_map_beside_the_logs_links_them_to_their_oracle(tmp_path):
    openai_log(tmp_path / "chat.jsonl", [("plain", {}), ("unknown", {"metadata": {"task_id": "not-a-task"}})])
    (tmp_path / "task_ids.json").write_text(json.dumps({"*": "calc-add"}))
    result = verify_episodes(ingest_paths([tmp_path]).episodes, {"calc-add": make_fixture()}, QUIET)
    outcome = {v.episode_id: (v.sink, v.reason) for v in result.verdicts}
    assert outcome["openai:plain"] == ("unverifiable", "gym_log_not_replayable"), (
        "linked to calc-add, as with metadata.task_id: a gym task, which no other format replays on"
    )
    assert outcome["openai:unknown"] == ("unverifiable", "unknown_task"), "the record's own id wins"


def test_a_fixture_without_an_oracle_is_its_own_reason():
    episode = make_episode("e", pristine_turns(), fixed_files(), fixture_id="calc-add")
    context = FixtureContext("calc-add", files=dict(CALC_S0))
    result = verify_episodes([episode], {"calc-add": context}, QUIET)
    assert result.verdicts[0].reason == "no_oracle"
    assert note(result, "e").detail == "fixture 'calc-add' has no oracle to replay against"


def test_a_long_unknown_id_is_shortened_in_the_detail():
    episode = make_episode("e", pristine_turns(), fixed_files(), fixture_id="x" * 500)
    result = verify_episodes([episode], {}, QUIET)
    assert result.verdicts[0].reason == "unknown_task"
    assert "x" * 120 + "..." in note(result, "e").detail and "x" * 121 not in note(result, "e").detail


def test_formats_doc_explains_every_unverifiable_reason():
    doc = (Path(__file__).resolve().parents[2] / "docs" / "formats.md").read_text(encoding="utf-8")
    documented = set()
    for line in doc.split("| `sink_reason` |", 1)[1].split("\n\n", 1)[0].splitlines()[2:]:
        documented |= {code.strip().strip("`") for code in line.strip("|").split("|")[0].split(",")}
    assert documented == set(UNVERIFIABLE_REASONS)


def test_verify_summary_counts_unverifiable_by_reason(tmp_path, capsys, monkeypatch):
    from trajectory_platform.commands import verify

    monkeypatch.setenv(WORKDIR_ENV, str(tmp_path / "workdir"))  # no registry: the gym library only
    logs = openai_log(tmp_path / "chat.jsonl", [*UNMATCHED, ("plain-2", {})])
    parser = argparse.ArgumentParser()
    verify.register(parser.add_subparsers())
    args = parser.parse_args(["verify", str(logs), "--out", str(tmp_path / "out"), "--no-progress"])
    assert args.func(args) == 0
    summary = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert summary["sinks"] == {"unverifiable": 4}
    assert summary["unverifiable"] == {"no_task_identity": 3, "unknown_task": 1}
    verdicts = pq.read_table(tmp_path / "out" / "verdicts.parquet").to_pylist()
    assert {v["episode_id"]: v["sink_reason"] for v in verdicts}["openai:unknown"] == "unknown_task"


def test_run_summary_reads_the_reasons_back_from_verified_traces(openai_batch, tmp_path):
    from trajectory_platform.commands.run import unverifiable_reasons

    assert unverifiable_reasons(tmp_path) == {}  # before the asset exists
    episodes, result = openai_batch
    write_parquet(verified_table(episodes, result), tmp_path / "parquet" / "verified_traces" / "all.parquet")
    assert unverifiable_reasons(tmp_path) == {
        "gym_log_not_replayable": 1,
        "no_task_identity": 2,
        "unknown_task": 1,
    }


def test_verified_traces_metadata_shows_the_reasons(openai_batch):
    from trajectory_platform.assets.verified import verified_metadata

    _, result = openai_batch
    metadata = verified_metadata(result)
    assert metadata["unverifiable_reasons"].data == {
        "gym_log_not_replayable": 1,
        "no_task_identity": 2,
        "unknown_task": 1,
    }
