"""What every format adapter shares: the record framing, the error type, and small helpers.

A *record* is the unit that is either normalized into one :class:`Episode` or rejected, so
``records_in == normalized + rejected`` holds by construction. What a record is depends on the
format: a JSONL line, an element of a top-level JSON array, or a whole-file JSON document (an
adapter may also group, e.g. OpenTelemetry spans by trace). Framing errors (invalid UTF-8, a
truncated or malformed line) are yielded as records that already carry their error, so one bad
line never stops the rest of the file.
"""

from __future__ import annotations

import dataclasses
import gzip
import hashlib
import io
import json
import re
import zlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from types import UnionType
from typing import Any, get_args

from trajectory_platform.traces.adapters.inspect_archive import archive_document, is_archive
from trajectory_platform.traces.drops import Drop, named
from trajectory_platform.traces.record import (
    EPOCH_FLOOR_SECONDS,
    DeliveredInput,
    Episode,
    Event,
    canonical_json,
    is_timestamp,
)

JSONL_PROBE_LINES = 20
"""How many leading lines decide whether a file that is not one JSON document is JSONL."""
DETECT_PROBE_LINES = 100
"""How many leading readable JSONL lines format detection may look at: a file may open with lines
no adapter claims (a header, Claude Code's ``file-history-snapshot``), and the first line an
adapter does claim decides."""


STRUCTURE_ERRORS = (
    TypeError,
    ValueError,
    KeyError,
    AttributeError,
    IndexError,
    OverflowError,
    RecursionError,
)
"""What arbitrary JSON in an unexpected shape raises inside an adapter (an ``OverflowError``: a
timestamp of 30 digits). Such a record is rejected like any other unreadable one, so one odd record
never stops the run."""


class RecordError(Exception):
    """A record that cannot be normalized. ``reason`` is a short category; ``detail`` says where/why."""

    def __init__(self, reason: str, detail: str | None = None) -> None:
        super().__init__(f"{reason}: {detail}" if detail else reason)
        self.reason = reason
        self.detail = detail

    @property
    def drop(self) -> Drop:
        """The record left out, as every stage says it (the reject's ``reason`` / ``detail``)."""
        return Drop(self.reason, self.detail or "")


@dataclass
class RawRecord:
    """One framed record: its parsed JSON ``value`` or the ``error`` that prevented parsing."""

    line: int | None
    json_path: str | None
    value: Any = None
    error: RecordError | None = None
    excerpt: str | None = None
    read_with: str | None = None
    """Where the record that holds this one lies (a batch request's answer, a Cline task's history:
    its file): this one is part of that record, no record of its own, and ingest counts it under
    that file (``IngestResult.read_with_other_records``) so it is never lost without a word."""


def first_record(sample: Any) -> Any:
    """A sniff's sample as one record: a file holding a list of records is judged by its first."""
    return sample[0] if isinstance(sample, list) and sample else sample


def record_fingerprint(raw: bytes) -> str:
    """What a reject keeps of its record instead of an excerpt: a digest and the length.

    Rejected records are never redacted (they never reach the redaction stage), so their text must
    not be stored: the file, line and JSON path locate the record, the digest identifies it.
    """
    return f"sha256:{hashlib.sha256(raw).hexdigest()[:16]} ({len(raw)} bytes)"


_BOMS = (
    (b"\xff\xfe\x00\x00", "utf-32-le"),
    (b"\x00\x00\xfe\xff", "utf-32-be"),
    (b"\xff\xfe", "utf-16-le"),
    (b"\xfe\xff", "utf-16-be"),
)


ENCODING_PROBE_BYTES = 4096
"""How many leading bytes tell UTF-16/32 text without a BOM from UTF-8."""
READ_CHUNK_BYTES = 64 * 1024
"""What :meth:`SourceFile.read` reads at a time while it looks past a file's first line."""


def _unbommed_wide_encoding(data: bytes) -> str | None:
    """UTF-16/32 without a BOM, told by where ASCII text puts its zero bytes."""
    head = data[:ENCODING_PROBE_BYTES]
    if len(head) < 8 or b"\x00" not in head:
        return None
    quads = len(head) // 4
    if all(head[i * 4 + 1 : i * 4 + 4] == b"\x00\x00\x00" for i in range(quads)):
        return "utf-32-le"
    if all(head[i * 4 : i * 4 + 3] == b"\x00\x00\x00" for i in range(quads)):
        return "utf-32-be"
    odd, even = head[1::2], head[0::2]
    if odd.count(0) > 0.9 * len(odd) and even.count(0) < 0.1 * len(even):
        return "utf-16-le"
    if even.count(0) > 0.9 * len(even) and odd.count(0) < 0.1 * len(odd):
        return "utf-16-be"
    return None


def as_utf8(data: bytes) -> bytes:
    """UTF-16/32 text (with or without a BOM) re-encoded as UTF-8; anything else unchanged.

    A log written by a Windows tool or PowerShell is UTF-16: decoded here, it is read, scanned and
    redacted like any other; left as bytes, it would pass every text scanner unseen.
    """
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            try:
                return data[len(bom) :].decode(encoding).encode("utf-8")
            except UnicodeDecodeError:
                return data
    wide = _unbommed_wide_encoding(data)
    if wide is None:
        return data
    try:
        return data.decode(wide).encode("utf-8")
    except UnicodeDecodeError:
        return data


NESTING_TOO_DEEP = RecordError("nesting too deep", "JSON nested deeper than the parser's recursion limit")


def _refuse_constant(name: str) -> Any:
    """What a ``NaN``, ``Infinity`` or ``-Infinity`` literal parses to: a :class:`RecordError`.
    Python's ``json`` writes and reads them, but they are not JSON: kept, they would be written
    into ``extra_json`` and tool-call arguments, columns that strict readers (DuckDB, Spark, jq, a
    replay in JavaScript) could then not parse."""
    raise RecordError(
        "non-standard JSON",
        f"the record holds the literal {name}, which JSON does not allow (a number that is not one, "
        "as Python's json.dumps writes it)",
    )


