"""Ingest agent logs of any supported format into the trace record, keeping every reject.

This is the domain function behind the ``raw_traces`` asset and ``trajectory-platform ingest``:

- :func:`discover_log_files` lists the log files of a trace-source tree (``<root>/<YYYY-MM-DD>/...``);
- :func:`ingest_paths` frames each file into records, detects the format, normalizes each record
  into an :class:`Episode` or a :class:`Reject`, and guarantees
  ``records_in == len(episodes) + len(rejects)``;
- :meth:`IngestResult.to_tables` / :meth:`IngestResult.write` give sorted Arrow tables and
  byte-identical Parquet files for identical input;
- :func:`ingest_to` writes the same files without holding the episodes: ``batch_rows`` at a time
  through a sorted spill (``spill.py``), for a corpus larger than memory (the CLIs).

A JSON Lines log is read a line at a time and handled a record at a time (``SourceFile.read``), so
a log of any length costs one record of memory; a JSON document is parsed whole (bounded by its file).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import re
import tempfile
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pyarrow as pa
from tqdm import tqdm

from trajectory_platform.traces.adapters import ADAPTERS, FORMAT_NAMES, detected_source, framed, record_reader
from trajectory_platform.traces.adapters.base import (
    COMPRESSED_SUFFIX,
    DETECT_PROBE_LINES,
    NESTING_TOO_DEEP,
    STRUCTURE_ERRORS,
    Adapter,
    RawRecord,
    RecordError,
    SourceFile,
    first_record,
)
from trajectory_platform.traces.adapters.citations import citations_of_episodes, keep_citations
from trajectory_platform.traces.adapters.datasets import NOT_A_TRAJECTORY, describe_non_trajectory
from trajectory_platform.traces.adapters.inline_markup import MarkupTally, lift_inline_markup
from trajectory_platform.traces.adapters.inspect_archive import ARCHIVE_SUFFIX
from trajectory_platform.traces.adapters.text_conventions import appending_frameworks, typed_by_people
from trajectory_platform.traces.adapters.tool_errors import mark_harness_errors
from trajectory_platform.traces.cross_file import SpanningGroups, groups_by_id
from trajectory_platform.traces.drops import Drop, Tally, named, path_of, without_record_text
from trajectory_platform.traces.ingest_settings import IngestSettings
from trajectory_platform.traces.parquet import write_parquet
from trajectory_platform.traces.record import (
    LOGGED_ID_KEY,
    Episode,
    LineageInputs,
    canonical_json,
    with_logged_id,
)
from trajectory_platform.traces.schema import REJECT_SCHEMA, episodes_to_table
from trajectory_platform.traces.spill import SortedSpill, episode_digest, order_key, unique_ids
from trajectory_platform.traces.task_map import TASK_MAP_FILE, TaskMap, TaskMaps
from trajectory_platform.traces.unicode_text import file_name_text, replace_lone_surrogates, scrub_episode
from trajectory_platform.traces.validate import DEFAULT_MAX_FIELD_CHARS, validate_episode

LOG_SUFFIXES = (".jsonl", ".ndjson", ".json", ".traj")
"""File endings :func:`discover_log_files` picks up (``.traj.json`` ends in ``.json``), each also
gzip-compressed (``.jsonl.gz``: read decompressed, ``adapters/base.py``'s ``open_log``), and
Inspect's ``.eval`` zip log (opened as its JSON log: ``adapters/inspect_archive.py``)."""
_FOUND_SUFFIXES = (
    LOG_SUFFIXES + tuple(suffix + COMPRESSED_SUFFIX for suffix in LOG_SUFFIXES) + (ARCHIVE_SUFFIX,)
)

_DATE_PART = re.compile(r"^(\d{4})-(\d{2})-(\d{2})$")
EPOCH_SCALES = ((11, 1), (14, 1e3), (17, 1e6), (20, 1e9))
"""Unix timestamps by digit count: seconds, milliseconds, microseconds, nanoseconds."""
PROGRESS_MIN_BYTES = 1 << 20
"""Inputs smaller than this finish too fast for a progress bar to help."""


@dataclass(kw_only=True)
class Reject:
    """A record that could not be normalized: where it is, and why (its :class:`Drop`).

    :meth:`row` flattens it into :data:`REJECT_SCHEMA`'s columns, the drop's reason and detail in
    the ``reason`` / ``detail`` columns (a drop without a detail is a null ``detail``).
    """

    source_file: str
    source_line: int | None = None
    source_path: str | None = None
    source_format: str | None = None
    drop: Drop
    excerpt: str | None = None
    partition_date: dt.date | None = None

    @property
    def reason(self) -> str:
        return self.drop.reason

    @property
    def detail(self) -> str | None:
        return self.drop.detail or None

    def row(self) -> dict:
        """The Arrow row for this reject, in :data:`REJECT_SCHEMA`'s column order (a lone surrogate
        in a located id or a message, which UTF-8 cannot hold, as U+FFFD: ``unicode_text.py``)."""
        date = self.partition_date
        texts = {
            "source_file": self.source_file,
            "source_path": self.source_path,
            "source_format": self.source_format,
            "reason": self.reason,
            "detail": self.detail,
            "excerpt": self.excerpt,
        }
        safe = {k: None if v is None else replace_lone_surrogates(v)[0] for k, v in texts.items()}
        return {
            "source_file": safe["source_file"],
            "source_line": self.source_line,
            "source_path": safe["source_path"],
            "source_format": safe["source_format"],
            "reason": safe["reason"],
            "detail": safe["detail"],
            "excerpt": safe["excerpt"],
            "partition_date": None if date is None else dt.datetime(date.year, date.month, date.day),
        }

    def sort_key(self) -> tuple:
        """Rejects are stored in file, line, JSON path order."""
        return (self.source_file, self.source_line or 0, self.source_path or "", self.reason)


@dataclass
class IngestResult:
    """Episodes and rejects of one ingestion run; ``records_in == normalized + len(rejects)``.

    ``episodes`` holds the normalized episodes of :func:`ingest_paths`; :func:`ingest_to` writes
    them instead and leaves it empty (``normalized`` counts them either way)."""

    episodes: list[Episode] = field(default_factory=list)
    rejects: list[Reject] = field(default_factory=list)
    records_in: int = 0
    normalized: int = 0
    counts_by_format: dict[str, int] = field(default_factory=dict)
    files_read: int = 0
    bytes_read: int = 0
    files_skipped: dict[str, int] = field(default_factory=dict)
    """Files found in the folders given that are not logs by their name (``.txt``, a ``.md``
    history), by suffix: never read, but counted so none goes unnoticed."""
    markup_kept_as_text: Counter[str] = field(default_factory=Counter)
    """Blocks of inline markup (a tool call, a ``<think>``) left as text because they could not be
    read, by reason (``adapters/inline_markup.py``; each episode counts its own in ``extra_json``)."""
    read_with_other_records: dict[str, Counter[str]] = field(default_factory=dict)
    """Lines read as part of a record of another file, by their file, then that file: a batch
    request read with its answer, a Cline task's companion files read with its history. They are no
    records of their own (``records_in`` counts the record they belong to), and the summary names
    them so that a file that yields no record of its own says why."""
    lone_surrogates_replaced: int = 0
    """Lone UTF-16 surrogates replaced by U+FFFD in the normalized episodes' text
    (``unicode_text.py``; each episode counts its own in ``extra_json``)."""
    shown: Callable[[str], str] = str
    """How a name a log chose itself is written where no redaction reaches: the rejects' file and
    locator, and the format names of the summary (a token in a log's name, a record id in its
    locator, a native record's own ``source_format``). The asset and the CLI pass
    :func:`~trajectory_platform.curation.redact.engine.mask_secrets` (this layer cannot import it)."""

    def tally(self) -> Tally:
        """Records in, normalized (kept), rejected by reason."""
        return Tally(self.records_in, self.normalized, Counter(r.reason for r in self.rejects))

    def reject_reasons(self) -> dict[str, int]:
        """Rejects per reason, most frequent first (ties by name)."""
        counts = Counter(r.reason for r in self.rejects)
        return dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))

    def summary(self, top: int = 5) -> dict:
        """The counts a person or the UI needs: in, normalized, rejected, per format, top reasons."""
        return {
            "records_in": self.records_in,
            "normalized": self.normalized,
            "rejected": len(self.rejects),
            "files": self.files_read,
            "bytes": self.bytes_read,
            "skipped_files": dict(sorted(self.files_skipped.items())),
            "read_with_other_records": {
                self.shown(name): {self.shown(k): v for k, v in sorted(read.items())}
                for name, read in sorted(self.read_with_other_records.items())
            },
            "lone_surrogates_replaced": self.lone_surrogates_replaced,
            "markup_kept_as_text": dict(sorted(self.markup_kept_as_text.items())),
            "counts_by_format": {self.shown(k): v for k, v in sorted(self.counts_by_format.items())},
            "top_reject_reasons": dict(list(self.reject_reasons().items())[:top]),
        }

    def to_tables(self) -> tuple[pa.Table, pa.Table]:
        """(``EPISODE_SCHEMA`` table sorted by episode_id, ``REJECT_SCHEMA`` table sorted by file, line)."""
        episodes = episodes_to_table(sorted(self.episodes, key=lambda e: e.episode_id))
        return episodes, self.rejects_table()

    def rejects_table(self) -> pa.Table:
        """The ``REJECT_SCHEMA`` table, sorted by file, line; file and locator as :attr:`shown`."""
        rows = [r.row() for r in sorted(self.rejects, key=Reject.sort_key)]
        for row in rows:
            row["source_file"], row["source_path"] = (
                None if row[k] is None else self.shown(row[k]) for k in ("source_file", "source_path")
            )
        return pa.Table.from_pylist(rows, schema=REJECT_SCHEMA)

    def write(self, out_dir: Path | str) -> dict[str, str]:
        """Write ``traces.parquet`` and ``rejects.parquet``; returns ``{file name: sha256}``."""
        out = Path(out_dir)
        out.mkdir(parents=True, exist_ok=True)
        for name, table in zip(TABLE_FILES, self.to_tables(), strict=True):
            write_parquet(table, out / name)
        return file_digests(out)

    def _keep(self, episode: Episode) -> None:
        self.episodes.append(episode)


