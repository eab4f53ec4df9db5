"""A model's answer logged without the request it answered: a streamed response put back together,
a provider's response written alone, a batch result whose request is not beside it.

Such a log holds one assistant turn (and the results of any server-side tools it ran), nothing the
turn answered. It is read by the reader of the provider whose response it is, as that reader reads
the same response logged beside its request (:mod:`~trajectory_platform.traces.adapters.chat_log`):
a Responses API response by ``openai-responses``, a Gemini response by ``gemini``, a Chat
Completions response or an assistant message (an Anthropic message is one) by the chat dialect its
content is written in. The episode says what it lacks (:data:`REQUEST_MISSING` in its extra
fields), so nobody mistakes the answer for a whole conversation.
"""

from __future__ import annotations

import json
from typing import Any

from trajectory_platform.traces.adapters.base import (
    Adapter,
    RawRecord,
    RecordError,
    SourceFile,
    adapter_episode_id,
    optional_str,
)
from trajectory_platform.traces.adapters.chat_envelope import Envelope, answer_facts, unwrapped
from trajectory_platform.traces.adapters.chat_log import DIALECTS
from trajectory_platform.traces.adapters.gemini import GeminiAdapter
from trajectory_platform.traces.adapters.openai import choice_taken, choices_taken, is_chat_answer
from trajectory_platform.traces.adapters.openai_responses import OpenAIResponsesAdapter
from trajectory_platform.traces.record import Episode, canonical_json

REQUEST_MISSING = "request_missing"
"""The extra field naming what an answer read alone lacks: the request it answered, and where it
would have been."""

_RESPONSES = OpenAIResponsesAdapter()
_GEMINI = GeminiAdapter()


def is_lone_answer(value: Any) -> bool:
    """A response of a kind :func:`answer_episode` reads: a Responses API response, a Gemini
    response, a Chat Completions response or an assistant message."""
    return isinstance(value, dict) and (
        value.get("object") == "response"
        or isinstance(value.get("candidates"), list)
        or is_chat_answer(value)
    )


def answer_episode(
    fmt: str, record: RawRecord, src: SourceFile, response: dict[str, Any], missing: str
) -> Episode:
    """``response`` read alone as an episode of format ``fmt``, its extra fields saying ``missing``
    (what the request was and where it would have been); the reader's own extra fields kept."""
    if not is_lone_answer(response):
        raise RecordError("not a conversation", "the answer is no model response of a known kind")
    reader, call = _reader_and_call(response)
    try:
        episode = reader.parse(RawRecord(record.line, record.json_path, value=call), src)
    except RecordError as error:
        raise RecordError(error.reason, f"{error.detail} (the answer read as {reader.name})") from None
    episode.source_format = fmt
    episode.episode_id = adapter_episode_id(fmt, response.get("id"), response)
    answer = next((e for e in episode.events if e.kind == "assistant"), None)
    if answer is not None:  # what the response states of its answer, in any provider's words
        finish, tokens_in, tokens_out = answer_facts(Envelope([], ("messages",), {}, response, ("response",)))
        answer.finish_reason = answer.finish_reason or finish
        answer.input_tokens = answer.input_tokens if answer.input_tokens is not None else tokens_in
        answer.output_tokens = answer.output_tokens if answer.output_tokens is not None else tokens_out
    episode.lineage.model = episode.lineage.model or optional_str(response.get("model"), "model")
    kept = json.loads(episode.extra_json) if episode.extra_json else {}
    kept.update(choices_taken([(0, choice_taken(response))]))  # n > 1: the one an agent goes on from
    episode.extra_json = canonical_json({**kept, "dialect": reader.name, REQUEST_MISSING: missing})
    return episode


def _reader_and_call(response: dict[str, Any]) -> tuple[Adapter, dict[str, Any]]:
    """Which reader reads ``response`` alone, and the record it reads: the response itself for the
    readers that take one alone, else a conversation of the answer alone in the dialect it is
    written in (the first of chat-log's :data:`~trajectory_platform.traces.adapters.chat_log.DIALECTS`
    to claim it)."""
    if response.get("object") == "response":
        return _RESPONSES, response
    if isinstance(response.get("candidates"), list):
        return _GEMINI, response
    call = unwrapped(Envelope([], ("messages",), {}, response, ("response",)))
    return next((d for d in DIALECTS if d.claims_record(call)), DIALECTS[-1]), call