_STRICT_DECODER = json.JSONDecoder(parse_constant=_refuse_constant)
_DECODER = json.JSONDecoder()
"""Reads past a value :data:`_STRICT_DECODER` refused, to where the next one starts."""


def parse_json(text: str | bytes) -> Any:
    """``json.loads`` that turns pathological nesting, and the ``NaN`` / ``Infinity`` literals JSON
    does not allow (:func:`_refuse_constant`), into a :class:`RecordError` for its record."""
    try:
        return json.loads(text, parse_constant=_refuse_constant)
    except RecursionError:
        raise NESTING_TOO_DEEP from None


COMPRESSED_SUFFIX = ".gz"
"""A log file whose name ends so (``day.jsonl.gz``) is gzip-compressed: read decompressed."""
UNREADABLE = (OSError, EOFError, zlib.error)
"""What reading a file may raise: the file system's errors, and a gzip stream cut short or corrupt."""


def is_compressed(path: Path) -> bool:
    """Is ``path`` a gzip-compressed log (read decompressed, as it is read)?"""
    return path.name.lower().endswith(COMPRESSED_SUFFIX)


def open_log(path: Path) -> io.BufferedIOBase:
    """``path`` opened for reading bytes, a gzip-compressed log decompressed as it is read."""
    return gzip.open(path, "rb") if is_compressed(path) else path.open("rb")


LISTED_DEPTH = 3
"""How many levels of objects :meth:`SourceFile.listed` looks through for the list a document wraps:
a page's list is at its top, a stored session's runs one object down (``memory.runs``)."""


