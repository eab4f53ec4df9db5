"""The trace record: one episode = one agent attempt at one task.

This module is the contract every stage reads and writes. It holds typed Python
dataclasses (what adapters build and domain code manipulates) and the Arrow schema
(what is stored in Parquet and DuckDB). Unknown values stay ``None``: an adapter
never invents a field its source does not carry.

Free-form, source-shaped payloads (JSON-Schema tool parameters, sampling
parameters, verifier results, source extras) are stored as canonical JSON strings
(sorted keys, compact separators) so the Arrow schema stays fixed and the bytes are
deterministic.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
import re
from dataclasses import dataclass, field
from typing import Any

EVENT_KINDS = ("system", "user", "assistant", "tool", "refusal", "compaction")
"""Event kinds, in the vocabulary of DESIGN.md.

- ``system`` / ``user`` / ``assistant``: messages (assistant may carry ``reasoning`` and ``tool_calls``);
- ``tool``: a tool observation answering ``tool_call_id``;
- ``refusal``: the runtime refused a proposed call before dispatch (schema violation, undeclared tool,
  budget) and told the model so; answers ``tool_call_id`` when the refused call had one;
- ``compaction``: a summary that replaced earlier turns in what later model calls saw;
  ``replaces_through`` names the last event index it replaced.
"""

OBSERVATION_STATUSES = ("ok", "error", "refused", "truncated")
TERMINAL_STATUSES = ("completed", "truncated", "timeout", "error", "abandoned")

FINISH_REASONS = frozenset(
    {
        # OpenAI Chat Completions and Responses, the OTel GenAI conventions, the Vercel AI SDK
        "stop", "length", "tool_calls", "tool_call", "function_call", "content_filter", "error", "other",
        "unknown", "completed", "incomplete", "max_output_tokens", "cancelled", "failed", "in_progress",
        # Anthropic Messages and Bedrock Converse
        "end_turn", "max_tokens", "stop_sequence", "tool_use", "pause_turn", "refusal",
        "model_context_window_exceeded", "guardrail_intervened", "content_filtered",
        # Gemini (upper case on the wire), Mistral, Cohere, vLLM / TGI / Ollama
        "finish_reason_unspecified", "safety", "recitation", "language", "blocklist", "prohibited_content",
        "spii", "malformed_function_call", "image_safety", "unexpected_tool_call", "too_many_tool_calls",
        "model_length", "complete", "error_toxic", "error_limit", "user_cancel", "abort", "eos_token",
        "load", "truncated", "timeout", "abandoned",
        # llama.cpp's stop_type (end of sequence, token limit, a stop word)
        "eos", "limit", "word",
    }
)  # fmt: skip
"""``Event.finish_reason`` values the platform admits, compared by :func:`known_finish_reason`:
what the providers and serving stacks the adapters read report (spelling folded). A closed
vocabulary, not free text, because the field is copied unredacted-by-design into the training
data: a value outside it is refused at ingest (``unknown finish reason``), so a record cannot
carry arbitrary text (a key) through it. A new provider value is added here."""


def known_finish_reason(value: str) -> bool:
    """Whether ``value`` is in :data:`FINISH_REASONS`, case and ``-``/``_`` folded (Gemini writes
    ``MAX_TOKENS``, the Vercel AI SDK ``tool-calls``)."""
    return value.lower().replace("-", "_") in FINISH_REASONS


_EPOCH = re.compile(r"\d{9,13}(?:\.\d{1,9})?")
RELATIVE_SECONDS = re.compile(r"\+\d{1,9}(?:\.\d{1,9})?")
"""How ``Event.timestamp`` writes a clock reading that names no point in time (``+1.5``): seconds on
a clock whose start the log does not say (``time.monotonic()``, seconds since the run began), as
``adapters.base.timestamp_of`` reads a number below :data:`EPOCH_FLOOR_SECONDS`."""
EPOCH_FLOOR_SECONDS = 1_000_000_000
"""The smallest number read as seconds since the epoch (2001-09-09): no agent log is older, and a
smaller stamp is a relative clock's reading (:data:`RELATIVE_SECONDS`)."""


