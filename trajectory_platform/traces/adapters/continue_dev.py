"""Continue (the IDE coding agent): a saved session, ``~/.continue/sessions/<id>.json``:
``{"sessionId", "title", "workspaceDirectory", "history": [item, ...]}``.

Each history item wraps one chat ``message`` (OpenAI's shape in camelCase: ``toolCalls``,
``toolCallId``; a ``thinking`` message is the reasoning of the assistant turn after it: both read
as :mod:`~trajectory_platform.traces.adapters.message_roles` says) with what Continue kept around
it:

- ``contextItems``: the files and snippets the user attached, which Continue sends to the model
  ahead of the message's text, so their ``content`` is read ahead of it too;
- ``toolCallState``: the state of the call the turn made (``errored`` -> its result is an
  ``error``, ``canceled`` -> the user refused it: a ``refusal``);
- ``promptLogs``: the model calls behind the turn; the first ``completionOptions.model`` is the
  episode's model, and how many calls were logged is ``extra_json.prompt_logs``.
"""

from __future__ import annotations

from typing import Any

from trajectory_platform.traces.adapters.base import (
    Adapter,
    RawRecord,
    SourceFile,
    adapter_episode_id,
    expect,
    name_tool_results,
    object_field,
    optional_str,
)
from trajectory_platform.traces.adapters.openai import events_of_messages
from trajectory_platform.traces.record import Episode, canonical_json

STATUS = {"errored": ("tool", "error"), "canceled": ("refusal", "refused")}
"""A call's ``toolCallState.status`` that says its result is not a plain answer."""


def is_session(value: Any) -> bool:
    history = value.get("history") if isinstance(value, dict) else None
    return (
        isinstance(history, list)
        and "sessionId" in value
        and bool(history)
        and all(isinstance(item, dict) and isinstance(item.get("message"), dict) for item in history)
    )


def _with_context(message: dict[str, Any], items: Any) -> dict[str, Any]:
    """The message as the model was sent it: the attached context items' content ahead of its own."""
    attached = [
        item["content"]
        for item in items or []
        if isinstance(item, dict) and isinstance(item.get("content"), str)
    ]
    if not attached:
        return message
    content = message.get("content")
    own = (
        content
        if isinstance(content, list)
        else []
        if content in (None, "")
        else [{"type": "text", "text": content}]
    )
    return {**message, "content": [*({"type": "text", "text": text} for text in attached), *own]}


class ContinueAdapter(Adapter):
    """Continue session files."""

    name = "continue"
    task_id_source = None
    split_document = False

    def sniff(self, sample: Any, path: Any) -> bool:
        return is_session(sample)

    def parse(self, record: RawRecord, src: SourceFile) -> Episode:
        session = expect(record.value, dict, "record")
        history = expect(session.get("history"), list, "history")
        episode = self.new_episode(
            record, src, adapter_episode_id(self.name, session.get("sessionId"), session)
        )
        messages = [
            _with_context(
                expect(item.get("message"), dict, f"history[{i}].message"),
                item.get("contextItems"),
            )
            for i, item in enumerate(history)
        ]
        episode.events = events_of_messages(messages, "history")
        states = {
            str(state.get("toolCallId")): state.get("status")
            for item in history
            if (state := object_field(item, "toolCallState"))
        }
        for event in episode.events:
            if event.kind == "tool" and STATUS.get(str(states.get(str(event.tool_call_id)))):
                event.kind, event.status = STATUS[str(states[str(event.tool_call_id)])]
        name_tool_results(episode.events)
        logs = [log for item in history for log in item.get("promptLogs") or [] if isinstance(log, dict)]
        model = next((object_field(log, "completionOptions").get("model") for log in logs), None)
        episode.lineage.model = optional_str(model, "history.promptLogs.completionOptions.model")
        episode.task.prompt = next((e.content for e in episode.events if e.kind == "user"), None)
        rest = {k: v for k, v in session.items() if k not in ("history", "sessionId")}
        episode.extra_json = canonical_json({**rest, "prompt_logs": len(logs)})
        return episode
