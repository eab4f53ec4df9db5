"""Google Gemini API contents: what an agent on the Gemini API (or Vertex AI) logs.

A conversation is a list of ``Content`` items ``{"role": "user" | "model" | "function" | "tool",
"parts": [...]}``; a part holds ``text`` (``thought: true`` marks reasoning), a ``functionCall``
(``name``, ``args``, an ``id`` where the API gave one), a ``functionResponse`` (``name``,
``response``), ``executableCode`` / ``codeExecutionResult`` (the built-in code tool), or media
(``inlineData``, ``fileData``: kept as a marker). The REST API writes camelCase, the Python SDK's
``to_json_dict`` snake_case: both are read.

A record is ``{"systemInstruction", "contents", "tools"}`` (a request, optionally with the
``response`` or its ``candidates``, whose first candidate's content ends the conversation), a
``GenerateContentResponse`` alone, or a whole file that is a bare ``Content`` list. A part kind this
adapter does not know rejects the record with its path (never dropped silently); fields no event
takes are kept in ``extra_json``.
"""

from __future__ import annotations

import json
import re
from typing import Any, TypeGuard

from trajectory_platform.traces.adapters.base import (
    CHAT_TASK_ID_SOURCE,
    Adapter,
    RawRecord,
    RecordError,
    SourceFile,
    adapter_episode_id,
    arguments_text,
    chat_task_id,
    expect,
    optional_str,
    read_chat_outcome,
    sampling_params_json,
)
from trajectory_platform.traces.adapters.openai import choice_taken, choices_taken, extra_of, taken_choice
from trajectory_platform.traces.drops import named
from trajectory_platform.traces.record import Episode, Event, ToolCall, ToolSpec, canonical_json

MEDIA_PARTS = ("inline_data", "file_data", "video_metadata")
PART_KINDS = (
    "text",
    "function_call",
    "function_response",
    "executable_code",
    "code_execution_result",
    *MEDIA_PARTS,
)
PART_EXTRAS = ("thought", "thought_signature", "part_metadata")
"""Keys a part may carry beside its kind."""
ROLES = {"user": "user", "model": "assistant", "function": "tool", "tool": "tool"}
RESPONSE_READ = ("candidates", "usage_metadata", "model_version", "response_id")
"""The fields of a logged response the episode holds: its answer, tokens, model and id."""
RECORD_KEYS = ("contents", "system_instruction", "tools", "response", "candidates", "response_id")


def snake(key: str) -> str:
    """``functionCall`` -> ``function_call``: the REST API's camelCase in the SDK's spelling."""
    return re.sub(r"(?<!^)([A-Z])", r"_\1", key).lower()


def snaked(value: Any, parent: str = "") -> Any:
    """``value`` with every dict key in snake_case, except inside call arguments, a function's
    response and a parameter schema, which are the tool's own data."""
    if isinstance(value, list):
        return [snaked(v, parent) for v in value]
    if not isinstance(value, dict):
        return value
    out = {}
    for key, item in value.items():
        name = snake(key)
        own_data = name in ("args", "parameters", "parameters_json_schema") or (
            name == "response" and parent == "function_response"
        )
        out[name] = item if own_data else snaked(item, name)
    return out


def _is_contents(value: Any) -> bool:
    """A Gemini ``contents`` list: every entry holds ``parts``, each part keyed by its kind. A part
    that names its kind under ``type`` is another framework's (the Vercel AI SDK's ``UIMessage``
    parts: ``{"type": "text"}``, ``{"type": "tool-getWeather"}``), which this reader cannot read, so
    such a list is not claimed: the chat readers read it by the parts' shape."""
    return (
        isinstance(value, list)
        and bool(value)
        and all(isinstance(c, dict) and isinstance(c.get("parts"), list) for c in value)
        and not any(isinstance(p, dict) and "type" in p for c in value for p in c["parts"])
    )


def _part_kind(part: Any, where: str) -> str:
    expect(part, dict, where)
    kinds = [k for k in part if k in PART_KINDS]
    unknown = [k for k in part if k not in PART_KINDS and k not in PART_EXTRAS]
    if len(kinds) != 1 or unknown:
        raise RecordError(
            "unknown part",
            f"{where} has keys {', '.join(named(k) for k in sorted(part))}; "
            f"expected one of {list(PART_KINDS)} (with {list(PART_EXTRAS)})",
        )
    return kinds[0]