TABLE_FILES = ("traces.parquet", "rejects.parquet")


def file_digests(out: Path) -> dict[str, str]:
    """``{file name: sha256}`` of the two tables in ``out``."""
    return {name: hashlib.sha256((out / name).read_bytes()).hexdigest() for name in TABLE_FILES}


def sample_logs_root() -> Path:
    """The bundled sample logs (one or more per supported format), laid out like a trace source:
    ``<root>/<YYYY-MM-DD>/<files>``. This is the main job's default input."""
    return Path(__file__).resolve().parents[1] / "samples" / "traces"


def discover_log_files(root: Path | str) -> list[Path]:
    """Every log file under ``root`` (recursively, sorted, hidden files and folders skipped)."""
    return _discover(Path(root))[0]


def is_compressed_log(path: Path) -> bool:
    """Is ``path`` named as a gzip-compressed log (``.jsonl.gz``, ``.json.gz``, ...)?"""
    return path.name.lower().endswith(tuple(suffix + COMPRESSED_SUFFIX for suffix in LOG_SUFFIXES))


def _discover(base: Path) -> tuple[list[Path], Counter[str]]:
    """:func:`discover_log_files`, and the other (not hidden) files under ``base`` by suffix."""
    if base.is_file():
        return ([base] if base.name != TASK_MAP_FILE else []), Counter()
    found: list[Path] = []
    skipped: Counter[str] = Counter()
    for path in base.rglob("*"):
        if not path.is_file() or any(part.startswith(".") for part in path.relative_to(base).parts):
            continue
        if path.name == TASK_MAP_FILE:
            continue
        if path.name.lower().endswith(_FOUND_SUFFIXES):
            found.append(path)
        else:
            skipped[path.suffix.lower() or "(no suffix)"] += 1
    return sorted(found), skipped


