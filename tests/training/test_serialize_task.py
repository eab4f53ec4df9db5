"""A log that recorded no prompt trains with its task in context (serialize.restored_task).

``codex exec --json`` and ``claude -p`` streams take the prompt as a command argument: their logs
hold the model's turns, not the task. Once the verifier links such a log to its environment, the
examples must show the task where the runtime sent it, or the policy learns to act without one.
"""

from __future__ import annotations

import copy
import json
import sys
from pathlib import Path

import pytest

from trajectory_platform.curation.verify import CascadeConfig, verify_episodes
from trajectory_platform.curation.verify.cascade import fixtures_lookup
from trajectory_platform.gym.library import build_library
from trajectory_platform.gym.policies import ScriptedExpert
from trajectory_platform.gym.runtime import run_episode
from trajectory_platform.traces.ingest import ingest_paths
from trajectory_platform.traces.record import Event
from trajectory_platform.training.data.mask_settings import MaskConfig
from trajectory_platform.training.data.masking import mask_plans
from trajectory_platform.training.data.serialize import plan_examples, select_targets, transcript_tokens
from trajectory_platform.training.data.tokenizer import load_tokenizer

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "traces"))
from handwritten_records import CODEX_EXEC_EVENTS  # noqa: E402


@pytest.fixture(scope="module")
def tok(default_tokenizer):
    return load_tokenizer(default_tokenizer)


@pytest.fixture(scope="module")
def logged_and_unprompted():
    """A gym expert's episode, and the same episode as a prompt-less stream would log it, after
    the verifier linked it to its task (``adopt_task_identity``)."""
    fixture = next(f for f in build_library(0) if f.fixture_id.startswith("inventory/v0/bug-subtotal@"))
    logged = run_episode(fixture, ScriptedExpert()).episode
    assert [e.kind for e in logged.events[:2]] == ["system", "user"]
    assert logged.events[1].content == fixture.prompt
    unprompted = copy.deepcopy(logged)
    unprompted.events = [e for e in unprompted.events if e.kind != "user"]
    unprompted.delivered_inputs = []  # a stream records no call's input either
    unprompted.task.prompt = None
    (verdict,) = verify_episodes([unprompted], fixtures_lookup(0), CascadeConfig(progress=False)).verdicts
    assert verdict.sink == "admitted" and verdict.target_turns
    assert unprompted.task.prompt == fixture.prompt, "the verifier adopts the linked task's statement"
    return logged, unprompted, verdict.target_turns


def _messages(plans) -> list[list[dict]]:
    return [[t.message for t in p.turns] for p in plans]


def test_the_linked_task_stands_where_the_runtime_sent_it(tok, logged_and_unprompted):
    logged, unprompted, target_turns = logged_and_unprompted
    restored = plan_examples(unprompted, select_targets(unprompted, target_turns))
    recorded = plan_examples(logged, select_targets(logged))
    assert _messages(restored) == _messages(recorded), "the same conversation the model saw"
    assert len(restored) == 1, "append-only history stays one transcript"
    (task_turn,) = [t for t in restored[0].turns if t.kind == "user"]
    assert task_turn.event_index is None and not task_turn.target
    masked = mask_plans(restored, tok, MaskConfig()).examples
    again = mask_plans(recorded, tok, MaskConfig()).examples
    assert [e.input_ids for e in masked] == [e.input_ids for e in again]
    assert [e.labels for e in masked] == [e.labels for e in again], "the task is context, never a target"
    assert transcript_tokens(unprompted, tok) == transcript_tokens(logged, tok)


def test_a_recorded_user_message_is_kept_as_recorded(logged_and_unprompted):
    logged, _, _ = logged_and_unprompted
    episode = copy.deepcopy(logged)
    episode.task.prompt = "a statement that differs from what the log recorded"
    plans = plan_examples(episode, select_targets(episode))
    assert _messages(plans) == _messages(plan_examples(logged, select_targets(logged)))


def test_a_codex_exec_stream_gets_its_task_after_linking(tmp_path):
    path = tmp_path / "exec.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in CODEX_EXEC_EVENTS))
    (episode,) = ingest_paths([path]).episodes
    assert not any(e.kind == "user" for e in episode.events), "the stream holds no prompt"
    unlinked = plan_examples(episode, select_targets(episode))
    assert all(t.kind != "user" for p in unlinked for t in p.turns), "nothing invented without a task"
    episode.task.prompt = "Make the failing test in p.py pass."
    (plan, *_) = plan_examples(episode, select_targets(episode))
    first = _after_leading_system(plan.turns)
    assert first.message == {"role": "user", "content": "Make the failing test in p.py pass."}


def _after_leading_system(turns):
    return next(t for t in turns if t.kind != "system")


def test_a_compaction_keeps_the_restored_task(logged_and_unprompted):
    _, unprompted, _ = logged_and_unprompted
    episode = copy.deepcopy(unprompted)
    last = max(i for i, e in enumerate(episode.events) if e.kind == "assistant")
    episode.events.insert(last, Event("compaction", "Summary of the work so far.", replaces_through=last - 1))
    plans = plan_examples(episode, select_targets(episode))
    assert len(plans) == 2
    assert [t.message["content"] for t in plans[1].turns if t.kind == "user"] == [episode.task.prompt]