def is_timestamp(value: str) -> bool:
    """Whether ``value`` reads as a time: ISO 8601 (what the adapters' sources write, with ``Z`` or an
    offset, ``T`` or a space), seconds / milliseconds since the epoch, or a relative clock's seconds
    marked ``+`` (:data:`RELATIVE_SECONDS`). ``Event.timestamp`` holds nothing else (any other text
    there could be anything, a key included)."""
    if _EPOCH.fullmatch(value) or RELATIVE_SECONDS.fullmatch(value):
        return True
    try:
        dt.datetime.fromisoformat(value)
    except ValueError:
        return False
    return True


def canonical_json(value: Any) -> str:
    """Serialize ``value`` deterministically (sorted keys, no whitespace, UTF-8 kept)."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


@dataclass
class ToolCall:
    """One call proposed by the model. ``arguments`` is the raw string as recorded.

    A malformed arguments string is data (a policy mistake to learn from), never repaired here.
    """

    id: str | None
    name: str | None
    arguments: str | None


@dataclass
class Event:
    """One ordered step of an episode. Fields that do not apply to a kind stay ``None``."""

    kind: str
    content: str | None = None
    reasoning: str | None = None
    tool_calls: list[ToolCall] = field(default_factory=list)
    tool_call_id: str | None = None
    tool_name: str | None = None
    status: str | None = None
    exit_code: int | None = None
    timestamp: str | None = None
    input_tokens: int | None = None
    output_tokens: int | None = None
    weight: float | None = None
    finish_reason: str | None = None
    replaces_through: int | None = None
    name: str | None = None


@dataclass
class ToolSpec:
    """A tool as delivered to the model: name, JSON-Schema parameters (canonical JSON), version."""

    name: str
    description: str | None = None
    parameters_json: str | None = None
    version: str | None = None


@dataclass
class DeliveredInput:
    """What one model call actually saw.

    ``response_event_index`` is the assistant event this call produced. When the call's input is
    exactly a subsequence of the episode's events, ``event_indices`` lists them in delivered order.
    When the source shows the delivered text itself (and it differs, e.g. compacted or elided
    observations), ``messages_json`` holds the delivered messages as a canonical JSON list of
    event dicts (the same shape as :class:`Event`). ``compacted`` marks a prefix that is not the
    full history.
    """

    call_index: int
    response_event_index: int | None = None
    event_indices: list[int] | None = None
    messages_json: str | None = None
    compacted: bool = False
    tools_version: str | None = None


@dataclass
class TaskIdentity:
    """Which task the episode attempted; nulls for logs with no fixture."""

    fixture_id: str | None = None
    prompt: str | None = None
    repo_family: str | None = None
    tool_family: str | None = None
    domain: str | None = None
    license: str | None = None


@dataclass
class LineageInputs:
    """Digests and settings that produced the episode (filled when the source records them)."""

    model: str | None = None
    model_digest: str | None = None
    adapter_digest: str | None = None
    prompt_template_digest: str | None = None
    tokenizer_digest: str | None = None
    tool_manifest_digest: str | None = None
    environment_digest: str | None = None
    sampling_params_json: str | None = None
    sampler_policy_digest: str | None = None


@dataclass
class Outcome:
    """How the episode ended, as recorded (never inferred beyond what the source states)."""

    terminal_status: str | None = None
    final_answer: str | None = None
    workspace_diff: str | None = None
    verifier_results_json: str | None = None
    reward: float | None = None


LOGGED_ID_KEY = "ingest_logged_id"
"""``extra_json`` key where ingest records the id a log wrote for an episode it renamed
(:meth:`Episode.logged_id`)."""


def with_logged_id(extra_json: str | None, logged_id: str | None) -> str | None:
    """``extra_json`` with ingest's :data:`LOGGED_ID_KEY` set to ``logged_id`` (left out when
    ``None``). Ingest's to write, never the log's: a log that states one of its own has it removed
    (``logged_id=None``), or a forger could name another episode's id and carry that episode's
    seals under its own events. ``extra_json`` that is not a JSON object is returned as it is: a
    runtime that seals writes an object, so nothing sealed is lost."""
    try:
        extra = json.loads(extra_json) if extra_json else {}
    except json.JSONDecodeError:
        return extra_json
    if not isinstance(extra, dict) or (logged_id is None and LOGGED_ID_KEY not in extra):
        return extra_json
    extra.pop(LOGGED_ID_KEY, None)
    if logged_id is not None:
        extra[LOGGED_ID_KEY] = logged_id
    return canonical_json(extra)


@dataclass
class Episode:
    """One agent attempt at one task, normalized from any supported log format."""

    episode_id: str
    source_format: str
    source_file: str
    source_line: int | None
    source_path: str | None
    partition_date: dt.date | None
    task: TaskIdentity = field(default_factory=TaskIdentity)
    lineage: LineageInputs = field(default_factory=LineageInputs)
    tools: list[ToolSpec] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)
    delivered_inputs: list[DeliveredInput] = field(default_factory=list)
    outcome: Outcome = field(default_factory=Outcome)
    extra_json: str | None = None

    def extra(self) -> dict[str, Any]:
        """:attr:`extra_json` read: what the source format recorded beyond the schema, as an object;
        empty when there is none, or when it is not a JSON object (a reader of one of its keys then
        finds nothing, never a crash)."""
        try:
            value = json.loads(self.extra_json or "{}")
        except json.JSONDecodeError:
            return {}
        return value if isinstance(value, dict) else {}

    def logged_id(self) -> str:
        """The id the log wrote for this episode: where ingest renamed it to keep ids unique
        (:func:`traces.spill.unique_ids`), the one it recorded under :data:`LOGGED_ID_KEY`, else
        :attr:`episode_id`. A seal the runtime wrote is over this id, so a renamed honest log keeps
        its seals (:mod:`gym.seals`); ingest alone writes the key (:func:`with_logged_id`)."""
        logged = self.extra().get(LOGGED_ID_KEY) if LOGGED_ID_KEY in (self.extra_json or "") else None
        return logged if isinstance(logged, str) else self.episode_id

    def to_dict(self) -> dict[str, Any]:
        """Plain-JSON form; this is also one line of the native JSONL format."""
        data = dataclasses.asdict(self)
        data["partition_date"] = self.partition_date.isoformat() if self.partition_date else None
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Episode:
        """Inverse of :meth:`to_dict`; raises ``KeyError``/``TypeError`` on a malformed record."""
        date = data.get("partition_date")
        if isinstance(date, dt.datetime):
            date = date.date()
        elif isinstance(date, str):
            date = dt.date.fromisoformat(date[:10])
        events = [
            Event(**{**e, "tool_calls": [ToolCall(**c) for c in (e.get("tool_calls") or [])]})
            for e in data.get("events") or []
        ]
        return cls(
            episode_id=data["episode_id"],
            source_format=data["source_format"],
            source_file=data["source_file"],
            source_line=data.get("source_line"),
            source_path=data.get("source_path"),
            partition_date=date,
            task=TaskIdentity(**(data.get("task") or {})),
            lineage=LineageInputs(**(data.get("lineage") or {})),
            tools=[ToolSpec(**t) for t in data.get("tools") or []],
            events=events,
            delivered_inputs=[DeliveredInput(**d) for d in data.get("delivered_inputs") or []],
            outcome=Outcome(**(data.get("outcome") or {})),
            extra_json=data.get("extra_json"),
        )
