"""OpenAI Responses API items: what an agent built on the Responses API or the OpenAI Agents SDK logs.

A conversation there is a list of typed items rather than role messages: ``message`` (role and
content parts ``input_text`` / ``output_text`` / ``refusal``; a bare ``{"role", "content"}`` is a
message too), ``reasoning`` (summary parts), ``function_call`` / ``function_call_output`` paired
by ``call_id``, the custom, local-shell and computer tools' call / output pairs, and the
server-side tools (web search, file search, code interpreter, image generation, MCP), whose one
item holds both the call and its result.

A record is a logged turn or run, ``{"instructions", "input": [...], "output": [...], "tools"}``
(the request's fields with the response's ``output``), a ``response`` object alone, or a whole file
that is a bare item list (``result.to_input_list()`` of the Agents SDK). Items become events in
recorded order: an assistant turn's reasoning, text and calls merge into one assistant event, as the
model produced them in one response. An item type this adapter does not know rejects the record
with its path and type (never dropped silently); fields no event takes are kept in ``extra_json``.

A conversation kept on the server is logged one response a line, each naming the one it continues
(``previous_response_id``) and holding only the new items (a call's output, the next user turn).
The responses of one file that form such a chain are one record and one episode, in chain order
(:func:`_chains`), since read apart the later ones answer calls they never show. A response that
continues one the file does not hold once (not in it, or continued twice: a branch) stays apart,
and a result it holds for a call made before it is rejected saying so.
"""

from __future__ import annotations

from collections.abc import Iterator
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
    name_tool_results,
    object_field,
    optional_str,
    read_chat_outcome,
    text_of,
)
from trajectory_platform.traces.adapters.content_parts import REFUSED
from trajectory_platform.traces.adapters.openai import ROLE_KINDS, extra_of, tool_specs_of
from trajectory_platform.traces.drops import named
from trajectory_platform.traces.record import Episode, Event, ToolCall, canonical_json

CLIENT_CALLS = {
    "function_call": ("name", "arguments"),
    "custom_tool_call": ("name", "input"),
    "local_shell_call": ("local_shell", "action"),
    "computer_call": ("computer", "action"),
    "shell_call": ("shell", "action"),
    "apply_patch_call": ("apply_patch", "operation"),
}
"""Calls the client runs, answered by a ``<type>_output`` item: (name field or fixed name, arguments
field)."""
SERVER_CALLS = {
    "web_search_call": "action",
    "file_search_call": "queries",
    "code_interpreter_call": "code",
    "image_generation_call": "result",
    "mcp_call": "arguments",
}
"""Tools the API runs itself: one item holds the call (this field) and its result."""
APPROVAL_REQUEST = "mcp_approval_request"
APPROVAL_RESPONSE = "mcp_approval_response"
"""An MCP call that waits for the caller's approval: the request is the model's call (the later
``mcp_call`` naming it by ``approval_request_id`` its result); a denial is a ``refused`` result."""
WITHOUT_EVENT = frozenset({"mcp_list_tools"})
"""Items that are no turn (the tools an MCP server lists): counted in ``extra_json.items_without_event``."""
COMPACTION = "compaction"
"""What the ``/responses/compact`` API (and the ``context_management`` compaction it runs on its own)
returns in place of the turns it summarized: ``{"type": "compaction", "id", "encrypted_content"}``, the
summary readable by the API alone. The harness's compaction (:func:`ItemTurns.compaction`): a
``compaction`` event replacing the events before it, its summary marked, never its ciphertext kept."""
ENCRYPTED_SUMMARY = "[encrypted compaction summary]"
ON_THE_SERVER = "item_reference"
"""An item named by its id alone, its content kept on the server: the log does not hold that turn."""
FAILED_OUTPUTS = frozenset({"incomplete", "failed"})
ITEM_TYPES = {
    "message",
    "reasoning",
    *CLIENT_CALLS,
    *(f"{t}_output" for t in CLIENT_CALLS),
    *SERVER_CALLS,
    APPROVAL_REQUEST,
    APPROVAL_RESPONSE,
    COMPACTION,
    *WITHOUT_EVENT,
}
RANK = {"reasoning": 0, "content": 1, "tool_calls": 2}
"""The order a response writes an assistant turn's fields in."""
NEW_ITEMS = "new_items"
"""Where the Agents SDK's ``RunResult`` keeps the items a run added after its ``input``."""
RECORD_KEYS = ("id", "instructions", "input", "output", "tools", "object", NEW_ITEMS)
CHAINED = "chained_responses"
"""The framed record of a chain of responses: ``{CHAINED: [response, ...]}``, in chain order."""
PREVIOUS = "previous_response_id"


