"""One text a stream delivered in pieces, read whole: the deltas of an SSE or JSONL log.

A model's answer or a tool call's arguments stream as deltas of a few characters, each the string of
one JSON chunk: OpenAI's ``data: {"choices": [{"delta": {"content": "..."}}]}`` and
``function.arguments``, Anthropic's ``partial_json``, the Responses API's ``delta``, Gemini's
``parts[].text``, Ollama's ``response``, the Vercel AI SDK's ``0:"..."`` lines. An agent that debugs an
API with ``curl -N``, a proxy's log or an adapter's raw dump keeps such a stream in one text, and no
rule over that text sees a secret cut into pieces of 3 to 9 characters (a red team, 2026-12-06: 80 of
80 streamed secrets whole once the deltas were joined, none found).

:func:`streamed_texts` yields each stream of such a text as the text its deltas join into, with, for
every character, the span of the raw text it came from (escapes undone), so a finding in the joined
text is a finding on the raw span from its first character to its last: replaced, the chunks between
go with it and the stream keeps one pseudonym where the secret was (the first and last chunk still
parse: both cuts fall inside their string literals).

A stream is a run of chunks: JSON objects that each start a line once SSE ``data:`` fields and one-
or two-digit codes are read away (:class:`_ChunkView`: one line each, pretty-printed over several,
an SSE event's data over several ``data:`` lines, or the items of a JSON array of chunks), or
JSON strings after such a code; its pieces are the strings under
one key of :data:`PIECE_KEYS` at one place in each chunk (the same path, the same ``index`` of a
choice or a content block), two or more of them, and short (:data:`MAX_MEDIAN_PIECE`): a JSONL file
of records whose ``text`` fields are whole documents is no stream, and its records are not joined.
"""

from __future__ import annotations

import bisect
import json
import re
import statistics
from collections.abc import Iterator
from dataclasses import dataclass, field

