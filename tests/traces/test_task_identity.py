"""Every format that records a task id puts it in ``episode.task.fixture_id``: the link from a log
to the gym fixture or registered environment that can judge it. Synthetic minimal records per
format, the real samples where they carry one, and the documented table kept equal to the code."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from trajectory_platform.traces.adapters import ADAPTERS
from trajectory_platform.traces.ingest import IngestResult, ingest_paths
from trajectory_platform.traces.record import Episode, Event

FORMATS_DOC = Path(__file__).resolve().parents[2] / "docs" / "formats.md"
OPENAI_MESSAGES = [{"role": "user", "content": "fix add()"}, {"role": "assistant", "content": "done"}]
ANTHROPIC_MESSAGES = [
    {"role": "user", "content": "fix add()"},
    {"role": "assistant", "content": [{"type": "text", "text": "done"}]},
]


def ingest_lines(tmp_path: Path, records: list, name: str = "log.jsonl", fmt: str = "auto") -> IngestResult:
    path = tmp_path / name
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return ingest_paths([path], fmt=fmt)


def one_episode(tmp_path: Path, record, name: str = "log.jsonl", fmt: str = "auto") -> Episode:
    result = ingest_lines(tmp_path, [record], name, fmt)
    assert result.rejects == [], [r.drop for r in result.rejects]
    (episode,) = result.episodes
    return episode


def one_reject(tmp_path: Path, record, name: str = "log.jsonl", fmt: str = "auto"):
    result = ingest_lines(tmp_path, [record], name, fmt)
    assert result.episodes == []
    (reject,) = result.rejects
    return reject.drop


def openai(**fields) -> dict:
    return {"messages": OPENAI_MESSAGES, **fields}


def anthropic(**fields) -> dict:
    return {"system": "you fix bugs", "messages": ANTHROPIC_MESSAGES, **fields}


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        ({"metadata": {"task_id": "calc-add"}}, "calc-add"),
        ({"metadata": {"environment_id": "env-7"}}, "env-7"),
        ({"metadata": {"instance_id": "django__django-1"}}, "django__django-1"),
        ({"metadata": {"instance_id": "late", "task_id": "first"}}, "first"),
        ({"metadata": {"task_id": None, "environment_id": "env-7"}}, "env-7"),
        ({"task_id": "top-level"}, "top-level"),
        ({"metadata": {"task_id": "meta"}, "task_id": "top-level"}, "meta"),
        ({"metadata": {"user": "alice"}, "instance_id": "top"}, "top"),
        ({"metadata": "free text"}, None),
        ({"metadata": {"user": "alice"}}, None),
        ({}, None),
    ],
)
def test_openai_reads_the_task_id_in_the_documented_order(tmp_path, fields, expected):
    episode = one_episode(tmp_path, openai(**fields))
    assert episode.source_format == "openai"
    assert episode.task.fixture_id == expected


def test_openai_keeps_the_metadata_in_extra(tmp_path):
    episode = one_episode(tmp_path, openai(metadata={"task_id": "calc-add", "user": "alice"}))
    assert json.loads(episode.extra_json)["metadata"] == {"task_id": "calc-add", "user": "alice"}


def test_anthropic_reads_the_same_keys(tmp_path):
    episode = one_episode(tmp_path, anthropic(metadata={"task_id": "calc-add"}))
    assert (episode.source_format, episode.task.fixture_id) == ("anthropic", "calc-add")
    episode = one_episode(tmp_path, anthropic(environment_id="env-7"))
    assert episode.task.fixture_id == "env-7"
    assert one_episode(tmp_path, anthropic()).task.fixture_id is None


@pytest.mark.parametrize(
    ("record", "where", "said"),
    [
        (openai(metadata={"task_id": 42}), "metadata.task_id", "is int, expected a string task id"),
        (openai(metadata={"environment_id": ["a"]}), "metadata.environment_id", "is list"),
        (openai(instance_id={"id": "x"}), "instance_id", "is dict"),
        (openai(metadata={"task_id": "  "}), "metadata.task_id", "is an empty string"),
        (anthropic(metadata={"task_id": 7}), "metadata.task_id", "is int"),
    ],
)
def test_an_explicit_id_that_is_not_a_string_rejects_the_record(tmp_path, record, where, said):
    drop = one_reject(tmp_path, record)
    assert drop.reason == "wrong type"
    assert drop.detail.startswith(f"{where} ") and said in drop.detail


def test_native_records_carry_task_fixture_id(tmp_path):
    episode = Episode("n1", "native", "x", None, None, None, events=[Event("user", content="hi")])
    episode.task.fixture_id = "calc-add"
    assert one_episode(tmp_path, episode.to_dict()).task.fixture_id == "calc-add"
    record = episode.to_dict()
    record["task"]["fixture_id"] = 12
    drop = one_reject(tmp_path, record)
    assert drop.reason == "wrong type" and "fixture_id" in drop.detail


def mini_record(**fields) -> dict:
    messages = [
        {"role": "system", "content": "you run bash"},
        {"role": "user", "content": "fix it"},
        {"role": "assistant", "content": "```mswea_bash_command\nls\n```"},
        {"role": "user", "content": "<returncode>0</returncode><output>a.py</output>"},
    ]
    return {"trajectory_format": "mini-swe-agent-1", "info": {}, "messages": messages, **fields}


def mini_episode(tmp_path: Path, record: dict) -> Episode:
    path = tmp_path / "run" / "run.traj.json"
    path.parent.mkdir(exist_ok=True)
    path.write_text(json.dumps(record), encoding="utf-8")
    result = ingest_paths([path])
    assert result.rejects == [], [r.drop for r in result.rejects]
    (episode,) = result.episodes
    return episode


def test_mini_swe_agent_reads_instance_id_where_the_batch_runner_writes_it(tmp_path):
    episode = mini_episode(tmp_path, mini_record(instance_id="django__django-1"))
    assert episode.task.fixture_id == "django__django-1"
    assert episode.episode_id == "mini-swe-agent:django__django-1"
    episode = mini_episode(tmp_path, mini_record(info={"instance_id": "sympy__sympy-2"}))
    assert episode.task.fixture_id == "sympy__sympy-2"
    # a single run's file name is no task id: it stays unnamed (the episode id still uses it)
    episode = mini_episode(tmp_path, mini_record())
    assert episode.task.fixture_id is None and episode.episode_id == "mini-swe-agent:run"


def test_mini_swe_agent_non_string_instance_id_is_a_record_error(tmp_path):
    path = tmp_path / "bad.traj.json"
    path.write_text(json.dumps(mini_record(instance_id=3)), encoding="utf-8")
    (reject,) = ingest_paths([path]).rejects
    assert reject.drop.reason == "wrong type" and reject.drop.detail.startswith("instance_id is int")


def test_swe_agent_takes_the_problem_statement_id_never_the_agent_name(tmp_path):
    history = [
        {"role": "system", "content": "you fix bugs"},
        {"role": "user", "content": "fix it"},
        {"role": "assistant", "content": "ls", "action": "ls"},
    ]
    config = {"agent": {"name": "main"}, "problem_statement": {"id": "owner__repo-9"}}
    traj = {"history": history, "trajectory": [], "info": {}, "replay_config": json.dumps(config)}
    path = tmp_path / "whatever.traj"
    path.write_text(json.dumps(traj), encoding="utf-8")
    (episode,) = ingest_paths([path]).episodes
    assert episode.task.fixture_id == "owner__repo-9"
    traj["replay_config"] = json.dumps({"agent": {"name": "main"}})
    path.write_text(json.dumps(traj), encoding="utf-8")
    (episode,) = ingest_paths([path]).episodes
    assert episode.task.fixture_id == "whatever"


def test_openhands_reads_instance_id_and_rejects_a_non_string_one(tmp_path):
    history = [
        {"action": "message", "source": "user", "args": {"content": "fix it"}},
        {"action": "run", "source": "agent", "args": {"command": "ls", "thought": "look"}},
        {"observation": "run", "content": "a.py", "extras": {"exit_code": 0}},
    ]
    episode = one_episode(tmp_path, {"instance_id": "ponylang__ponyc-1", "history": history})
    assert (episode.source_format, episode.task.fixture_id) == ("openhands", "ponylang__ponyc-1")
    drop = one_reject(tmp_path, {"instance_id": 5, "history": history})
    assert drop.reason == "wrong type" and drop.detail.startswith("instance_id is int")


def test_real_samples_carry_the_task_they_ran_against(real_file):
    swe = "gpt4__swe-agent-test-repo__default_from_url__t-0.00__p-0.95__c-3.00__install-1/"
    (replayed,) = real_file(swe + "6e44b9__sweagenttestrepo-1c2844.traj")
    assert replayed.task.fixture_id == "SWE-agent__test-repo-i1"  # replay_config, not the file name
    (pydicom,) = real_file("pydicom__pydicom-1458.traj")
    assert pydicom.task.fixture_id == "pydicom__pydicom-1458"
    multi_swe = real_file("multi_swe_bench/examples/output.jsonl")
    assert {e.task.fixture_id for e in multi_swe} >= {"ponylang__ponyc-4595", "ponylang__ponyc-4593"}
    (event_list,) = real_file("openhands/tests/runtime/trajs/basic.json")
    assert event_list.task.fixture_id is None
    for name in ("github_issue.traj.json", "local.traj.json"):  # single runs: bare message lists
        (mini,) = real_file(f"mini-swe-agent/tests/test_data/{name}")
        assert mini.task.fixture_id is None


def test_the_documented_table_says_what_each_adapter_reads():
    doc = FORMATS_DOC.read_text(encoding="utf-8")
    section = doc.split("## Task identity", 1)[1].split("\n## ", 1)[0]
    rows = {}
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 2 and cells[0].startswith("`") and cells[0] != "`--format`":
            for name in cells[0].split(","):
                rows[name.strip().strip("`")] = cells[1]
    assert set(rows) == set(ADAPTERS)
    for name, adapter in ADAPTERS.items():
        assert rows[name] == (adapter.task_id_source or "none: the format records no task id"), name