def _chains(records: list[RawRecord]) -> Iterator[RawRecord]:
    """``records`` with each chain of responses (each naming the one before it by
    :data:`PREVIOUS`) made one record, at its first response's place. A response continued by more
    than one (a branch) links to none; a record in a cycle stays its own."""
    by_id: dict[str, RawRecord] = {}
    followers: dict[str, list[RawRecord]] = {}
    for record in records:
        value = record.value if record.error is None and isinstance(record.value, dict) else {}
        if isinstance(value.get("id"), str):
            by_id.setdefault(value["id"], record)
        if isinstance(value.get(PREVIOUS), str):
            followers.setdefault(value[PREVIOUS], []).append(record)
    next_of = {id(by_id[p]): f[0] for p, f in followers.items() if len(f) == 1 and p in by_id}
    linked = {id(record) for record in next_of.values()}
    emitted: set[int] = set()
    for record in records:
        if id(record) in linked:
            continue
        chain, seen = [record], {id(record)}
        while id(chain[-1]) in next_of and id(next_of[id(chain[-1])]) not in seen:
            chain.append(next_of[id(chain[-1])])
            seen.add(id(chain[-1]))
        emitted |= seen
        yield (
            record
            if len(chain) == 1
            else RawRecord(record.line, record.json_path, {CHAINED: [r.value for r in chain]})
        )
    yield from (record for record in records if id(record) not in emitted)  # a cycle: no first response


def _check_continuation(value: dict[str, Any], events: list[Event]) -> None:
    """A response that continues one this file does not hold once answers, perhaps, a call made
    before it: reject that naming :data:`PREVIOUS`, instead of as a result no call explains."""
    if not isinstance(value.get(PREVIOUS), str):
        return
    called: set[str] = set()
    for index, event in enumerate(events):
        called.update(call.id for call in event.tool_calls if call.id)
        if event.kind == "tool" and event.tool_call_id and event.tool_call_id not in called:
            raise RecordError(
                "orphan tool result",
                f"events[{index}] answers a call made before this response: it continues the response "
                f"its {PREVIOUS} names, which this file does not hold once (responses are stitched "
                "by previous_response_id within one file)",
            )


def run_items(value: Any) -> Any:
    """The Agents SDK's run items (``RunResult.new_items``: ``{"type": "tool_call_item", "raw_item":
    {...}, "agent"}``) as the Responses items they wrap (``raw_item``); any other value as it is."""
    if (
        not isinstance(value, list)
        or not value
        or not all(isinstance(i, dict) and "raw_item" in i for i in value)
    ):
        return value
    return [item["raw_item"] for item in value]


def is_item_list(value: Any) -> bool:
    """A list holding at least one typed Responses item (role messages alone are Chat Completions)."""
    return isinstance(value, list) and any(
        isinstance(item, dict)
        and (
            isinstance(item.get("type"), str)
            and item["type"] in ITEM_TYPES
            or isinstance(item.get("content"), list)
            and any(
                isinstance(p, dict)
                and isinstance(p.get("type"), str)
                and p["type"] in ("input_text", "output_text")
                for p in item["content"]
            )
        )
        for item in value
    )


def _content_text(content: Any, where: str) -> str | None:
    """Message content: a string, or parts whose ``text`` (or ``refusal``) is kept in order."""
    if isinstance(content, list):
        content = [{"text": p["refusal"]} if isinstance(p, dict) and "refusal" in p else p for p in content]
    return text_of(content, where)


def _output_text(output: Any, where: str) -> str | None:
    """A tool output: a string, parts, or any JSON value (kept as canonical JSON)."""
    if output is None or isinstance(output, str | list):
        try:
            return text_of(output, where)
        except RecordError:
            if isinstance(output, list) and all(isinstance(o, dict) for o in output):
                return canonical_json(output)  # the tool's own records, not message parts
            raise
    return canonical_json(output)


