"""``curate`` then ``export`` on gym logs with a distinct token in each field redaction once did not
walk: no output after redaction (corpus, splits, mixture, dataset, chat export, HF parquet, the
card, the commands' output) holds any of them, byte for byte (red team: the episode id reached
``dataset.jsonl``, ``chat.jsonl`` and the parquet; ``MIT OR <token>`` the card's YAML).

The episodes whose token sits in a class that cannot be rewritten (the episode id, a finish reason,
a timestamp) are refused (``redaction_rejects``) or rejected at ingest; the licence one is blocked;
the others are exported, their tokens pseudonymized.
"""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

import pytest

from trajectory_platform.cli import main
from trajectory_platform.gym.rollout import rollout
from trajectory_platform.resources.secrets import workdir_salt

_PAD = "Q7xK2mZ9pL4vN8rT3wY6bH1cJ5dF0gSaEuIoPq"


def _token(tag: str) -> str:
    return "ghp_" + (tag + _PAD)[:36]


NEEDLES: dict[str, str] = {}


def _needle(field: str) -> str:
    token = _token(f"Z{len(NEEDLES):02d}{''.join(c for c in field if c.isalnum())[:10]}")
    NEEDLES[token] = field
    return token


def _poison(record: dict, index: int) -> None:
    """Pseudonymized classes in every record; one refusing class per record for the first four."""
    task, lineage = record["task"], record["lineage"]
    task["repo_family"] = f"https://x-access-token:{_needle('task.repo_family')}@github.com/acme/app"
    task["tool_family"] = f"tf-{_needle('task.tool_family')}"
    task["domain"] = f"dom-{_needle('task.domain')}"
    lineage["model"] = f"https://u:{_needle('lineage.model')}@llm.example.com/v1"
    lineage["model_digest"] = _needle("lineage.model_digest")
    lineage["sampling_params_json"] = json.dumps({"temperature": 0, "api_key": _needle("sampling_params")})
    record["extra_json"] = json.dumps({_needle("extra_json.key"): 1})
    if index == 0:
        record["episode_id"] += "-" + _needle("episode_id")
    elif index == 1:
        task["license"] = "MIT OR " + _needle("task.license")
    elif index == 2:
        next(e for e in record["events"] if e["kind"] == "assistant")["finish_reason"] = _needle("finish")
    elif index == 3:
        record["events"][0]["timestamp"] = _needle("timestamp")


@pytest.fixture(scope="module")
def outputs(tmp_path_factory, eval_workdir) -> tuple[Path, dict, dict[str, bytes]]:
    root = tmp_path_factory.mktemp("field_secrets")
    rollout(8, 3, root / "rollout", workers=1, seal_key=workdir_salt(eval_workdir).seal_key())
    logs = root / "logs"
    logs.mkdir()
    for day in sorted((root / "rollout").glob("2026-*")):
        day.rename(logs / day.name)
    index = 0
    for path in sorted(logs.rglob("gym-rollout-*.jsonl")):
        records = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
        for record in records:
            _poison(record, index)
            index += 1
        path.write_text("".join(json.dumps(r) + "\n" for r in records))
    out, exported = root / "out", root / "export"
    printed = io.StringIO()
    with (
        pytest.MonkeyPatch.context() as patch,
        contextlib.redirect_stdout(printed),
        contextlib.redirect_stderr(printed),
    ):
        patch.setenv("TRAJECTORY_PLATFORM_SALT", "test-field-secrets-salt")
        argv = ["curate", str(logs), "--out", str(out), "--workdir", str(eval_workdir), "--no-progress"]
        assert main(argv) == 0, printed.getvalue()[-3000:]
        summary = json.loads(printed.getvalue().strip().splitlines()[-1])
        assert main(["export", str(out), "--out", str(exported)]) == 0
    blobs = {"printed": printed.getvalue().encode()}
    for folder in (out, exported):
        for path in sorted(folder.rglob("*")):
            # ingest and verify hold the logs as read: redaction's input, never published
            if path.is_file() and path.relative_to(folder).parts[0] not in ("ingest", "verify"):
                blobs[str(path)] = path.read_bytes()
    return out, summary, blobs


def test_no_token_of_any_field_survives_into_any_output(outputs):
    _, summary, blobs = outputs
    leaks = {
        NEEDLES[token]: name for token in NEEDLES for name, data in blobs.items() if token.encode() in data
    }
    assert leaks == {}
    assert summary["examples"] > 0  # the poisoned episodes did flow through to the dataset


def test_each_refusing_class_is_accounted_for_with_its_reason(outputs):
    _, summary, _ = outputs
    stages = summary["stages"]
    assert stages["ingest"]["dropped_by_reason"] == {"unknown finish reason": 1, "bad timestamp": 1}
    # the poisoned licence (and repository family) never reach redaction: a linked gym log's are
    # its task's, whatever it records (adopt_task_identity), so no licence block is left to count
    assert stages["redact"]["dropped_by_reason"] == {"out_of_class": 1}
