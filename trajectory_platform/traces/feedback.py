"""Production feedback: what users did with a deployed agent's output, one record per signal.

A deployed agent's users accept, edit or revert what it produced, correct it mid-conversation,
retry, abandon, or press a rating button (curation §Production feedback signals, table 6). This
module is the record of one such signal, its Arrow schema, and the reader of the JSONL files that
carry them. What each signal may do downstream is decided in
:mod:`trajectory_platform.environments.from_feedback`: an edit can become a fixture's reference,
a correction marks a candidate ``t_div``, and ratings, acceptances, retries and abandonments only
rank. None of them ever admits an episode.

One JSON object per line::

    {"episode_id": "...", "kind": "edited", "edit_diff": "--- a/x.py\\n+++ b/x.py\\n@@ ...",
     "turn_index": 4, "rating": 0.8, "stars": 4, "timestamp": "2024-03-01T12:00:00Z"}

- ``episode_id`` (required): the ``episode_id`` of the trace the signal is about, exactly as the
  trace record carries it (the id ``raw_traces`` stores). Linking happens downstream, where the
  episodes are; a record naming no known episode is counted there as ``unknown_episode``.
- ``kind`` (required): one of :data:`FEEDBACK_KINDS`.
- ``edit_diff``: the user's change to the agent's final workspace, a unified diff against that
  final state (S0 plus the episode's ``workspace_diff``). Required for ``edited``; optional for
  ``reverted`` (a revert with no diff says the output was wrong, not what was right); refused on
  any other kind.
- ``turn_index``: the index in the episode's ``events`` of the assistant message the signal is
  about (the unit of the cascade's ``t_div``). Required for ``correction``; optional elsewhere.
- ``rating`` / ``stars``: only on ``rating``, exactly one of them. ``rating`` is a number in
  [0, 1], stored as given; ``stars`` is an integer 1..5, stored normalized as ``(stars - 1) / 4``.
  Two fields rather than one, because a bare ``1`` would mean the best on one scale and the worst
  on the other.
- ``timestamp``: optional ISO 8601 time of the signal, kept as written.

Other keys are ignored (a feedback log may carry more than the platform reads). A line that breaks
a rule is dropped with a reason key from :data:`FEEDBACK_DROP_REASONS` and a detail naming the file,
the line and the field, never the line's text (it may hold a secret).
"""

from __future__ import annotations

import datetime as dt
import json
import math
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow as pa

from trajectory_platform.traces.drops import Drop, Tally

FEEDBACK_KINDS = ("accepted", "edited", "reverted", "correction", "retry", "abandoned", "rating")
"""The signals of table 6, one record each."""

FEEDBACK_DROP_REASONS = (
    "not_utf8",
    "not_json",
    "not_an_object",
    "missing_episode_id",
    "unknown_kind",
    "missing_edit_diff",
    "bad_edit_diff",
    "missing_turn_index",
    "bad_turn_index",
    "bad_rating",
    "bad_timestamp",
    "unexpected_field",
)
"""Why a feedback line is left out (the counted key of its :class:`Drop`):

- ``not_utf8``, ``not_json``, ``not_an_object``: the line is not a JSON object;
- ``missing_episode_id``: no non-empty string ``episode_id``;
- ``unknown_kind``: ``kind`` is missing or not one of :data:`FEEDBACK_KINDS`;
- ``missing_edit_diff``: an ``edited`` record without ``edit_diff``;
- ``bad_edit_diff``: ``edit_diff`` is not a string holding a unified diff (``---``/``+++``/``@@``);
- ``missing_turn_index``: a ``correction`` without ``turn_index``;
- ``bad_turn_index``: ``turn_index`` is not a non-negative integer;
- ``bad_rating``: a ``rating`` record without exactly one of ``rating`` in [0, 1] or integer
  ``stars`` in 1..5;
- ``bad_timestamp``: ``timestamp`` is not an ISO 8601 string;
- ``unexpected_field``: ``edit_diff`` on a kind other than edited / reverted, or ``rating`` /
  ``stars`` on a kind other than rating.
"""

FEEDBACK_SUFFIXES = (".jsonl", ".ndjson")
"""File endings :func:`discover_feedback_files` picks up."""

FEEDBACK_SCHEMA = pa.schema(
    [
        pa.field("episode_id", pa.string(), nullable=False),
        pa.field("kind", pa.string(), nullable=False),
        ("turn_index", pa.int64()),
        ("edit_diff", pa.string()),
        ("rating", pa.float64()),
        ("timestamp", pa.string()),
        pa.field("source_file", pa.string(), nullable=False),
        pa.field("source_line", pa.int64(), nullable=False),
        ("partition_date", pa.timestamp("us")),
    ]
)
"""One row per feedback record, sorted by episode, file and line (see :func:`feedback_table`)."""

STARS = (1, 5)

