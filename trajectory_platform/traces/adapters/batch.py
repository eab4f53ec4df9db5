"""Batch API files: the requests a batch sent and the results it returned, paired by their id.

A provider's batch interface splits each model call in two files. The input holds the request under
an id the caller chose (OpenAI and Azure OpenAI: ``{"custom_id", "method", "url", "body"}``;
Anthropic Message Batches: ``{"custom_id", "params"}``; the Gemini API: ``{"key", "request"}``);
the output holds the answer under the same id (``{"custom_id", "response": {"status_code",
"body"}, "error"}``; ``{"custom_id", "result": {"type": "succeeded", "message"}}``; ``{"key",
"response"}``). Neither is the call alone: the request has no answer, the answer no prompt.

So the files of one folder are read together (a batch's input and output are downloaded side by
side): an answer whose request is on exactly one line beside it (in any file of the folder, its own
included) is read with it as the logged call it was, by ``chat-log``'s reader (the request's
messages the conversation, the answer its response, the provider's dialect told from the request),
located at the answer's line; the request line is then no record of its own (one call, one
episode), and ingest counts it as read with the answer's file (``RawRecord.read_with``). That holds
only while the same run reads the answer's file: a request whose answer lies in a file the run does
not read is read as an unanswered request, as it would be alone, and says where its answer is
(``extra_json.batch.answer_not_ingested``), so each run accounts for every line it was given. An
answer whose request is not there is read alone
(:mod:`~trajectory_platform.traces.adapters.lone_answer`) and says what is missing, naming the id. A
request nobody answered beside it is read as ``chat-log`` reads a logged request, labelled this
format and saying its answer is missing (``extra_json.batch.answer_missing``). A failed,
expired or cancelled request is a ``failed model call`` reject naming the id and the error's type
or code (never its message, which may quote the request). An id on several request or answer lines
is paired with none of them: which answer belongs to which request cannot be told.

A line that holds its request and its answer together (Vertex AI and Bedrock batch output) is a
logged call ``chat-log`` reads as it is, not this format's.
"""

from __future__ import annotations

import functools
import json
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from trajectory_platform.traces.adapters.base import (
    Adapter,
    RawRecord,
    RecordError,
    SourceFile,
    expect,
    frame_json,
)
from trajectory_platform.traces.adapters.chat_log import ChatLogAdapter
from trajectory_platform.traces.adapters.lone_answer import answer_episode
from trajectory_platform.traces.drops import named
from trajectory_platform.traces.record import Episode, canonical_json
from trajectory_platform.traces.unicode_text import file_name_text

BATCH = "batch"
ID_KEYS = ("custom_id", "key", "recordId")
"""Where a batch line keeps the id that pairs a request with its answer."""
REQUEST_KEYS = ("body", "params", "request", "modelInput")
"""Where a batch input line keeps the request (OpenAI / Azure, Anthropic, Gemini, Bedrock)."""
RESULT_KEYS = ("response", "result", "modelOutput")
"""Where a batch output line keeps the answer (or its failure)."""
BATCH_FILE_SUFFIXES = (".jsonl", ".ndjson", ".jsonl.gz", ".ndjson.gz")
"""Batch files are JSON Lines; the folder's other files are never opened to pair a batch."""

LINE = "line"
REQUEST = "request"
REQUEST_AT = "request_at"
_CHAT_LOG = ChatLogAdapter()


def batch_role(value: Any) -> tuple[str, str] | None:
    """``("request" | "result", id)`` for a batch line that holds one side of a call, else None
    (a line holding both is a whole logged call, no batch line of this format's)."""
    if not isinstance(value, dict):
        return None
    ident = next((value[k] for k in ID_KEYS if isinstance(value.get(k), str) and value[k]), None)
    if ident is None:
        return None
    request = any(isinstance(value.get(k), dict) for k in REQUEST_KEYS)
    result = any(isinstance(value.get(k), dict) for k in RESULT_KEYS) or (
        "response" in value and isinstance(value.get("error"), dict)
    )
    if request == result:
        return None
    return ("request" if request else "result"), ident