class SourceFile:
    """One input file, decoded lazily as a whole document or as JSONL lines.

    ``data`` holds the file's bytes; ``None`` for a file :meth:`read` found to be JSON Lines, whose
    lines are then read from disk one at a time (:meth:`lines`): a day's log of any length costs one
    line of memory, not the file. Anything else (a JSON document: a ``.traj``, an export, a top-level
    array) can only be parsed whole, so it is held whole: bounded by the file, not by the corpus.
    """

    def __init__(self, path: Path, data: bytes | None, display: str | None = None) -> None:
        self.path = path
        self.data = None if data is None else as_utf8(data)
        self.size = path.stat().st_size if data is None or is_compressed(path) else len(data)
        """Bytes read from disk (before any re-encoding or decompression)."""
        # What records name as their ``source_file``: relative to the trace-source root when the
        # caller gives one, so the same logs yield the same bytes wherever the workdir lives.
        self.display = display if display is not None else str(path)
        self.run_files: frozenset[Path] | None = None
        """The files (resolved) the ingest run reading this one reads, set by ingest; ``None`` when
        an adapter is handed the file alone, which reads every file beside it as read too."""

    def in_run(self, companion: Path) -> bool:
        """Is ``companion`` (a file beside this one) read by the same run? A record is read with a
        companion's only then; otherwise it stands alone, so each run accounts for every record."""
        return self.run_files is None or companion.resolve() in self.run_files

    def companion_display(self, name: str) -> str:
        """How a file beside this one is named where this one's name is shown."""
        folder = self.display.rpartition("/")[0]
        return f"{folder}/{name}" if folder else name

    @classmethod
    def read(cls, path: Path, display: str | None = None) -> SourceFile:
        """``path``, streamed line by line when it is JSON Lines, else its bytes read whole.

        A file streams when its first line is a JSON object alone on it (the line starts with ``{``,
        as :attr:`is_jsonl` asks) and more than whitespace follows that line, in UTF-8. Such a file
        cannot be one JSON document (a JSON value ends where it ends, so anything after it is extra
        data), and it is JSONL: exactly the records, lines and rejects the whole read gives. Every
        other file is read whole, as before. A ``.gz`` file is read decompressed (:func:`open_log`).
        Raises :class:`OSError` when the file cannot be read (a gzip file that is not one, or cut
        short, included).
        """
        if is_archive(path):  # Inspect's zip log, opened as its JSON log (inspect_archive.py)
            return cls(path, archive_document(path), display)
        try:
            with open_log(path) as handle:
                first = handle.readline()
                head = first[:ENCODING_PROBE_BYTES] + handle.read(max(ENCODING_PROBE_BYTES - len(first), 0))
                more = bool(head[len(first) :].strip())
                while not more and (chunk := handle.read(READ_CHUNK_BYTES)):
                    more = bool(chunk.strip())
            if more and _one_object(first) and as_utf8(head) is head:
                return cls(path, None, display)
            with open_log(path) as handle:
                return cls(path, handle.read(), display)
        except (EOFError, zlib.error) as exc:
            raise OSError(f"not a readable gzip file: {exc}") from exc

    @cached_property
    def document(self) -> tuple[Any, RecordError | None]:
        """The whole file parsed as one JSON value, or the error explaining why it is not one."""
        if self.data is None:
            return None, RecordError("malformed JSON", "more than one JSON value: the file is JSON Lines")
        try:
            text = self.data.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            line = self.data[: exc.start].count(b"\n") + 1
            return None, RecordError("invalid UTF-8", f"byte {exc.start} (line {line}) is not valid UTF-8")
        try:
            return parse_json(text), None
        except json.JSONDecodeError as exc:
            return None, json_error(exc, text)
        except RecordError as exc:
            return None, exc

    def listed(self) -> SourceFile | None:
        """This file read as the list of records its document wraps, where the document is an
        object holding, in it or in objects below it (up to :data:`LISTED_DEPTH` levels), one list
        of objects and no other: a list API's page (Helicone's ``{"data": [...]}``,
        ``{"object": "list", "data", "has_more"}``), a stored session's runs (Agno's
        ``{"session_id", "memory": {"runs": [...]}}``). Its elements are then the file's records, as
        a top-level array's are (located by their index in that list); the fields beside the list
        say what the page or session is, not what was said. None for any other file."""
        document, error = self.document
        if error is not None or not isinstance(document, dict):
            return None
        found: list[list[Any]] = []
        level: list[dict[str, Any]] = [document]
        for _ in range(LISTED_DEPTH):
            found += [v for node in level for v in node.values() if isinstance(v, list) and v]
            level = [v for node in level for v in node.values() if isinstance(v, dict)]
        if len(found) != 1 or not all(isinstance(item, dict) for item in found[0]):
            return None
        inner = SourceFile(self.path, self.data, self.display)
        inner.__dict__["document"] = (found[0], None)  # the cached parse, as the wrapped list
        inner.run_files = self.run_files
        return inner

    @property
    def is_document(self) -> bool:
        """True when the whole file is one JSON value (a JSONL file of one line counts too)."""
        return self.document[1] is None

    @property
    def document_line(self) -> int | None:
        """Where a whole-file document is, as a line: 1 for a file of one line (a JSONL file of one
        record is at its line 1, as every other JSONL record is at its line), else None (a document
        over many lines has no one line)."""
        return 1 if self.data is not None and b"\n" not in self.data.strip() else None

    @cached_property
    def is_jsonl(self) -> bool:
        """True for line-delimited JSON: the extension says so, or one of the first lines is a
        complete JSON object starting at column 0 (a JSONL line; a pretty-printed document
        indents its inner objects and its first line ``{`` does not parse alone).

        A pretty-printed document that fails to parse is *not* JSONL: it is one broken record,
        not hundreds of broken lines.
        """
        if self.data is None:
            return True
        if self.is_document:
            return False
        if self.value_stream is not None:
            return True
        if self.path.suffix.lower() in (".jsonl", ".ndjson"):
            return True
        heads = [line for line in self.data.split(b"\n", JSONL_PROBE_LINES) if line.startswith(b"{")]
        return any(_one_object(line) for line in heads[:JSONL_PROBE_LINES])

    @cached_property
    def value_stream(self) -> list[RawRecord] | None:
        """The records of a file of JSON values written one after another but not one a line: pretty-
        printed JSONL (each object over many lines) or objects run together (``{...}{...}``), as
        ``json.JSONDecoder.raw_decode`` reads them in turn, each located by the line it starts on;
        ``None`` for any other file (one document, JSON Lines, or a first value that does not parse).

        A value that does not parse is one record with its error, spanning up to the next line that
        starts with ``{`` or ``[`` at its first column (where the next value of a pretty-printed
        file begins), and reading goes on from there. A file whose values stand each alone on their
        line up to its first error is JSON Lines, read line by line as before (:meth:`lines`)."""
        if self.data is None or self.is_document:
            return None
        try:
            text = self.data.decode("utf-8-sig")
        except UnicodeDecodeError:
            return None
        return _value_stream(text)

    def _raw_lines(self) -> Iterator[bytes]:
        """The file's lines without their ``\\n``: split from ``data``, or read from disk one at a time."""
        if self.data is not None:
            yield from self.data.split(b"\n")
            return
        with open_log(self.path) as handle:
            for line in handle:
                yield line.removesuffix(b"\n")

    def lines(self) -> Iterator[RawRecord]:
        """Every non-blank line as a record, each decoded and parsed on its own. A streamed file that
        stops being readable part-way ends with a record saying so (an ``unreadable file`` reject)."""
        if self.data is not None and self.value_stream is not None:
            yield from self.value_stream
            return
        number = 0
        try:
            for number, raw in enumerate(self._raw_lines(), start=1):
                if raw.strip():
                    yield _line_record(number, raw)
        except UNREADABLE as exc:
            yield RawRecord(number + 1, None, error=RecordError("unreadable file", str(exc)))

    def first_value(self) -> Any:
        """A parsed sample for format detection: the whole document, else the first parsable line."""
        if self.is_document:
            return self.document[0]
        for record in self.lines():
            if record.error is None:
                return record.value
        return None

    def samples(self, limit: int = DETECT_PROBE_LINES) -> Iterator[Any]:
        """Parsed samples for format detection, in file order: the whole document (then, for a
        top-level array, its first ``limit`` elements, as a JSONL file's lines: an export whose first
        element is a record no format reads, a trace's root call), else the first ``limit``
        parsable lines (read lazily: detection stops at the first one it recognizes)."""
        if self.is_document:
            yield self.document[0]
            if isinstance(self.document[0], list):  # an array no format claims whole: its elements
                yield from self.document[0][:limit]
            return
        taken = 0
        for record in self.lines():
            if taken == limit:
                return
            if record.error is None:
                taken += 1
                yield record.value

    def fingerprint(self) -> str:
        """:func:`record_fingerprint` of the whole file (what a whole-file reject keeps), hashed
        from disk a chunk at a time when the file streams (a compressed file that stops being
        readable part-way: of its bytes on disk)."""
        if self.data is not None:
            return record_fingerprint(self.data)
        try:
            return _stream_fingerprint(open_log(self.path))
        except UNREADABLE:
            return _stream_fingerprint(self.path.open("rb"))


def _stream_fingerprint(stream: io.BufferedIOBase) -> str:
    """:func:`record_fingerprint` of what ``stream`` holds, read a chunk at a time (and closed)."""
    digest, size = hashlib.sha256(), 0
    with stream as handle:
        while chunk := handle.read(READ_CHUNK_BYTES):
            digest.update(chunk)
            size += len(chunk)
    return f"sha256:{digest.hexdigest()[:16]} ({size} bytes)"


_BLANK = re.compile(r"[ \t\r\n]*")


def _after_blank(text: str, pos: int) -> int:
    """The position of the first character at or after ``pos`` that is not JSON whitespace."""
    blank = _BLANK.match(text, pos)
    return blank.end() if blank else pos


