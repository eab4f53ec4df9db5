"""Streamed model answers, one chunk or event a line, put back together into the response they add up
to and read as that response (:mod:`~trajectory_platform.traces.adapters.lone_answer`).

A proxy, a debugging session or ``curl`` saves a streamed call as it arrived: Chat Completions
chunks (OpenAI, Azure, vLLM, TGI's Messages API, OpenRouter, Groq: ``choices[].delta``), Ollama's
chunks (``{"message", "done"}`` or ``/api/generate``'s ``{"response", "done"}``), the Anthropic
Messages events (``message_start`` ... ``message_stop``), the Responses API events
(``response.created`` ... ``response.completed``) or Gemini's ``streamGenerateContent`` chunks
(candidates without a ``finishReason`` until the last). Read a line at a time, each chunk would be a
fragment of a sentence; so the lines of one answer are one record, located at its first line, and
the pieces are joined as the provider's client joins them: text and reasoning concatenated, a tool
call's argument fragments joined by the call's index (its id and name from the piece that names
them), the finish reason and token counts from the pieces that state them. One file may hold
several answers in turn: a new answer starts at a new response id, after an answer's last chunk,
or at the event that opens one.

Nothing is read short. A stream cut before the piece that ends it (no finish reason, no ``done``,
no ``message_stop`` / ``response.completed``) is a ``truncated stream`` reject naming its lines and
the end it lacks, never a shorter answer; an ``error`` event, a failed response, or a piece this
reader does not know (an Anthropic delta of an unknown type) rejects the answer naming its line. The
answer alone (its request is not in a stream) says so in its extra fields, as ``lone_answer``
explains. Whole responses written one a line (a Chat Completions response, an Anthropic message, an
Ollama reply with ``done``) are answers of one piece, read the same way.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from trajectory_platform.traces.adapters.base import (
    Adapter,
    RawRecord,
    RecordError,
    SourceFile,
)
from trajectory_platform.traces.adapters.lone_answer import answer_episode
from trajectory_platform.traces.adapters.openai import assembled_chunks
from trajectory_platform.traces.drops import named
from trajectory_platform.traces.record import Episode

STREAM = "stream"
MISSING = "the request it answered: a streamed or lone answer holds only the model's turn"

ANTHROPIC_EVENTS = frozenset(
    {
        "message_start",
        "content_block_start",
        "content_block_delta",
        "content_block_stop",
        "message_delta",
        "message_stop",
        "ping",
        "error",
    }
)
"""The Messages API's server-sent event types."""
REQUEST_FIELDS = ("messages", "contents", "input", "prompt", "request", "system")
"""Fields of a request: a record holding one is a logged call (``chat-log``'s), never an answer alone,
whatever answer fields sit beside them."""
RESPONSES_ENDS = ("response.completed", "response.incomplete")
RESPONSES_FAILED = ("response.failed", "error")


@dataclass
class Piece:
    """One chunk or event of a stream, where it was."""

    line: int | None
    path: str | None
    value: dict[str, Any]


@dataclass
class Answer:
    """The pieces of one streamed answer, in order."""

    family: str
    pieces: list[Piece] = field(default_factory=list)


def family_of(value: Any) -> str | None:
    """Which provider's stream piece (or whole answer) ``value`` is, by its shape; None when it is
    none, or holds a request (:data:`REQUEST_FIELDS`). A complete Gemini response (a candidate with
    its ``finishReason``) is the ``gemini`` format's own record, so it is named here only as part of
    a stream already open."""
    if not isinstance(value, dict) or any(key in value for key in REQUEST_FIELDS):
        return None
    kind = value.get("type")
    if kind == "error" and not isinstance(value.get("error"), dict):
        return None
    if isinstance(kind, str) and kind in ANTHROPIC_EVENTS:
        return "anthropic"
    if kind == "message" and value.get("role") == "assistant" and {"model", "stop_reason"} <= value.keys():
        return "anthropic-message"
    if isinstance(kind, str) and kind.startswith("response."):
        return "responses"
    if _is_chat_chunk(value):
        return "chat"
    if value.get("object") == "chat.completion" and isinstance(value.get("choices"), list):
        return "chat-response"
    if (
        isinstance(value.get("done"), bool)
        and "model" in value
        and ("message" in value or "response" in value)
    ):
        return "ollama"
    if _gemini_candidates(value) and "contents" not in value:  # a chunk holds no request
        return "gemini"
    return None