def _shell_runs(output: Any) -> tuple[str, bool, int | None] | None:
    """A ``shell_call_output``'s runs (``{"stdout", "stderr", "outcome": {"type": "exit",
    "exit_code"}}`` each): their output, whether one failed (a non-zero exit, a timeout), the last
    exit code; None for any other output."""
    if not (
        isinstance(output, list) and output and all(isinstance(r, dict) and "outcome" in r for r in output)
    ):
        return None
    texts, failed, code = [], False, None
    for run in output:
        texts += [run[k] for k in ("stdout", "stderr") if isinstance(run.get(k), str) and run[k]]
        outcome = run["outcome"] if isinstance(run["outcome"], dict) else {}
        code = outcome.get("exit_code") if isinstance(outcome.get("exit_code"), int) else None
        failed = failed or outcome.get("type") != "exit" or code != 0
    return "\n".join(texts), failed, code


class ItemTurns:
    """Events in recorded order, with one assistant event per model turn: the reasoning, text and
    calls of one response merge until a non-assistant event, or a field out of order, starts the next."""

    def __init__(self) -> None:
        self.events: list[Event] = []
        self.without_event: dict[str, int] = {}

    def assistant(self, field: str) -> Event:
        """The open assistant event for ``field``, or a new one: a response writes its reasoning,
        then its text, then its calls, so a field at or before one already filled starts a turn."""
        last = self.events[-1] if self.events else None
        if last is not None and last.kind == "assistant":
            filled = [RANK[f] for f in RANK if getattr(last, f)]
            if RANK[field] > max(filled, default=-1) or field == "tool_calls" and last.tool_calls:
                return last
        self.events.append(Event(kind="assistant"))
        return self.events[-1]

    def add(self, item: Any, where: str) -> None:
        expect(item, dict, where)
        kind = item.get("type", "message")
        if not isinstance(kind, str):
            raise RecordError("wrong type", f"{where}.type is {type(kind).__name__}, expected string")
        if kind == "message":
            self._message(item, where)
        elif kind == "reasoning":
            parts = item.get("summary") or item.get("content") or []
            text = text_of(expect(parts, list, f"{where}.summary"), f"{where}.summary")
            encrypted = "[encrypted reasoning]" if item.get("encrypted_content") else None
            self.assistant("reasoning").reasoning = text or encrypted
        elif kind in CLIENT_CALLS:
            name_field, arguments_field = CLIENT_CALLS[kind]
            name = item.get(name_field) if name_field == "name" else name_field
            self.assistant("tool_calls").tool_calls.append(
                ToolCall(
                    id=optional_str(item.get("call_id", item.get("id")), f"{where}.call_id"),
                    name=optional_str(name, f"{where}.{name_field}"),
                    arguments=arguments_text(item.get(arguments_field)),
                )
            )
        elif kind.endswith("_output") and kind[: -len("_output")] in CLIENT_CALLS:
            runs = _shell_runs(item.get("output"))
            text = runs[0] if runs else _output_text(item.get("output"), f"{where}.output")
            failed = item.get("status") in FAILED_OUTPUTS or bool(runs and runs[1])
            self.events.append(
                Event(
                    kind="tool",
                    content=text,
                    tool_call_id=optional_str(item.get("call_id"), f"{where}.call_id"),
                    status="error" if failed else None,
                    exit_code=runs[2] if runs else None,
                )
            )
        elif kind in SERVER_CALLS:
            self._server_call(item, kind, where)
        elif kind == APPROVAL_REQUEST:
            self._server_call(item, kind, where, answered=False)
        elif kind == APPROVAL_RESPONSE:
            self._approval(item, where)
        elif kind == COMPACTION:
            self.compaction(item, where)
        elif kind in WITHOUT_EVENT:
            self.without_event[kind] = self.without_event.get(kind, 0) + 1
        elif kind == ON_THE_SERVER:
            raise RecordError(
                "item kept on the server",
                f"{where} names an item by its id alone (item_reference): its content is kept by the "
                "API, not in the log, so the conversation is not whole here",
            )
        else:
            raise RecordError(
                "unknown item type", f"{where}.type is {named(kind)}; expected one of {sorted(ITEM_TYPES)}"
            )

    def compaction(self, item: dict[str, Any], where: str) -> None:
        """A :data:`COMPACTION` item: the turns before it were summarized into it, so later calls saw
        the summary instead of them, as when Codex or Claude Code compacts its history. Its summary
        is the text of its ``summary`` (or ``content``) parts where a log writes one, else a marker:
        the ``encrypted_content`` is ciphertext only the API reads, nothing to train on."""
        parts = item.get("summary") or item.get("content")
        text = _content_text(parts, f"{where}.summary") if parts else None
        encrypted = ENCRYPTED_SUMMARY if item.get("encrypted_content") else None
        through = len(self.events) - 1 if self.events else None
        self.events.append(Event(kind="compaction", content=text or encrypted, replaces_through=through))

    def _message(self, item: dict[str, Any], where: str) -> None:
        role = item.get("role")
        if not isinstance(role, str) or ROLE_KINDS.get(role) not in ("system", "user", "assistant"):
            raise RecordError(
                "unknown role",
                f"{where}.role is {named(role)}; expected system, developer, user or assistant",
            )
        content = _content_text(item.get("content"), f"{where}.content")
        if role == "assistant":
            self.assistant("content").content = content
        else:
            self.events.append(Event(kind=ROLE_KINDS[role], content=content))

    def _server_call(self, item: dict[str, Any], kind: str, where: str, answered: bool = True) -> None:
        """A tool the API runs: the call and, in the same item, its result (``answered``; an MCP
        approval request is the call alone). An ``mcp_call`` run after its approval answers the
        request's call (``approval_request_id``), which is not made twice."""
        approved = item.get("approval_request_id")
        made = {c.id for e in self.events for c in e.tool_calls}
        call_id = approved if isinstance(approved, str) and approved in made else None
        if call_id is None:
            call_id = optional_str(item.get("id"), f"{where}.id")
            name = item.get("name") if kind in ("mcp_call", APPROVAL_REQUEST) else kind[: -len("_call")]
            arguments = item.get(SERVER_CALLS.get(kind, "arguments"))
            self.assistant("tool_calls").tool_calls.append(
                ToolCall(
                    id=call_id, name=optional_str(name, f"{where}.name"), arguments=arguments_text(arguments)
                )
            )
        if not answered:
            return
        facts = ("type", "id", "name", "approval_request_id", SERVER_CALLS[kind])
        result = {k: v for k, v in item.items() if k not in facts}
        failed = item.get("status") == "failed" or item.get("error") is not None
        self.events.append(
            Event(
                kind="tool",
                content=canonical_json(result),
                tool_call_id=call_id,
                status="error" if failed else None,
            )
        )

    def _approval(self, item: dict[str, Any], where: str) -> None:
        """The caller's answer to an MCP approval request: a denial is the call's ``refused`` result
        (its reason the content); an approval is no turn (the ``mcp_call`` after it is the result)."""
        if item.get("approve") is not False:
            self.without_event[APPROVAL_RESPONSE] = self.without_event.get(APPROVAL_RESPONSE, 0) + 1
            return
        reason = item.get("reason")
        self.events.append(
            Event(
                kind="tool",
                content=reason if isinstance(reason, str) else None,
                tool_call_id=optional_str(item.get("approval_request_id"), f"{where}.approval_request_id"),
                status=REFUSED,
            )
        )


