"""The dataset stage end to end: inputs -> (augmented) -> masked table + manifest + a sample to read.

One function serves the ``token_masked_dataset`` asset and the ``mask`` command, so both write the
same rows and the same manifest for the same inputs.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow as pa

from trajectory_platform.training.data.augment import augment_inputs, token_expansion
from trajectory_platform.training.data.dataset_manifest import dataset_manifest
from trajectory_platform.training.data.mask_settings import DEFAULT_BATCH_ROWS, Augmentation, MaskConfig
from trajectory_platform.training.data.masked_dataset import (
    MASKED_SCHEMA,
    EpisodeInput,
    MaskedDataset,
    corpus_digest,
    episode_order,
    inputs_from_table,
    mask_batches,
    row_batches,
    table_input_batches,
)
from trajectory_platform.training.data.masking import MaskResult, audit_example, marked_text
from trajectory_platform.training.data.tokenizer import load_tokenizer

SAMPLE_CHARS = 4000


@dataclass
class DatasetStageResult:
    """The masked table, its manifest, and what a person reads in the UI."""

    table: pa.Table
    manifest: dict[str, Any]
    dataset: MaskedDataset
    sample: str = ""
    audit: dict[str, list[str]] = field(default_factory=dict)


def audit_table(table: pa.Table, batch_rows: int = DEFAULT_BATCH_ROWS) -> dict[str, list[str]]:
    """Example ids per structural problem (see :func:`.masking.audit_example`), read
    ``batch_rows`` rows at a time (a whole table as Python lists would dwarf its Arrow form)."""
    problems: dict[str, list[str]] = {"n_active": [], "offsets": [], "target_in_context": []}
    columns = table.select(["example_id", "input_ids", "labels", "spans_json"])
    for batch in columns.to_batches(max_chunksize=batch_rows):
        for row in batch.to_pylist():
            for problem in audit_example(row["input_ids"], row["labels"], json.loads(row["spans_json"])):
                problems[problem].append(row["example_id"])
    return problems


def run_dataset_stage(
    inputs: Sequence[EpisodeInput] | pa.Table,
    tokenizer_path: str | Path,
    config: MaskConfig | None = None,
    *,
    augmentation: Augmentation | None = None,
    batch_rows: int = DEFAULT_BATCH_ROWS,
    source: str | None = None,
    provenance: dict[str, Any] | None = None,
    progress: bool = False,
) -> DatasetStageResult:
    """Augment (if declared), serialize, mask, verify; build the table, manifest and a marked sample.

    ``inputs`` is an episode table (the mixture) or its rows as inputs. Masking runs ``batch_rows``
    episodes at a time in episode-id order, so the rendered examples held at once are one batch's,
    and the table is the same whatever the batch size. A table stays in Arrow form between batches;
    declared augmentation needs every parent as an input first (it is off by default).

    ``provenance`` (:mod:`.provenance`) says whether the inputs were verified and redacted; the
    manifest records it (``None``: nothing vouches for them, and ``train`` refuses the dataset)."""
    config = config or MaskConfig()
    tokenizer = load_tokenizer(tokenizer_path)
    augmentation = augmentation or Augmentation()
    declared: dict[str, Any] = {
        "kinds": list(augmentation.kinds),
        "seed": augmentation.seed,
        "copies": augmentation.copies,
    }
    if isinstance(inputs, pa.Table) and not augmentation.kinds:
        rows = inputs
        digest = corpus_digest(
            item
            for batch in table_input_batches(rows, row_batches(rows.num_rows, batch_rows))
            for item in batch
        )
        order = episode_order(rows["episode_id"].to_pylist(), batch_rows)
        batches: Iterable[Sequence[EpisodeInput]] = table_input_batches(rows, order)
        episodes_in = rows.num_rows
    else:
        listed = inputs_from_table(inputs) if isinstance(inputs, pa.Table) else list(inputs)
        if augmentation.kinds:
            listed, result = augment_inputs(listed, augmentation)
            parents = [i.episode for i in listed[: len(listed) - len(result.derived)]]
            declared |= {
                "parents": len(parents),
                "derived": len(result.derived),
                "skips": dict(sorted(result.skips.items())),
                "token_expansion": token_expansion(parents, result, tokenizer),
            }
        digest = corpus_digest(listed)
        order = episode_order([i.episode.episode_id for i in listed], batch_rows)
        batches = ([listed[index] for index in batch] for batch in order)
        episodes_in = len(listed)
    dataset = MaskedDataset(result=MaskResult(), episodes_in=episodes_in, corpus_digest=digest)
    parts = list(mask_batches(batches, dataset, tokenizer, config, progress=progress))
    table = pa.concat_tables(parts) if parts else MASKED_SCHEMA.empty_table()
    manifest = dataset_manifest(
        dataset, tokenizer, tokenizer_path, config, source=source, provenance=provenance
    )
    manifest["augmentation"] = declared
    sample = ""
    if table.num_rows:
        first = table.slice(0, 1).to_pylist()[0]
        sample = marked_text(tokenizer, first["input_ids"], first["labels"])[:SAMPLE_CHARS]
    return DatasetStageResult(table, manifest, dataset, sample, audit_table(table, batch_rows))
