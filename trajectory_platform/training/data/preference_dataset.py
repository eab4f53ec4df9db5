"""The preference dataset stage: curation's ``preference_pairs`` -> token rows for span DPO + manifest.

The DPO counterpart of :mod:`~.dataset_stage`: one function serves the ``preference_dataset``
asset and ``trajectory-platform train --objective dpo`` on curation's episode pairs, so both train
on the same token rows. Each pair is tokenized by :func:`~.preference_tokens.pair_token_row` (both
sides rendered and masked like SFT examples, the pair's turns as targets) or refused with a
:class:`~trajectory_platform.traces.drops.Drop`; pairs in = kept + dropped by reason, always. The
rows keep the input order (the optimizer holds out the first pairs for validation), and the same
rows and tokenizer give the same table, byte for byte once written.

:func:`audit_pairs` re-derives the structural invariants from stored rows (the asset checks):
the SFT dataset's three on each side plus one of its own, that the conditioning prefix is the
same tokens on both sides and carries no score.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow as pa

from trajectory_platform.traces.drops import Tally
from trajectory_platform.training.data.chat_template import template_digest
from trajectory_platform.training.data.dataset_manifest import LABEL_CONVENTION
from trajectory_platform.training.data.dataset_stage import SAMPLE_CHARS
from trajectory_platform.training.data.labels import target_positions
from trajectory_platform.training.data.mask_settings import MaskConfig, MaskedDataSettings
from trajectory_platform.training.data.masking import TokenIds, audit_example, marked_text
from trajectory_platform.training.data.preference_tokens import SIDES, PairRefused, pair_token_row
from trajectory_platform.training.data.tokenizer import load_tokenizer, tokenizer_files_digest

PREFERENCE_DATASET_SCHEMA = pa.schema(
    [
        pa.field("pair_id", pa.string(), nullable=False),
        ("split", pa.string()),
        ("rule", pa.string()),
        pa.field("chosen_episode_id", pa.string(), nullable=False),
        pa.field("rejected_episode_id", pa.string(), nullable=False),
        pa.field("branch_event_index", pa.int32(), nullable=False),
        pa.field("prefix_tokens", pa.int64(), nullable=False),
        ("chosen_input_ids", pa.list_(pa.int32())),
        ("chosen_labels", pa.list_(pa.int32())),
        ("chosen_selected", pa.list_(pa.int32())),
        ("chosen_spans_json", pa.string()),
        ("rejected_input_ids", pa.list_(pa.int32())),
        ("rejected_labels", pa.list_(pa.int32())),
        ("rejected_selected", pa.list_(pa.int32())),
        ("rejected_spans_json", pa.string()),
    ]
)
"""One row per admitted pair. Each side's ``labels`` follow the HF convention (aligned, -100 = no
loss) and ``selected`` lists their target positions (what the DPO score sums);
``prefix_tokens`` counts the tokens before the branch turn, identical on both sides."""

MANIFEST_VERSION = "preference_dataset/v1"
TARGET_POLICY_RULE = (
    "each side's curation turns (chosen_turns / rejected_turns: its assistant turns from the branch "
    "on), masked exactly as SFT targets: a selected turn's body after the role label through its "
    "authentic eos terminator. Everything before the branch turn is shared context and carries no score."
)
SCORING = (
    "a side's score is the sum of its selected-token log-probabilities (labels shifted once in "
    "training.loss); the DPO margin compares chosen and rejected against the frozen reference"
)
PROBLEMS = ("n_active", "offsets", "target_in_context", "prefix")


@dataclass(frozen=True)
class PreferenceDatasetSettings(MaskedDataSettings):
    """What a user sets for tokenizing preference pairs, with the product's defaults: their one
    source (the ``preference_dataset`` asset's config is derived from these fields; all of them
    land in the manifest). The fields and masking policies are the SFT dataset's; there is no
    augmentation (a derived record on one side would break the shared prefix)."""


@dataclass
class PreferenceStageResult:
    """The token table, its manifest, the accounting, and what a person reads in the UI."""

    table: pa.Table
    manifest: dict[str, Any]
    tally: Tally
    refused: list[tuple[str, PairRefused]] = field(default_factory=list)
    """(pair id or ``row N``, the refusal) per dropped pair, in input order."""
    sample: str = ""
    audit: dict[str, list[str]] = field(default_factory=dict)


def corpus_digest(rows: Iterable[dict[str, Any]]) -> str:
    """sha256 over the input pair rows (episodes, turns, branch): the corpus version a manifest names."""
    digest = hashlib.sha256()
    for row in rows:
        payload = {k: v for k, v in row.items() if not k.startswith("_")}  # not a reader's line number
        digest.update(json.dumps(payload, sort_keys=True, default=str).encode("utf-8") + b"\n")
    return digest.hexdigest()


def audit_pair(row: dict[str, Any]) -> list[str]:
    """Structural problems of one stored pair, checked without the tokenizer (asset checks).

    ``n_active``, ``offsets``, ``target_in_context``: :func:`.masking.audit_example` on either side,
    plus ``offsets`` when a side's ``selected`` is not exactly its target positions; ``prefix``: the
    tokens before the branch turn differ between the sides, or a score falls inside them.
    """
    problems: set[str] = set()
    prefix = row["prefix_tokens"]
    for side in SIDES:
        ids, labels = row[f"{side}_input_ids"], row[f"{side}_labels"]
        problems.update(audit_example(ids, labels, json.loads(row[f"{side}_spans_json"])))
        selected, targets = list(row[f"{side}_selected"]), list(target_positions(labels))
        if selected != targets:
            problems.add("offsets")
        if prefix > len(ids) or any(t < prefix for t in [*selected, *targets]):
            problems.add("prefix")
    if row["chosen_input_ids"][:prefix] != row["rejected_input_ids"][:prefix]:
        problems.add("prefix")
    return [p for p in PROBLEMS if p in problems]


def audit_pairs(table: pa.Table) -> dict[str, list[str]]:
    """Pair ids per structural problem (see :func:`audit_pair`)."""
    problems: dict[str, list[str]] = {p: [] for p in PROBLEMS}
    for row in table.to_pylist():
        for problem in audit_pair(row):
            problems[problem].append(row["pair_id"])
    return problems


def _stats(rows: list[dict[str, Any]]) -> dict[str, Any]:
    stored = sum(len(r[f"{s}_input_ids"]) for r in rows for s in SIDES)
    scored = {s: sum(len(r[f"{s}_selected"]) for r in rows) for s in SIDES}
    return {
        "pairs": len(rows),
        "stored_tokens": stored,
        "chosen_tokens": sum(len(r["chosen_input_ids"]) for r in rows),
        "rejected_tokens": sum(len(r["rejected_input_ids"]) for r in rows),
        "chosen_selected": scored["chosen"],
        "rejected_selected": scored["rejected"],
        "prefix_tokens": sum(r["prefix_tokens"] for r in rows),
        "target_share": (scored["chosen"] + scored["rejected"]) / stored if stored else 0.0,
    }


def preference_manifest(
    result: PreferenceStageResult,
    rows: list[dict[str, Any]],
    tokenizer: Any,
    tokenizer_path: str | Path,
    config: MaskConfig,
    *,
    corpus_version: str,
    source: str | None,
) -> dict[str, Any]:
    """Everything a consumer needs to interpret (and reproduce) the token rows; the training
    manifest binds to it (tokenizer and template digests are checked before a run)."""
    special = {tok: tokenizer.convert_tokens_to_ids(tok) for tok in tokenizer.all_special_tokens}
    dropped = result.tally.dropped
    examples: dict[str, str] = {}
    for _, refusal in result.refused:
        examples.setdefault(refusal.drop.reason, refusal.drop.detail)
    return {
        "manifest_version": MANIFEST_VERSION,
        "source": source,
        "corpus_version": corpus_version,
        "tokenizer_path": str(Path(tokenizer_path).resolve()),
        "tokenizer_files_digest": tokenizer_files_digest(tokenizer_path),
        "template_digest": template_digest(tokenizer.chat_template or ""),
        "special_token_ids": dict(sorted(special.items())),
        "eos_token_id": tokenizer.eos_token_id,
        "pad_token_id": tokenizer.pad_token_id,
        "target_policy": {"rule": TARGET_POLICY_RULE},
        "scoring": SCORING,
        "rationale_mode": config.rationale,
        "truncation_policy": config.truncation,
        "max_length": config.max_length,
        "label_convention": LABEL_CONVENTION,
        "counts": {
            "pairs_in": result.tally.records_in,
            "pairs_out": result.tally.kept,
            "pairs_dropped": result.tally.dropped_total,
        },
        "drop_reasons": dict(sorted(dropped.items(), key=lambda kv: (-kv[1], kv[0]))),
        "drop_examples": dict(sorted(examples.items())),
        "stats": _stats(rows),
    }


def _sample(tokenizer: Any, row: dict[str, Any]) -> str:
    """The first pair's two sides decoded with their scored tokens marked ``[[...]]``."""
    half = SAMPLE_CHARS // 2
    return "\n\n".join(
        f"--- {side} ({row[f'{side}_episode_id']}) ---\n"
        + marked_text(tokenizer, row[f"{side}_input_ids"], row[f"{side}_labels"])[:half]
        for side in SIDES
    )