def _value_stream(text: str) -> list[RawRecord] | None:
    """:attr:`SourceFile.value_stream` of ``text``."""
    records: list[RawRecord] = []
    one_a_line = True
    pos, line, counted = _after_blank(text, 0), 1, 0
    while pos < len(text):
        line += text.count("\n", counted, pos)
        counted, where = pos, f"[{len(records)}]"
        try:
            value, end = _STRICT_DECODER.raw_decode(text, pos)
        except RecordError as refused:  # a literal JSON does not allow: the value is one reject
            end = _DECODER.raw_decode(text, pos)[1]
            excerpt = record_fingerprint(text[pos:end].encode("utf-8"))
            records.append(RawRecord(line, where, error=refused, excerpt=excerpt))
            one_a_line = one_a_line and not _spans_lines(text, pos, end)
            pos = _after_blank(text, end)
            continue
        except (json.JSONDecodeError, RecursionError) as exc:
            if one_a_line:
                return None
            failed_at = exc.pos if isinstance(exc, json.JSONDecodeError) else pos
            resume = _next_value_start(text, pos, failed_at)
            error = json_error(exc, text) if isinstance(exc, json.JSONDecodeError) else NESTING_TOO_DEEP
            excerpt = record_fingerprint(text[pos:resume].encode("utf-8"))
            records.append(RawRecord(line, where, error=error, excerpt=excerpt))
            pos = resume
            continue
        if _spans_lines(text, pos, end):
            one_a_line = False
        excerpt = record_fingerprint(text[pos:end].encode("utf-8"))
        records.append(RawRecord(line, where, value=value, excerpt=excerpt))
        pos = _after_blank(text, end)
    return None if one_a_line else records


def _spans_lines(text: str, pos: int, end: int) -> bool:
    """Is the value at ``text[pos:end]`` not alone on one line (spread over lines, or sharing one)?"""
    line_end = text.find("\n", end)
    rest = text[end : len(text) if line_end < 0 else line_end]
    before = text[text.rfind("\n", 0, pos) + 1 : pos]
    return text.find("\n", pos, end) >= 0 or bool(rest.strip()) or bool(before.strip())


def _next_value_start(text: str, start: int, failed_at: int) -> int:
    """Where reading resumes after a value that starts at ``start`` failed at ``failed_at``: the
    failing line when it opens a value at its first column (the value before was cut short), else
    the next line that does, else the end of the text."""
    line_start = text.rfind("\n", 0, failed_at) + 1
    if line_start > start and text[line_start : line_start + 1] in ("{", "["):
        return line_start
    after = max(failed_at, start + 1)
    found = [i for i in (text.find("\n{", after), text.find("\n[", after)) if i >= 0]
    return min(found) + 1 if found else len(text)


def _one_object(line: bytes) -> bool:
    """Is ``line`` one JSON object starting at its first byte (a JSONL line)?"""
    if not line.startswith(b"{"):
        return False
    try:
        return isinstance(json.loads(line.decode("utf-8-sig")), dict)
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError):
        return False


def _line_record(number: int, raw: bytes) -> RawRecord:
    """Line ``number`` of a file (its bytes ``raw``), decoded and parsed on its own."""
    excerpt = record_fingerprint(raw)
    try:
        text = raw.decode("utf-8-sig" if number == 1 else "utf-8")
    except UnicodeDecodeError as exc:
        error = RecordError("invalid UTF-8", f"byte {exc.start} of the line is not valid UTF-8")
        return RawRecord(number, None, error=error, excerpt=excerpt)
    try:
        return RawRecord(number, None, value=parse_json(text), excerpt=excerpt)
    except json.JSONDecodeError as exc:
        return RawRecord(number, None, error=json_error(exc, text), excerpt=excerpt)
    except RecordError as exc:
        return RawRecord(number, None, error=exc, excerpt=excerpt)


def json_error(exc: json.JSONDecodeError, text: str) -> RecordError:
    """Tell a truncated record (input ends mid-value) apart from otherwise malformed JSON."""
    if exc.pos >= len(text.rstrip()) or exc.msg.startswith("Unterminated string"):
        return RecordError("truncated JSON", f"input ends before the JSON value is complete ({exc.msg})")
    return RecordError("malformed JSON", f"{exc.msg} at line {exc.lineno} column {exc.colno}")


def frame_json(src: SourceFile, split_document: bool = True) -> Iterator[RawRecord]:
    """Default framing: JSONL lines, or a whole document (a top-level array yields its elements)."""
    doc, error = src.document
    if error is None:
        if split_document and isinstance(doc, list):
            for index, value in enumerate(doc):
                yield RawRecord(src.document_line, f"[{index}]", value=value)
        else:
            yield RawRecord(src.document_line, "$", value=doc)
        return
    if src.is_jsonl:
        yield from src.lines()
    else:
        yield RawRecord(None, "$", error=error, excerpt=src.fingerprint())


def one_record_per_file(
    src: SourceFile, belongs: Callable[[Any], bool], stranger: str
) -> Iterator[RawRecord]:
    """A file whose lines together are one record (a session, a thread): lines that cannot be read
    are their own rejects, a line ``belongs`` refuses is a ``wrong type`` reject saying it is not
    ``stranger`` (what the format's lines are), and the rest is one record ``{"entries": [...]}``
    located at its first line."""
    lines = [RawRecord(1, None, value=src.document[0])] if src.is_document else list(src.lines())
    entries = []
    for record in lines:
        if record.error is not None:
            yield record
        elif belongs(record.value):
            entries.append(record)
        else:
            yield RawRecord(record.line, None, error=RecordError("wrong type", f"not {stranger}"))
    if entries:
        yield RawRecord(entries[0].line, "$", value={"entries": entries})