class OpenAIResponsesAdapter(Adapter):
    """Runs logged as OpenAI Responses API items (request ``input`` plus response ``output``)."""

    name = "openai-responses"
    logs_calls_alone = True
    task_id_source = CHAT_TASK_ID_SOURCE

    bare_list_key = "input"

    def is_bare_list(self, document: Any) -> bool:
        return is_item_list(document)

    def claims_record(self, record: dict[str, Any]) -> bool:
        return (
            record.get("object") == "response"
            or is_item_list(record.get("input"))
            or is_item_list(record.get("output"))
            or is_item_list(run_items(record.get(NEW_ITEMS)))
        )

    def frame(self, src: SourceFile) -> Iterator[RawRecord]:
        """The file's records, a chain of responses (:data:`PREVIOUS`) one record."""
        return _chains(list(super().frame(src)))

    def parse(self, record: RawRecord, src: SourceFile) -> Episode:
        value = expect(record.value, dict, "record")
        chained = CHAINED in value
        responses = expect(value[CHAINED], list, CHAINED) if chained else [value]
        first = expect(responses[0], dict, f"{CHAINED}[0]") if chained else value
        episode = self.new_episode(record, src, adapter_episode_id(self.name, first.get("id"), first))
        turns = ItemTurns()
        _instructions(first, "", turns)
        for number, response in enumerate(responses):
            where = f"{CHAINED}[{number}]." if chained else ""
            response = expect(response, dict, f"{where}record")
            self._items(response, where, turns)
            episode.task.fixture_id = episode.task.fixture_id or chat_task_id(response)
            read_chat_outcome(response, episode)
            if response.get("tools") is not None and not episode.tools:
                episode.tools = tool_specs_of(response["tools"], f"{where}tools")
        _check_continuation(first, turns.events)
        episode.events = turns.events
        name_tool_results(episode.events)
        counted = {"items_without_event": turns.without_event} if turns.without_event else {}
        episode.extra_json = extra_of(
            {**first, **({CHAINED: [r.get("id") for r in responses]} if chained else {}), **counted},
            RECORD_KEYS,
        )
        return episode

    @staticmethod
    def _items(value: dict[str, Any], where: str, turns: ItemTurns) -> None:
        """One response's request ``input`` then its ``output``, as events; its ``instructions``
        are the first response's (a chained response that repeats them adds no turn)."""
        if not any(isinstance(value.get(k), list) for k in ("input", "output", NEW_ITEMS)) and not isinstance(
            value.get("input"), str
        ):
            raise RecordError(
                "missing field", f"{where}record has neither an 'input' nor an 'output' item list"
            )
        _input(value, where, turns)
        for key in ("output", NEW_ITEMS):
            items = run_items(value.get(key))
            for index, item in enumerate(items if isinstance(items, list) else []):
                turns.add(item, f"{where}{key}[{index}]")