def _is_chat_chunk(value: dict[str, Any]) -> bool:
    """A ``chat.completion.chunk``: choices that are all deltas (none, in the chunk that carries the
    usage or Azure's prompt filter results)."""
    choices = value.get("choices")
    if not isinstance(choices, list):
        return False
    if value.get("object") == "chat.completion" or not all(
        isinstance(c, dict) and isinstance(c.get("delta"), dict) for c in choices
    ):
        return False
    # a chunk without choices: the usage chunk ending a stream, or Azure's prompt-filter chunk opening one
    return bool(choices) or value.get("object") in ("chat.completion.chunk", "") or "usage" in value


def _chat_finished(value: dict[str, Any]) -> bool:
    return any(isinstance(c, dict) and c.get("finish_reason") is not None for c in value["choices"])


def _gemini_candidates(value: dict[str, Any]) -> dict[int, dict[str, Any]]:
    """A Gemini chunk's candidates by their ``index`` (their position when unnumbered: one, or
    several with ``candidateCount`` > 1), each with its ``content``; empty when it is no such chunk."""
    candidates = value.get("candidates")
    if not isinstance(candidates, list) or not candidates:
        return {}
    if not all(isinstance(c, dict) and isinstance(c.get("content"), dict) for c in candidates):
        return {}
    numbered = [(c.get("index"), c) for c in candidates]
    if not all(isinstance(i, int) and not isinstance(i, bool) for i, _ in numbered):
        numbered = list(enumerate(candidates))
    return dict(numbered)


def _gemini_finished(value: dict[str, Any]) -> bool:
    """Does the chunk end its answer: every candidate it holds states a finish reason."""
    candidates = _gemini_candidates(value).values()
    return bool(candidates) and all(c.get("finishReason") or c.get("finish_reason") for c in candidates)


def _starts_new(answer: Answer, piece: dict[str, Any], family: str) -> bool:
    """Does ``piece`` open a new answer rather than continue ``answer``?"""
    if family != answer.family:
        return True
    last = answer.pieces[-1].value
    if family == "anthropic":
        return piece.get("type") == "message_start"
    if family == "responses":
        return piece.get("type") == "response.created"
    if family == "ollama":
        return last.get("done") is True
    if family == "gemini":
        same = piece.get("responseId", last.get("responseId")) == last.get("responseId")
        return not same or _gemini_finished(last)
    if family == "chat":
        if piece.get("id") and last.get("id"):  # an empty id (Azure's filter chunk, TGI) names nothing
            return bool(piece["id"] != last["id"])
        opens = any(isinstance(c, dict) and "role" in (c.get("delta") or {}) for c in piece["choices"])
        return _chat_finished(last) and opens
    return True  # a whole answer stands alone


class AnswerStreamAdapter(Adapter):
    """Streamed (or whole) model answers, one piece a line, each answer one record."""

    name = STREAM
    task_id_source = None

    def claims_record(self, record: dict[str, Any]) -> bool:
        family = family_of(record)
        return family is not None and (family != "gemini" or not _gemini_finished(record))

    def frame(self, src: SourceFile) -> Iterator[RawRecord]:
        """Lines of one answer are one record (:func:`_starts_new` says where the next begins); a line
        that is no stream piece is a ``wrong type`` reject of its own."""
        document, error = src.document
        if error is None:
            lines: list[RawRecord] = (
                [RawRecord(None, f"[{i}]", value=v) for i, v in enumerate(document)]
                if isinstance(document, list)
                else [RawRecord(None, "$", value=document)]
            )
        else:
            lines = list(src.lines())
        answer: Answer | None = None
        for line in lines:
            family = None if line.error is not None else family_of(line.value)
            if family is None:  # a stray line (a proxy's note) is its own reject and cuts no answer
                yield (
                    line
                    if line.error is not None
                    else RawRecord(
                        line.line,
                        line.json_path,
                        error=RecordError("wrong type", "not a streamed answer's chunk or event"),
                    )
                )
                continue
            piece = Piece(line.line, line.json_path, line.value)
            if answer is not None and _starts_new(answer, line.value, family):
                yield self._record(answer)
                answer = None
            answer = answer or Answer(family)
            answer.pieces.append(piece)
        if answer is not None:
            yield self._record(answer)

    @staticmethod
    def _record(answer: Answer) -> RawRecord:
        first, last = answer.pieces[0], answer.pieces[-1]
        where = f"lines {first.line}-{last.line}" if first.line != last.line else first.path
        return RawRecord(first.line, where, value={"family": answer.family, "pieces": answer.pieces})

    def parse(self, record: RawRecord, src: SourceFile) -> Episode:
        family, pieces = record.value["family"], record.value["pieces"]
        response = ASSEMBLERS[family](pieces)
        return answer_episode(self.name, record, src, response, MISSING)


