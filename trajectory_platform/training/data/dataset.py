"""Read token-masked examples and preference pairs for training, accounting for every row.

Inputs are a ``token_masked_dataset`` Parquet / Arrow table or the JSONL written by
``trajectory-platform mask`` (one object per line with ``input_ids`` and ``labels``), with its
dataset manifest when there is one (``manifest_files.manifest_places``: beside the file, or for the
warehouse copy of a data asset, the manifest the asset wrote). Rows the loss cannot use
(no selected target, length mismatch, too long for a packed buffer) are rejected with the file,
line and reason; rows in the test split are held out of training entirely. rows in = train +
validation + test held out + rejected, always.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from trajectory_platform.traces.drops import Drop, Tally
from trajectory_platform.training.data.derived_ids import derivations
from trajectory_platform.training.data.labels import IGNORE_INDEX, target_count
from trajectory_platform.training.data.manifest_files import find_manifest, hash_rows

VALIDATION_SPLITS = frozenset({"validation", "val", "valid", "dev"})
TEST_SPLITS = frozenset({"test", "heldout", "held_out"})
KEY_COLUMNS = ("example_id", "id", "episode_id", "pair_id")


@dataclass
class Rejection:
    """A row that cannot train, where it is, and why (:class:`~trajectory_platform.traces.drops.Drop`)."""

    source: str
    line: int
    drop: Drop

    def describe(self) -> str:
        """One line for a person: where and why."""
        return f"rejected {self.source}:{self.line}: {self.drop.reason} {self.drop.detail}".rstrip()


@dataclass
class LoadedRows:
    """Rows read from one source, with what was rejected and the dataset manifest if present."""

    source: str
    digest: str
    rows: list[dict[str, Any]]
    manifest: dict[str, Any] = field(default_factory=dict)
    rejected: list[Rejection] = field(default_factory=list)


def _file_digest(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def table_digest(table: pa.Table) -> str:
    """Content digest of an Arrow table (schema + rows), stable for the same data."""
    return hash_rows(hashlib.sha256(table.schema.to_string().encode()), table)


def read_rows(path: Path) -> LoadedRows:
    """Parquet or JSONL rows; unreadable JSONL lines are rejected with their line number."""
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"{path}: no such dataset file")
    manifest = find_manifest(path)[1]
    if path.suffix == ".parquet" or path.is_dir():
        table = pq.read_table(path)
        loaded = rows_from_table(table, source=str(path), manifest=manifest)
        loaded.digest = _file_digest(path) if path.is_file() else loaded.digest
        return loaded
    rows, rejected = [], []
    with path.open() as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
                if not isinstance(row, dict):
                    raise ValueError("not a JSON object")
            except ValueError as error:
                rejected.append(Rejection(str(path), number, Drop("unreadable_json", str(error))))
                continue
            rows.append({**row, "_line": number})
    return LoadedRows(str(path), _file_digest(path), rows, manifest, rejected)


def rows_from_table(table: pa.Table, *, source: str, manifest: dict[str, Any] | None = None) -> LoadedRows:
    """Rows of an in-memory table (the Dagster asset's input), numbered from 1 like lines."""
    rows = [{**row, "_line": number} for number, row in enumerate(table.to_pylist(), start=1)]
    return LoadedRows(source, table_digest(table), rows, manifest or {}, [])


def example_key(row: dict[str, Any]) -> str:
    for column in KEY_COLUMNS:
        if row.get(column) is not None:
            return str(row[column])
    return f"line-{row['_line']}"


@dataclass
class ExampleSplit:
    """Examples ready for the loss, by role, plus the accounting of every input row."""

    train: list[dict[str, Any]]
    validation: list[dict[str, Any]]
    test_held_out: int
    rejected: list[Rejection]
    rows_in: int

    def counts(self) -> dict[str, Any]:
        return {
            "rows_in": self.rows_in,
            "train": len(self.train),
            "validation": len(self.validation),
            "test_held_out": self.test_held_out,
            "rejected": len(self.rejected),
            "rejected_by_reason": dict(self.tally().dropped),
        }

    def tally(self) -> Tally:
        """Rows in, usable (kept: train, validation, held-out test), and the rejected ones by reason."""
        kept = len(self.train) + len(self.validation) + self.test_held_out
        return Tally(self.rows_in, kept, Counter(r.drop.reason for r in self.rejected))


def _example_problem(row: dict[str, Any], capacity: int, vocab_size: int) -> Drop | None:
    ids, labels = row.get("input_ids"), row.get("labels")
    if ids is None or labels is None:
        return Drop("missing_input_ids_or_labels")
    if len(ids) != len(labels):
        return Drop("length_mismatch", f"{len(ids)} input_ids vs {len(labels)} labels")
    if not target_count(labels[1:]):
        return Drop("no_selected_targets", "N_active = 0: the masked loss is undefined")
    if labels[0] != IGNORE_INDEX:
        return Drop("first_label_is_a_target", "it has no preceding position")
    if len(ids) > capacity:
        return Drop("longer_than_capacity", f"{len(ids)} > {capacity} (never truncated silently)")
    if max(ids) >= vocab_size or min(ids) < 0:
        return Drop("token_id_outside_vocabulary", f"vocabulary size {vocab_size}")
    return None


def preamble_end(row: dict[str, Any]) -> int:
    """Where an example's preamble ends: the first span that is not the system prompt (the tool
    block precedes it), or the first target if that comes earlier; ``1`` (only the opening token)
    without spans. The context warm-up leaves ``[1, preamble_end)`` out of early steps, which is
    safe because no target lies there.

    A row schema augmentation *renamed* keeps its preamble (``1``): its calls' tool and argument
    names are fresh and written nowhere but its tool block, so without it those targets are noise
    that teaches the model to invent names instead of reading them."""
    if "rename" in derivations(str(row.get("episode_id") or "")):
        return 1
    spans = json.loads(row.get("spans_json") or "[]")
    starts = [int(span["start"]) for span in spans if span.get("kind") != "system"]
    if not starts:
        return 1
    labels = row["labels"]
    first_target = next((i for i, label in enumerate(labels) if i > 0 and label != IGNORE_INDEX), len(labels))
    return max(1, min(first_target, starts[0]))


def split_examples(
    loaded: LoadedRows, *, capacity: int, vocab_size: int, validation_fraction: float = 0.1
) -> ExampleSplit:
    """Validate rows and assign train / validation; test-split rows never train.

    Rows carrying a ``split`` column keep it. Without validation rows, a deterministic share is
    held out by hashing each episode (or example) key, so reruns hold out the same examples and
    the per-invocation examples of one episode never straddle train and validation.
    """
    rejected = list(loaded.rejected)
    usable: list[dict[str, Any]] = []
    test = 0
    for row in loaded.rows:
        problem = _example_problem(row, capacity, vocab_size)
        if problem is not None:
            rejected.append(Rejection(loaded.source, row["_line"], problem))
        elif str(row.get("split") or "").lower() in TEST_SPLITS:
            test += 1
        else:
            usable.append(
                {
                    "input_ids": list(row["input_ids"]),
                    "labels": list(row["labels"]),
                    "key": example_key(row),
                    "group": str(row.get("episode_id") or example_key(row)),
                    "split": str(row.get("split") or "").lower(),
                    "preamble_end": preamble_end(row),
                }
            )
    validation = [e for e in usable if e["split"] in VALIDATION_SPLITS]
    train = [e for e in usable if e["split"] not in VALIDATION_SPLITS]
    groups = sorted({e["group"] for e in train}, key=lambda g: hashlib.sha256(g.encode()).hexdigest())
    if not validation and len(groups) >= 2 and validation_fraction > 0:
        held = set(groups[: min(len(groups) - 1, max(1, round(validation_fraction * len(groups))))])
        validation = [e for e in train if e["group"] in held]
        train = [e for e in train if e["group"] not in held]
    return ExampleSplit(train, validation, test, rejected, len(loaded.rows) + len(loaded.rejected))
