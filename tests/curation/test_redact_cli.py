"""``trajectory-platform redact``: formats kept, rejects counted, JSON last line, salt required."""

from __future__ import annotations

import json

import pytest
from redact_factory import AWS_KEY, EMAIL, GITHUB_TOKEN, secret_episode

from trajectory_platform.cli import main
from trajectory_platform.traces.record import Episode


@pytest.fixture(autouse=True)
def salt_env(monkeypatch):
    monkeypatch.setenv("TRAJECTORY_PLATFORM_SALT", "cli-test-salt")


def _summary(capsys) -> dict:
    return json.loads(capsys.readouterr().out.strip().splitlines()[-1])


def test_native_jsonl_stays_native_and_bad_lines_are_rejected(tmp_path, capsys):
    source = tmp_path / "traces.jsonl"
    source.write_text(json.dumps(secret_episode().to_dict()) + "\n{broken\n")
    out = tmp_path / "out.jsonl"
    assert main(["redact", str(source), "--out", str(out)]) == 0
    summary = _summary(capsys)
    assert summary["format"] == "native" and summary["records_in"] == 2
    assert summary["records_out"] == 1 and summary["rejected"] == 1
    assert summary["rejected_by_reason"] == {"not_json": 1}
    assert summary["findings"]["GITHUB_TOKEN"] >= 1 and summary["canaries_leaked"] == 0
    episode = Episode.from_dict(json.loads(out.read_text().splitlines()[0]))
    assert GITHUB_TOKEN not in out.read_text() and episode.events[2].tool_calls[0].name == "execute_bash"
    assert "cli-test-salt" not in out.read_text()


def test_openai_jsonl_keeps_layout_and_tool_arguments_parse(tmp_path, capsys):
    record = {
        "messages": [
            {"role": "user", "content": f"my key is {AWS_KEY}"},
            {
                "role": "assistant",
                "weight": 1,
                "tool_calls": [
                    {
                        "id": "call_1",
                        "type": "function",
                        "function": {
                            "name": "bash",
                            "arguments": json.dumps({"command": f"echo {GITHUB_TOKEN}"}),
                        },
                    }
                ],
            },
            {"role": "tool", "tool_call_id": "call_1", "content": f"contact {EMAIL}"},
        ]
    }
    source = tmp_path / "chat.jsonl"
    source.write_text(json.dumps(record) + "\n")
    out = tmp_path / "chat.out.jsonl"
    assert main(["redact", str(source), "--out", str(out), "--format", "openai"]) == 0
    summary = _summary(capsys)
    assert summary["format"] == "openai" and summary["findings"] == {
        "AWS_KEY": 1,
        "EMAIL": 1,
        "GITHUB_TOKEN": 1,
    }
    redacted = json.loads(out.read_text())
    arguments = json.loads(redacted["messages"][1]["tool_calls"][0]["function"]["arguments"])
    assert arguments["command"].startswith("echo REDACTED_GITHUB_TOKEN_")  # bare shell word: shell-safe form
    assert redacted["messages"][2]["tool_call_id"] == "call_1" and redacted["messages"][1]["weight"] == 1
    assert list(redacted) == ["messages"] and AWS_KEY not in out.read_text()


def test_text_and_missing_salt(tmp_path, capsys, monkeypatch):
    source = tmp_path / "notes.txt"
    source.write_text(f"db password: Hunter2-Prod!\nping {EMAIL}\n")
    out = tmp_path / "notes.out.txt"
    assert main(["redact", str(source), "--out", str(out)]) == 0
    assert _summary(capsys)["findings"] == {"EMAIL": 1, "PASSWORD": 1}
    assert out.read_text().count("\n") == 2 and "Hunter2-Prod!" not in out.read_text()
    monkeypatch.delenv("TRAJECTORY_PLATFORM_SALT")
    assert main(["redact", str(source), "--out", str(tmp_path / "x.txt")]) == 2
    assert main(["redact", str(source), "--out", str(tmp_path / "x.txt"), "--dev-salt"]) == 0


def test_a_native_record_with_a_secret_in_a_closed_field_is_rejected_without_quoting_it(tmp_path, capsys):
    """The ``redact`` command reads native files that never passed ingest: a finish reason that is
    no finish reason is refused (``out_of_class``), its value named by a keyed digest only."""
    poisoned = secret_episode("ep-2")
    poisoned.events[2].finish_reason = f"stop {AWS_KEY}"
    poisoned.source_file = f"/logs/{GITHUB_TOKEN}.jsonl"
    source = tmp_path / "traces.jsonl"
    source.write_text("".join(json.dumps(e.to_dict()) + "\n" for e in (secret_episode("ep-1"), poisoned)))
    out = tmp_path / "out.jsonl"
    assert main(["redact", str(source), "--out", str(out)]) == 0
    captured = capsys.readouterr()
    summary = json.loads(captured.out.strip().splitlines()[-1])
    assert summary["records_out"] == 1 and summary["rejected_by_reason"] == {"out_of_class": 1}
    assert "events[2].finish_reason is not a known finish reason" in captured.err
    for text in (captured.out, captured.err, out.read_text()):
        assert AWS_KEY not in text and GITHUB_TOKEN not in text
