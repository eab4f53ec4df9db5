"""Format adapters and auto-detection.

``ADAPTERS`` is ordered: detection asks each adapter in turn whether a file's parsed document (or
a JSONL line: the first one any adapter claims) looks like its format, most specific first (a
native line also has "events", a tau-bench episode also holds OpenAI messages), so the first yes
wins.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any, cast

from trajectory_platform.traces.adapters.a2a import A2AAdapter
from trajectory_platform.traces.adapters.adk import ADKAdapter
from trajectory_platform.traces.adapters.ag2_events import AG2EventsAdapter
from trajectory_platform.traces.adapters.ai_sdk_steps import AISDKStepsAdapter
from trajectory_platform.traces.adapters.answer_stream import AnswerStreamAdapter
from trajectory_platform.traces.adapters.anthropic import AnthropicAdapter
from trajectory_platform.traces.adapters.assistants import AssistantsAdapter
from trajectory_platform.traces.adapters.autogen import AutoGenAdapter
from trajectory_platform.traces.adapters.base import (
    DETECT_PROBE_LINES,
    STRUCTURE_ERRORS,
    Adapter,
    RawRecord,
    SourceFile,
)
from trajectory_platform.traces.adapters.batch import BatchAdapter
from trajectory_platform.traces.adapters.bedrock import BedrockAdapter
from trajectory_platform.traces.adapters.bedrock_agents import BedrockAgentsAdapter
from trajectory_platform.traces.adapters.chat_log import LOOSE, ChatLogAdapter
from trajectory_platform.traces.adapters.chatgpt_export import ChatGPTExportAdapter
from trajectory_platform.traces.adapters.claude_code import ClaudeCodeAdapter
from trajectory_platform.traces.adapters.cline import ClineAdapter
from trajectory_platform.traces.adapters.codex import CodexAdapter
from trajectory_platform.traces.adapters.codex_exec import CodexExecAdapter
from trajectory_platform.traces.adapters.continue_dev import ContinueAdapter
from trajectory_platform.traces.adapters.dspy_react import DSPyReActAdapter
from trajectory_platform.traces.adapters.fireact import FireActAdapter
from trajectory_platform.traces.adapters.gemini import GeminiAdapter
from trajectory_platform.traces.adapters.gemini_cli import GeminiCliAdapter
from trajectory_platform.traces.adapters.goose import GooseAdapter
from trajectory_platform.traces.adapters.inspect_ai import InspectAdapter
from trajectory_platform.traces.adapters.langchain_agent import LangChainAgentAdapter
from trajectory_platform.traces.adapters.langfuse import LangfuseAdapter
from trajectory_platform.traces.adapters.langgraph import LangGraphAdapter
from trajectory_platform.traces.adapters.langsmith import LangSmithAdapter
from trajectory_platform.traces.adapters.llamaindex import LlamaIndexAdapter
from trajectory_platform.traces.adapters.mini_swe_agent import MiniSweAgentAdapter
from trajectory_platform.traces.adapters.mistral_conversations import MistralConversationsAdapter
from trajectory_platform.traces.adapters.mlflow import MLflowAdapter
from trajectory_platform.traces.adapters.native import NativeAdapter
from trajectory_platform.traces.adapters.openai import OpenAIAdapter, carries_answer
from trajectory_platform.traces.adapters.openai_agents import OpenAIAgentsAdapter
from trajectory_platform.traces.adapters.openai_responses import OpenAIResponsesAdapter
from trajectory_platform.traces.adapters.openhands import OpenHandsAdapter
from trajectory_platform.traces.adapters.openhands_sdk import OpenHandsSDKAdapter
from trajectory_platform.traces.adapters.otel import OTelAdapter
from trajectory_platform.traces.adapters.pydantic_ai import PydanticAIAdapter
from trajectory_platform.traces.adapters.sharegpt import ShareGPTAdapter
from trajectory_platform.traces.adapters.smolagents import SmolagentsAdapter
from trajectory_platform.traces.adapters.strands_session import StrandsSessionAdapter
from trajectory_platform.traces.adapters.swe_agent import SweAgentAdapter
from trajectory_platform.traces.adapters.tau_bench import TauBenchAdapter, TauBenchFewShotAdapter
from trajectory_platform.traces.adapters.text_completion import TextCompletionAdapter
from trajectory_platform.traces.adapters.toolbench import ToolBenchAdapter

ADAPTERS: dict[str, Adapter] = {
    adapter.name: adapter
    for adapter in (
        NativeAdapter(),
        SweAgentAdapter(),
        TauBenchAdapter(),
        TauBenchFewShotAdapter(),
        OpenHandsAdapter(),
        OpenHandsSDKAdapter(),
        ToolBenchAdapter(),
        FireActAdapter(),
        DSPyReActAdapter(),
        LangChainAgentAdapter(),
        A2AAdapter(),
        MiniSweAgentAdapter(),
        OTelAdapter(),
        InspectAdapter(),
        LangSmithAdapter(),
        LangGraphAdapter(),
        LangfuseAdapter(),
        OpenAIAgentsAdapter(),
        AssistantsAdapter(),
        MLflowAdapter(),
        ClaudeCodeAdapter(),
        ClineAdapter(),
        StrandsSessionAdapter(),
        ChatGPTExportAdapter(),
        CodexAdapter(),
        CodexExecAdapter(),
        GeminiCliAdapter(),
        GooseAdapter(),
        ADKAdapter(),
        SmolagentsAdapter(),
        MistralConversationsAdapter(),
        LlamaIndexAdapter(),
        AG2EventsAdapter(),
        ContinueAdapter(),
        BedrockAdapter(),
        BedrockAgentsAdapter(),
        AutoGenAdapter(),
        PydanticAIAdapter(),
        AISDKStepsAdapter(),
        BatchAdapter(),
        AnswerStreamAdapter(),
        TextCompletionAdapter(),
        AnthropicAdapter(),
        OpenAIResponsesAdapter(),
        GeminiAdapter(),
        ShareGPTAdapter(),
        ChatLogAdapter(),
        OpenAIAdapter(),
    )
}
FORMAT_NAMES: tuple[str, ...] = tuple(ADAPTERS)


def detect_format(src: SourceFile) -> Adapter | None:
    """The adapter for ``src``, judged from its whole document, else from its first parsable JSONL
    line that some adapter claims (most specific first), looking past lines no adapter recognizes
    (a header line, a tool's bookkeeping line) up to :data:`DETECT_PROBE_LINES` readable lines.
    Lines the chosen adapter does not read stay records of their own: rejects, or counted by the
    adapter, never silently dropped."""
    path = Path(src.path)
    for sample in src.samples(DETECT_PROBE_LINES):
        adapter = next((a for a in ADAPTERS.values() if _claims(a, sample, path)), None)
        if adapter is not None:
            return adapter
    return None


def detected_source(src: SourceFile) -> tuple[SourceFile, Adapter | None]:
    """``src`` and its adapter (:func:`detect_format`); a document no format reads that is a list
    API's page (:meth:`SourceFile.listed`) is read as its list when a format reads that."""
    adapter = detect_format(src)
    listed = src.listed() if adapter is None else None
    inner = detect_format(listed) if listed is not None else None
    return (listed, inner) if listed is not None and inner is not None else (src, adapter)


LOGGED_CALL_READER = "chat-log"


def framed(adapter: Adapter, src: SourceFile) -> Iterable[RawRecord]:
    """``src``'s records as ``adapter`` frames them; for a format that logs model calls alone
    (:attr:`Adapter.logs_calls_alone`), the calls of one run that names none are one record, as
    ``chat-log`` frames its own (``ChatLogAdapter.runs_among``), read by ``chat-log``
    (:func:`record_reader`)."""
    records = adapter.frame(src)
    if not adapter.logs_calls_alone:
        return records
    return cast(ChatLogAdapter, ADAPTERS[LOGGED_CALL_READER]).runs_among(records, src)


def record_reader(record: RawRecord, chosen: Adapter, path: Path, detected: bool) -> Adapter:
    """The adapter that reads ``record`` of a file given to ``chosen`` (``detected``: by detection,
    not a forced ``--format``). Two records are read by another reader, never silently short:

    - a logged call (a conversation under ``messages`` with its answer beside it:
      ``openai.carries_answer``) reached by a reader of a conversation alone
      (:attr:`Adapter.reads_conversation_alone`: ``--format openai`` or ``anthropic`` forced, or a
      line after the one that decided its file's format) is read as detection reads it, by
      ``chat-log``: its answer the last turn, not left in ``extra_json`` off the conversation;
    - in a detected file whose format reads each line or element alone
      (:attr:`Adapter.reads_each_record_alone`), a record another such format claims by itself is
      read by that one. A gateway's log may mix providers and a logger may write an errored call
      without its answer: read by the format of its first line, a later line's answer, system
      prompt or tool calls would land in ``extra_json`` or be dropped. A line no format claims alone
      stays ``chosen``'s (its reject names why); a record a format framed from several lines (a run,
      a session) or a file's whole document is never re-read."""
    value = record.value
    if chosen.logs_calls_alone and (record.json_path or "").startswith(LOOSE):
        return ADAPTERS[LOGGED_CALL_READER]  # a run of calls grouped by :func:`framed`
    if (
        chosen.reads_conversation_alone
        and isinstance(value, dict)
        and isinstance(value.get("messages"), list)
        and carries_answer(value)
    ):
        return ADAPTERS[LOGGED_CALL_READER]
    if (
        not detected
        or not chosen.reads_each_record_alone
        or record.error is not None
        or not isinstance(value, dict)
    ):
        return chosen
    if record.json_path is not None and not _ELEMENT.fullmatch(record.json_path):
        return chosen
    own = next((a for a in ADAPTERS.values() if _claims(a, value, path)), None)
    return own if own is not None and own.reads_each_record_alone else chosen


_ELEMENT = re.compile(r"\[\d+\]")
"""The locator of a top-level array's element (a JSONL line has none)."""


def _claims(adapter: Adapter, sample: Any, path: Path) -> bool:
    """Whether ``adapter`` claims the sample. A sniff that raises on a shape it did not expect (an
    object where it reads a type string) does not claim it: one odd file must not stop the run, and
    the formats after it still get to look."""
    try:
        return adapter.sniff(sample, path)
    except STRUCTURE_ERRORS:
        return False


__all__ = [
    "ADAPTERS",
    "FORMAT_NAMES",
    "Adapter",
    "SourceFile",
    "detect_format",
    "detected_source",
    "framed",
    "record_reader",
]