def partition_date_for(path: Path | str, record: Episode | None = None) -> dt.date | None:
    """The day a log was written: a ``YYYY-MM-DD`` folder (or file stem) in ``path``, else the
    earliest parsable event timestamp of ``record``, else ``None``.

    File modification times are never used: they change on copy, so they are not deterministic.
    """
    for part in reversed(Path(path).parts):
        stem = part.split(".")[0]
        for candidate in (part, stem):
            match = _DATE_PART.match(candidate)
            if match:
                try:
                    return dt.date(*(int(g) for g in match.groups()))
                except ValueError:
                    continue
    if record is None:
        return None
    dates = [d for d in (_date_of_timestamp(e.timestamp) for e in record.events) if d is not None]
    return min(dates) if dates else None


def _date_of_timestamp(value: str | None) -> dt.date | None:
    """Date of an ISO-8601 timestamp or of a Unix epoch (seconds, ms, us or ns) in UTC."""
    if not value:
        return None
    text = value.strip()
    if re.fullmatch(r"\d+(\.\d+)?", text):
        digits = len(text.split(".")[0])
        scale = next((s for limit, s in EPOCH_SCALES if digits <= limit), None)
        if scale is None:
            return None
        try:
            return dt.datetime.fromtimestamp(float(text) / scale, tz=dt.UTC).date()
        except (OverflowError, OSError, ValueError):
            return None
    try:
        parsed = dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    if parsed.tzinfo is not None:
        parsed = parsed.astimezone(dt.UTC)
    return parsed.date()


