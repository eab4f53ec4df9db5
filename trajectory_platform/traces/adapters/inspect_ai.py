"""Inspect AI eval logs (JSON): ``{"eval", "plan", "results", "samples": [...]}``; each sample is
one record (JSON path ``samples[i]``).

``sample.messages`` are the conversation (Inspect roles system / user / assistant / tool; tool
calls carry ``arguments`` as an object; a tool message may carry ``error: {type, message}``).
Error types map to statuses: ``output_limit`` -> truncated, ``approval`` and ``parsing`` (the
runtime would not run the proposed call) -> refused, any other -> error. Each ``model`` event in
``sample.events`` is one model call; its ``input`` is what the model saw (a delivered-input
manifest). Scores are the verifier results.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from trajectory_platform.traces.adapters.base import (
    Adapter,
    RawRecord,
    RecordError,
    SourceFile,
    arguments_text,
    delivered_input,
    expect,
    frame_json,
    object_field,
    optional_str,
    sampling_params_json,
)
from trajectory_platform.traces.drops import named
from trajectory_platform.traces.record import Episode, Event, ToolCall, canonical_json

# keyed by object: looked up with whatever the log's error.type holds (a missing one is None)
ERROR_STATUS: dict[object, str] = {"output_limit": "truncated", "approval": "refused", "parsing": "refused"}
ROLES = ("system", "user", "assistant", "tool")
ATTACHMENT = "attachment://"


def _text(content: Any, where: str) -> tuple[str | None, str | None]:
    """(text, reasoning) of Inspect content: a string or a list of typed parts."""
    if content is None or isinstance(content, str):
        return content, None
    expect(content, list, where)
    texts, thoughts = [], []
    for part in content:
        expect(part, dict, where)
        if part.get("type") == "reasoning":
            thoughts.append(part.get("reasoning") or "")
        elif part.get("type") == "text":
            texts.append(part.get("text") or "")
        else:
            texts.append(f"[{part.get('type')}]")
    return ("\n".join(texts) if texts else None), ("\n".join(thoughts) if thoughts else None)


def event_of_message(message: Any, where: str) -> Event:
    expect(message, dict, where)
    role = message.get("role")
    if not isinstance(role, str) or role not in ROLES:
        raise RecordError("unknown role", f"{where}.role is {named(role)}; expected one of {list(ROLES)}")
    text, reasoning = _text(message.get("content"), f"{where}.content")
    event = Event(kind=role, content=text, reasoning=reasoning)
    if role == "assistant":
        for index, call in enumerate(message.get("tool_calls") or []):
            expect(call, dict, f"{where}.tool_calls[{index}]")
            event.tool_calls.append(
                ToolCall(
                    optional_str(call.get("id"), f"{where}.tool_calls[{index}].id"),
                    optional_str(call.get("function"), f"{where}.tool_calls[{index}].function"),
                    arguments_text(call.get("arguments")),
                )
            )
    elif role == "tool":
        event.tool_call_id = optional_str(message.get("tool_call_id"), f"{where}.tool_call_id")
        event.tool_name = optional_str(message.get("function"), f"{where}.function")
        error = message.get("error")
        event.status = ERROR_STATUS.get((error or {}).get("type"), "error") if error else "ok"
    return event


def _resolve_attachments(value: Any, attachments: dict[str, Any]) -> Any:
    """Inspect stores repeated long strings once, as ``attachment://<hash>``; put them back."""
    if isinstance(value, str) and value.startswith(ATTACHMENT):
        return attachments.get(value[len(ATTACHMENT) :], value)
    if isinstance(value, list):
        return [_resolve_attachments(v, attachments) for v in value]
    if isinstance(value, dict):
        return {k: _resolve_attachments(v, attachments) for k, v in value.items() if k != "attachments"}
    return value


class InspectAdapter(Adapter):
    """Eval logs written by ``inspect eval`` (the ``.json`` log format)."""

    name = "inspect"
    task_id_source = "`eval.task` and the sample `id`, as `<task>/<id>`"

    def sniff(self, sample: Any, path: Path) -> bool:
        return isinstance(sample, dict) and "eval" in sample and isinstance(sample.get("samples"), list)

    def frame(self, src: SourceFile) -> Iterator[RawRecord]:
        doc, error = src.document
        if error is not None or not isinstance(doc, dict):
            yield from frame_json(src)
            return
        header = {k: doc.get(k) for k in ("eval", "status")}
        for index, sample in enumerate(doc.get("samples") or []):
            yield RawRecord(None, f"samples[{index}]", value={"header": header, "sample": sample})

    def parse(self, record: RawRecord, src: SourceFile) -> Episode:
        sample = expect(record.value["sample"], dict, "sample")
        sample = _resolve_attachments(sample, sample.get("attachments") or {})
        header = record.value["header"]
        spec = header.get("eval") if isinstance(header.get("eval"), dict) else {}
        own_id = f"{spec.get('eval_id') or spec.get('run_id')}/{sample.get('id')}/epoch-{sample.get('epoch')}"
        episode = self.new_episode(record, src, f"{self.name}:{own_id}")
        messages = expect(sample.get("messages"), list, "sample.messages")
        episode.events = [event_of_message(m, f"sample.messages[{i}]") for i, m in enumerate(messages)]
        assistants = [i for i, e in enumerate(episode.events) if e.kind == "assistant"]
        model_events = [
            e for e in sample.get("events") or [] if isinstance(e, dict) and e.get("event") == "model"
        ]
        for call_index, model_event in enumerate(model_events):
            seen = [
                event_of_message(m, f"events.model[{call_index}].input[{i}]")
                for i, m in enumerate(model_event.get("input") or [])
            ]
            response = assistants[call_index] if call_index < len(assistants) else None
            episode.delivered_inputs.append(delivered_input(call_index, seen, episode.events, response))
        if sample.get("error"):
            episode.outcome.terminal_status = "error"
        elif sample.get("limit"):
            episode.outcome.terminal_status = "truncated"
        elif header.get("status") == "success":
            episode.outcome.terminal_status = "completed"
        output = sample.get("output") if isinstance(sample.get("output"), dict) else {}
        choices = output.get("choices") or [{}]
        completion = output.get("completion", (choices[0].get("message") or {}).get("content"))
        episode.outcome.final_answer = _text(completion, "sample.output")[0]
        if sample.get("scores") is not None:
            episode.outcome.verifier_results_json = canonical_json(sample["scores"])
        episode.task.fixture_id = f"{spec.get('task')}/{sample.get('id')}"
        episode.task.prompt = (
            _text(sample.get("input"), "sample.input")[0]
            if isinstance(sample.get("input"), str | list)
            else None
        )
        episode.lineage.model = optional_str(spec.get("model"), "eval.model")
        config = object_field(spec, "model_generate_config")
        episode.lineage.sampling_params_json = sampling_params_json(config)
        extra = {"target": sample.get("target"), "model_usage": sample.get("model_usage")}
        episode.extra_json = canonical_json({k: v for k, v in extra.items() if v is not None})
        return episode
