"""Nothing secret is stored outside the redaction engine's input: rejected records keep a digest,
links out of the trace source are not followed, UTF-16/32 logs are decoded (so they are scanned),
and pathological nesting is one reject, never a crash. Then a whole Dagster ``raw_traces``
materialization over such a source: no secret in any table, Parquet file or log."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from trajectory_platform.curation.redact.files import UnreadableLine, redact_file
from trajectory_platform.traces.drops import Drop
from trajectory_platform.traces.ingest import ingest_paths, sample_logs_root

AWS = "AKIAQWERTYUIOP234567"
SECRET_LINE = json.dumps({"messages": "not a list", "note": f"aws_access_key_id={AWS}"})
GOOD = {
    "id": "ok",
    "messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}],
}
DEEP = '{"messages": ' + "[" * 5000 + "]" * 5000 + "}"


def good(i: int, content: str = "hello") -> str:
    return json.dumps(
        {**GOOD, "id": f"ok{i}", "messages": [GOOD["messages"][0], {"role": "assistant", "content": content}]}
    )


def named(day: Path) -> None:
    """A log whose own name holds a key, with a broken line (a reject names its file) and a record
    whose id holds one (the preview names it)."""
    record = {**GOOD, "id": f"sess-{AWS}"}
    (day / f"agent-{AWS}.jsonl").write_text(json.dumps(record) + "\n{broken\n")


def poisoned_source(root: Path, key: Path) -> Path:
    day = root / "2026-11-01"
    day.mkdir(parents=True)
    (day / "bad.jsonl").write_text("\n".join([good(1), SECRET_LINE, DEEP, good(2)]) + "\n")
    (day / "key.jsonl").symlink_to(key)
    (day / "wide.jsonl").write_bytes(("\ufeff" + good(3, f"key {AWS}") + "\n").encode("utf-16-le"))
    (day / "wide-nobom.jsonl").write_bytes((good(4) + "\n").encode("utf-16-be"))
    return day


@pytest.fixture
def pipeline_key(tmp_path) -> Path:
    key = tmp_path / "workdir" / "secrets" / "pipeline.key"
    key.parent.mkdir(parents=True)
    key.write_text("9f2c" * 16)
    return key


def test_rejects_keep_a_digest_links_are_not_followed_wide_text_is_read(tmp_path, pipeline_key):
    day = poisoned_source(tmp_path / "source", pipeline_key)
    result = ingest_paths([day])
    assert result.records_in == len(result.episodes) + len(result.rejects)
    reasons = {(r.source_file.rsplit("/", 1)[-1], r.source_line): r.reason for r in result.rejects}
    assert reasons == {
        ("bad.jsonl", 2): "wrong type",
        ("bad.jsonl", 3): "nesting too deep",
        ("key.jsonl", None): "link outside the source",
    }, reasons
    assert sorted(e.episode_id for e in result.episodes) == [
        "openai:ok1",
        "openai:ok2",
        "openai:ok3",
        "openai:ok4",
    ]
    stored = json.dumps([r.__dict__ for r in result.rejects], default=str)
    assert AWS not in stored and pipeline_key.read_text() not in stored
    assert all(r.excerpt is None or r.excerpt.startswith("sha256:") for r in result.rejects)
    wide = next(e for e in result.episodes if e.episode_id == "openai:ok3")
    assert AWS in wide.events[-1].content, "decoded, so the redaction stage will see (and replace) it"


def test_redact_decodes_utf16_and_rejects_deep_nesting_without_crashing(tmp_path):
    text = tmp_path / "notes.txt"
    text.write_bytes(f"deploy with AWS key {AWS} today\n".encode("utf-16"))
    out = tmp_path / "notes.redacted.txt"
    redact_file(text, out, "text", b"salt" * 8)
    assert AWS not in out.read_text(encoding="utf-8") and "deploy with" in out.read_text(encoding="utf-8")

    lines = tmp_path / "chat.jsonl"
    argument = json.dumps({"cmd": f"echo {AWS}", "blob": "[" * 3000 + "]" * 3000})
    call = {"id": "c1", "type": "function", "function": {"name": "sh", "arguments": argument}}
    messages = [{"role": "assistant", "content": None, "tool_calls": [call]}]
    lines.write_text("\n".join([json.dumps({"messages": messages}), DEEP]) + "\n")
    result = redact_file(lines, tmp_path / "chat.out.jsonl", "openai", b"salt" * 8)
    assert (result.records_in, result.records_out) == (2, 1)
    assert result.rejected == [UnreadableLine(str(lines), 2, Drop("nesting_too_deep", "nesting too deep"))]
    assert result.tally().balanced
    assert AWS not in (tmp_path / "chat.out.jsonl").read_text()


@pytest.mark.filterwarnings("ignore::dagster.PreviewWarning", "ignore::dagster.BetaWarning")
def test_a_raw_traces_run_over_a_poisoned_source_stores_no_secret(tmp_path, pipeline_key, capfd):
    from dagster import materialize

    from trajectory_platform.assets.raw import raw_traces
    from trajectory_platform.checks.raw import ingest_rejects_explained
    from trajectory_platform.resources import build_resources

    workdir = tmp_path / "workdir"
    day = poisoned_source(workdir / "trace_source", pipeline_key)
    sample = sample_logs_root() / "2026-11-01" / "anthropic_messages.jsonl"
    asks = json.loads(sample.read_text().splitlines()[0])  # its first user turn is the task's prompt,
    asks["messages"][0]["content"] = f"deploy with {AWS}"  # which the UI's preview showed
    (day / "prompt.jsonl").write_text(json.dumps(asks) + "\n")
    named(day)
    resources = build_resources(workdir)
    result = materialize(
        [raw_traces, ingest_rejects_explained], partition_key="2026-11-01", resources=resources
    )
    assert result.success
    secrets = (AWS.encode(), pipeline_key.read_bytes())
    rejects = list((workdir / "parquet" / "ingest_rejects").glob("*.parquet"))
    assert rejects, "the rejects were written"
    stored = [*rejects, *(p for p in workdir.rglob("*") if p.is_file() and "dagster_home" in p.parts)]
    for path in stored:
        assert not any(s in path.read_bytes() for s in secrets), path
    out, err = capfd.readouterr()
    assert not any(s.decode() in out + err for s in secrets)
    shown = json.dumps(  # what the UI shows (an in-process run keeps its event log in memory)
        [
            {k: str(v.value) for k, v in m.metadata.items()}
            for m in result.asset_materializations_for_node("raw_traces")
        ]
    )
    assert "anthropic:an-repo-survey" in shown, "the preview was read"
    assert not any(s.decode() in shown for s in secrets)
    # The raw corpus is the redaction engine's input: the decoded UTF-16 log's key is there by design,
    # and the pipeline key is nowhere.
    raw = b"".join(p.read_bytes() for p in (workdir / "parquet" / "raw_traces").glob("*.parquet"))
    assert pipeline_key.read_bytes() not in raw
    assert AWS.encode() in raw, "a byte search sees strings in these Parquet files (so it would see a leak)"


def test_the_cli_names_rejects_without_the_secrets_a_log_name_holds(tmp_path, capsys):
    """stderr, the summary and rejects.parquet show a log's name with known secrets masked."""
    from trajectory_platform.cli import main

    day = tmp_path / "logs"
    day.mkdir()
    named(day)
    assert main(["ingest", str(day), "--out", str(tmp_path / "out"), "--no-progress"]) == 0
    out, err = capsys.readouterr()
    assert "agent-<REDACTED_" in err and AWS not in out + err
    assert AWS.encode() not in (tmp_path / "out" / "rejects.parquet").read_bytes()