def _response_media(parts: Any, where: str) -> list[str]:
    """The media a Gemini 3 function response returns beside its data (``parts``, each
    ``inlineData`` or ``fileData``), each as the marker a media part of a turn gets: left unread, the
    image the model was shown vanished from the result without a count."""
    expect(parts, list, where)
    kinds = [_part_kind(part, f"{where}[{index}]") for index, part in enumerate(parts)]
    unknown = next((i for i, kind in enumerate(kinds) if kind not in MEDIA_PARTS), None)
    if unknown is not None:
        raise RecordError(
            "unknown content part",
            f"{where}[{unknown}] is a {kinds[unknown]} part; a function response's parts are media",
        )
    return [f"[{kind}]" for kind in kinds]


def events_of_content(content: Any, where: str) -> list[Event]:
    """One ``Content``: a model turn is one assistant event (thoughts, text, calls in part order);
    a user or function turn is its text as a user event and each function response as a tool event."""
    expect(content, dict, where)
    role = content.get("role") or (
        "model" if where.startswith("response") else "user"
    )  # unset: the API's default
    if not isinstance(role, str) or role not in ROLES:
        raise RecordError("unknown role", f"{where}.role is {named(role)}; expected one of {sorted(ROLES)}")
    parts = expect(content.get("parts"), list, f"{where}.parts")
    texts: list[str] = []
    thoughts: list[str] = []
    calls: list[ToolCall] = []
    results: list[Event] = []
    for index, part in enumerate(parts):
        at = f"{where}.parts[{index}]"
        kind = _part_kind(part, at)
        if kind == "text":
            (thoughts if part.get("thought") else texts).append(expect(part["text"], str, f"{at}.text"))
        elif kind == "function_call":
            call = expect(part["function_call"], dict, f"{at}.function_call")
            calls.append(
                ToolCall(
                    id=optional_str(call.get("id"), f"{at}.function_call.id"),
                    name=optional_str(call.get("name"), f"{at}.function_call.name"),
                    arguments=arguments_text(call.get("args")),
                )
            )
        elif kind == "executable_code":
            code = expect(part["executable_code"], dict, f"{at}.executable_code")
            calls.append(ToolCall(id=None, name="code_execution", arguments=canonical_json(code)))
        elif kind == "function_response":
            response = expect(part["function_response"], dict, f"{at}.function_response")
            name = optional_str(response.get("name"), f"{at}.function_response.name")
            output = response.get("response")
            failed = isinstance(output, dict) and set(output) == {"error"}
            said = [output if isinstance(output, str) else canonical_json(output)]
            said += _response_media(response.get("parts") or [], f"{at}.function_response.parts")
            results.append(
                Event(
                    kind="tool",
                    content="\n".join(said),
                    tool_call_id=optional_str(response.get("id"), f"{at}.function_response.id"),
                    tool_name=name,
                    status="error" if failed else None,
                )
            )
        elif kind == "code_execution_result":
            result = expect(part["code_execution_result"], dict, f"{at}.code_execution_result")
            ok = result.get("outcome") in (None, "OUTCOME_OK")
            results.append(
                Event(
                    kind="tool",
                    content=optional_str(result.get("output"), f"{at}.code_execution_result.output"),
                    tool_name="code_execution",
                    status=None if ok else "error",
                )
            )
        else:
            texts.append(f"[{kind}]")
    if ROLES[role] == "assistant" and (texts or thoughts or calls or not results):
        event = Event(
            kind="assistant", content="\n".join(texts) or None, reasoning="\n".join(thoughts) or None
        )
        event.tool_calls = calls
        return [event, *results]  # the built-in code tool's result comes back in the model's turn
    user = [Event(kind="user", content="\n".join(texts))] if texts else []
    return [*user, *results]


def _request_events(value: dict[str, Any], where: str) -> list[Event]:
    """A request's prompt (snake_case keys): its ``system_instruction`` (a string or a ``Content``
    of text parts) as a system event, then its ``contents``."""
    events: list[Event] = []
    instruction = value.get("system_instruction")
    at = f"{where}system_instruction"
    if instruction is not None:
        text = instruction if isinstance(instruction, str) else None
        if text is None:
            parts = expect(expect(instruction, dict, at).get("parts"), list, f"{at}.parts")
            text = "\n".join(expect(p.get("text"), str, f"{at}.parts[{i}].text") for i, p in enumerate(parts))
        events.append(Event(kind="system", content=text))
    for index, content in enumerate(value.get("contents") or []):
        events.extend(events_of_content(content, f"{where}contents[{index}]"))
    return events


