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

A stream is a run of lines that are each one JSON object (after an SSE ``data:`` or a one- or
two-digit code and a colon) or a JSON string after such a code; its pieces are the strings under
one key of :data:`PIECE_KEYS` at one place in each chunk (the same path, the same ``index`` of a
choice or a content block), two or more of them, and short (:data:`MAX_MEDIAN_PIECE`): a JSONL file
of records whose ``text`` fields are whole documents is no stream, and its records are not joined.
"""

from __future__ import annotations

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
_FRAMED_LINE = re.compile(
    r"(?m)^[ \t]*(?P<prefix>data:[ \t]?|\d{1,2}:)?(?P<json>\{[^\n]*\}|\"(?:[^\"\\\n]|\\.)*\")[ \t]*\r?$"
)
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
    ids: set[object] = field(default_factory=set)
    """The chunks' own ``id`` values: one a chunk makes the lines records (a JSONL file), not deltas."""

    def raw_span(self, start: int, end: int) -> tuple[int, int]:
        """The raw span from the character at ``start`` to the one before ``end``."""
        return self.spans[start][0], self.spans[end - 1][1]


def streamed_texts(text: str) -> Iterator[StreamedText]:
    """Every stream of ``text`` (module docstring) with two pieces or more, joined."""
    if text.count("\n") < 1 or ('{"' not in text and ':"' not in text):
        return
    streams: dict[tuple[object, ...], StreamedText] = {}
    for line in _FRAMED_LINE.finditer(text):
        try:
            chunk = json.loads(line.group("json"))
        except ValueError:
            continue
        if isinstance(chunk, str) and line.group("prefix") and line.group("prefix")[0].isdigit():
            _append(streams.setdefault((line.group("prefix"),), StreamedText()), text, *line.span("json"))
        elif isinstance(chunk, dict):
            for path, start, end in _string_leaves(text, *line.span("json")):
                if isinstance(path[-1], str) and path[-1] in PIECE_KEYS:
                    stream = streams.setdefault((*path, *_discriminators(chunk, path)), StreamedText())
                    _append(stream, text, start, end)
                    stream.ids.add(json.dumps(chunk.get("id")))
    for stream in streams.values():
        records = len(stream.ids) == len(stream.pieces)
        if len(stream.pieces) >= 2 and statistics.median(stream.pieces) <= MAX_MEDIAN_PIECE and not records:
            stream.text = "".join(stream.parts)
            yield stream


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
