"""Amazon Bedrock Agents: the trace an ``InvokeAgent`` call streams (``enableTrace``), one trace
part a line as a client logs them: ``{"agentId", "sessionId", "trace": {"orchestrationTrace":
{...}}}``.

A session's parts (its ``sessionId``) are one record, read in order. Of the orchestration trace:

- the first ``modelInvocationInput`` is the conversation the agent started from: its ``text`` is the
  prompt the agent sent the model, a JSON ``{"system", "messages"}`` (read as chat messages, their
  content parts by their shape) or, for older prompt templates, plain text (one user event); later
  inputs repeat it grown by the steps already read, and are counted in
  ``extra_json.model_inputs``;
- ``modelInvocationOutput`` gives the next turn its token counts (``metadata.usage``) and reasoning
  (``reasoningContent``); ``rationale`` is the model's reasoning before it acts;
- ``invocationInput`` is the call the turn makes: an action group's ``function`` (or its API's
  ``verb apiPath``) with its ``parameters`` / ``requestBody``, a knowledge base lookup
  (``knowledge_base``), the code interpreter (``code_interpreter``) or a collaborator agent (its
  name); Bedrock gives calls no ids, so each result answers the call before it;
- ``observation`` is what came back (``actionGroupInvocationOutput``, the knowledge base's
  references, the code's output, ``executionError`` -> ``error``, a collaborator's answer), or the
  end of the turn: ``FINISH`` / ``ASK_USER`` -> the agent's answer (``FINISH``'s is the final
  answer), ``REPROMPT`` -> the runtime's message asking the model to try again (a user event).

Pre- and post-processing, guardrail and routing traces are counted by kind in
``extra_json.traces_not_read``; a ``failureTrace`` ends the episode ``error``.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator
from typing import Any

from trajectory_platform.traces.adapters.base import (
    Adapter,
    RawRecord,
    RecordError,
    SourceFile,
    adapter_episode_id,
    expect,
    frame_json,
    object_field,
    optional_str,
)
from trajectory_platform.traces.adapters.openai import events_of_messages
from trajectory_platform.traces.drops import named
from trajectory_platform.traces.record import Episode, Event, ToolCall, canonical_json

TRACE_KINDS = (
    "orchestrationTrace",
    "preProcessingTrace",
    "postProcessingTrace",
    "failureTrace",
    "guardrailTrace",
    "routingClassifierTrace",
    "customOrchestrationTrace",
)
STEP_KINDS = ("modelInvocationInput", "modelInvocationOutput", "rationale", "invocationInput", "observation")
ANSWER_TYPES = ("FINISH", "ASK_USER")


def is_trace_part(value: Any) -> bool:
    trace = value.get("trace") if isinstance(value, dict) else None
    return (
        isinstance(trace, dict)
        and len(trace) == 1
        and next(iter(trace)) in TRACE_KINDS
        and "sessionId" in value
    )


def _call_of(step: dict[str, Any], where: str) -> ToolCall:
    """An ``invocationInput``'s call, named as the agent's tool was (see the module docstring)."""
    action = object_field(step, "actionGroupInvocationInput")
    if action:
        name = action.get("function") or " ".join(
            str(action[k]) for k in ("verb", "apiPath") if action.get(k)
        )
        parameters = action.get("parameters")
        arguments: Any = action.get("requestBody")
        if isinstance(parameters, list):
            arguments = {str(p.get("name")): p.get("value") for p in parameters if isinstance(p, dict)}
        return ToolCall(None, optional_str(name or None, f"{where}.function"), canonical_json(arguments))
    if step.get("knowledgeBaseLookupInput") is not None:
        return ToolCall(None, "knowledge_base", canonical_json(step["knowledgeBaseLookupInput"]))
    if step.get("codeInterpreterInvocationInput") is not None:
        return ToolCall(None, "code_interpreter", canonical_json(step["codeInterpreterInvocationInput"]))
    collaborator = object_field(step, "agentCollaboratorInvocationInput")
    if collaborator:
        name = optional_str(collaborator.get("agentCollaboratorName"), f"{where}.agentCollaboratorName")
        return ToolCall(None, name, canonical_json(collaborator.get("input")))
    raise RecordError("unknown invocation", f"{where} is of type {named(step.get('invocationType'))}")


def _prompt_events(text: Any, where: str) -> list[Event]:
    """The conversation a model invocation's prompt text holds (see the module docstring)."""
    text = expect(text, str, f"{where}.text")
    try:
        prompt = json.loads(text)
    except json.JSONDecodeError:
        return [Event(kind="user", content=text)]
    if not isinstance(prompt, dict) or not isinstance(prompt.get("messages"), list):
        return [Event(kind="user", content=text)]
    system = prompt.get("system")
    events = [Event(kind="system", content=optional_str(system, f"{where}.text.system"))] if system else []
    return events + events_of_messages(prompt["messages"], f"{where}.text.messages")