def run_preference_stage(
    rows: Iterable[dict[str, Any]] | pa.Table,
    tokenizer_path: str | Path,
    config: MaskConfig | None = None,
    *,
    source: str | None = None,
) -> PreferenceStageResult:
    """Tokenize every pair row (a ``preference_pairs`` table or its rows); build table, manifest, sample."""
    config = config or MaskConfig()
    tokenizer = load_tokenizer(tokenizer_path)
    token_ids = TokenIds.of(tokenizer)
    inputs = rows.to_pylist() if isinstance(rows, pa.Table) else list(rows)
    kept: list[dict[str, Any]] = []
    refused: list[tuple[str, PairRefused]] = []
    for number, row in enumerate(inputs, start=1):
        try:
            kept.append(pair_token_row(row, tokenizer, config, token_ids))
        except PairRefused as refusal:
            refused.append((str(row.get("pair_id") or f"row {number}"), refusal))
    table = pa.Table.from_pylist(kept, schema=PREFERENCE_DATASET_SCHEMA)
    tally = Tally.of(len(kept), [r.drop.reason for _, r in refused])
    result = PreferenceStageResult(table, {}, tally, refused, audit=audit_pairs(table))
    result.manifest = preference_manifest(
        result, kept, tokenizer, tokenizer_path, config, corpus_version=corpus_digest(inputs), source=source
    )
    result.sample = _sample(tokenizer, kept[0]) if kept else ""
    return result
