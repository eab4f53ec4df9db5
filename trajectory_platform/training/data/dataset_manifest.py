"""The serialization manifest of a token-masked dataset (fine-tuning 16.3.2, 16.12).

The token arrays mean nothing without the configuration that produced them: which tokenizer
files, which chat template, which special-token ids, which target policy, how rationale and
truncated turns were treated and which loss normalization the dataset was built for. The training
manifest binds to this one.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from transformers import PreTrainedTokenizerBase

from trajectory_platform.training.data.chat_template import template_digest
from trajectory_platform.training.data.mask_settings import MaskConfig
from trajectory_platform.training.data.masked_dataset import MaskedDataset
from trajectory_platform.training.data.provenance import MANIFEST_KEY
from trajectory_platform.training.data.tokenizer import tokenizer_files_digest

MANIFEST_VERSION = "token_masked_dataset/v1"
TARGET_POLICY_RULE = (
    "curation target_turns when present; else OpenAI weight (assistant weight 1 or absent = target, "
    "weight 0 = context); else every assistant turn except proposals the runtime refused. Observations, "
    "system, user, refusals and compaction summaries are context. A selected turn's target is its body "
    "after the role label through its authentic eos terminator."
)
LABEL_CONVENTION = "hf_aligned: labels aligned with input_ids, -100 = no loss, the model shifts once"
INTENDED_NORMALIZATION = "token_averaged"
"""The normalization the mixture was specified for (target tokens): token averaging keeps it (16.5.1)."""


def dataset_manifest(
    dataset: MaskedDataset,
    tokenizer: PreTrainedTokenizerBase,
    tokenizer_path: str | Path,
    config: MaskConfig,
    *,
    source: str | None = None,
    provenance: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Everything a consumer needs to interpret (and reproduce) the token arrays, and whether the
    episodes behind them were verified and redacted (``provenance``, see :mod:`.provenance`)."""
    special = {tok: tokenizer.convert_tokens_to_ids(tok) for tok in tokenizer.all_special_tokens}
    return {
        "manifest_version": MANIFEST_VERSION,
        "source": source,
        MANIFEST_KEY: provenance,
        "corpus_version": dataset.corpus_digest,
        "tokenizer_path": str(Path(tokenizer_path).resolve()),
        "tokenizer_files_digest": tokenizer_files_digest(tokenizer_path),
        "template_digest": template_digest(tokenizer.chat_template),
        "special_token_ids": dict(sorted(special.items())),
        "eos_token_id": tokenizer.eos_token_id,
        "pad_token_id": tokenizer.pad_token_id,
        "target_policy": {
            "rule": TARGET_POLICY_RULE,
            "episodes_by_policy": dict(sorted(dataset.target_policies.items())),
        },
        "rationale_mode": config.rationale,
        "truncation_policy": config.truncation,
        "max_length": config.max_length,
        "label_convention": LABEL_CONVENTION,
        "intended_normalization": INTENDED_NORMALIZATION,
        "serialization": {
            "per_invocation_rule": "one example per call whose delivered input is not an extension of the "
            "previous example (compaction/pruning); otherwise one transcript",
            "per_invocation_episodes": dataset.per_invocation_episodes,
            "expansion_factor": round(dataset.expansion_factor, 6),
        },
        "counts": dataset.counts(),
        "drop_reasons": dataset.drop_reasons(),
        "drop_examples": dataset.drop_examples(),
        "stats": dataset.result.stats.as_dict(),
        # what PRE counts as recalled: keys of every schema the model trained on (evaluation/run.py)
        "tool_argument_keys": sorted(dataset.tool_argument_keys),
    }