def ingest_paths(
    paths: Sequence[Path | str],
    fmt: str = "auto",
    partition_date: dt.date | None = None,
    *,
    max_field_chars: int = DEFAULT_MAX_FIELD_CHARS,
    progress: bool = False,
    relative_to: Path | str | None = None,
    shown: Callable[[str], str] = str,
) -> IngestResult:
    """Normalize every record of every file in ``paths`` (folders are expanded).

    ``fmt`` is ``"auto"`` (detected per file) or an adapter name from ``FORMAT_NAMES``.
    ``partition_date`` overrides the per-file date (the asset passes its partition);
    otherwise :func:`partition_date_for` decides. Episode ids are made unique across the run.
    With ``relative_to``, files under that folder are recorded by their path relative to it.
    ``shown``: :attr:`IngestResult.shown`.
    """
    result = IngestResult(shown=shown)
    _read(paths, fmt, partition_date, max_field_chars, progress, relative_to, result, result._keep)
    _make_ids_unique(result.episodes)
    return result


def ingest_to(
    paths: Sequence[Path | str],
    out_dir: Path | str,
    fmt: str = "auto",
    *,
    settings: IngestSettings | None = None,
    max_field_chars: int = DEFAULT_MAX_FIELD_CHARS,
    progress: bool = False,
    shown: Callable[[str], str] = str,
) -> tuple[IngestResult, dict[str, str]]:
    """:func:`ingest_paths`, written to ``out_dir/traces.parquet`` and ``rejects.parquet`` (the
    bytes :meth:`IngestResult.write` gives) while holding ``settings.batch_rows`` episodes at a
    time: episodes go to a sorted spill beside the output folder (removed after), not to a list.
    Returns the result (its ``episodes`` empty) and ``{file name: sha256}``; when no record was
    found nothing is written (and no digest returned). ``shown``: :attr:`IngestResult.shown`."""
    settings = settings or IngestSettings()
    out = Path(out_dir)
    out.parent.mkdir(parents=True, exist_ok=True)
    result = IngestResult(shown=shown)
    with tempfile.TemporaryDirectory(prefix=".ingest-spill-", dir=out.parent) as folder:
        spill = SortedSpill(Path(folder), settings.batch_rows)
        _read(paths, fmt, None, max_field_chars, progress, None, result, spill.add)
        if not result.records_in:
            return result, {}
        spill.write(out / TABLE_FILES[0])
    write_parquet(result.rejects_table(), out / TABLE_FILES[1])
    return result, file_digests(out)