def _span(pieces: list[Piece]) -> str:
    first, last = pieces[0].line, pieces[-1].line
    return "the stream" if first is None else f"lines {first}-{last}"


def _truncated(pieces: list[Piece], end: str) -> RecordError:
    return RecordError(
        "truncated stream",
        f"{_span(pieces)} end before {end}: the answer was cut short, so it is not read as a shorter one",
    )


def _failed(piece: Piece, detail: str) -> RecordError:
    where = "" if piece.line is None else f"line {piece.line}: "
    return RecordError("failed model call", f"{where}{detail}")


def _error_kind(error: Any) -> str:
    """An error's type or code, never its message (which may quote the request)."""
    if isinstance(error, dict):
        inner = error.get("error")
        if isinstance(inner, dict):
            return _error_kind(inner)
        kind = error.get("type", error.get("code"))
        return named(kind) if kind is not None else "an error"
    return "an error"


def _chat(pieces: list[Piece]) -> dict[str, Any]:
    """Chat Completions chunks, joined as :func:`~trajectory_platform.traces.adapters.openai.assembled_chunks`
    joins a logged stream; finished when a choice states its finish reason."""
    response = assembled_chunks([p.value for p in pieces])
    if not any(c.get("finish_reason") is not None for c in response["choices"]):
        raise _truncated(pieces, "a chunk with a finish_reason")
    return response


def _whole(pieces: list[Piece]) -> dict[str, Any]:
    """A response written whole: itself."""
    return pieces[0].value


def _ollama(pieces: list[Piece]) -> dict[str, Any]:
    """Ollama's chunks (``/api/chat``'s ``message``, ``/api/generate``'s ``response`` text), as the
    Chat Completions response they add up to; finished at the chunk with ``done: true``, which
    holds the stop reason and the token counts."""
    message: dict[str, Any] = {"role": "assistant"}
    for piece in pieces:
        part = piece.value.get("message")
        part = {"content": piece.value.get("response")} if part is None else part
        if not isinstance(part, dict):
            raise RecordError("wrong type", f"line {piece.line}: message is not an object")
        for key in ("content", "thinking"):
            if isinstance(part.get(key), str) and part[key]:
                message[key] = message.get(key, "") + part[key]
        if isinstance(part.get("tool_calls"), list):
            message["tool_calls"] = [*message.get("tool_calls", []), *part["tool_calls"]]
    last = pieces[-1].value
    if last.get("done") is not True:
        raise _truncated(pieces, "the chunk with done: true")
    usage = {"prompt_tokens": last.get("prompt_eval_count"), "completion_tokens": last.get("eval_count")}
    return {
        "model": last.get("model"),
        "choices": [{"index": 0, "message": message, "finish_reason": last.get("done_reason")}],
        "usage": {k: v for k, v in usage.items() if v is not None},
    }


def _anthropic(pieces: list[Piece]) -> dict[str, Any]:
    """The Messages API events, as the message they add up to: each content block from its start,
    its deltas joined (text, thinking, a tool call's ``partial_json`` parsed at the end), the stop
    reason and usage from ``message_delta``; finished at ``message_stop`` (or a stop reason)."""
    message: dict[str, Any] | None = None
    blocks: dict[int, dict[str, Any]] = {}
    partial: dict[int, str] = {}
    stopped = False
    for piece in pieces:
        event, kind = piece.value, piece.value.get("type")
        if kind == "error":
            raise _failed(piece, f"the stream reports {_error_kind(event.get('error'))}")
        if kind == "message_start":
            message = dict(event.get("message") or {})
        elif kind == "content_block_start":
            blocks[event["index"]] = dict(event["content_block"])
        elif kind == "content_block_delta":
            _anthropic_delta(piece, blocks, partial)
        elif kind == "message_delta":
            if message is None:
                raise _truncated(pieces, "message_start")
            delta = event.get("delta") or {}
            message.update({k: v for k, v in delta.items() if v is not None})
            message["usage"] = {**(message.get("usage") or {}), **(event.get("usage") or {})}
            stopped = stopped or delta.get("stop_reason") is not None
        elif kind == "message_stop":
            stopped = True
    if message is None:
        raise _truncated(pieces, "message_start")
    if not stopped:
        raise _truncated(pieces, "message_stop")
    for index, text in partial.items():
        try:
            blocks[index]["input"] = json.loads(text) if text.strip() else {}
        except json.JSONDecodeError:
            raise RecordError(
                "unreadable stream",
                f"{_span(pieces)}: content block {index}'s input_json_delta pieces are not JSON",
            ) from None
    message["content"] = [blocks[i] for i in sorted(blocks)]
    return message


