"""``trajectory-platform curate``: logs in, a verified, redacted, token-masked dataset out.

The README's old hand-driven session masked raw ingest output: a fake AWS key stayed in context, an
e-mail address sat inside supervised target tokens, failing calls were supervised. These tests plant
both in a handful of gym episodes and check that the one-command road keeps neither, supervises
only admitted episodes, accounts for every record per stage, and says so in the manifest.
"""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from trajectory_platform.cli import main
from trajectory_platform.curation.keys import seal_key
from trajectory_platform.gym.prompts import PROMPT_SEAL, seal_prompt
from trajectory_platform.gym.rollout import rollout
from trajectory_platform.gym.tools import sha256_digest
from trajectory_platform.resources.secrets import workdir_salt
from trajectory_platform.training.data.labels import IGNORE_INDEX
from trajectory_platform.training.data.tokenizer import load_tokenizer

AWS_KEY = "AKIAZ7Q4M2XK9LBT3WRC"
SALT = "test-curate-salt"
EMAIL = "jane.doe@acme-robotics.com"


def _plant_secrets(logs: Path) -> None:
    """A key in every system message (context) and an e-mail address in every final answer (a
    target, and the outcome's copy of it). The user turn stays the task's prompt, the system
    prompt matches its recorded digest and the answer is its last turn's text, as the verifier
    requires of a gym log."""
    for path in sorted(logs.rglob("gym-rollout-*.jsonl")):
        records = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
        for record in records:
            events = record["events"]
            system = next(e for e in events if e["kind"] == "system")
            system["content"] += f" Deploy with AWS_ACCESS_KEY_ID={AWS_KEY} when the tests pass."
            # a deployment's own system prompt: the runtime records its digest beside it, and its
            # seal under the pipeline's key (a prompt the platform does not register needs one)
            record["lineage"]["prompt_template_digest"] = sha256_digest(system["content"])
            extra = json.loads(record["extra_json"] or "{}")
            key = seal_key(SALT.encode())
            extra[PROMPT_SEAL] = seal_prompt(
                key, record["episode_id"], record["task"]["fixture_id"], system["content"]
            )
            record["extra_json"] = json.dumps(extra)
            final = events[-1]
            assert final["kind"] == "assistant" and not final["tool_calls"]
            final["content"] = (final["content"] or "Done.") + f" Questions to {EMAIL}."
            if record["outcome"]["final_answer"] is not None:
                record["outcome"]["final_answer"] = final["content"]
        path.write_text("".join(json.dumps(r) + "\n" for r in records))


def _curate(argv: list[str]) -> tuple[int, dict]:
    """Run the command under a test salt; its exit code and printed summary."""
    stdout = io.StringIO()
    with pytest.MonkeyPatch.context() as patch, contextlib.redirect_stdout(stdout):
        patch.setenv("TRAJECTORY_PLATFORM_SALT", SALT)
        code = main(argv)
    return code, json.loads(stdout.getvalue().strip().splitlines()[-1])


@pytest.fixture(scope="module")
def curated(tmp_path_factory, eval_workdir):
    """Eight scripted episodes (experts and failures) with planted secrets, curated once: the exit
    code, the output folder and the printed summary."""
    root = tmp_path_factory.mktemp("curate")
    rollout(8, 3, root / "rollout", workers=1, seal_key=workdir_salt(eval_workdir).seal_key())
    logs = root / "logs"
    logs.mkdir()
    for day in sorted((root / "rollout").glob("2026-*")):  # not truth.jsonl: the gym's answer key
        day.rename(logs / day.name)
    _plant_secrets(logs)
    out = root / "out"
    code, summary = _curate(
        ["curate", str(logs), "--out", str(out), "--workdir", str(eval_workdir), "--no-progress"]
    )
    return code, out, summary


def test_curate_writes_every_stage(curated):
    code, out, _ = curated
    assert code == 0
    for name in (
        "ingest/traces.parquet",
        "ingest/rejects.parquet",
        "verify/verdicts.parquet",
        "verify/triage_report.parquet",
        "verify/ledger.json",
        "redacted/corpus.parquet",
        "redacted/license_audit.parquet",
        "split/split_assignments.parquet",
        "split/training_mixture.parquet",
        "split/preference_pairs.parquet",
        "dataset.jsonl",
        "dataset.jsonl.manifest.json",
    ):
        assert (out / name).is_file(), name


def test_the_summary_counts_every_record_per_stage(curated):
    _, out, summary = curated
    assert summary["records_in"] == 8
    stages = summary["stages"]
    for name, tally in stages.items():
        assert tally["records_in"] == tally["kept"] + tally["dropped"], name
        assert sum(tally["dropped_by_reason"].values()) == tally["dropped"], name
    assert stages["verify"]["records_in"] == stages["ingest"]["kept"] == 8
    assert stages["redact"]["records_in"] == 8  # every sink is redacted; the split routes them
    assert sum(summary["sinks"].values()) == 8 and summary["sinks"].get("hard_negative", 0) > 0
    assert summary["admitted"] == summary["sinks"]["admitted"] == stages["verify"]["kept"]
    assert summary["unverifiable_by_reason"] == {}  # every gym episode names a known fixture
    rows = [json.loads(line) for line in (out / "dataset.jsonl").read_text().splitlines()]
    assert summary["examples"] == len(rows) == stages["dataset"]["kept"] > 0
    assert summary["target_tokens"] == sum(r["n_targets"] for r in rows) > 0
    # the mixture counts its tokens with the dataset stage's own masking: the two tables agree
    mixture = pq.read_table(out / "split" / "training_mixture.parquet", columns=["selected_target_tokens"])
    assert sum(mixture.column("selected_target_tokens").to_pylist()) == summary["target_tokens"]