def _read(
    paths: Sequence[Path | str],
    fmt: str,
    partition_date: dt.date | None,
    max_field_chars: int,
    progress: bool,
    relative_to: Path | str | None,
    result: IngestResult,
    keep: Callable[[Episode], None],
) -> None:
    """Read every file into ``result``'s counts and rejects, each normalized episode to ``keep``."""
    if fmt != "auto" and fmt not in ADAPTERS:
        raise ValueError(f"unknown format {fmt!r}; choose auto or one of {', '.join(FORMAT_NAMES)}")
    files, skipped = _expand(paths)
    result.files_skipped = dict(sorted(skipped.items()))
    run_files = frozenset(path.resolve() for path, _ in files)
    formats: Counter[str] = Counter()
    maps = TaskMaps()
    spanning = SpanningGroups.scan(_grouping_sources(files, fmt, relative_to))

    def counted(episode: Episode) -> None:
        if LOGGED_ID_KEY in (episode.extra_json or ""):  # the log's own claim of an id is not ingest's
            episode.extra_json = with_logged_id(episode.extra_json, None)
        result.normalized += 1
        formats[episode.source_format] += 1
        keep(episode)

    total = sum(f.stat().st_size for f, _ in files if f.is_file())
    quiet = not progress or total < PROGRESS_MIN_BYTES
    with tqdm(total=total, unit="B", unit_scale=True, desc="ingest", disable=quiet) as bar:
        for path, root in files:
            display = _display_name(path, relative_to)
            if leaves_root(path, root):
                result.records_in += 1
                result.rejects.append(
                    Reject(
                        source_file=display,
                        drop=Drop(
                            "link outside the source",
                            f"a symbolic link leads out of {file_name_text(root)}; it was not read",
                        ),
                        partition_date=partition_date,
                    )
                )
                continue
            try:
                source = SourceFile.read(path, display)
            except OSError as exc:
                result.records_in += 1
                result.rejects.append(
                    Reject(
                        source_file=display,
                        drop=Drop("unreadable file", str(exc)),
                        partition_date=partition_date,
                    )
                )
                continue
            source.run_files = run_files  # a companion read with a record only when this run reads it
            task_map = _task_map(path, root, relative_to, maps, partition_date, result)
            _ingest_file(source, fmt, partition_date, max_field_chars, result, counted, task_map, spanning)
            result.files_read += 1
            result.bytes_read += source.size
            bar.update(source.size)
    for part, merged in spanning.flush():
        _ingest_record(part.context, merged, max_field_chars, result, counted)
    result.counts_by_format = dict(sorted(formats.items()))


def _grouping_sources(
    files: list[tuple[Path, Path]], fmt: str, relative_to: Path | str | None
) -> Iterator[tuple[SourceFile, Adapter]]:
    """The files :meth:`SpanningGroups.scan` looks at: each readable one under its root, with the
    format that reads it (none when the forced format groups nothing)."""
    if fmt != "auto" and not groups_by_id(ADAPTERS[fmt]):
        return
    for path, root in files:
        if leaves_root(path, root):
            continue
        try:
            src = SourceFile.read(path, _display_name(path, relative_to))
        except OSError:
            continue
        src, adapter = (src, ADAPTERS[fmt]) if fmt != "auto" else detected_source(src)
        if adapter is not None:
            yield src, adapter


