"""FireAct ReAct trajectories: ``{"<question id>": {"traj": [messages], "reward", "em", "f1", "gt",
"pred", "prompt"}, ...}``; each entry is one record (JSON path ``['<id>']``).

The assistant writes ``Thought: ...\\nAction: tool[argument]`` and the environment answers with a
user turn ``Observation: ...``. The action is the call the ReAct loop dispatches (name and the
bracketed argument as written); the observation is its tool event. ``finish[...]`` ends the
episode as completed; the reward and exact-match / F1 against the ground truth are the verifier
results.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from trajectory_platform.traces.adapters.base import (
    Adapter,
    RawRecord,
    SourceFile,
    expect,
    frame_json,
)
from trajectory_platform.traces.adapters.openai import events_of_messages, is_message_list
from trajectory_platform.traces.record import Episode, ToolCall, canonical_json

_ACTION = re.compile(r"^Action:\s*(\w+)\[(.*)\]\s*$", re.MULTILINE | re.DOTALL)
_THOUGHT = re.compile(r"^Thought:\s*(.*?)(?=^Action:|\Z)", re.MULTILINE | re.DOTALL)
OBSERVATION = "Observation:"
FIELDS = ("traj", "reward", "gt", "pred")


class FireActAdapter(Adapter):
    """A dict of question id -> ReAct episode."""

    name = "fireact"
    task_id_source = "the entry's question id, as `hotpotqa/<id>` for HotpotQA files"

    def sniff(self, sample: Any, path: Path) -> bool:
        if not isinstance(sample, dict) or not sample:
            return False
        first = next(iter(sample.values()))
        return isinstance(first, dict) and all(k in first for k in FIELDS) and is_message_list(first["traj"])

    def frame(self, src: SourceFile) -> Iterator[RawRecord]:
        doc, error = src.document
        if error is not None or not isinstance(doc, dict):
            yield from frame_json(src)
            return
        for key, value in doc.items():
            yield RawRecord(
                None, f"[{key!r}]", value={"id": key, **value} if isinstance(value, dict) else value
            )

    def parse(self, record: RawRecord, src: SourceFile) -> Episode:
        value = expect(record.value, dict, "record")
        episode = self.new_episode(record, src, f"{self.name}:{value.get('id')}")
        episode.events = events_of_messages(value.get("traj"), "traj")
        pending: ToolCall | None = None
        for event in episode.events:
            text = event.content or ""
            if event.kind == "assistant":
                action = _ACTION.search(text)
                thought = _THOUGHT.search(text)
                event.reasoning = thought.group(1).strip() if thought else None
                pending = (
                    ToolCall(id=None, name=action.group(1), arguments=action.group(2)) if action else None
                )
                event.tool_calls = [pending] if pending else []
            elif event.kind == "user" and pending is not None and text.startswith(OBSERVATION):
                event.kind, event.tool_name, event.status = "tool", pending.name, "ok"
                pending = None
        last_call = next((e.tool_calls[-1] for e in reversed(episode.events) if e.tool_calls), None)
        if last_call is not None and last_call.name == "finish":
            episode.outcome.terminal_status = "completed"
            episode.outcome.final_answer = last_call.arguments
        reward = value.get("reward")
        episode.outcome.reward = None if reward is None else float(reward)
        verdict = {k: value.get(k) for k in ("reward", "em", "f1", "gt", "pred") if k in value}
        episode.outcome.verifier_results_json = canonical_json(verdict)
        episode.task.fixture_id = f"hotpotqa/{value.get('id')}" if "hotpotqa" in src.path.name else None
        episode.task.prompt = next((e.content for e in episode.events if e.kind == "user"), None)
        episode.task.domain = "hotpotqa" if "hotpotqa" in src.path.name else None
        episode.task.license = "CC-BY-SA-4.0" if "hotpotqa" in src.path.name else None
        if value.get("prompt"):
            episode.extra_json = canonical_json({"prompt": value["prompt"]})
        return episode