def event_stream_records(
    src: SourceFile, belongs: Callable[[Any], bool], stranger: str
) -> Iterator[RawRecord]:
    """:func:`one_record_per_file` for a format whose lines are the events of one run (an ADK
    session's, a LlamaIndex workflow's, an OpenHands SDK conversation's): the record holds their
    values as ``{"events": [...]}``, what the format's ``parse`` reads."""
    for record in one_record_per_file(src, belongs, stranger):
        value = record.value
        if value is None:
            yield record
        else:
            yield RawRecord(
                record.line, record.json_path, value={"events": [e.value for e in value["entries"]]}
            )


def event_list_or_stream(
    src: SourceFile, belongs: Callable[[Any], bool], stranger: str
) -> Iterator[RawRecord]:
    """A run's events as a file holds them: one JSON list of them (one record), else one event a
    line (:func:`event_stream_records`); the frame of AG2's, LlamaIndex's and the OpenHands SDK's
    event logs."""
    document, error = src.document
    if error is None and isinstance(document, list):
        yield RawRecord(None, "$", value={"events": document})
        return
    yield from event_stream_records(src, belongs, stranger)


def content_digest(value: Any, length: int = 12) -> str:
    """Short sha256 of the canonical JSON of ``value``: stable ids for records without one.

    Runs on the record as parsed, before lone UTF-16 surrogates become U+FFFD
    (``unicode_text.py``), so those are hashed as their own code units (``surrogatepass``): the
    record is kept, and two records differing only there keep different ids."""
    return hashlib.sha256(canonical_json(value).encode("utf-8", "surrogatepass")).hexdigest()[:length]


_CONNECTION_WORDS = frozenset(
    {
        "header", "headers", "auth", "authorization", "bearer", "key", "apikey", "token", "secret",
        "password", "passwd", "credential", "credentials", "cookie", "cookies", "url", "uri", "base",
        "endpoint", "host", "proxy", "client", "organization", "deployment",
    }
)  # fmt: skip
"""Words of a settings key that say how a model is reached or who may call it (``extra_headers``,
``api_key``, ``base_url``, ``apiBase``), not how it samples."""
_KEY_WORDS = re.compile(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])")
_USERINFO_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://[^/\s@]*@")


def _sampling_only(value: Any) -> Any:
    if isinstance(value, dict):
        return {
            key: _sampling_only(item)
            for key, item in value.items()
            if item is not None
            and not ({word.lower() for word in _KEY_WORDS.findall(str(key))} & _CONNECTION_WORDS)
            and not (isinstance(item, str) and _USERINFO_URL.search(item))
        }
    if isinstance(value, list):
        return [_sampling_only(i) for i in value if not (isinstance(i, str) and _USERINFO_URL.search(i))]
    return value


def sampling_params_json(settings: dict[str, Any]) -> str | None:
    """``LineageInputs.sampling_params_json`` from a log's model settings (canonical JSON; None when
    nothing is left): the settings that shape sampling, without those that say how the model is
    reached (``extra_headers``, ``api_key``, ``base_url``, ...: :data:`_CONNECTION_WORDS`, at any
    depth) or any URL carrying a user and password. Harnesses log their whole client config (the
    OpenAI Agents SDK's ``model_config``, Langfuse's ``modelParameters``, Inspect's
    ``model_generate_config``), and a header there is a credential, not lineage: it is not copied
    at all, so no later stage depends on redaction catching it."""
    kept = _sampling_only(settings)
    return canonical_json(kept) if kept else None


def expect(value: Any, kind: Any, where: str) -> Any:
    """Return ``value`` when it has the JSON type expected at ``where``; else a 'wrong type' error.

    ``kind`` is a type, a tuple of types or a union (``int | float``); ``bool`` never counts as a number.
    """
    kinds = get_args(kind) if isinstance(kind, UnionType) else kind if isinstance(kind, tuple) else (kind,)
    numeric = any(k in (int, float) for k in kinds)
    if not isinstance(value, kinds) or (numeric and isinstance(value, bool)):
        names = " or ".join(k.__name__ for k in kinds)
        raise RecordError("wrong type", f"{where} is {type(value).__name__}, expected {names}")
    return value


def object_field(value: dict[str, Any], key: str) -> dict[str, Any]:
    """An optional object field: ``value[key]`` when it is an object, else empty (tracing exports
    leave many fields out or null, and a field of another type holds nothing to read)."""
    field = value.get(key)
    return field if isinstance(field, dict) else {}


def optional_str(value: Any, where: str) -> str | None:
    """A string field that may be absent; numbers are kept as their text, other types are errors."""
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, int | float) and not isinstance(value, bool):
        return str(value)
    raise RecordError("wrong type", f"{where} is {type(value).__name__}, expected string")


def timestamp_of(value: Any, where: str) -> str | None:
    """A timestamp field (``where``: its path in the record as the file writes it) as
    ``Event.timestamp`` keeps it, or a ``bad timestamp`` reject naming that path.

    A string is kept as written when it reads as a time (ISO 8601 or epoch digits). A number at or
    above :data:`~trajectory_platform.traces.record.EPOCH_FLOOR_SECONDS` is epoch seconds or
    milliseconds, kept as its digits; a smaller one (``1.0``, ``83421.7``) cannot be a date of any
    agent log: it is a relative clock's reading (seconds since the run began, ``time.monotonic()``),
    kept marked as such (``+1.0``), so the events' spacing survives and nobody reads it as 1970.
    Anything else (a negative number, text that is no time, a stamp too long for seconds or
    milliseconds) is refused here, where the file's own path is known."""
    if value is None:
        return None
    if isinstance(value, str):
        if is_timestamp(value):
            return value
        raise RecordError(
            "bad timestamp", f"{where} is {named(value)}: not ISO 8601 nor seconds since the epoch"
        )
    if not isinstance(value, int | float) or isinstance(value, bool):
        raise RecordError("wrong type", f"{where} is {type(value).__name__}, expected a timestamp")
    text = str(value) if "e" not in str(value) else f"{value:.9f}".rstrip("0").rstrip(".")
    if 0 <= value < EPOCH_FLOOR_SECONDS:
        text = f"+{text}"
    if value < 0 or not is_timestamp(text):
        raise RecordError(
            "bad timestamp",
            f"{where} is the number {text}: neither seconds or milliseconds since the epoch nor a "
            "relative clock's seconds",
        )
    return text