ANTHROPIC_DELTAS: dict[str, str] = {
    "text_delta": "text",
    "thinking_delta": "thinking",
    "signature_delta": "signature",
}
"""Delta types whose one string field is appended to the same field of the block."""


def _anthropic_delta(piece: Piece, blocks: dict[int, dict[str, Any]], partial: dict[int, str]) -> None:
    event = piece.value
    index, delta = event.get("index"), event.get("delta") or {}
    if index not in blocks:
        raise RecordError(
            "unreadable stream", f"line {piece.line}: a delta for content block {named(index)} never started"
        )
    block, kind = blocks[index], delta.get("type")
    if kind in ANTHROPIC_DELTAS:
        key = ANTHROPIC_DELTAS[kind]
        block[key] = (block.get(key) or "") + (delta.get(key) or "")
    elif kind == "input_json_delta":
        partial[index] = partial.get(index, "") + (delta.get("partial_json") or "")
    elif kind == "citations_delta":
        block["citations"] = [*(block.get("citations") or []), delta.get("citation")]
    else:
        raise RecordError("unknown stream event", f"line {piece.line}: delta type {named(kind)}")


def _responses(pieces: list[Piece]) -> dict[str, Any]:
    """The Responses API events, as the response the terminal event carries (``response.completed``
    or ``response.incomplete``, whose ``response`` is the whole response); its output, when the
    event leaves it out, from the items each ``response.output_item.done`` gave whole."""
    items: dict[int, Any] = {}
    for piece in pieces:
        event, kind = piece.value, piece.value.get("type")
        if kind in RESPONSES_FAILED:
            failed = event.get("response")
            holder: dict[str, Any] = failed if isinstance(failed, dict) else event
            raise _failed(piece, f"the response failed with {_error_kind(holder.get('error'))}")
        if kind == "response.output_item.done":
            index = event.get("output_index")
            items[index if isinstance(index, int) else len(items)] = event.get("item")
        elif kind in RESPONSES_ENDS:
            response = dict(event["response"])
            if not response.get("output") and items:
                response["output"] = [items[i] for i in sorted(items)]
            return response
    raise _truncated(pieces, "response.completed")


def _gemini(pieces: list[Piece]) -> dict[str, Any]:
    """Gemini's stream chunks, as the response they add up to: each candidate's parts in order (by
    its ``index``: ``candidateCount`` > 1 streams several), consecutive text parts of the same kind
    (thought or not) joined; each candidate's last stated finish reason, the last chunk's usage. The
    ``gemini`` reader then takes the lowest index and counts the others (``choices_taken``)."""
    parts: dict[int, list[dict[str, Any]]] = {}
    stated: dict[int, dict[str, Any]] = {}
    for piece in pieces:
        for index, candidate in _gemini_candidates(piece.value).items():
            _add_parts(parts.setdefault(index, []), candidate["content"].get("parts") or [])
            stated[index] = {**stated.get(index, {}), **{k: v for k, v in candidate.items() if v is not None}}
    if not all(c.get("finishReason") or c.get("finish_reason") for c in stated.values()):
        raise _truncated(pieces, "a chunk with a finishReason")
    candidates = [
        {**stated[i], "index": i, "content": {**stated[i]["content"], "parts": parts[i]}}
        for i in sorted(stated)
    ]
    return {**pieces[-1].value, "candidates": candidates}


def _add_parts(parts: list[dict[str, Any]], more: list[Any]) -> None:
    """``more`` parts streamed after ``parts``: a text part joined to the text part before it of
    the same kind (thought or not), any other appended."""
    for part in more:
        text_kind = part.get("thought", False) if set(part) <= {"text", "thought"} else None
        last = parts[-1] if parts else None
        joinable = (
            last is not None and set(last) <= {"text", "thought"} and last.get("thought", False) == text_kind
        )
        if text_kind is not None and joinable and last is not None:
            last["text"] = last.get("text", "") + part.get("text", "")
        else:
            parts.append(dict(part))


ASSEMBLERS: dict[str, Callable[[list[Piece]], dict[str, Any]]] = {
    "chat": _chat,
    "chat-response": _whole,
    "anthropic-message": _whole,
    "ollama": _ollama,
    "anthropic": _anthropic,
    "responses": _responses,
    "gemini": _gemini,
}
"""How each family's pieces add up to the response its reader reads."""