def test_the_dataset_says_verified_and_redacted(curated):
    _, out, _ = curated
    provenance = json.loads((out / "dataset.jsonl.manifest.json").read_text())["provenance"]
    assert provenance["verified"] is True and provenance["redacted"] is True
    assert provenance["by"] == "curate" and provenance["canaries_leaked"] == 0
    assert "test-curate-salt" not in json.dumps(provenance)  # the key's source is named, never the key
    mixture = pq.read_schema(out / "split" / "training_mixture.parquet")
    assert json.loads(mixture.metadata[b"trajectory_platform.provenance"])["verified"] is True


def test_no_planted_secret_reaches_the_dataset_and_only_admitted_episodes_are_supervised(
    curated, eval_workdir
):
    _, out, _ = curated
    raw = pq.read_table(out / "ingest" / "traces.parquet").to_pylist()
    assert all(AWS_KEY in json.dumps(r, default=str) and EMAIL in json.dumps(r, default=str) for r in raw)
    tokenizer = load_tokenizer(eval_workdir / "models" / "default_base")
    rows = [json.loads(line) for line in (out / "dataset.jsonl").read_text().splitlines()]
    targets = []
    for row in rows:
        text = tokenizer.decode(row["input_ids"])
        assert AWS_KEY not in text and "AWS_ACCESS_KEY_ID=<REDACTED_AWS_KEY:" in text  # kept as context
        targets.append(tokenizer.decode([t for t in row["labels"] if t != IGNORE_INDEX]))
    assert not any(EMAIL in text for text in targets)
    # The final answers are supervised: what the address became is in the targets, pseudonymized.
    assert any("REDACTED_EMAIL" in text for text in targets)
    sinks = {
        r["episode_id"]: r["sink"] for r in pq.read_table(out / "verify" / "verdicts.parquet").to_pylist()
    }
    assert {sinks[r["episode_id"]] for r in rows} == {"admitted"}


def test_curate_names_a_missing_log_path_and_a_folder_that_is_no_registry(tmp_path, capsys):
    assert main(["curate", str(tmp_path / "nope"), "--out", str(tmp_path / "o")]) == 2
    assert f"no such log file or folder: {tmp_path / 'nope'}" in capsys.readouterr().err
    logs = tmp_path / "logs"
    logs.mkdir()
    (tmp_path / "env").mkdir()
    (tmp_path / "env" / "environment.json").write_text("{}")
    argv = ["curate", str(logs), "--out", str(tmp_path / "o"), "--workdir", str(tmp_path / "w")]
    assert main([*argv, "--envs", str(tmp_path / "env")]) == 2
    err = capsys.readouterr().err
    assert "not an environment registry" in err and "it is one environment" in err
    assert "trajectory-platform env import" in err
    assert main([*argv, "--envs", str(tmp_path / "missing")]) == 2
    assert "no such folder" in capsys.readouterr().err
    assert main([*argv, "--set", "verify.rerunz=3"]) == 2
    assert "unknown setting verify.rerunz; did you mean verify.reruns?" in capsys.readouterr().err
    assert not (tmp_path / "o").exists()  # refused before any stage wrote anything


@pytest.fixture(scope="module")
def real_example(tmp_path_factory):
    """The shipped real-project example: three brought environments and their agents' logs."""
    from trajectory_platform.environments import real_projects as rp

    return rp.build_example(tmp_path_factory.mktemp("example"))


def test_curate_verifies_logs_against_the_registered_environments(real_example, eval_workdir, tmp_path):
    from trajectory_platform.environments import real_projects as rp
    from trajectory_platform.environments.registry import import_environments

    tokenizer = str(eval_workdir / "models" / "default_base")
    logs = sorted({path.parent for path in real_example.logs})
    common = ["--workdir", str(tmp_path / "w"), "--tokenizer", tokenizer, "--no-progress"]
    # No registry: the logs name tasks nothing knows, so nothing can be judged and nothing trains.
    code, summary = _curate(["curate", *map(str, logs), "--out", str(tmp_path / "bare"), *common])
    assert code == 1 and summary["examples"] == 0
    assert sum(summary["unverifiable_by_reason"].values()) == summary["records_in"] == len(real_example.logs)
    registry = tmp_path / "environments"
    assert {r.status for r in import_environments(real_example.environments, registry, runs=1)} == {
        "imported"
    }
    out = tmp_path / "out"
    code, summary = _curate(["curate", *map(str, logs), "--envs", str(registry), "--out", str(out), *common])
    assert code == 0 and summary["provenance"]["environments"] == str(registry)
    judged = pq.read_table(out / "verify" / "verdicts.parquet").to_pylist()
    unverifiable = {r["episode_id"]: r["stage_verdicts_json"] for r in judged if r["sink"] == "unverifiable"}
    assert summary["unverifiable_by_reason"] == {}, unverifiable  # the findings hold no record text
    assert summary["sinks"]["hard_negative"] >= 1
    rows = [json.loads(line) for line in (out / "dataset.jsonl").read_text().splitlines()]
    verdicts = {r["episode_id"]: r["sink"] for r in judged}
    assert rows and {verdicts[r["episode_id"]] for r in rows} == {"admitted"}
    key_id, secret = rp.fake_aws_credentials()
    assert key_id in " ".join(path.read_text() for path in real_example.logs)  # the agent saw it
    corpus = json.dumps(pq.read_table(out / "redacted" / "corpus.parquet").to_pylist(), default=str)
    assert key_id not in corpus and secret not in corpus
    tok = load_tokenizer(tokenizer)
    decoded = " ".join(tok.decode(r["input_ids"]) for r in rows)
    assert key_id not in decoded and secret not in decoded
