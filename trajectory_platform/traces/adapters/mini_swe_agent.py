"""mini-swe-agent ``traj.json``: the message list of one run (older files are a bare list; newer
ones are ``{"info": {...}, "messages": [...], "trajectory_format": "mini-swe-agent-1"}``).

The agent's only tool is bash: an assistant turn carries exactly one fenced command block, which
mini-swe-agent itself parses and runs, and the next user turn is the observation
``<returncode>N</returncode><output>...</output>``. So the command becomes a ``bash`` call (no id:
the source has none), the observation a tool event with its exit code, and an output-too-long
warning marks it ``truncated``. The final turn after ``COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT`` is
the submission (the workspace diff).
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
    expect,
    optional_str,
    task_id_of,
)
from trajectory_platform.traces.adapters.openai import event_of_message, is_message_list
from trajectory_platform.traces.record import Episode, Event, ToolCall, canonical_json

SUBMIT_MARKER = "COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"
_COMMAND = re.compile(r"```(?:mswea_bash_command|bash)\s*\n(.*?)\n```", re.DOTALL)
_RETURNCODE = re.compile(r"<returncode>(-?\d+)</returncode>")
_TRUNCATED = ("<warning>", "output of your last command was too long")
_TIMEOUT = "timed out"
EXIT_STATUS = {
    "Submitted": "completed",
    "LimitsExceeded": "truncated",
    "TimeoutError": "timeout",
    "FormatError": "error",
    "ExecutionTimeoutError": "timeout",
}


def _looks_like_mini(messages: list[Any]) -> bool:
    return any(
        isinstance(m, dict)
        and isinstance(m.get("content"), str)
        and ("```mswea_bash_command" in m["content"] or m["content"].startswith("<returncode>"))
        for m in messages[:6]
    )


def _observation(event: Event, command: ToolCall) -> Event:
    text = event.content or ""
    code = _RETURNCODE.search(text)
    observation = Event(kind="tool", content=event.content, tool_name=command.name)
    if code:
        observation.exit_code = int(code.group(1))
        observation.status = "ok" if observation.exit_code == 0 else "error"
    if all(marker in text for marker in _TRUNCATED):
        observation.status = "truncated"
    elif not code and _TIMEOUT in text:
        observation.status = "error"
    return observation


class MiniSweAgentAdapter(Adapter):
    """One run per file; the record is the whole document."""

    name = "mini-swe-agent"
    task_id_source = (
        "`instance_id` (top level, as the SWE-bench batch runner writes it), else `info.instance_id`"
    )
    split_document = False

    def sniff(self, sample: Any, path: Path) -> bool:
        if isinstance(sample, dict):
            fmt = sample.get("trajectory_format")
            return isinstance(fmt, str) and fmt.startswith("mini-swe-agent")
        return is_message_list(sample) and _looks_like_mini(sample)

    def parse(self, record: RawRecord, src: SourceFile) -> Episode:
        value = record.value
        info: dict[str, Any] = {}
        task_id = None
        if isinstance(value, dict):
            info = expect(value.get("info") or {}, dict, "info")
            task_id = task_id_of(value.get("instance_id"), "instance_id")
            task_id = task_id or task_id_of(info.get("instance_id"), "info.instance_id")
            value = value.get("messages")
        messages = expect(value, list, "messages")
        instance = task_id or src.path.name.removesuffix(".json").removesuffix(".traj")
        episode = self.new_episode(record, src, f"{self.name}:{instance}")
        episode.task.fixture_id = task_id
        pending: ToolCall | None = None
        submitted = False
        for index, message in enumerate(messages):
            event = event_of_message(message, f"messages[{index}]")
            if event.kind == "user" and pending is not None:
                if submitted:
                    episode.outcome.workspace_diff = event.content
                    episode.outcome.terminal_status = "completed"
                event = _observation(event, pending)
                pending = None
            elif event.kind == "assistant":
                blocks = _COMMAND.findall(event.content or "")
                if len(blocks) == 1:
                    pending = ToolCall(id=None, name="bash", arguments=blocks[0])
                    event.tool_calls = [pending]
                    submitted = blocks[0].lstrip().startswith(f"echo {SUBMIT_MARKER}")
            episode.events.append(event)
        if not any(e.kind == "assistant" for e in episode.events) and episode.events:
            raise RecordError("empty conversation", "the run has no assistant turn")
        exit_status = optional_str(info.get("exit_status"), "info.exit_status")
        if exit_status:
            episode.outcome.terminal_status = EXIT_STATUS.get(exit_status, episode.outcome.terminal_status)
        if isinstance(info.get("submission"), str):
            episode.outcome.workspace_diff = info["submission"]
        episode.task.prompt = next((e.content for e in episode.events if e.kind == "user"), None)
        config = info.get("config")
        model = config.get("model") if isinstance(config, dict) else None
        if isinstance(model, dict):
            episode.lineage.model = optional_str(model.get("model_name"), "info.config.model.model_name")
        episode.extra_json = canonical_json(info) if info else None
        return episode