PIECE_KEYS = frozenset(
    {"content", "text", "arguments", "partial_json", "delta", "thinking", "reasoning", "reasoning_content"}
    | {"response", "completion", "output", "output_text", "refusal", "token", "v", "value", "chunk", "data"}
)
"""Keys under which a streaming API delivers a piece of text (and a stream's own event fields, ids
and types, are never joined: an id per chunk is random, and joined reads as a key)."""
MAX_MEDIAN_PIECE = 64
"""The longest median piece of a stream: deltas are a few tokens each."""
_PREFIX = re.compile(r"(?m)^[ \t]*(?:data:[ \t]?|\d{1,2}:(?=[ \t]*[\[{\"]))")
"""What frames a chunk on its line: an SSE ``data:`` field (every line of an event's data has one)
or a Vercel-style code; the chunk reader reads the text without them."""
_VALUE_START = re.compile(r'(?m)^[ \t]*[\[{"]')
"""A line whose first character opens a JSON value: a chunk starts there (or spans lines from there)."""
_LINE_END = re.compile(r"\n")
STREAM_LISTS = frozenset({"chunks", "events", "deltas", "stream", "stream_events", "sse_events", "frames"})
"""Keys under which a recording keeps a stream's chunks as a list inside a larger JSON document."""
_RECORD_KEYS = ("id", "name", "key", "path")
"""A chunk's own fields that name a record: one value a chunk, and the lines are records, not deltas
(a JSONL file of documents, a JSON array of ``{"name": ..., "value": ...}`` settings)."""
_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[{}\[\]:,]|[^\s{}\[\]:,"]+')
_ESCAPE = re.compile(
    r"\\u[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2}|\\u[0-9a-fA-F]{4}|\\[^u]|[^\\]"
)
_DISCRIMINATOR = re.compile(r"(?i)(?:^|_)index$|^item_id$")
"""Fields beside a piece that say which stream it belongs to (a choice's or a block's ``index``,
a Responses item): chunks of two choices or two content blocks interleave in one log."""


@dataclass
class StreamedText:
    """A stream's pieces joined (:attr:`text`), and each character's span in the raw text."""

    text: str = ""
    spans: list[tuple[int, int]] = field(default_factory=list)
    parts: list[str] = field(default_factory=list)
    """The pieces' characters as read, joined into :attr:`text` once the stream is complete."""
    pieces: list[int] = field(default_factory=list)
    """Each piece's length in the joined text."""
    ids: dict[str, set[str]] = field(default_factory=dict)
    """The chunks' own :data:`_RECORD_KEYS` values: one a chunk makes them records, not deltas."""

    def raw_span(self, start: int, end: int) -> tuple[int, int]:
        """The raw span from the character at ``start`` to the one before ``end``."""
        return self.spans[start][0], self.spans[end - 1][1]


def streamed_texts(text: str) -> Iterator[StreamedText]:
    """Every stream of ``text`` (module docstring) with two pieces or more, joined."""
    if '"' not in text:
        return
    if "\n" not in text and not text.lstrip().startswith("[") and not holds_a_stream_list(text):
        return  # one line: a JSON array of chunks, or a document with a stream list, or no stream
    view = _ChunkView(text)
    streams: dict[tuple[object, ...], StreamedText] = {}
    for prefix, start, end, value in view.values():
        if isinstance(value, str) and prefix[:1].isdigit():
            _append(streams.setdefault((prefix,), StreamedText()), text, *view.raw_literal(start, end))
            continue
        chunks = [value] if isinstance(value, dict) else value if isinstance(value, list) else []
        if not chunks or not all(isinstance(chunk, dict) for chunk in chunks):
            continue
        for path, low, high in _string_leaves(view.text, start, end):
            if not isinstance(path[-1], str) or path[-1] not in PIECE_KEYS:
                continue
            found = _chunk_at(value, path)
            if found is None:
                continue
            chunk, place, inside = found
            stream = streams.setdefault((*place, *_discriminators(chunk, inside)), StreamedText())
            _append(stream, text, *view.raw_literal(low, high))
            for key in _RECORD_KEYS:
                stream.ids.setdefault(key, set()).add(json.dumps(chunk.get(key)))
    for stream in streams.values():
        records = any(len(values) == len(stream.pieces) for values in stream.ids.values())
        if len(stream.pieces) >= 2 and statistics.median(stream.pieces) <= MAX_MEDIAN_PIECE and not records:
            stream.text = "".join(stream.parts)
            yield stream


def holds_a_stream_list(text: str) -> bool:
    """Does ``text`` name one of :data:`STREAM_LISTS` as a JSON key (a cheap test before a parse)?"""
    return any(f'"{key}"' in text for key in STREAM_LISTS)


def _chunk_at(
    value: object, path: tuple[str | int, ...]
) -> tuple[dict[str, object], tuple[str | int, ...], tuple[str | int, ...]] | None:
    """The chunk of a top-level JSON ``value`` that holds the string at ``path``: the value itself,
    an item of it (a JSON array of chunks) or an item of a list under one of :data:`STREAM_LISTS`
    (a recording that keeps its stream under ``"chunks"`` or ``"events"``); with the stream's key
    (the path less the chunk's position) and the string's path inside the chunk."""
    if isinstance(value, list):
        cut = 1
    else:
        cut = next(
            (
                at + 2
                for at in range(len(path) - 1)
                if path[at] in STREAM_LISTS and isinstance(path[at + 1], int)
            ),
            0,
        )
    node: object = value
    for step in path[:cut]:
        if isinstance(node, dict) and isinstance(step, str):
            node = node.get(step)
        elif isinstance(node, list) and isinstance(step, int) and step < len(node):
            node = node[step]
        else:
            return None
    if not isinstance(node, dict):
        return None
    return node, (*path[: max(0, cut - 1)], *path[cut:]), path[cut:]


class _ChunkView:
    """``text`` less the framing of its chunks (:data:`_PREFIX`), and where each character came from.

    A chunk is a JSON value that starts a line of the view: one line (JSONL, one SSE ``data:``
    line), several (a pretty-printed chunk, ``jq`` output, an SSE event whose data spans several
    ``data:`` lines, which the protocol joins with line breaks), or a JSON array of chunks (a
    stream a client or a test fixture stored whole). No string literal spans a line break, so
    each literal of the view is one run of the raw text."""

    def __init__(self, text: str) -> None:
        self.raw = text
        pieces: list[str] = []
        self.starts: list[int] = []
        self.raw_starts: list[int] = []
        self.prefixes: dict[int, str] = {}
        last = length = 0
        for mark in _PREFIX.finditer(text):
            pieces.append(text[last : mark.start()])
            length += mark.start() - last
            self.prefixes[length] = mark.group().strip()
            self.starts.append(length)
            self.raw_starts.append(mark.end())
            last = mark.end()
        pieces.append(text[last:])
        self.text = "".join(pieces)
        self.starts.insert(0, 0)
        self.raw_starts.insert(0, 0)

    def raw_at(self, position: int) -> int:
        """The raw offset of the view's character at ``position``."""
        index = bisect.bisect_right(self.starts, position) - 1
        return self.raw_starts[index] + position - self.starts[index]

    def raw_literal(self, start: int, end: int) -> tuple[int, int]:
        """The raw span of the string literal at ``start:end`` of the view."""
        return self.raw_at(start), self.raw_at(end - 1) + 1

    def values(self) -> Iterator[tuple[str, int, int, object]]:
        """Each JSON value that starts a line of the view: the framing its line had, its span, the
        value. A line that opens no valid value is skipped with every line up to where it broke
        off (a truncated document is read once, not from each of its lines)."""
        decoder = json.JSONDecoder()
        position = 0
        while (opening := _VALUE_START.search(self.text, position)) is not None:
            start = opening.end() - 1
            try:
                value, end = decoder.raw_decode(self.text, start)
            except json.JSONDecodeError as error:
                broken = _LINE_END.search(self.text, max(error.pos, start))
                position = broken.end() if broken else len(self.text)
                continue
            except RecursionError:
                broken = _LINE_END.search(self.text, start)
                position = broken.end() if broken else len(self.text)
                continue
            line = self.text.rfind("\n", 0, start) + 1
            yield self.prefixes.get(line, ""), start, end, value
            position = end


def _append(stream: StreamedText, text: str, start: int, end: int) -> None:
    """A string literal's content (``text[start:end]`` with its quotes) added to ``stream``."""
    content = text[start + 1 : end - 1]
    before = len(stream.spans)
    if "\\" not in content:
        stream.parts.append(content)
        stream.spans.extend((at, at + 1) for at in range(start + 1, end - 1))
    else:
        for escape in _ESCAPE.finditer(content):
            char = json.loads(f'"{escape.group()}"') if len(escape.group()) > 1 else escape.group()
            stream.parts.append(char)
            stream.spans.extend([(start + 1 + escape.start(), start + 1 + escape.end())] * len(char))
    stream.pieces.append(len(stream.spans) - before)


def _string_leaves(text: str, start: int, end: int) -> Iterator[tuple[tuple[str | int, ...], int, int]]:
    """The string values of the JSON object at ``text[start:end]``: each one's path (keys and list
    positions) and its literal's span, quotes included."""
    path: list[str | int] = []
    awaiting_key: list[bool] = []
    for token in _TOKEN.finditer(text, start, end):
        mark = token.group()
        if mark in ("{", "["):
            path.append("" if mark == "{" else 0)
            awaiting_key.append(mark == "{")
        elif mark in ("}", "]"):
            if path:
                path.pop()
                awaiting_key.pop()
        elif mark == ":" and awaiting_key:
            awaiting_key[-1] = False
        elif mark == "," and path:
            last = path[-1]
            if isinstance(last, int):
                path[-1] = last + 1
            else:
                awaiting_key[-1] = True
        elif mark.startswith('"') and path:
            if awaiting_key[-1]:
                path[-1] = json.loads(mark)
            else:
                yield tuple(path), token.start(), token.end()


def _discriminators(chunk: dict[str, object], path: tuple[str | int, ...]) -> tuple[object, ...]:
    """The ``index``-like fields of every object on ``path`` (:data:`_DISCRIMINATOR`)."""
    found: list[object] = []
    node: object = chunk
    for step in path:
        if isinstance(node, dict):
            found.extend(
                (key, value) for key, value in node.items() if _DISCRIMINATOR.search(key) and _scalar(value)
            )
            node = node.get(step) if isinstance(step, str) else None
        elif isinstance(node, list) and isinstance(step, int) and step < len(node):
            node = node[step]
        else:
            break
    return tuple(found)


def _scalar(value: object) -> bool:
    return isinstance(value, str | int | float | bool)