class BedrockAgentsAdapter(Adapter):
    """Amazon Bedrock Agents trace parts, one session per record."""

    name = "bedrock-agents"
    task_id_source = None

    def claims_record(self, record: dict[str, Any]) -> bool:
        return is_trace_part(record)

    def frame(self, src: SourceFile) -> Iterator[RawRecord]:
        sessions: dict[str, list[tuple[RawRecord, dict[str, Any]]]] = {}
        for record in frame_json(src):
            if record.error is not None or not is_trace_part(record.value):
                yield (
                    record
                    if record.error is not None
                    else RawRecord(
                        record.line,
                        record.json_path,
                        error=RecordError(
                            "wrong type", "not a Bedrock Agents trace part ({sessionId, trace})"
                        ),
                    )
                )
                continue
            sessions.setdefault(str(record.value["sessionId"]), []).append((record, record.value))
        for session, parts in sessions.items():
            yield RawRecord(
                parts[0][0].line,
                f"sessionId={session}",
                value={"sessionId": session, "parts": [p for _, p in parts]},
            )

    def parse(self, record: RawRecord, src: SourceFile) -> Episode:
        value = expect(record.value, dict, "record")
        parts = value["parts"]
        episode = self.new_episode(record, src, adapter_episode_id(self.name, value["sessionId"], parts))
        not_read: Counter[str] = Counter()
        inputs = 0
        turn: Event | None = None
        pending = Event(kind="assistant")  # what a model output said of the turn it starts
        for index, part in enumerate(parts):
            where = f"parts[{index}].trace"
            kind, trace = next(iter(part["trace"].items()))
            if kind == "failureTrace":
                episode.outcome.terminal_status = "error"
                continue
            if kind != "orchestrationTrace":
                not_read[kind] += 1
                continue
            step_kind = next((k for k in STEP_KINDS if k in expect(trace, dict, where)), None)
            step = expect(trace.get(step_kind) if step_kind else None, dict, f"{where}.{kind}.step")
            at = f"{where}.{kind}.{step_kind}"
            if step_kind == "modelInvocationInput":
                inputs += 1
                if inputs == 1:
                    episode.events.extend(_prompt_events(step.get("text"), at))
            elif step_kind == "modelInvocationOutput":
                usage = object_field(object_field(step, "metadata"), "usage")
                pending.input_tokens, pending.output_tokens = (
                    usage.get("inputTokens"),
                    usage.get("outputTokens"),
                )
                thought = object_field(object_field(step, "reasoningContent"), "reasoningText").get("text")
                pending.reasoning = optional_str(thought, f"{at}.reasoningContent")
            elif step_kind in ("rationale", "invocationInput") or step.get("type") in ANSWER_TYPES:
                if turn is None:
                    turn, pending = pending, Event(kind="assistant")
                    turn.name = optional_str(part.get("collaboratorName"), f"parts[{index}].collaboratorName")
                    episode.events.append(turn)
                if step_kind == "rationale":
                    said = optional_str(step.get("text"), f"{at}.text")
                    turn.reasoning = "\n".join(t for t in (turn.reasoning, said) if t)
                elif step_kind == "invocationInput":
                    turn.tool_calls.append(_call_of(step, at))
                else:
                    answer = optional_str(
                        object_field(step, "finalResponse").get("text"), f"{at}.finalResponse.text"
                    )
                    turn.content = answer
                    if step["type"] == "FINISH":
                        episode.outcome.final_answer, episode.outcome.terminal_status = answer, "completed"
                    turn = None
            else:
                episode.events.append(self._observation(step, at, turn))
                turn = None
        episode.task.prompt = next((e.content for e in episode.events if e.kind == "user"), None)
        rest = {k: v for k, v in parts[0].items() if k not in ("trace", "sessionId")}
        episode.extra_json = canonical_json(
            {**rest, "model_inputs": inputs, "traces_not_read": dict(sorted(not_read.items()))}
        )
        return episode

    @staticmethod
    def _observation(step: dict[str, Any], where: str, turn: Event | None) -> Event:
        """What a call returned, as the tool event answering the turn's last call; or the runtime's
        ``REPROMPT``."""
        if step.get("type") == "REPROMPT":
            reprompt = object_field(step, "repromptResponse").get("text")
            return Event(kind="user", content=optional_str(reprompt, f"{where}.repromptResponse.text"))
        call = turn.tool_calls[-1] if turn is not None and turn.tool_calls else None
        event = Event(kind="tool", tool_name=call.name if call else None, status="ok")
        if action := object_field(step, "actionGroupInvocationOutput"):
            event.content = optional_str(action.get("text"), f"{where}.actionGroupInvocationOutput.text")
        elif code := object_field(step, "codeInterpreterInvocationOutput"):
            event.content = optional_str(
                code.get("executionOutput") or code.get("executionError"), f"{where}.code"
            )
            event.status = "error" if code.get("executionError") else "ok"
        elif found := object_field(step, "knowledgeBaseLookupOutput"):
            event.content = canonical_json(found.get("retrievedReferences"))
        elif (
            collaborator := object_field(step, "agentCollaboratorInvocationOutput")
        ) is not None and collaborator:
            output = object_field(collaborator, "output")
            event.content = optional_str(output.get("text"), f"{where}.agentCollaboratorInvocationOutput")
        else:
            raise RecordError("unknown observation", f"{where} is of type {named(step.get('type'))}")
        return event
