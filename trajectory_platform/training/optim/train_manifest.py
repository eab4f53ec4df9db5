"""The training manifest (fine-tuning 16.12, table 12): what a candidate checkpoint was made from.

Version names are not enough to reproduce or audit an update, so each section binds contents:
the corpus and its members, the serialization (tokenizer and template digests), the prediction
targets (mask policy and counts), the update configuration (base digest, objective, aggregation,
optimizer, seeds) and the candidate artifact digest. :func:`missing_fields` is what the
Dagster check and the tests use to call a manifest complete.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

MANIFEST_VERSION = "training-manifest-v1"

REQUIRED_FIELDS: dict[str, tuple[str, ...]] = {
    "corpus": ("dataset_path", "dataset_digest", "member_count", "members_digest"),
    "serialization": ("tokenizer_path", "tokenizer_digest", "template_digest"),
    "prediction_targets": ("label_convention", "target_policy", "train_targets", "validation_targets"),
    "update": (
        "base_model",
        "base_digest",
        "objective",
        "aggregation",
        "optimizer",
        "seeds",
        "parameter_artifact",
        "precision",
        "attention",
    ),
    "candidate": ("path", "artifact_digest", "format"),
    "results": ("steps", "train_loss_first", "train_loss_last", "validation"),
}
"""Table 12's rows (plus the run's results), each a section whose listed keys must be non-null."""


def members_digest(member_ids: list[str]) -> str:
    """Order-independent digest of the example ids a run trained on (member lineage)."""
    return hashlib.sha256("\n".join(sorted(member_ids)).encode()).hexdigest()


def build_manifest(**sections: dict[str, Any]) -> dict[str, Any]:
    """Assemble the manifest from its sections (unknown sections are kept, nothing is invented)."""
    return {"manifest_version": MANIFEST_VERSION, **sections}


def missing_fields(manifest: dict[str, Any]) -> list[str]:
    """``section.key`` for every required binding that is absent or null."""
    missing = []
    for section, keys in REQUIRED_FIELDS.items():
        values = manifest.get(section) or {}
        missing += [f"{section}.{key}" for key in keys if values.get(key) is None]
    return missing


def write_manifest(directory: Path, manifest: dict[str, Any], name: str = "training_manifest.json") -> Path:
    path = Path(directory) / name
    path.write_text(json.dumps(manifest, indent=2, sort_keys=True, default=str) + "\n")
    return path