FEEDBACK_TEXT_FIELDS = ("edit_diff",)
"""The fields of a :class:`FeedbackRecord` a person wrote freely, so a secret can be in them (a
token pasted into an edit). Whatever reads feedback beside a redacted corpus redacts exactly these
with the episode (:func:`trajectory_platform.curation.redact.feedback.redact_feedback`); the rest
are locators (``episode_id``, ``source_file``), a kind from :data:`FEEDBACK_KINDS`, numbers, and a
timestamp the reader has parsed. A new free-text field belongs here, or it reaches the candidates
unredacted."""


@dataclass(frozen=True)
class FeedbackRecord:
    """One user signal about one episode; see the module docstring for each field's rule."""

    episode_id: str
    kind: str
    turn_index: int | None
    edit_diff: str | None
    rating: float | None
    timestamp: str | None
    source_file: str
    source_line: int
    partition_date: dt.date | None = None

    def sort_key(self) -> tuple[str, str, int, str]:
        return (self.episode_id, self.source_file, self.source_line, self.kind)

    def where(self) -> str:
        """``file:line``, for a person reading a drop or a refusal."""
        return f"{self.source_file}:{self.source_line}"


@dataclass
class FeedbackBatch:
    """The records and drops of some feedback files; ``records_in == len(records) + len(drops)``."""

    records: list[FeedbackRecord] = field(default_factory=list)
    drops: list[Drop] = field(default_factory=list)

    def tally(self) -> Tally:
        """Lines read, records kept, lines dropped by reason."""
        return Tally.of(len(self.records), [d.reason for d in self.drops])

    def counts_by_kind(self) -> dict[str, int]:
        """Records per kind, every kind named (zero included), in :data:`FEEDBACK_KINDS` order."""
        counts = Counter(r.kind for r in self.records)
        return {kind: counts[kind] for kind in FEEDBACK_KINDS}

    def table(self) -> pa.Table:
        """The records as a :data:`FEEDBACK_SCHEMA` table, sorted: the same files give the same rows
        in the same order, however they were listed."""
        return feedback_table(self.records)


class _Refused(ValueError):
    """A rule a line broke: its reason key and the field it concerns."""

    def __init__(self, reason: str, detail: str):
        super().__init__(detail)
        self.reason = reason
        self.detail = detail


def _turn_index(value: Any) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise _Refused("bad_turn_index", "field turn_index: not a non-negative integer")
    return value


def _rating(kind: str, obj: dict[str, Any]) -> float | None:
    given = [key for key in ("rating", "stars") if obj.get(key) is not None]
    if kind != "rating":
        if given:
            raise _Refused("unexpected_field", f"field {given[0]}: only a rating record carries one")
        return None
    if len(given) != 1:
        raise _Refused("bad_rating", "a rating record needs exactly one of rating (0..1) or stars (1..5)")
    value = obj[given[0]]
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise _Refused("bad_rating", f"field {given[0]}: not a number")
    if given[0] == "rating":
        if not 0.0 <= value <= 1.0:
            raise _Refused("bad_rating", "field rating: outside [0, 1] (use stars for a 1..5 scale)")
        return float(value)
    if value != int(value) or not STARS[0] <= value <= STARS[1]:
        raise _Refused("bad_rating", "field stars: not an integer in 1..5")
    return (int(value) - STARS[0]) / (STARS[1] - STARS[0])


def _edit_diff(kind: str, value: Any) -> str | None:
    if kind not in ("edited", "reverted"):
        if value is not None:
            raise _Refused(
                "unexpected_field", "field edit_diff: only an edited or reverted record carries one"
            )
        return None
    if value is None:
        if kind == "edited":
            raise _Refused("missing_edit_diff", "field edit_diff: an edited record needs the user's diff")
        return None
    if not isinstance(value, str) or not all(
        any(line.startswith(mark) for line in value.splitlines()) for mark in ("--- ", "+++ ", "@@")
    ):
        raise _Refused("bad_edit_diff", "field edit_diff: not a unified diff (---, +++ and @@ lines)")
    return value


def _timestamp(value: Any) -> str | None:
    if value is None:
        return None
    try:
        dt.datetime.fromisoformat(value)
    except (TypeError, ValueError):
        raise _Refused("bad_timestamp", "field timestamp: not an ISO 8601 time") from None
    return str(value)


def parse_feedback(
    obj: Any, source_file: str, source_line: int, partition_date: dt.date | None = None
) -> FeedbackRecord:
    """One decoded JSON line as a record; raises ``ValueError`` (with ``.reason``) on a broken rule."""
    if not isinstance(obj, dict):
        raise _Refused("not_an_object", "the line is not a JSON object")
    episode_id = obj.get("episode_id")
    if not isinstance(episode_id, str) or not episode_id.strip():
        raise _Refused("missing_episode_id", "field episode_id: missing or not a non-empty string")
    kind = obj.get("kind")
    if kind not in FEEDBACK_KINDS:
        raise _Refused("unknown_kind", f"field kind: missing or not one of {', '.join(FEEDBACK_KINDS)}")
    turn_index = _turn_index(obj.get("turn_index"))
    if kind == "correction" and turn_index is None:
        raise _Refused("missing_turn_index", "field turn_index: a correction names the corrected turn")
    return FeedbackRecord(
        episode_id=episode_id,
        kind=kind,
        turn_index=turn_index,
        edit_diff=_edit_diff(kind, obj.get("edit_diff")),
        rating=_rating(kind, obj),
        timestamp=_timestamp(obj.get("timestamp")),
        source_file=source_file,
        source_line=source_line,
        partition_date=partition_date,
    )