TASK_ID_KEYS = ("task_id", "environment_id", "instance_id")
"""The keys a chat log (OpenAI, Anthropic) names the task it ran against with, in reading order:
under the record's ``metadata`` object first, then at the record's top level; the first present
wins. The id is what links the episode to a gym fixture or a registered environment."""


def task_id_of(value: Any, where: str) -> str | None:
    """A task id the record states: absent (``None``) reads as no id; anything but a non-empty string
    is an error, so a mistyped id is reported at ingest instead of passing as 'no task named'."""
    if value is None:
        return None
    if not isinstance(value, str):
        raise RecordError("wrong type", f"{where} is {type(value).__name__}, expected a string task id")
    if not value.strip():
        raise RecordError("wrong type", f"{where} is an empty string, expected a task id")
    return value


def task_id_in(scopes: Iterable[tuple[Any, str]]) -> str | None:
    """The first task id the ``(object, path prefix)`` scopes state, in reading order, each read by
    :data:`TASK_ID_KEYS`; a scope that is not an object states none."""
    for scope, prefix in scopes:
        if isinstance(scope, dict):
            for key in TASK_ID_KEYS:
                if scope.get(key) is not None:
                    return task_id_of(scope[key], f"{prefix}{key}")
    return None


def chat_task_id(value: dict[str, Any]) -> str | None:
    """The task id of a chat record, read as :data:`TASK_ID_KEYS` says (``metadata`` that is not an
    object names no task: the OpenAI API's own ``metadata`` is free-form, and it stays in extra)."""
    return task_id_in(((value.get("metadata"), "metadata."), (value, "")))


CHAT_TASK_ID_SOURCE = (
    "`metadata.task_id` (or `environment_id`, `instance_id`; or the same key at the top level)"
)
"""Where :func:`chat_task_id` reads the task id, in the words docs/formats.md tables it: every chat
format (OpenAI, Anthropic, Responses, Gemini, ShareGPT) says it the same way."""


CHAT_OUTCOME_KEYS = ("workspace_diff", "final_answer")
"""Outcome fields a chat log (OpenAI, Anthropic) may record under ``metadata``: the final workspace
as a unified diff against the task's S0, and the agent's final answer. With the diff, replay can
prove the log's own actions produced it (``final_state_mismatch`` when they did not)."""


def read_chat_outcome(value: dict[str, Any], episode: Episode) -> None:
    """Copy :data:`CHAT_OUTCOME_KEYS` from a chat record's ``metadata`` object into the outcome."""
    metadata = value.get("metadata")
    if not isinstance(metadata, dict):
        return
    for key in CHAT_OUTCOME_KEYS:
        if metadata.get(key) is not None:
            text = metadata[key]
            if not isinstance(text, str):
                raise RecordError("wrong type", f"metadata.{key} is {type(text).__name__}, expected string")
            setattr(episode.outcome, key, text)


MEDIA_TYPES = frozenset(
    {
        "image",
        "image_url",
        "input_image",
        "image_file",
        "audio",
        "input_audio",
        "file",
        "input_file",
        "video",
        "blob",
        "uri",
        "container_upload",
    }
)
"""Decorative parts: what a message shows (a picture, a recording, an attached file; OTel GenAI's
``blob`` / ``uri`` parts; a file Anthropic's ``container_upload`` puts in the code tool's container)
rather than says.
Such a part, named by its ``type`` or by a key of one of these names, is kept as a marker of its
type (``[image_url]``): the turn showed something there, and no tool call or answer hides in it."""
SEARCH_RESULT = "search_result"
"""Anthropic's block carrying a search hit's text (a tool's result, or a user's message)."""
PART_TYPE_KEYS = ("type", "part_kind", "content_type", "block_type")
"""Where a content part names its own kind (OpenAI and Anthropic, Pydantic AI, Semantic Kernel,
LlamaIndex)."""


def part_type(part: dict[str, Any]) -> str | None:
    """The kind a content part names itself (``None`` when it names none)."""
    return next((str(part[k]) for k in PART_TYPE_KEYS if isinstance(part.get(k), str)), None)


def is_media(part: dict[str, Any]) -> bool:
    """Is ``part`` decorative: typed or keyed as one of :data:`MEDIA_TYPES`, or an attachment by its
    ``source`` (a ``media_type`` named: Anthropic's image and ``document`` blocks, a PDF say)?"""
    source = part.get("source")
    return (
        part.get("type") in MEDIA_TYPES
        or any(key in MEDIA_TYPES for key in part)
        or (isinstance(source, dict) and "media_type" in source)
    )


def part_text(part: Any, where: str) -> str:
    """One content part as text: a string; a ``text`` string (or the Assistants API's ``{"value"}``),
    else a ``content`` string; a media part as a marker of its type (:data:`MEDIA_TYPES`).

    Any other part (a tool call, a tool result, a kind no reader knows) rejects the record naming
    the part's path and type: written as ``[type]`` text it would be trained on as if the model had
    said it, and what it carried would be lost without a count. Readers of formats whose content
    holds calls and results read those first
    (:mod:`~trajectory_platform.traces.adapters.content_parts`)."""
    if isinstance(part, str):
        return part
    if not isinstance(part, dict):
        raise RecordError("wrong type", f"{where} is {type(part).__name__}")
    text = part.get("text")
    if isinstance(text, dict) and isinstance(text.get("value"), str):
        return str(text["value"])
    if isinstance(text, str):
        return text
    if isinstance(part.get("content"), str):
        return str(part["content"])
    named_field = part.get(part.get("type")) if isinstance(part.get("type"), str) else None
    if isinstance(named_field, str):
        return named_field  # a part whose type names its text: ``{"type": "refusal", "refusal": ...}``
    attached = _attached_text(part, where)
    if attached is not None:
        return attached
    if is_media(part):
        return f"[{part.get('type', 'part')}]"
    raise RecordError(
        "unknown content part",
        f"{where} is a part of type {named(part_type(part))}: no text, reasoning, media, tool call "
        "or tool result as its format is read",
    )