def is_request(body: Any) -> TypeGuard[dict[str, Any]]:
    """A Gemini API request body: its ``contents`` a list of ``Content`` items."""
    return isinstance(body, dict) and _is_contents(body.get("contents"))


def request_events(body: dict[str, Any], where: str) -> list[Event]:
    """The prompt a Gemini API request sent (``systemInstruction``, then ``contents``; camelCase or
    snake_case), as events: what a caller that logged the request body (the Vercel AI SDK's steps,
    its ``google`` provider) shows of the prompt."""
    return _request_events(snaked(body), f"{where}.")


def tool_specs_of(raw: Any, where: str) -> list[ToolSpec]:
    """``tools``: each entry's ``function_declarations``, and built-in tools named by their key
    (``{"google_search": {}}`` -> ``google_search``)."""
    expect(raw, list, where)
    specs = []
    for index, entry in enumerate(raw):
        at = f"{where}[{index}]"
        expect(entry, dict, at)
        for key, value in entry.items():
            if key != "function_declarations":
                specs.append(ToolSpec(name=key))
                continue
            for number, declaration in enumerate(expect(value, list, f"{at}.{key}")):
                expect(declaration, dict, f"{at}.{key}[{number}]")
                parameters = declaration.get("parameters", declaration.get("parameters_json_schema"))
                specs.append(
                    ToolSpec(
                        name=expect(declaration.get("name"), str, f"{at}.{key}[{number}].name"),
                        description=optional_str(
                            declaration.get("description"), f"{at}.{key}[{number}].description"
                        ),
                        parameters_json=None if parameters is None else canonical_json(parameters),
                    )
                )
    return specs


class GeminiAdapter(Adapter):
    """Conversations logged as Gemini API ``contents`` (with the response's candidate, if logged)."""

    name = "gemini"
    logs_calls_alone = True
    task_id_source = CHAT_TASK_ID_SOURCE

    bare_list_key = "contents"

    def is_bare_list(self, document: Any) -> bool:
        return _is_contents(document)

    def claims_record(self, record: dict[str, Any]) -> bool:
        candidates = record.get("candidates")
        return _is_contents(record.get("contents")) or (
            isinstance(candidates, list)
            and bool(candidates)
            and isinstance(candidates[0], dict)
            and "content" in candidates[0]
        )

    def parse(self, record: RawRecord, src: SourceFile) -> Episode:
        raw = expect(record.value, dict, "record")
        value = snaked(raw)
        response = value.get("response") if isinstance(value.get("response"), dict) else value
        candidates = response.get("candidates")
        if not isinstance(value.get("contents"), list) and not isinstance(candidates, list):
            raise RecordError("missing field", "record has neither 'contents' nor 'candidates'")
        own_id = value.get("id", response.get("response_id"))
        episode = self.new_episode(record, src, adapter_episode_id(self.name, own_id, raw))
        episode.task.fixture_id = chat_task_id(raw)
        read_chat_outcome(raw, episode)
        events = _request_events(value, "")
        if isinstance(candidates, list) and candidates:
            position, taken = taken_choice(response, "response", "candidates")
            at = f"response.candidates[{position}]"
            answer = events_of_content(taken.get("content"), f"{at}.content")
            answer[0].finish_reason = optional_str(taken.get("finish_reason"), f"{at}.finish_reason")
            usage = response.get("usage_metadata")
            if isinstance(usage, dict):  # what the call cost, said of its answer
                answer[0].input_tokens = usage.get("prompt_token_count")
                answer[0].output_tokens = usage.get("candidates_token_count")
            events.extend(answer)
        episode.events = events
        if value.get("tools") is not None:
            episode.tools = tool_specs_of(value["tools"], "tools")
        model = value.get("model", response.get("model_version"))
        episode.lineage.model = optional_str(model, "model")
        config = value.get("generation_config")
        if isinstance(config, dict):
            episode.lineage.sampling_params_json = sampling_params_json(config)
        consumed = tuple(
            k for k in raw if snake(k) in (*RECORD_KEYS, "model", "generation_config") or k == "id"
        )
        extra = json.loads(extra_of(raw, consumed) or "{}")
        if response is not value:  # the response's own fields beside its answer (its id, ...)
            rest = {k: v for k, v in response.items() if k not in RESPONSE_READ}
            extra.update({"response": rest} if rest else {})
        extra.update(choices_taken([(0, choice_taken(response))]))  # candidateCount > 1: the one taken
        episode.extra_json = canonical_json(extra) if extra else None
        return episode
