"""The dataset stage end to end: inputs -> (augmented) -> masked table + manifest + a sample to read.

One function serves the ``token_masked_dataset`` asset and the ``mask`` command, so both write the
same rows and the same manifest for the same inputs.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow as pa

from trajectory_platform.training.data.augment import augment_inputs, token_expansion
from trajectory_platform.training.data.dataset_manifest import dataset_manifest
from trajectory_platform.training.data.mask_settings import MaskConfig
from trajectory_platform.training.data.masked_dataset import (
    EpisodeInput,
    MaskedDataset,
    build_masked_dataset,
    to_table,
)
from trajectory_platform.training.data.masking import audit_example, marked_text
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


def audit_table(table: pa.Table) -> dict[str, list[str]]:
    """Example ids per structural problem (see :func:`.masking.audit_example`)."""
    problems: dict[str, list[str]] = {"n_active": [], "offsets": [], "target_in_context": []}
    columns = table.select(["example_id", "input_ids", "labels", "spans_json"]).to_pylist()
    for row in columns:
        for problem in audit_example(row["input_ids"], row["labels"], json.loads(row["spans_json"])):
            problems[problem].append(row["example_id"])
    return problems


def run_dataset_stage(
    inputs: Sequence[EpisodeInput],
    tokenizer_path: str | Path,
    config: MaskConfig | None = None,
    *,
    augment: Sequence[str] = (),
    augment_seed: int = 0,
    source: str | None = None,
    provenance: dict[str, Any] | None = None,
    progress: bool = False,
) -> DatasetStageResult:
    """Augment (if declared), serialize, mask, verify; build the table, manifest and a marked sample.

    ``provenance`` (:mod:`.provenance`) says whether the inputs were verified and redacted; the
    manifest records it (``None``: nothing vouches for them, and ``train`` refuses the dataset)."""
    config = config or MaskConfig()
    tokenizer = load_tokenizer(tokenizer_path)
    augmentation: dict[str, Any] = {"kinds": list(augment), "seed": augment_seed}
    if augment:
        all_inputs, result = augment_inputs(inputs, augment, augment_seed)
        augmentation |= {
            "parents": len(inputs),
            "derived": len(result.derived),
            "skips": dict(sorted(result.skips.items())),
            "token_expansion": token_expansion([i.episode for i in inputs], result, tokenizer),
        }
    else:
        all_inputs = list(inputs)
    dataset = build_masked_dataset(all_inputs, tokenizer, config, progress=progress)
    table = to_table(dataset)
    manifest = dataset_manifest(
        dataset, tokenizer, tokenizer_path, config, source=source, provenance=provenance
    )
    manifest["augmentation"] = augmentation
    sample = ""
    if table.num_rows:
        first = table.slice(0, 1).to_pylist()[0]
        sample = marked_text(tokenizer, first["input_ids"], first["labels"])[:SAMPLE_CHARS]
    return DatasetStageResult(table, manifest, dataset, sample, audit_table(table))