def _attached_text(part: dict[str, Any], where: str) -> str | None:
    """The text an attachment shows the model, where it carries text rather than bytes: a plain-text
    document's ``source.data``, a ``content`` document's blocks, a ``search_result``'s title, source
    and text blocks (Anthropic's documented blocks). Marked as media, the text the model read was
    lost; a PDF, an image or a file id stays a marker (:func:`is_media`)."""
    source = part.get("source")
    if isinstance(source, dict) and source.get("type") == "text" and isinstance(source.get("data"), str):
        return str(source["data"])
    if isinstance(source, dict) and source.get("type") == "content":
        return text_of(source.get("content"), f"{where}.source.content")
    if part.get("type") == SEARCH_RESULT and isinstance(part.get("content"), list):
        head = [str(part[k]) for k in ("title", "source") if isinstance(part.get(k), str)]
        return "\n".join([*head, text_of(part["content"], f"{where}.content") or ""])
    return None


def text_of(content: Any, where: str) -> str | None:
    """Flatten message content (a string or a list of text parts) to text, each part as
    :func:`part_text` reads it (media as a marker; any other part rejects the record)."""
    if content is None or isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(part_text(part, f"{where}[{index}]") for index, part in enumerate(content))
    raise RecordError("wrong type", f"{where} is {type(content).__name__}, expected string or list of parts")


def arguments_text(arguments: Any) -> str | None:
    """Tool-call arguments as the raw string recorded; structured arguments become canonical JSON;
    arguments a logger encoded twice (a JSON string literal whose text is a JSON object or list)
    as that text (:func:`_encoded_once`)."""
    if arguments is None:
        return None
    if isinstance(arguments, str):
        return _encoded_once(arguments)
    return canonical_json(arguments)


def _encoded_once(text: str) -> str:
    """``text`` with the layers of JSON string encoding a logger added peeled off, down to the JSON
    object or list the model wrote (a JSON string literal holding ``{"cmd": "ls"}`` as its text is
    that text). A replay would otherwise hand the tool a string, not its arguments; the
    ``anthropic`` reader already reads a stringified ``input`` so. Anything else is kept as
    recorded: it is what the model produced (a malformed argument string included)."""
    inner = text
    while inner.lstrip().startswith('"'):
        try:
            inner = parse_json(inner)
        except (json.JSONDecodeError, RecordError):
            return text
        if not isinstance(inner, str):
            return text
    if inner is text:
        return text
    try:
        return inner if isinstance(parse_json(inner), dict | list) else text
    except (json.JSONDecodeError, RecordError):
        return text


def events_json(events: list[Event]) -> str:
    """Delivered messages kept verbatim, as a canonical JSON list of event dicts."""
    return canonical_json([dataclasses.asdict(event) for event in events])


NAME_SEPARATORS = re.compile(r"[-_.:/]")
"""What joins a tool's namespace (a plugin, a server, a toolkit) to its own name, in the spellings
frameworks write: ``Plugin-fn``, ``Plugin_fn``, ``server.tool``, ``server/tool``."""


def same_tool(result_name: str, call_name: str) -> bool:
    """Whether a result's tool name is its call's written another way: the same words joined by
    another separator (``weather_current`` for ``weather-current``), or the call's last name
    without its namespace (``get_weather`` for ``WeatherPlugin-get_weather``)."""
    if NAME_SEPARATORS.sub("-", result_name) == NAME_SEPARATORS.sub("-", call_name):
        return True
    return any(call_name.endswith(separator + result_name) for separator in "-_.:/")


def name_tool_results(events: list[Event]) -> None:
    """Give each tool result the name of the call it answers. Formats that key results by call id
    only (Anthropic ``tool_result``, OTel tool messages) leave the name out; the pairing is recorded.
    A result naming its call's tool in another spelling (:func:`same_tool`: Semantic Kernel writes a
    call ``Plugin-fn`` and its result ``fn`` or ``Plugin_fn``) takes the call's, the name the model
    wrote, so one tool is one name in the episode; a result naming another tool keeps its own."""
    names = {c.id: c.name for e in events for c in e.tool_calls if c.id and c.name}
    for event in events:
        if event.kind not in ("tool", "refusal") or event.tool_call_id not in names:
            continue
        called = names[event.tool_call_id]
        if event.tool_name is None or (event.tool_name != called and same_tool(event.tool_name, called)):
            event.tool_name = called


def event_key(event: Event) -> tuple:
    """What makes two events the same message: kind, text, the call answered, the calls made."""
    calls = tuple((c.id, c.name, c.arguments) for c in event.tool_calls)
    return (event.kind, event.content, event.tool_call_id, calls)


def delivered_input(
    call_index: int, delivered: list[Event], events: list[Event], response: int | None
) -> DeliveredInput:
    """The manifest of one model call: indices of the episode prefix it saw when it saw exactly that
    prefix, else the delivered messages verbatim, marked ``compacted`` (not the full history)."""
    prefix = events[: len(delivered)]
    if len(prefix) == len(delivered) and all(
        event_key(a) == event_key(b) for a, b in zip(prefix, delivered, strict=True)
    ):
        return DeliveredInput(call_index, response, event_indices=list(range(len(delivered))))
    return DeliveredInput(call_index, response, messages_json=events_json(delivered), compacted=True)