@dataclass
class FolderIndex:
    """The batch lines of one folder, by id: where each request and answer is, each request itself."""

    requests: dict[str, list[tuple[str, dict[str, Any]]]] = field(default_factory=dict)
    """Each id's request lines: where (file and line) and the line."""
    results: dict[str, list[tuple[str, int | None]]] = field(default_factory=dict)
    """Each id's answer lines: the file's name and the line."""

    def paired(self, ident: str) -> bool:
        """Is ``ident`` on exactly one request line and exactly one answer line?"""
        return len(self.requests.get(ident, ())) == 1 and len(self.results.get(ident, ())) == 1


def _folder_signature(folder: Path) -> tuple[tuple[str, int, int], ...]:
    """The folder's JSON Lines files as (name, size, mtime): what the cached index is valid for (a
    folder that cannot be listed holds none)."""
    entries = []
    try:
        with os.scandir(folder) as listing:
            for entry in listing:
                name = entry.name
                if (
                    not name.startswith(".")
                    and name.lower().endswith(BATCH_FILE_SUFFIXES)
                    and entry.is_file()
                ):
                    stat = entry.stat()
                    entries.append((name, stat.st_size, stat.st_mtime_ns))
    except OSError:
        return ()
    return tuple(sorted(entries))


@functools.lru_cache(maxsize=4)
def _folder_index(folder: Path, signature: tuple[tuple[str, int, int], ...]) -> FolderIndex:
    """Every batch line of the folder's JSON Lines files; a file is read on only while its first
    readable line is a batch line (any other log beside the batch costs one line)."""
    index = FolderIndex()
    for name, _, _ in signature:
        try:
            _index_file(index, folder / name, name)
        except OSError:
            continue
    return index


def _index_file(index: FolderIndex, path: Path, name: str) -> None:
    shown = file_name_text(name)
    for number, line in enumerate(r for r in frame_json(SourceFile.read(path, shown)) if r.error is None):
        role = batch_role(line.value)
        if role is None and number == 0:
            return
        if role is None:
            continue
        kind, ident = role
        if kind == "request":
            at = shown + (f" line {line.line}" if line.line is not None else "")
            index.requests.setdefault(ident, []).append((at, line.value))
        else:
            index.results.setdefault(ident, []).append((name, line.line))


def index_of(src: SourceFile) -> FolderIndex:
    """The batch lines of ``src``'s folder (read once per folder while it is unchanged)."""
    folder = src.path.parent
    return _folder_index(folder, _folder_signature(folder))


class BatchAdapter(Adapter):
    """Batch API input and output files, each answer paired with its request by id."""

    name = BATCH
    task_id_source = (
        "the request's `metadata.task_id` (or `environment_id`, `instance_id`), as `chat-log` reads it"
    )

    def claims_record(self, record: dict[str, Any]) -> bool:
        return batch_role(record) is not None

    def frame(self, src: SourceFile) -> Iterator[RawRecord]:
        """Each answer a record, with its request when that is paired; a paired request no record
        while the run reads its answer's file (it is read with it), else a record of its own."""
        index = index_of(src)
        for record in frame_json(src):
            role = None if record.error is not None else batch_role(record.value)
            if role is None or not index.paired(role[1]):
                yield record
            elif role[0] == "result":
                at, request = index.requests[role[1]][0]
                paired = {LINE: record.value, REQUEST: request, REQUEST_AT: at}
                yield RawRecord(record.line, record.json_path, value=paired)
            elif src.in_run(src.path.parent / (answer := index.results[role[1]][0][0])):
                yield RawRecord(record.line, record.json_path, read_with=src.companion_display(answer))
            else:
                yield record

    def parse(self, record: RawRecord, src: SourceFile) -> Episode:
        value = expect(record.value, dict, "record")
        line = value.get(LINE, value)
        role = batch_role(line)
        if role is None:
            raise RecordError("wrong type", "not a batch request or result line")
        kind, ident = role
        if kind == "request":  # no answer read with it: a logged request, as chat-log reads one
            return _unanswered(record, src, ident)
        answer, answer_at = _answer_of(line, ident)
        request = value.get(REQUEST)
        if request is None:
            missing = (
                f"the request of {_id_key(line)} {ident!r}: no file beside this one holds exactly one "
                "batch input line with that id"
            )
            episode = answer_episode(self.name, record, src, answer, missing)
            episode.episode_id = f"{self.name}:{ident}"
            return episode
        return self._paired(record, src, ident, request, value[REQUEST_AT], answer, answer_at)

    def _paired(
        self,
        record: RawRecord,
        src: SourceFile,
        ident: str,
        request_line: dict[str, Any],
        request_at: str,
        answer: dict[str, Any],
        answer_at: str,
    ) -> Episode:
        """The request and its answer read as one logged call by ``chat-log``'s reader."""
        request_key = next(k for k in REQUEST_KEYS if isinstance(request_line.get(k), dict))
        call = {request_key: request_line[request_key], "response": answer}
        episode = _CHAT_LOG.parse(RawRecord(record.line, record.json_path, value=call), src)
        episode.source_format = self.name
        episode.episode_id = f"{self.name}:{ident}"
        dialect = json.loads(episode.extra_json or "{}").get("dialect")
        where = {"id": ident, "request": f"{request_at}, {request_key}", "answer": answer_at}
        episode.extra_json = canonical_json({"dialect": dialect, BATCH: where})
        return episode


