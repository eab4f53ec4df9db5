"""A reject's reason and detail carry no text of the record: they are stored in ``ingest_rejects``
and printed, unredacted (traces/drops.py). The sweep takes one record per format and replaces every
field in turn by a key (as a string, and inside an object where a string or number belongs) or by a
number no field holds, and renames every object key to a key; every such record is read or
rejected (never a crash), and the key is in no reject's reason, detail or excerpt. A record's own
id (an OTel trace id, a Claude Code session id) may be in its path: that is how a person finds the
record in their logs. A log written as a folder of files (Strands' sessions, OpenHands' file store)
is swept file by file, the folder's other files as they were."""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import framework_records as fr
import pytest
from ai_sdk_bare_steps import v4, v5
from ai_sdk_requests import CASES as AI_SDK_REQUESTS
from ai_sdk_requests import GEMINI as AI_SDK_GEMINI_REQUESTS
from ai_sdk_requests import steps as ai_sdk_steps
from chatgpt_exports import conversation, text
from handwritten_records import (
    AGENTS_SDK_TRACE,
    ANTHROPIC_BATCH_RESULTS,
    ANTHROPIC_STREAM,
    AUTOGEN_RESULT,
    BEDROCK_CONVERSE,
    BEDROCK_INVOCATION_LOG,
    BEDROCK_RESPONSE,
    BRAINTRUST_SPAN,
    BRAINTRUST_TRACE,
    CHAT_STREAM,
    CLAUDE_STREAM,
    CODEX_EXEC_EVENTS,
    CODEX_SESSION,
    FRAMEWORK_CHATS,
    GATEWAY_ANTHROPIC_CALL,
    GATEWAY_LOG,
    GATEWAY_RUN,
    GEMINI_CLI_SESSION,
    GEMINI_REQUEST,
    GOOSE_SESSION,
    GOOSE_STREAM,
    LANGFUSE_TRACE,
    LANGSMITH_RUNS,
    MLFLOW_TRACE,
    OPENAI_BATCH_OUTPUT,
    OPENLLMETRY_TRACE,
    PYDANTIC_AI_MESSAGES,
    RESPONSES_CHAIN,
    RESPONSES_RUN,
    SHAREGPT_RECORD,
    SPLIT_CONVERSATIONS,
    STREAMED_GATEWAY_CALL,
    TEXT_COMPLETION_CALL,
)
from provider_tool_turns import CASES as PROVIDER_TOOL_TURNS
from span_provider_tools import CASES as SPAN_PROVIDER_TOOLS
from strands_multi_agent import CASES as STRANDS_MULTI_AGENT
from strands_multi_agent import write as write_multi_agent
from strands_sessions import agent_folder
from strands_sessions import assistant as strands_assistant
from strands_sessions import result as strands_result
from strands_sessions import user as strands_user
from test_a2a_tasks import said, task
from test_assistants_run_steps import thread
from test_langchain_agent_steps import action, result
from test_openhands_file_store import session as openhands_session
from traced_provider_tools import CASES as TRACED_PROVIDER_TOOLS

from trajectory_platform.traces.drops import named, without_record_text
from trajectory_platform.traces.ingest import ingest_paths, sample_logs_root

KEY = "AKIAQWERTYUIOP234567"
LOWER_KEY = "sk-proj-4f9a8b7c6d5e4f3a2b1c"
"""Put where an object key was: an adapter may re-case keys (Gemini's camelCase to snake_case), and
a lowercase key comes through that unchanged."""
RECORD_IDS = {"traceId", "sessionId", "session_id", "trace_id", "thread_id"}
Path_ = tuple[str | int, ...]


def _read(path: Path) -> tuple[Any, bool]:
    """(the document, or the list of a JSONL file's readable lines; whether it is JSONL)."""
    text = path.read_text()
    if path.suffix != ".jsonl":
        return json.loads(text), False
    lines = []
    for line in text.splitlines():
        try:
            lines.append(json.loads(line))
        except json.JSONDecodeError:
            continue  # a sample's deliberately broken line: it is a reject already
    return lines, True