def _task_map(
    path: Path,
    root: Path,
    relative_to: Path | str | None,
    maps: TaskMaps,
    partition_date: dt.date | None,
    result: IngestResult,
) -> TaskMap | None:
    """The ``task_ids.json`` governing ``path``, searched up to the source root (``relative_to``
    when the file lies under it, else the folder it was found under); a map that cannot be read
    is one reject, the first time it is met."""
    top = root
    if relative_to is not None and path.resolve().is_relative_to(Path(relative_to).resolve()):
        top = Path(relative_to)
    task_map, failed = maps.governing(path, top)
    if failed is not None:
        map_path, error = failed
        result.records_in += 1
        result.rejects.append(
            Reject(
                source_file=_display_name(map_path, relative_to),
                drop=error.drop,
                partition_date=partition_date or partition_date_for(map_path),
            )
        )
    return task_map


def _display_name(path: Path, root: Path | str | None) -> str:
    """``path`` relative to ``root`` when it lies under it, else as given; bytes of the name that
    are not UTF-8 written as ``\\xNN`` (:func:`file_name_text`)."""
    if root is not None and path.resolve().is_relative_to(Path(root).resolve()):
        return file_name_text(path.resolve().relative_to(Path(root).resolve()).as_posix())
    return file_name_text(path)


def _expand(paths: Iterable[Path | str]) -> tuple[list[tuple[Path, Path]], Counter[str]]:
    """Every file to read, with the folder it was found under (a file given alone: its own folder),
    and the files of those folders left unread, by suffix."""
    files: list[tuple[Path, Path]] = []
    skipped: Counter[str] = Counter()
    for raw in paths:
        path = Path(raw)
        if not path.exists():
            raise FileNotFoundError(f"no such file or folder: {path}")
        root = path if path.is_dir() else path.parent
        found, unread = _discover(path)
        files.extend((f, root) for f in found)
        skipped.update(unread)
    return files, skipped


def leaves_root(path: Path, root: Path) -> bool:
    """Does ``path`` (through a symbolic link anywhere on the way) point outside ``root``?

    A link in a trace source may point at anything the platform can read (``secrets/pipeline.key``
    included); ingest reads only what really lies under the folder it was given.
    """
    return not path.resolve().is_relative_to(root.resolve())


@dataclass
class _FileRead:
    """What reading one file's records needs besides the record: where they come from, the format
    that framed them, the date given (``date``) or found for the file, and its task map."""

    src: SourceFile
    fmt: str
    adapter: Adapter
    date: dt.date | None
    file_date: dt.date | None
    task_map: TaskMap | None


def _ingest_file(
    src: SourceFile,
    fmt: str,
    date: dt.date | None,
    max_field_chars: int,
    result: IngestResult,
    keep: Callable[[Episode], None],
    task_map: TaskMap | None,
    spanning: SpanningGroups,
) -> None:
    """Frame one file and route each record to an episode or a reject; an episode whose record
    names no task takes the one ``task_map`` gives its file. A record that is part of a group
    spanning files is held by ``spanning`` and read when the group's last file has been read."""
    src, adapter = (src, ADAPTERS[fmt]) if fmt != "auto" else detected_source(src)
    file_date = date or partition_date_for(src.path)
    if adapter is None:
        result.records_in += 1
        result.rejects.append(_unrecognized(src, file_date))
        return
    read = _FileRead(src, fmt, adapter, date, file_date, task_map)
    for record in _records(adapter, src):
        if record.read_with is not None:  # part of another file's record, counted under it
            counted_with = result.read_with_other_records.setdefault(src.display, Counter())
            counted_with[record.read_with] += 1
            continue
        if not spanning.hold(adapter, record, read, src.display):
            _ingest_record(read, record, max_field_chars, result, keep)
    for part, merged in spanning.finish_file():
        _ingest_record(part.context, merged, max_field_chars, result, keep)