def _unanswered(record: RawRecord, src: SourceFile, ident: str) -> Episode:
    """A request read alone, as ``chat-log`` reads a logged request, yet a batch's (its format and
    id say so: labelled ``chat-log`` it passed for a logged conversation, its answer never asked
    for), saying why its answer is not in it: where the answer lies when it is in a file of the
    folder this run does not read (``answer_not_ingested``), else that no file beside it holds it
    (``answer_missing``)."""
    episode = _CHAT_LOG.parse(record, src)
    episode.source_format = BATCH
    episode.episode_id = f"{BATCH}:{ident}"
    index = index_of(src)
    extra = json.loads(episode.extra_json or "{}")
    if index.paired(ident):
        name, line = index.results[ident][0]
        where = file_name_text(name) + (f" line {line}" if line is not None else "")
        extra[BATCH] = {"id": ident, "answer_not_ingested": where}
    else:
        missing = "no file beside this one holds exactly one batch output line with this id"
        extra[BATCH] = {"id": ident, "answer_missing": missing}
    episode.extra_json = canonical_json(extra)
    return episode


def _id_key(line: dict[str, Any]) -> str:
    return next(k for k in ID_KEYS if isinstance(line.get(k), str) and line[k])


def _error_kind(error: Any) -> str:
    """An error's type or code (the innermost stated), never its message (it may quote the request)."""
    if isinstance(error, dict):
        inner = error.get("error")
        if isinstance(inner, dict):
            return _error_kind(inner)
        kind = error.get("type", error.get("code", error.get("status")))
        return named(kind) if kind is not None else "an error"
    return "no answer"


def _failed(ident: str, detail: str) -> RecordError:
    return RecordError("failed model call", f"batch request {named(ident)} {detail}")


def _answer_of(line: dict[str, Any], ident: str) -> tuple[dict[str, Any], str]:
    """The answer a result line holds and where, or a ``failed model call`` reject saying why it
    holds none (an error, an HTTP status other than 200, a request expired or cancelled)."""
    result = line.get("result")
    if isinstance(result, dict):  # Anthropic Message Batches
        if result.get("type") == "succeeded" and isinstance(result.get("message"), dict):
            return result["message"], "result.message"
        raise _failed(ident, f"ended {named(result.get('type'))}: {_error_kind(result.get('error'))}")
    if isinstance(line.get("modelOutput"), dict):
        return line["modelOutput"], "modelOutput"
    response = line.get("response")
    if isinstance(response, dict) and ("status_code" in response or "body" in response):  # OpenAI, Azure
        status, body = response.get("status_code"), response.get("body")
        if status not in (None, 200) or not isinstance(body, dict) or "error" in body:
            error = body.get("error") if isinstance(body, dict) else line.get("error")
            raise _failed(ident, f"answered HTTP {named(status)}: {_error_kind(error)}")
        return body, "response.body"
    if isinstance(response, dict) and "error" not in response:
        return response, "response"
    error = response.get("error") if isinstance(response, dict) else line.get("error")
    raise _failed(ident, f"has no answer: {_error_kind(error)}")
