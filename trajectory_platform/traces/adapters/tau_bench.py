"""tau-bench: historical trajectories (a JSON array of episodes holding OpenAI messages, a reward
and the ground-truth actions) and few-shot data (flattened ``role: text`` transcripts).

The tau-bench environment answers a failing tool with a string starting ``Error:``; that is how
the source records an error, so such observations get ``status="error"``. Few-shot transcripts
print a tool-calling assistant turn as ``assistant: None`` and lose the call itself: the call
stays unknown (an assistant event with no content) rather than being invented.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from trajectory_platform.traces.adapters.base import (
    Adapter,
    RawRecord,
    RecordError,
    SourceFile,
    content_digest,
    expect,
)
from trajectory_platform.traces.adapters.openai import events_of_messages
from trajectory_platform.traces.record import Episode, Event, canonical_json

_DISPLAY_TURN = re.compile(r"^(user|assistant|tool|system): ", re.MULTILINE)
_DOMAINS = ("airline", "retail")


def _domain_of(path: Path) -> str | None:
    name = path.name.lower()
    return next((d for d in _DOMAINS if d in name), None)


def _mark_errors(events: list[Event]) -> None:
    for event in events:
        if event.kind == "tool":
            event.status = "error" if (event.content or "").startswith("Error:") else "ok"


class TauBenchAdapter(Adapter):
    """Historical trajectories: ``{"task_id", "trial", "reward", "info", "traj": [messages]}``."""

    name = "tau-bench"
    task_id_source = "`task_id`, as `<domain>/<task_id>` with the domain from the file name"

    def claims_record(self, record: dict[str, Any]) -> bool:
        return "traj" in record and "task_id" in record

    def parse(self, record: RawRecord, src: SourceFile) -> Episode:
        value = expect(record.value, dict, "record")
        if "traj" not in value:
            raise RecordError("missing field", "tau-bench episode has no 'traj' message list")
        own_id = f"{value.get('task_id')}/trial-{value.get('trial')}"
        domain = _domain_of(src.path)
        episode = self.new_episode(record, src, f"{self.name}:{domain or 'task'}/{own_id}")
        episode.events = events_of_messages(value["traj"], "traj")
        _mark_errors(episode.events)
        info = expect(value.get("info") or {}, dict, "info")
        task = expect(info.get("task") or {}, dict, "info.task")
        episode.task.fixture_id = f"{domain}/{value.get('task_id')}" if domain else str(value.get("task_id"))
        episode.task.prompt = task.get("instruction")
        episode.task.domain = domain
        episode.task.tool_family = f"tau-bench-{domain}" if domain else None
        episode.task.license = "MIT"
        reward = value.get("reward")
        if reward is not None:
            episode.outcome.reward = float(expect(reward, int | float, "reward"))
        if "reward_info" in info:
            episode.outcome.verifier_results_json = canonical_json(info["reward_info"])
        extra = {k: v for k, v in value.items() if k not in ("traj", "reward")}
        episode.extra_json = canonical_json(extra)
        return episode


class TauBenchFewShotAdapter(Adapter):
    """Few-shot data: one ``{"messages_display": "user: ...\\nassistant: ..."}`` per line."""

    name = "tau-bench-fewshot"
    records_tool_calls = False  # ``assistant: None``: the call is printed as nothing

    def sniff(self, sample: Any, path: Path) -> bool:
        return isinstance(sample, dict) and isinstance(sample.get("messages_display"), str)

    def parse(self, record: RawRecord, src: SourceFile) -> Episode:
        value = expect(record.value, dict, "record")
        text = expect(value.get("messages_display"), str, "messages_display")
        episode = self.new_episode(record, src, f"{self.name}:{content_digest(value)}")
        matches = list(_DISPLAY_TURN.finditer(text))
        if not matches or matches[0].start() != 0:
            raise RecordError("unreadable transcript", "messages_display does not start with 'role: '")
        for index, match in enumerate(matches):
            end = matches[index + 1].start() if index + 1 < len(matches) else len(text)
            body = text[match.end() : end].removesuffix("\n")
            role = match.group(1)
            content = None if role == "assistant" and body == "None" else body
            episode.events.append(Event(kind=role, content=content))
        _mark_errors(episode.events)
        domain = _domain_of(src.path)
        episode.task.domain = domain
        episode.task.tool_family = f"tau-bench-{domain}" if domain else None
        episode.task.license = "MIT"
        return episode