def _places(node: Any, at: Path_ = ()) -> Iterator[tuple[str, Path_]]:
    """Every object key and every string or number leaf, by its path."""
    if isinstance(node, dict):
        for key, value in node.items():
            yield "key", (*at, key)
            yield from _places(value, (*at, key))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from _places(value, (*at, index))
    elif isinstance(node, str | int | float) and not isinstance(node, bool):
        yield "value", at


FORMS: tuple[Any, ...] = (KEY, {"value": KEY, "parts": [KEY]}, 10**30)
"""What a field is replaced by: the key, the key inside an object where a string or a number
belongs, and a number no field holds (a 30-digit timestamp: it must be a reject, never a crash)."""


def _with_key(doc: Any, place: str, at: Path_, form: Any) -> Any:
    doc = copy.deepcopy(doc)
    parent = doc
    for step in at[:-1]:
        parent = parent[step]
    if place == "key":
        parent[LOWER_KEY] = parent.pop(at[-1])
    else:
        parent[at[-1]] = form
    return doc


SAMPLES = sorted(p for p in sample_logs_root().rglob("*") if p.is_file())
HANDWRITTEN = {
    "gemini": [GEMINI_REQUEST],
    "sharegpt": [SHAREGPT_RECORD],
    "openai-responses": [RESPONSES_RUN],
    "openai-responses-chain": RESPONSES_CHAIN,
    "bedrock-converse": [{**BEDROCK_CONVERSE, "response": BEDROCK_RESPONSE}],
    "bedrock-invocation-log": [BEDROCK_INVOCATION_LOG],
    "langsmith": LANGSMITH_RUNS,
    "langfuse": [LANGFUSE_TRACE],
    "autogen": [AUTOGEN_RESULT],
    "mlflow": [MLFLOW_TRACE],
    "otel-openllmetry": [OPENLLMETRY_TRACE],
    "openai-agents": AGENTS_SDK_TRACE,
    "chat-log": [GATEWAY_LOG],
    "chat-log-anthropic": [GATEWAY_ANTHROPIC_CALL],
    "chat-log-run": GATEWAY_RUN,
    "claude-code-stream": CLAUDE_STREAM,
    "codex": CODEX_SESSION,
    "codex-exec": CODEX_EXEC_EVENTS,
    "gemini-cli": [GEMINI_CLI_SESSION],
    "goose": GOOSE_SESSION,
    "goose-stream": GOOSE_STREAM,
    "chat-log-streamed": [STREAMED_GATEWAY_CALL],
    "chat-log-preference": [SPLIT_CONVERSATIONS["openai_dpo"]],
    "chat-log-choices": [BRAINTRUST_SPAN],
    "chat-log-spans": BRAINTRUST_TRACE,
    "pydantic-ai": [{"messages": PYDANTIC_AI_MESSAGES}],
    "batch-output": OPENAI_BATCH_OUTPUT,
    "batch-anthropic-results": ANTHROPIC_BATCH_RESULTS,
    "stream-anthropic": ANTHROPIC_STREAM,
    "stream-chat": CHAT_STREAM,
    "text-completion": [TEXT_COMPLETION_CALL],
    **{f"parts-{name}": [chat] for name, chat in FRAMEWORK_CHATS.items()},
    "langgraph": [fr.LANGGRAPH_STATE],
    "langgraph-updates": fr.LANGGRAPH_UPDATES,
    "smolagents": [fr.SMOLAGENTS_STEPS],
    "adk": fr.ADK_EVENTS,
    "letta": [fr.LETTA],
    "semantic-kernel-dotnet": [{"messages": fr.SK_DOTNET}],
    "continue": [fr.CONTINUE_SESSION],
    "openhands-sdk": fr.OPENHANDS_SDK,
    "chatgpt-export": [conversation([text("user", "Add 2 and 3.", 1.0), text("assistant", "5", 2.0)])],
    "assistants": thread(),
    "a2a": [
        task(
            [said("user", {"kind": "text", "text": "Hi"})],
            artifacts=[{"artifactId": "a1", "parts": [{"kind": "text", "text": "Hello"}]}],
        )
    ],
    "langchain-agent": [result(action("get_weather", {"city": "Paris"}, "Invoking: `get_weather`\n"), "18C")],
    "bedrock-agents": fr.BEDROCK_AGENT_TRACE,
    "llamaindex": fr.LLAMAINDEX_EVENTS,
    "phoenix-rows": fr.PHOENIX_ROWS,
    "mistral-conversations": [fr.MISTRAL_HISTORY],
    "dspy-react": [fr.DSPY_REACT],
    "ag2-events": fr.AG2_EVENTS,
    "ai-sdk-steps": [{"steps": v5(), "text": "It is 18C.", "response": {"id": "r1", "modelId": "gpt-4o"}}],
    "ai-sdk-steps-v4-lines": v4(),
    "ai-sdk-steps-body-object": [
        {**step, "request": {"body": json.loads(step["request"]["body"]) | {"system": "Be brief."}}}
        if "request" in step
        else step
        for step in v5()
    ],
    "ai-sdk-steps-v5-error-lines": v5(failed=True),
    **{
        f"provider-tool-{case.name}": case.record
        for case in PROVIDER_TOOL_TURNS
        if case.name.endswith("-web_search-lead-0")
        and case.fmt in ("langgraph", "pydantic-ai", "mistral-conversations")
    },
    **{
        f"traced-provider-tool-{case.name}": case.record
        for case in TRACED_PROVIDER_TOOLS
        if case.name.endswith("-web_search-lead-two")
        and case.name.startswith(("mlflow-outputs", "mlflow-responses"))
    },
    **{
        f"span-provider-tool-{case.name}": case.record
        for case in SPAN_PROVIDER_TOOLS
        if case.name == "otel-anthropic-web_search-lead-one"
    },
    "ai-sdk-steps-gemini-request": ai_sdk_steps(
        next(c for c in AI_SDK_GEMINI_REQUESTS if c.name == "gemini-system-history-object-q0")
    ),
    "ai-sdk-steps-responses-request": ai_sdk_steps(
        next(c for c in AI_SDK_REQUESTS if c.name == "instructions-parts-history-object-q0")
    ),
}
"""The JSONL lines of each format's hand-written record."""


