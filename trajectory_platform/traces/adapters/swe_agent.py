"""SWE-agent ``.traj``: one JSON document per episode with ``history`` (the conversation),
``trajectory`` (one step per model call: thought, action, observation, optionally the delivered
``messages``) and ``info`` (exit status, submission patch, model stats).

- Function-calling runs record ``tool_calls`` / ``tool`` messages with ids; text-action runs record
  the parsed ``action`` string, kept as a call without id named after its command word (the word
  SWE-agent dispatches on) with the action text as recorded as its arguments. The message's
  ``content`` (thought plus action, the model's output) is the event's content; the ``thought``
  is not copied to ``reasoning``. Demonstration messages (``is_demo``) are user context.
- Per-step ``query`` / ``messages`` are what the model actually saw (see
  :func:`delivered_inputs_of` for which call each belongs to). Where they equal a prefix of the
  history the delivered input is that prefix (``event_indices``); where a history processor
  elided old observations ("Old environment output: (7 lines omitted)") they are kept verbatim in
  ``messages_json`` and the call is marked ``compacted``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from trajectory_platform.traces.adapters.base import (
    Adapter,
    RawRecord,
    RecordError,
    SourceFile,
    delivered_input,
    expect,
    optional_str,
    text_of,
)
from trajectory_platform.traces.adapters.openai import tool_call_of
from trajectory_platform.traces.drops import named
from trajectory_platform.traces.record import (
    DeliveredInput,
    Episode,
    Event,
    ToolCall,
    canonical_json,
)

EXIT_STATUS = {
    "submitted": "completed",
    "exit_cost": "truncated",
    "exit_context": "truncated",
    "exit_total_execution_time": "timeout",
    "exit_command_timeout": "timeout",
    "exit_format": "error",
    "exit_error": "error",
    "exit_environment_error": "error",
    "early_exit": "abandoned",
    "exit_forfeit": "abandoned",
}
"""SWE-agent ``info.exit_status`` -> terminal status; "submitted (exit_cost)" = auto-submitted at a limit."""


def terminal_status_of(exit_status: str | None) -> str | None:
    """Map an exit status; an auto-submission after a limit counts as the limit, not completion."""
    if not exit_status:
        return None
    if exit_status.startswith("submitted (") and exit_status.endswith(")"):
        return EXIT_STATUS.get(exit_status[len("submitted (") : -1], "completed")
    return EXIT_STATUS.get(exit_status)


def _event_of(message: Any, where: str, after_action: bool) -> Event:
    """One history message; observations (``tool`` role, or the user turn after an action) are tool events.

    A demonstration message (``is_demo``) was shown to the model but is no step of this run:
    whatever its role, it is a user event named ``demonstration`` (context, never a call to replay
    or a target to train on). An assistant message's ``content`` is the model's whole output (its
    ``thought`` followed by the action as written), so the thought stays there once: it is no
    hidden reasoning, and copying it to ``reasoning`` too would show it twice.
    """
    expect(message, dict, where)
    role = message.get("role")
    content = text_of(message.get("content"), f"{where}.content")
    if _is_demo(message.get("is_demo")):
        return Event(kind="user", content=_demo_text(message, content, where), name="demonstration")
    if role == "assistant":
        calls = [
            tool_call_of(c, f"{where}.tool_calls[{i}]") for i, c in enumerate(message.get("tool_calls") or [])
        ]
        action = optional_str(message.get("action"), f"{where}.action")
        if not calls and action and action.strip():
            calls = [ToolCall(id=None, name=action.strip().split()[0], arguments=action)]
        thought = optional_str(message.get("thought"), f"{where}.thought")
        return Event(kind="assistant", content=content or thought, tool_calls=calls)
    if role == "tool" or (role == "user" and after_action):
        ids = message.get("tool_call_ids") or [None]
        call_id = optional_str(ids[0], f"{where}.tool_call_ids")
        return Event(kind="tool", content=content, tool_call_id=call_id)
    if role in ("system", "user"):
        return Event(kind=role, content=content)
    raise RecordError("unknown role", f"{where}.role is {named(role)}")


def _is_demo(flag: Any) -> bool:
    """SWE-agent writes ``is_demo: true``; a log re-serialised through text may hold ``"True"``."""
    return flag is True or (isinstance(flag, str) and flag.strip().lower() == "true")


def _demo_text(message: dict[str, Any], content: str | None, where: str) -> str | None:
    """What the model saw of a demonstration message: its content, and a demonstrated action the
    content does not already spell out (function-calling demos keep the action beside it)."""
    action = (optional_str(message.get("action"), f"{where}.action") or "").strip()
    if message.get("role") != "assistant" or not action or action in (content or ""):
        return content
    return f"{content}\n{action}" if content else action


def events_of_history(history: Any, where: str) -> list[Event]:
    """Convert ``history`` (or a step's ``messages``) in recorded order."""
    expect(history, list, where)
    events: list[Event] = []
    for index, message in enumerate(history):
        after_action = bool(events) and events[-1].kind == "assistant" and bool(events[-1].tool_calls)
        events.append(_event_of(message, f"{where}[{index}]", after_action))
    return events


def delivered_inputs_of(events: list[Event], steps: list[Any]) -> list[DeliveredInput]:
    """Manifests for the model calls whose input the steps record.

    Newer SWE-agent writes ``query`` on step ``i``: the messages call ``i`` was sent. Older runs
    write ``messages`` on step ``i``: the processed history *after* the step (its own action and
    observation included), which is exactly what call ``i + 1`` is sent; the last step's
    ``messages`` feed no further call. Call ``n`` produced the ``n``-th assistant event.
    """
    assistant_indices = [i for i, e in enumerate(events) if e.kind == "assistant"]
    manifests = []
    for step_index, step in enumerate(steps):
        if not isinstance(step, dict):
            continue
        if step.get("query"):
            call_index, messages, key = step_index, step["query"], "query"
        elif step.get("messages"):
            call_index, messages, key = step_index + 1, step["messages"], "messages"
        else:
            continue
        if call_index >= len(assistant_indices):
            continue
        delivered = events_of_history(messages, f"trajectory[{step_index}].{key}")
        manifests.append(delivered_input(call_index, delivered, events, assistant_indices[call_index]))
    return manifests


class SweAgentAdapter(Adapter):
    """A ``.traj`` document: ``{"history": [...], "trajectory": [...], "info": {...}}``."""

    name = "swe-agent"
    task_id_source = (
        "`replay_config.problem_statement.id`, else the `.traj` file name "
        "(SWE-agent names each file after its instance)"
    )
    split_document = False

    def sniff(self, sample: Any, path: Path) -> bool:
        return (
            isinstance(sample, dict)
            and isinstance(sample.get("history"), list)
            and ("trajectory" in sample or path.suffix == ".traj")
        ) or _attempts(sample) is not None

    def frame(self, src: SourceFile) -> Iterator[RawRecord]:
        """A RetryAgent's ``.traj`` (``{"attempts": [...], "info"}``): each attempt is a run of its
        own, one record at ``attempts[i]``, carrying the retry's own ``info`` (which attempt its
        reviewer chose, the submission it kept) and the run's configuration; any other file as usual."""
        document, error = src.document
        attempts = _attempts(document) if error is None else None
        if attempts is None:
            yield from super().frame(src)
            return
        retry = {
            k: v
            for k, v in document.items()
            if k not in ("attempts", "history", "trajectory", "replay_config")
        }
        for index, attempt in enumerate(attempts):
            value = {"replay_config": document.get("replay_config"), **attempt}
            value[RETRY] = {"attempt": index, "attempts": len(attempts), **retry}
            yield RawRecord(None, f"attempts[{index}]", value=value)

    def parse(self, record: RawRecord, src: SourceFile) -> Episode:
        value = expect(record.value, dict, "record")
        info = expect(value.get("info") or {}, dict, "info")
        steps = expect(value.get("trajectory") or [], list, "trajectory")
        config = _replay_config(value)
        instance = _instance_id(config, src.path)
        retry = value.get(RETRY)
        suffix = f":attempt-{retry['attempt']}" if isinstance(retry, dict) else ""
        episode = self.new_episode(record, src, f"{self.name}:{instance}{suffix}")
        episode.events = events_of_history(value.get("history"), "history")
        episode.delivered_inputs = delivered_inputs_of(episode.events, steps)
        exit_status = optional_str(info.get("exit_status"), "info.exit_status")
        episode.outcome.terminal_status = terminal_status_of(exit_status)
        episode.outcome.workspace_diff = optional_str(info.get("submission"), "info.submission")
        episode.task.fixture_id = instance
        episode.task.prompt = next(
            (e.content for e in episode.events if e.kind == "user" and e.name != "demonstration"), None
        )
        model_stats = info.get("model_stats")
        extra = {
            "exit_status": exit_status,
            "model_stats": model_stats,
            "environment": value.get("environment"),
            "env_variables": _viewer_variables(config),
            RETRY: retry,
        }
        episode.extra_json = canonical_json({k: v for k, v in extra.items() if v is not None})
        return episode


RETRY = "retry"
"""Where an attempt of a RetryAgent run keeps its place among the attempts and the retry's ``info``."""


def _attempts(document: Any) -> list[Any] | None:
    """The attempts of a RetryAgent ``.traj``, each a ``.traj`` of its own (a ``history``); else None."""
    attempts = document.get("attempts") if isinstance(document, dict) else None
    if (
        isinstance(attempts, list)
        and attempts
        and all(isinstance(a, dict) and isinstance(a.get("history"), list) for a in attempts)
    ):
        return attempts
    return None


def _replay_config(value: dict[str, Any]) -> dict[str, Any] | None:
    """The run's configuration the ``.traj`` records (``replay_config``, an object or its JSON)."""
    config = value.get("replay_config")
    if isinstance(config, str):
        try:
            config = json.loads(config)
        except json.JSONDecodeError:
            config = None
    return config if isinstance(config, dict) else None


def _viewer_variables(config: dict[str, Any] | None) -> dict[str, int] | None:
    """``WINDOW`` and ``OVERLAP`` of the run's tool environment (``agent.tools.env_variables``):
    the size of the file viewer whose windows the observations show, which replay reproduces."""
    agent = config.get("agent") if config else None
    tools = agent.get("tools") if isinstance(agent, dict) else None
    variables = tools.get("env_variables") if isinstance(tools, dict) else None
    if not isinstance(variables, dict):
        return None
    found: dict[str, int] = {}
    for name in ("WINDOW", "OVERLAP"):
        raw = variables.get(name)
        if raw is None:
            continue
        if isinstance(raw, bool) or not str(raw).isdigit():
            raise RecordError(
                "wrong type",
                f"replay_config.agent.tools.env_variables.{name} is not a whole number "
                f"({type(raw).__name__})",
            )
        found[name] = int(raw)
    return found or None


def _instance_id(config: dict[str, Any] | None, path: Path) -> str:
    """The instance id from the replay config when recorded, else the file name (SWE-agent names
    each ``.traj`` after its instance)."""
    if config is not None:
        statement = config.get("problem_statement")
        candidate = statement.get("id") if isinstance(statement, dict) else None
        if isinstance(candidate, str) and candidate:
            return candidate
    return path.name.removesuffix(".traj")
