"""Rollouts: dated native logs that ingest cleanly, a truth row per episode, determinism, the CLI."""

from __future__ import annotations

import argparse
import contextlib
import copy
import json

import pyarrow.parquet as pq
import pytest

from trajectory_platform.commands import gym as gym_command
from trajectory_platform.gym import judge
from trajectory_platform.gym import rollout as rollout_module
from trajectory_platform.gym.policies import BEHAVIOURS
from trajectory_platform.gym.rollout import read_truth, rollout
from trajectory_platform.gym.runtime import RuntimeConfig, end_sealed
from trajectory_platform.traces.ingest import TABLE_FILES, ingest_paths, ingest_to
from trajectory_platform.traces.record import Event, ToolCall
from trajectory_platform.traces.schema import table_to_episodes

KEY = b"k" * 32


@pytest.fixture(scope="module")
def rolled(tmp_path_factory):
    out = tmp_path_factory.mktemp("rollout")
    summary = rollout(len(BEHAVIOURS), seed=7, out_dir=out, progress=False, seal_key=KEY)
    return out, summary


def test_every_behaviour_once_with_a_truth_row_each(rolled):
    out, summary = rolled
    truth = read_truth(out)
    assert summary.episodes == len(truth) == len(BEHAVIOURS)
    assert {row["behaviour"] for row in truth} == set(BEHAVIOURS)
    assert len({row["episode_id"] for row in truth}) == len(truth)
    by = {row["behaviour"]: row for row in truth}
    assert by["expert_pristine"]["solved"] and by["expert_recovery"]["solved"]
    assert (
        by["expert_recovery"]["faults"]
        and by["never_recover"]["faults"]
        and not by["never_recover"]["solved"]
    )
    assert all(
        row["tampered"] and not row["solved"] for row in truth if row["behaviour"].startswith("tamper_")
    )
    assert by["flaky_fixture"]["flaky"] and by["secret_echo"]["planted_secrets"]
    assert by["abandoned"]["terminal_status"] == "abandoned"
    assert summary.mean_reset_ms < 500


def test_logs_are_dated_native_jsonl_that_ingest_without_rejects(rolled):
    out, summary = rolled
    days = sorted(p.name for p in out.iterdir() if p.is_dir())
    assert days == summary.days and len(days) == 3
    result = ingest_paths([out / day for day in days])
    assert not result.rejects and len(result.episodes) == summary.episodes
    ids = {e.episode_id for e in result.episodes}
    assert ids == {row["episode_id"] for row in read_truth(out)}
    for episode in result.episodes:
        assert episode.source_format == "native" and str(episode.partition_date) in episode.source_file


def _calls(episode):
    return [c for e in episode.events for c in e.tool_calls]


def _first_answer(episode):
    return next(e for e in episode.events if e.kind == "tool")


WRONG_DIFF = "--- a/calc/ops.py\n+++ b/calc/ops.py\n@@ -1 +1 @@\n-    return a - b\n+    return a * b\n"
EVENT_EDITS_DEV = {  # an edit of the run under a genuine end: each must unseal it
    "a call's arguments": lambda e: setattr(_calls(e)[0], "arguments", _calls(e)[0].arguments + " "),
    "the last turn dropped": lambda e: e.events.pop(),
    "the diff replaced": lambda e: setattr(e.outcome, "workspace_diff", WRONG_DIFF),
    "the final answer": lambda e: setattr(e.outcome, "final_answer", "fixed"),
    "an observation's text": lambda e: setattr(_first_answer(e), "content", "Killed"),
}
EVENT_EDITS_VALIDATION = {  # not used while writing the digest
    "two events swapped": lambda e: e.events.insert(2, e.events.pop(3)),
    "a call's tool renamed": lambda e: setattr(_calls(e)[-1], "name", "write_file"),
    "an observation's exit code": lambda e: setattr(_first_answer(e), "exit_code", 137),
    "a turn appended": lambda e: e.events.append(
        Event("assistant", tool_calls=[ToolCall("x", "run_tests", "{}")])
    ),
    "a turn's finish reason": lambda e: setattr(
        e.events[2], "finish_reason", "stop" if e.events[2].finish_reason == "length" else "length"
    ),
    "the run's events moved under another id": None,  # filled in by the test
}