def _folder_sweep(files: dict[str, tuple[Any, bool]], name: str, root: Path) -> int:
    """Ingest every mutation of every file of a log written as several (``files``: each file's
    path in the log's folder -> its document and whether it is JSONL), the others as they were;
    assert no reject holds the key; return the rejects seen."""
    rejects = 0
    runs = 0
    for changed, (doc, _jsonl) in files.items():
        for place, at in _places(doc):
            for form in FORMS if place == "value" else (None,):
                runs += 1
                folder = root / f"run{runs}"
                for relative, (other, other_jsonl) in files.items():
                    value = _with_key(doc, place, at, form) if relative == changed else other
                    path = folder / relative
                    path.parent.mkdir(parents=True, exist_ok=True)
                    lines = "\n".join(map(json.dumps, value)) + "\n" if other_jsonl else json.dumps(value)
                    path.write_text(lines)
                for reject in ingest_paths([folder]).rejects:
                    rejects += 1
                    said = json.dumps([reject.reason, reject.detail, reject.excerpt])
                    where = f"{name}: the key put at {changed} {at} ({place})"
                    assert KEY not in said and LOWER_KEY not in said, f"{where}: {said}"
                    if KEY in (reject.source_path or "") or LOWER_KEY in (reject.source_path or ""):
                        assert at[-1] in RECORD_IDS, f"{where} is in {reject.source_path}"
    return rejects


def _sweep(doc: Any, jsonl: bool, name: str, folder: Path) -> int:
    """Ingest every mutation of ``doc`` written as the one file ``name``; assert no reject holds the
    key; return the rejects seen."""
    return _folder_sweep({name: (doc, jsonl)}, name, folder)


