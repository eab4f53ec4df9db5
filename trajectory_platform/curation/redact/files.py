"""File-level redaction for the CLI: the output keeps the input's format.

- ``native``: trace JSONL, one ``Episode.to_dict()`` per line, redacted as episodes;
- ``openai``: OpenAI chat JSONL (``messages`` with ``tool_calls`` / ``tool`` role), each line redacted
  as one JSON document with one symbol table (layout outside changed strings is kept byte-for-byte);
- ``text``: any text file, redacted as one document.

UTF-16 and UTF-32 files (with or without a BOM) are decoded first and written back as UTF-8:
scanned as raw bytes, their secrets would match no rule.

A line that cannot be read is reported (file, line and a :class:`~trajectory_platform.traces.drops.Drop`:
``nesting_too_deep``, ``not_json``, ``invalid_record`` or ``out_of_class``: a field's value is
outside its class, :class:`~trajectory_platform.curation.redact.fields.OutOfClass`) and left out;
the rest goes on, and
:meth:`FileResult.tally` accounts ``records_in == records_out + rejected``. Λ_leak is measured on
the records of the declared sample (:class:`~trajectory_platform.curation.redact.settings.RedactSettings`;
a text file is one record, always measured).
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from trajectory_platform.curation.redact.engine import redact_text
from trajectory_platform.curation.redact.episode import redact_episode
from trajectory_platform.curation.redact.fields import OutOfClass
from trajectory_platform.curation.redact.leak import (
    TEXT_CANARY_COUNT,
    LeakReport,
    choose_leak_sample,
    episode_canary_count,
    measure_episode_leak,
    measure_text_leak,
)
from trajectory_platform.curation.redact.model import RedactionConfig
from trajectory_platform.curation.redact.settings import RedactSettings
from trajectory_platform.traces.adapters.base import as_utf8
from trajectory_platform.traces.drops import Drop, Tally
from trajectory_platform.traces.record import Episode, canonical_json

FORMATS = ("native", "openai", "text")


@dataclass(frozen=True)
class UnreadableLine:
    """A line left out: where, and why."""

    file: str
    line: int
    drop: Drop


@dataclass
class FileResult:
    """What a file-level redaction did (the CLI's summary)."""

    format: str
    records_in: int = 0
    records_out: int = 0
    rejected: list[UnreadableLine] = field(default_factory=list)
    findings_by_kind: Counter = field(default_factory=Counter)
    leak: LeakReport = field(default_factory=LeakReport)

    def tally(self) -> Tally:
        """Records in, written (kept), and the unreadable lines by reason."""
        return Tally(self.records_in, self.records_out, Counter(r.drop.reason for r in self.rejected))


def _read_text(path: Path) -> str:
    return as_utf8(path.read_bytes()).decode("utf-8", errors="surrogateescape")


def detect_format(path: Path) -> str:
    """``native`` / ``openai`` from the first JSONL record's keys, else ``text``."""
    if path.suffix not in (".jsonl", ".json", ".ndjson"):
        return "text"
    for line in _read_text(path).splitlines():
        if line.strip():
            try:
                record = json.loads(line)
            except (ValueError, RecursionError):
                return "text"
            if isinstance(record, dict) and "episode_id" in record and "events" in record:
                return "native"
            if isinstance(record, dict) and "messages" in record:
                return "openai"
            return "text"
    return "text"


def _lines(path: Path) -> Iterator[tuple[int, str]]:
    for number, line in enumerate(_read_text(path).split("\n"), start=1):
        if line.strip():
            yield number, line


def _sample(source: Path, fmt: str, salt: bytes, settings: RedactSettings) -> set[str]:
    """The seeds (episode ids; ``file:line`` for OpenAI records) of the records that carry canaries.
    A line that does not parse here is left out of the sample; the redaction pass reports it."""
    candidates: list[tuple[str, int]] = []
    for number, line in _lines(source):
        if fmt == "openai":
            candidates.append((f"{source}:{number}", TEXT_CANARY_COUNT))
            continue
        try:
            record = json.loads(line)
            episode_id, events = str(record["episode_id"]), len(record.get("events") or [])
        except (ValueError, KeyError, TypeError, RecursionError):
            continue
        candidates.append((episode_id, episode_canary_count(episode_id, events)))
    return choose_leak_sample(
        candidates,
        salt,
        settings.leak_sample_fraction,
        settings.leak_min_canaries,
        settings.leak_sample_seed,
    )


def redact_file(
    source: Path,
    target: Path,
    fmt: str,
    salt: bytes,
    config: RedactionConfig | None = None,
    settings: RedactSettings | None = None,
) -> FileResult:
    """Redact ``source`` into ``target`` in format ``fmt``; see the module docstring."""
    config = config or RedactionConfig()
    settings = settings or RedactSettings()
    result = FileResult(format=fmt)
    target.parent.mkdir(parents=True, exist_ok=True)
    if fmt == "text":
        text = _read_text(source)
        redacted, findings = redact_text(text, salt, config)
        result.leak.add(measure_text_leak(text[:100_000], str(source), salt, config))
        target.write_text(redacted, encoding="utf-8", errors="surrogateescape")
        result.records_in = result.records_out = result.leak.records_total = 1
        result.findings_by_kind.update(f.kind for f in findings)
        return result
    sample = _sample(source, fmt, salt, settings)
    with target.open("w", encoding="utf-8", errors="surrogateescape") as out:
        for number, line in _lines(source):
            result.records_in += 1
            try:
                redacted_line = _redact_record(line, fmt, salt, config, result, f"{source}:{number}", sample)
            except (ValueError, KeyError, TypeError, RecursionError) as exc:
                drop = _why_unreadable(exc)
                print(
                    f"trajectory-platform: {source}:{number}: unreadable {fmt} record: {drop.detail}",
                    file=sys.stderr,
                )
                result.rejected.append(UnreadableLine(str(source), number, drop))
                continue
            out.write(redacted_line + "\n")
            result.records_out += 1
    result.leak.records_total = result.records_out
    return result


def _why_unreadable(exc: Exception) -> Drop:
    """Why a line is unreadable, with a detail that carries no text of the record: it is printed and
    kept unredacted."""
    if isinstance(exc, RecursionError):
        return Drop("nesting_too_deep", "nesting too deep")
    if isinstance(exc, OutOfClass):
        return Drop("out_of_class", exc.detail)
    if isinstance(exc, json.JSONDecodeError):
        return Drop("not_json", f"not JSON ({exc.msg} at column {exc.colno})")
    return Drop("invalid_record", f"not a {type(exc).__name__.removesuffix('Error').lower()}-valid record")


def _redact_record(
    line: str,
    fmt: str,
    salt: bytes,
    config: RedactionConfig,
    result: FileResult,
    seed: str,
    sample: set[str],
) -> str:
    if fmt == "native":
        episode = Episode.from_dict(json.loads(line))
        redacted_episode, episode_findings = redact_episode(episode, salt, config)
        if episode.episode_id in sample:
            result.leak.add(measure_episode_leak(episode, salt, config))
        result.findings_by_kind.update(f.kind for f in episode_findings)
        return canonical_json(redacted_episode.to_dict())
    record = json.loads(line)
    if not isinstance(record, dict) or not isinstance(record.get("messages"), list):
        raise ValueError("expected an object with a 'messages' list")
    redacted, findings = redact_text(line, salt, config)
    if seed in sample:
        result.leak.add(measure_text_leak(line, seed, salt, config, json_record=True))
    result.findings_by_kind.update(f.kind for f in findings)
    return redacted