def test_every_sealed_end_holds_after_ingest_and_binds_the_events_it_ended(rolled, tmp_path):
    """The runtime's end seal binds the run it describes (red team: a genuine ``timeout`` seal kept
    over other events made a wrong fix a runtime defect); written by the rollout, read by ingest
    into Parquet and back, an honest episode's seal still holds, whatever its end."""
    out, summary = rolled
    timed = rollout(
        2,
        seed=1,
        out_dir=tmp_path / "timed",
        progress=False,
        seal_key=KEY,
        behaviours=["expert_pristine"],
        config=RuntimeConfig(wall_timeout_s=0.0),
    )
    days = [out / day for day in summary.days] + [tmp_path / "timed" / day for day in timed.days]
    result, _ = ingest_to(days, tmp_path / "ingested")
    assert not result.rejects
    episodes = table_to_episodes(pq.read_table(tmp_path / "ingested" / TABLE_FILES[0]))
    assert len(episodes) == summary.episodes + 2
    assert {e.outcome.terminal_status for e in episodes} >= {"completed", "abandoned", "timeout"}
    assert [e.episode_id for e in episodes if not end_sealed(e, KEY)] == []
    runs = [e for e in episodes if e.outcome.terminal_status != "timeout" and _calls(e)]
    for edits in (EVENT_EDITS_DEV, EVENT_EDITS_VALIDATION):
        still_sealed = []
        for name, edit in edits.items():
            for index, episode in enumerate(runs):
                forged = copy.deepcopy(episode)
                if edit is None:
                    forged.events = copy.deepcopy(runs[index - 1].events)
                else:
                    edit(forged)
                if end_sealed(forged, KEY):
                    still_sealed.append((name, episode.episode_id))
        assert still_sealed == []
    (timeout, *_) = [e for e in episodes if e.outcome.terminal_status == "timeout"]
    forged = copy.deepcopy(timeout)
    forged.events, forged.outcome = copy.deepcopy(runs[0].events), copy.deepcopy(runs[0].outcome)
    forged.outcome.terminal_status = "timeout"
    assert not end_sealed(forged, KEY), "a genuine timeout's seal over another run's events"


def test_same_seed_same_bytes(tmp_path, monkeypatch):
    """Same seed, same bytes, with each of the two pool threads keeping one sandboxed judge for all
    its episodes' test runs (the second run) or starting one per run (the first)."""
    # flaky_fixture included: its timing test draws from the sandbox's schedule seed, not the clock
    chosen = ["expert_pristine", "malformed_call", "tamper_skip_marker", "expert_recovery", "flaky_fixture"]
    counts = {"starts": 0, "runs": 0}
    real_start, real_run = judge.JudgeServer._start, judge.JudgeServer._run

    def counted(name, real):
        def call(*args, **kwargs):
            counts[name] += 1
            return real(*args, **kwargs)

        return call

    monkeypatch.setattr(judge.JudgeServer, "_start", counted("starts", real_start))
    monkeypatch.setattr(judge.JudgeServer, "_run", counted("runs", real_run))
    with monkeypatch.context() as one_run_judges:
        one_run_judges.setattr(rollout_module, "judge_servers", contextlib.nullcontext)
        first = rollout(8, seed=3, out_dir=tmp_path / "a", behaviours=chosen, progress=False, workers=2)
    assert counts["starts"] == counts["runs"] > 2
    counts.update(starts=0, runs=0)
    second = rollout(8, seed=3, out_dir=tmp_path / "b", behaviours=chosen, progress=False, workers=2)
    assert counts["starts"] <= 2 < counts["runs"], counts
    assert first.files == second.files
    for rel in [*first.files, "truth.jsonl"]:
        assert (tmp_path / "a" / rel).read_bytes() == (tmp_path / "b" / rel).read_bytes()


def main(argv: list[str]) -> int:
    """The ``gym`` subcommand as the console script dispatches it (without importing every
    other stage's command module)."""
    parser = argparse.ArgumentParser(prog="trajectory-platform")
    gym_command.register(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    return int(args.func(args) or 0)


def test_cli_validate_and_rollout(tmp_path, capsys):
    assert main(["gym", "validate", "--sample", "60"]) == 0
    summary = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert summary["fixtures"] == summary["rejects_s0"] == summary["accepts_reference"] > 0
    assert summary["repo_families"] >= 6 and summary["tool_families"] >= 3 and summary["domains"] >= 3
    assert (
        main(["gym", "rollout", "--episodes", "2", "--seed", "1", "--out", str(tmp_path), "--learnable-only"])
        == 0
    )
    summary = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert summary["episodes"] == 2 and len(read_truth(tmp_path)) == 2
    assert all(row["learnable"] for row in read_truth(tmp_path))


def test_learnable_training_tasks_follow_as_solved_expert_episodes_past_the_library(tmp_path):
    summary = rollout(2, seed=3, out_dir=tmp_path, progress=False, learnable_tasks=5)
    truth = read_truth(tmp_path)
    assert summary.episodes == len(truth) == 7
    generated = truth[2:]
    assert all(row["behaviour"].startswith("expert_") and row["solved"] for row in generated)
    assert [row["behaviour"] for row in generated].count("expert_recovery") == 1  # the 4th: 3 in 10
    assert generated[3]["fault_schedule"] and not generated[0]["fault_schedule"]
    assert all(row["learnable"] for row in generated)
    # dealt round-robin: every tool family of the first family, then the next family
    assert [row["repo_family"] for row in generated] == ["learn-alpha"] * 4 + ["learn-beta"]
    assert len({row["tool_family"] for row in generated[:4]}) == 4
    assert {row["fixture_id"].split("@")[0].rsplit("-", 1)[1] for row in generated} == {"14"}