def adapter_episode_id(fmt: str, own_id: Any, record_value: Any) -> str:
    """``<format>:<source id>`` when the source names the episode, else ``<format>:<content digest>``."""
    if own_id is None or own_id == "":
        return f"{fmt}:{content_digest(record_value)}"
    return f"{fmt}:{own_id}"


class Adapter:
    """A log format. Subclasses set ``name`` and implement :meth:`sniff` and :meth:`parse`."""

    name: str = ""
    split_document: bool = True
    task_id_source: str | None = None
    """Where the format's records name the task they ran against (``episode.task.fixture_id``),
    ``None`` for a format that records none: what docs/formats.md tables, and what an episode left
    ``unverifiable`` for lack of a task id is told."""
    markup_tools: frozenset[str] = frozenset()
    """Tool names the format itself fixes (Cline's), whose XML elements in an assistant's text are
    calls as a declared tool's are (``inline_markup.py``)."""
    reads_conversation_alone: bool = False
    """A chat format whose record is a conversation without the answer a logged call carries beside
    it (``openai``, ``anthropic``): such a record met in its file (a ``--format`` forced, or a line
    after the one detection judged) is ``chat-log``'s (``adapters.record_reader``)."""
    logs_calls_alone: bool = False
    """A provider format whose file may be a log of model calls, one a line, naming no run
    (Bedrock, Gemini, stateless Responses): the calls of one agent run are grouped into one record
    as ``chat-log`` groups its own (``adapters.framed``), else the run is stored once per call."""
    records_tool_calls: bool = True
    """Does the format keep the tool calls its tool results answer? A format that prints a calling
    turn without its call (tau-bench's few-shot transcripts) says ``False``: its tool turns answer
    calls the log lost, so the validator's rule that a tool result answers a call made before it
    (``validate.py``) does not apply to it."""
    bare_list_key: str | None = None
    """Chat formats whose whole file may be one bare list (a message list, an item list, a contents
    list): such a file, when :meth:`is_bare_list` says so, is one record ``{bare_list_key: list}``."""

    def sniff(self, sample: Any, path: Path) -> bool:
        """True when ``sample`` (a parsed document or first JSONL line) looks like this format: a
        bare list this format reads (:meth:`is_bare_list`), or a record it claims
        (:meth:`claims_record`, asked of the first record of a list). Formats with another way to
        tell override this."""
        if self.is_bare_list(sample):
            return True
        record = first_record(sample)
        return isinstance(record, dict) and self.claims_record(record)

    def claims_record(self, record: dict[str, Any]) -> bool:
        """True when one record (an object) is this format's; what the default :meth:`sniff` asks."""
        raise NotImplementedError

    @property
    def reads_each_record_alone(self) -> bool:
        """Does this format read each line / array element of a file on its own (a chat call, a
        conversation), so that a line another such format claims can be read by that one instead?
        True for the formats framed by :func:`frame_json`, one record a line or element; a format
        that groups lines (a session, a trace) reads them as one and is never split."""
        return (
            type(self).frame is Adapter.frame
            and type(self).parse_all is Adapter.parse_all
            and self.split_document
        )

    def group_of(self, record: RawRecord) -> str | None:
        """The id of the group (a session, a run) a framed record holds, for a format that groups
        its lines by an id the log writes (``None`` for any other record or format). A group whose
        id is held by more than one file of one ingest is read as one record: :meth:`merged`."""
        return None

    def merged(self, parts: list[RawRecord]) -> RawRecord:
        """The records of one group framed from several files (in file order) as one record,
        located at its :meth:`home_part`'s line."""
        raise NotImplementedError

    def home_part(self, parts: list[RawRecord]) -> int:
        """Which of a group's parts (in file order) is its own: the merged record is located at
        it and read as its file's (the file a reject names, the ``task_ids.json`` that links its
        episodes). The first file's here; a format whose files are not all the group's own (a
        Claude Code session's sub-agent transcripts) says which is."""
        return 0

    def group_entries(self, record: RawRecord) -> tuple[set[str], set[str]]:
        """For a format whose group may go on under a new id (a resumed Claude Code session): the
        ids of the entries the group's record holds, and of those it follows without holding
        them. Groups sharing an entry, or following one another holds, are read as one
        (``cross_file.SpanningGroups.scan``); a format whose ids never change names none."""
        return set(), set()

    def is_bare_list(self, document: Any) -> bool:
        """True when ``document`` is a bare list of what this format's record holds under
        :attr:`bare_list_key`."""
        return False

    def frame(self, src: SourceFile) -> Iterator[RawRecord]:
        """Split a file into records (override for formats whose record is not a line or element)."""
        if self.bare_list_key is not None:
            document, error = src.document
            if error is None and self.is_bare_list(document):
                return iter([RawRecord(None, "$", value={self.bare_list_key: document})])
        return frame_json(src, self.split_document)

    def parse(self, record: RawRecord, src: SourceFile) -> Episode:
        """Normalize one record or raise :class:`RecordError`."""
        raise NotImplementedError

    def parse_all(self, record: RawRecord, src: SourceFile) -> list[Episode]:
        """Every episode one record holds (what ingest asks): one, :meth:`parse`'s, except for a
        record grouping a run's model calls, which may hold several conversations (two chats under
        one session id, a supervisor and its sub-agents: ``call_trace.conversations``). Each is an
        episode and counts as a record of its own, so ``records_in == normalized + rejected``
        still holds; one that fails validation is rejected alone."""
        return [self.parse(record, src)]

    def new_episode(self, record: RawRecord, src: SourceFile, episode_id: str) -> Episode:
        """An empty episode carrying this record's provenance."""
        return Episode(
            episode_id=episode_id,
            source_format=self.name,
            source_file=src.display,
            source_line=record.line,
            source_path=record.json_path,
            partition_date=None,
        )