def _instructions(request: dict[str, Any], where: str, turns: ItemTurns) -> None:
    """A request's ``instructions``, its system turn (none where it states none)."""
    if request.get("instructions") is not None:
        content = _content_text(request["instructions"], f"{where}instructions")
        turns.events.append(Event(kind="system", content=content))


def _input(request: dict[str, Any], where: str, turns: ItemTurns) -> None:
    """A request's ``input``: the shorthand string (one user message) or its items."""
    request_input = request.get("input")
    if isinstance(request_input, str):
        turns.events.append(Event(kind="user", content=request_input))
    items = run_items(request_input)
    for index, item in enumerate(items if isinstance(items, list) else []):
        turns.add(item, f"{where}input[{index}]")


def is_request(body: Any) -> TypeGuard[dict[str, Any]]:
    """A Responses API request body: its ``input`` a string, or a list of items and role messages."""
    if not isinstance(body, dict):
        return False
    request_input = body.get("input")
    return isinstance(request_input, str) or (
        isinstance(request_input, list)
        and bool(request_input)
        and all(isinstance(i, dict) and ("type" in i or "role" in i) for i in request_input)
    )


def is_response(value: Any) -> TypeGuard[dict[str, Any]]:
    """A Responses API response: ``object: response``, or an ``output`` list of typed items."""
    return isinstance(value, dict) and (
        value.get("object") == "response" or is_item_list(value.get("output"))
    )


def response_events(response: dict[str, Any], where: str) -> list[Event]:
    """What a Responses API response answered (its ``output`` items), as events, the last with the
    response's token counts: what a tracing platform that logged the response shows of the answer.
    A tool the API ran (``web_search_call``, ``code_interpreter_call``, ``mcp_call``) is the call and
    its result; the message after it is a turn of its own (:class:`ItemTurns`)."""
    turns = ItemTurns()
    items = expect(response.get("output"), list, f"{where}.output")
    for index, item in enumerate(items):
        turns.add(item, f"{where}.output[{index}]")
    if not turns.events:
        turns.events.append(Event(kind="assistant"))
    usage = object_field(response, "usage")
    last = turns.events[-1]
    last.input_tokens, last.output_tokens = usage.get("input_tokens"), usage.get("output_tokens")
    return turns.events


def request_events(body: dict[str, Any], where: str) -> list[Event]:
    """The prompt a Responses API request sent (its ``instructions``, then its ``input``), as events:
    what a caller that logged the request body (the Vercel AI SDK's steps) shows of the prompt."""
    turns = ItemTurns()
    _instructions(body, f"{where}.", turns)
    _input(body, f"{where}.", turns)
    return turns.events