def _bare_list_said(reader: Adapter, record: RawRecord, exc: Exception) -> RecordError:
    """The error of a record, saying so when its file is a bare list the reader read under a key of
    its own (:attr:`Adapter.bare_list_key`): the detail's paths start at that key (``input[1]``),
    which the file does not have, and the format was chosen from the list's shape alone."""
    error = _record_error(exc)
    key = reader.bare_list_key
    if (
        record.json_path != "$"
        or key is None
        or not isinstance(record.value, dict)
        or list(record.value) != [key]
    ):
        return error
    said = f"the file is a bare list, read as the {reader.name} format's {key}"
    return RecordError(error.reason, f"{error.detail} ({said})" if error.detail else said)


def _ingest_record(
    read: _FileRead,
    record: RawRecord,
    max_field_chars: int,
    result: IngestResult,
    keep: Callable[[Episode], None],
) -> None:
    """Route one framed record to its episodes or a reject."""
    src, adapter, file_date, task_map = read.src, read.adapter, read.file_date, read.task_map
    result.records_in += 1
    reader = record_reader(record, adapter, src.path, detected=read.fmt == "auto")
    try:
        if record.error is not None:
            raise record.error
        episodes = reader.parse_all(record, src)
    except (RecordError, *STRUCTURE_ERRORS) as exc:
        result.rejects.append(_reject(src, reader, record, _bare_list_said(reader, record, exc), file_date))
        return
    result.records_in += len(episodes) - 1  # each conversation of a run is a record of its own
    own_citations = citations_of_episodes(record.value, episodes) if len(episodes) > 1 else None
    for number, episode in enumerate(episodes):
        if reader.name != "native":  # the platform's own record: read back as written
            keep_citations(episode, record.value, own_citations[number] if own_citations else None)
        # a conversation split off a run is located by its own path (``trace_id=t/2``)
        located = record if len(episodes) == 1 else RawRecord(episode.source_line, episode.source_path)
        try:
            native = reader.name == "native"  # the platform's own record: read back as written
            frameworks = frozenset() if native else appending_frameworks(record.value, episode.events)
            people = not native and typed_by_people(record.value)
            markup = (
                MarkupTally()
                if native
                else lift_inline_markup(episode, reader.markup_tools, frameworks, people)
            )
            if not native:
                mark_harness_errors(episode)
            replaced = scrub_episode(episode)
            if episode.task.fixture_id is None and task_map is not None:
                episode.task.fixture_id = task_map.task_for(src.path)
            validate_episode(episode, max_field_chars)
            if not native:
                episode.lineage.sampler_policy_digest = declared_sampler_digest(episode.lineage)
        except (RecordError, *STRUCTURE_ERRORS) as exc:
            result.rejects.append(_reject(src, reader, located, _record_error(exc), file_date))
            continue
        if read.date is not None or episode.partition_date is None:
            episode.partition_date = read.date or file_date or partition_date_for(src.path, episode)
        result.lone_surrogates_replaced += replaced
        result.markup_kept_as_text.update(markup.kept_as_text)
        keep(episode)


def _records(adapter: Adapter, src: SourceFile) -> Iterator[RawRecord]:
    """``src``'s records as ``adapter`` frames them. A file held whole is framed whole first, so a
    shape the framing cannot handle rejects the file as one record; a streamed (JSONL) file is
    handled a record at a time as it is read, so one record is in memory, not the file (its lines
    frame on their own and cannot raise; should a framing fail part-way, the records before it stay
    and the failure is one more reject)."""
    try:
        yield from framed(adapter, src) if src.data is None else list(framed(adapter, src))
    except (RecordError, *STRUCTURE_ERRORS) as exc:
        yield RawRecord(None, "$", error=_record_error(exc))


def declared_sampler_digest(lineage: LineageInputs) -> str | None:
    """The sampler-policy digest of an imported episode: the one its producer wrote, else a digest
    of the agent / model identity and sampling parameters the log declares, else ``None``: the log
    does not say what sampled it, so no retraining decision can call it stale. (Native records
    carry their producer's own digest: the gym's runtime hashes its policy's description.)"""
    if lineage.sampler_policy_digest or not lineage.model:
        return lineage.sampler_policy_digest
    declared = {
        "model": lineage.model,
        "model_digest": lineage.model_digest,
        "adapter_digest": lineage.adapter_digest,
        "sampling_params_json": lineage.sampling_params_json,
    }
    return "sha256:" + hashlib.sha256(canonical_json(declared).encode("utf-8")).hexdigest()