def read_feedback(
    path: Path, relative_to: Path | None = None, partition_date: dt.date | None = None
) -> Iterator[FeedbackRecord | Drop]:
    """Each non-blank line of a JSONL feedback file, in order, as a record or a :class:`Drop`
    whose detail names ``file:line`` and the field (never the line's text).

    ``source_file`` is ``path`` relative to ``relative_to`` when given (the feedback source root),
    so the stored rows do not depend on where the tree is mounted.
    """
    name = path.relative_to(relative_to).as_posix() if relative_to is not None else path.as_posix()
    with path.open("rb") as handle:
        for number, raw in enumerate(handle, start=1):
            if not raw.strip():
                continue
            try:
                try:
                    text = raw.decode("utf-8")
                except UnicodeDecodeError:
                    raise _Refused("not_utf8", "the line is not UTF-8") from None
                try:
                    obj = json.loads(text)
                except (ValueError, RecursionError):
                    raise _Refused("not_json", "the line is not valid JSON") from None
                yield parse_feedback(obj, name, number, partition_date)
            except _Refused as refused:
                yield Drop(refused.reason, f"{name}:{number}: {refused.detail}")


def discover_feedback_files(root: Path) -> list[Path]:
    """Every feedback file under ``root`` (recursively, sorted, hidden files and folders skipped)."""
    if not root.is_dir():
        return []
    return sorted(
        p
        for p in root.rglob("*")
        if p.is_file()
        and p.name.lower().endswith(FEEDBACK_SUFFIXES)
        and not any(part.startswith(".") for part in p.relative_to(root).parts)
    )


def read_feedback_files(
    paths: Iterable[Path], relative_to: Path | None = None, partition_date: dt.date | None = None
) -> FeedbackBatch:
    """Read every file into one batch (records and drops, nothing lost)."""
    batch = FeedbackBatch()
    for path in paths:
        for item in read_feedback(path, relative_to, partition_date):
            if isinstance(item, Drop):
                batch.drops.append(item)
            else:
                batch.records.append(item)
    return batch


def feedback_table(records: Iterable[FeedbackRecord]) -> pa.Table:
    """A :data:`FEEDBACK_SCHEMA` table of ``records``, sorted by episode, file, line."""
    rows = [
        {
            "episode_id": r.episode_id,
            "kind": r.kind,
            "turn_index": r.turn_index,
            "edit_diff": r.edit_diff,
            "rating": r.rating,
            "timestamp": r.timestamp,
            "source_file": r.source_file,
            "source_line": r.source_line,
            "partition_date": None
            if r.partition_date is None
            else dt.datetime(r.partition_date.year, r.partition_date.month, r.partition_date.day),
        }
        for r in sorted(records, key=FeedbackRecord.sort_key)
    ]
    return pa.Table.from_pylist(rows, schema=FEEDBACK_SCHEMA)


def table_to_feedback(table: pa.Table) -> list[FeedbackRecord]:
    """Inverse of :func:`feedback_table` (the records a downstream stage reads back)."""
    out = []
    for row in table.to_pylist():
        stamp = row.get("partition_date")
        out.append(
            FeedbackRecord(
                episode_id=row["episode_id"],
                kind=row["kind"],
                turn_index=row["turn_index"],
                edit_diff=row["edit_diff"],
                rating=row["rating"],
                timestamp=row["timestamp"],
                source_file=row["source_file"],
                source_line=row["source_line"],
                partition_date=stamp.date() if isinstance(stamp, dt.datetime) else stamp,
            )
        )
    return out


def stored_rule_violations(table: pa.Table) -> dict[str, int]:
    """Rows of a stored feedback table that break the reader's rules, counted per rule (a table
    written by another tool, or a reader change, shows here): an unknown kind, a rating missing,
    misplaced or outside [0, 1], an edit without its diff, a correction without its turn."""
    rows = table.select(["kind", "rating", "edit_diff", "turn_index"]).to_pylist()
    return {
        "unknown_kind": sum(r["kind"] not in FEEDBACK_KINDS for r in rows),
        "bad_rating": sum(
            (r["kind"] == "rating") != (r["rating"] is not None)
            or (r["rating"] is not None and not 0.0 <= r["rating"] <= 1.0)
            for r in rows
        ),
        "missing_edit_diff": sum(r["kind"] == "edited" and r["edit_diff"] is None for r in rows),
        "missing_turn_index": sum(r["kind"] == "correction" and r["turn_index"] is None for r in rows),
    }