def _strands_session(root: Path) -> None:
    agent_folder(
        root,
        "s1",
        "a1",
        [
            strands_user("Weather in Paris?"),
            strands_assistant("Checking.", ("t1", "get_weather", {"city": "Paris"})),
            strands_result("t1", "18C"),
            strands_assistant("18C in Paris."),
        ],
        m3=strands_assistant("[redacted]"),
    )


FOLDERS = {
    "strands-session": _strands_session,
    "openhands-file-store": lambda root: openhands_session(root, count=4, metadata=True),
    **{
        f"strands-{case.name}": lambda root, case=case: write_multi_agent(root, case)
        for case in STRANDS_MULTI_AGENT
        if case.name == "graph-blocks-nested-session"
    },
}
"""The logs written one item a file (``numbered_files.py``): each writes its folder under a root."""


@pytest.mark.parametrize("sample", SAMPLES, ids=[p.name for p in SAMPLES])
def test_no_bundled_sample_leaks_a_field_into_a_reject(sample: Path, tmp_path: Path):
    doc, jsonl = _read(sample)
    assert _sweep(doc, jsonl, sample.name, tmp_path) > 0, "the sweep reached no reject path"


@pytest.mark.parametrize("fmt", sorted(HANDWRITTEN))
def test_no_handwritten_record_leaks_a_field_into_a_reject(fmt: str, tmp_path: Path):
    assert _sweep(HANDWRITTEN[fmt], True, f"{fmt}.jsonl", tmp_path) > 0


@pytest.mark.parametrize("fmt", sorted(FOLDERS))
def test_no_log_written_as_a_folder_leaks_a_field_into_a_reject(fmt: str, tmp_path: Path):
    template = tmp_path / "template"
    FOLDERS[fmt](template)
    files = {str(p.relative_to(template)): _read(p) for p in sorted(template.rglob("*")) if p.is_file()}
    assert _folder_sweep(files, fmt, tmp_path / "runs") > 0


def test_a_real_mini_swe_agent_trajectory_leaks_no_field_into_a_reject(real_root: Path, tmp_path: Path):
    path = real_root / "mini-swe-agent/tests/test_data/local.traj.json"
    assert _sweep(json.loads(path.read_text()), False, path.name, tmp_path) > 0


def test_a_value_is_shown_only_when_it_reads_as_a_word():
    assert named("critic") == "'critic'" and named("tool_result") == "'tool_result'"
    assert named("bash_1") == "'bash_1'" and named("toolu_01A9") == "a string of 10 characters"
    assert named("sk-abcdefghijklmnopqrst") == "a string of 23 characters", "a lowercase key runs long"
    assert named(KEY) == "a string of 20 characters"
    assert named("Critic") == "a string of 6 characters", "a capital may start a key"
    assert named(-1) == "-1" and named(4111111111111111) == "a number of 16 digits"
    assert named({"a": 1}) == "an object of 1 key" and named([1, 2]) == "a list of 2 items"
    assert named(None) == "None" and named(True) == "True"


def test_quoted_values_in_an_exception_message_are_named():
    assert (
        without_record_text(f"invalid literal for int() with base 10: '{KEY}'")
        == "invalid literal for int() with base 10: a string of 20 characters"
    )
    assert without_record_text("'str' object has no attribute 'get'") == "'str' object has no attribute 'get'"
    assert KEY not in without_record_text(repr({"k": f"it's {KEY}"}))


def test_an_unknown_role_names_a_word_and_hides_anything_else(tmp_path: Path):
    path = tmp_path / "chat.jsonl"
    rows = [{"messages": [{"role": role, "content": "hi"}]} for role in ("critic", KEY)]
    path.write_text("\n".join(map(json.dumps, rows)) + "\n")
    details = [r.detail for r in ingest_paths([path], fmt="openai").rejects]
    assert [d.split(";")[0] for d in details] == [
        "messages[0].role is 'critic'",
        "messages[0].role is a string of 20 characters",
    ]