def _unrecognized(src: SourceFile, date: dt.date | None) -> Reject:
    """The whole file is one reject: why it cannot be read, or what it is when it is a known
    non-trajectory dataset, or that no supported format uses its layout."""
    sample = src.first_value()
    if src.is_document:
        line = src.document_line
    else:
        line = next((r.line for r in src.lines() if r.error is None), None)
    reason, detail = "unrecognized format", _unread_layout(sample, line)
    if sample is None and src.document[1] is not None:
        reason, detail = src.document[1].reason, f"the file is not readable JSON: {src.document[1].detail}"
    elif (known := describe_non_trajectory(sample)) is not None:
        reason, detail = NOT_A_TRAJECTORY, known
    return Reject(
        source_file=src.display,
        source_line=line,
        source_path="$",
        drop=Drop(reason, detail),
        excerpt=src.fingerprint(),
        partition_date=date,
    )


SHOWN_FIELDS = 8
"""How many of an unrecognized record's top-level field names its reject lists."""


def _unread_layout(sample: object, line: int | None) -> str:
    """Why no format read a file: where its first record is, what it is (an object's field names, each
    shown only when it reads as a word, as every reject detail names what a record chose), and that
    no format claims it or the lines detection looked at after it."""
    where = "the document" if line is None else f"line {line} (the first readable one)"
    record = first_record(sample)
    shape = named(sample) + (f" whose first element is {named(record)}" if record is not sample else "")
    if isinstance(record, dict) and record:
        fields = [path_of([str(key)]) for key in list(record)[:SHOWN_FIELDS]]
        shape += f" with fields {', '.join(fields)}{', ...' if len(record) > SHOWN_FIELDS else ''}"
    looked = "" if line in (None, 1) else f", nor any of the first {DETECT_PROBE_LINES} readable lines"
    return f"{where} is {shape}: no supported format reads it{looked}; supported: {', '.join(FORMAT_NAMES)}"


def _record_error(exc: Exception) -> RecordError:
    """Why a record is rejected: the reader's own :class:`RecordError`, or a shape its format does
    not allow that an adapter met (a list where an object belongs, ...), named as such."""
    if isinstance(exc, RecordError):
        return exc
    if isinstance(exc, RecursionError):
        return NESTING_TOO_DEEP
    return RecordError("unexpected structure", f"{type(exc).__name__}: {without_record_text(str(exc))}")


def _reject(
    src: SourceFile, adapter: Adapter, record: RawRecord, error: RecordError, date: dt.date | None
) -> Reject:
    return Reject(
        source_file=src.display,
        source_line=record.line,
        source_path=record.json_path,
        source_format=adapter.name,
        drop=error.drop,
        excerpt=record.excerpt,
        partition_date=date,
    )


def _make_ids_unique(episodes: list[Episode]) -> None:
    """Keep each source id; where two episodes share one, suffix a short digest of the content
    (and, for byte-identical duplicates, the occurrence number in file/line order): ``unique_ids``,
    the naming the streaming spill uses too. A renamed episode records the id its log wrote
    (:func:`with_logged_id`), the one its runtime's seals are over."""
    by_id: dict[str, list[Episode]] = {}
    for episode in episodes:
        by_id.setdefault(episode.episode_id, []).append(episode)
    for episode_id, same in by_id.items():
        if len(same) > 1:
            names = unique_ids(episode_id, [(order_key(e), episode_digest(e)) for e in same])
            for episode, name in zip(same, names, strict=True):
                episode.episode_id = name
                episode.extra_json = with_logged_id(episode.extra_json, episode_id)
