"""The dataset stage's knobs as plain dataclasses: one source of each default, importable without
transformers or pyarrow.

``trajectory-platform mask --help`` and ``curate --help`` derive their flags from
:class:`DatasetSettings`, and the ``token_masked_dataset`` / ``preference_dataset`` assets their
config; describing them needs no tokenizer, so they live apart from ``masking`` and
``dataset_stage``, which import them from here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from trajectory_platform.training.data.serialize import RATIONALE_MODES, TRUNCATION_POLICIES

DEFAULT_BATCH_ROWS = 512
"""Episodes masked at once: the dataset stage's memory grows with this, not with the mixture
(``benchmarks/scale.py`` saw ~0.5 MB per gym episode while masking, so ~0.25 GB a batch)."""


@dataclass(frozen=True)
class MaskConfig:
    """The declared policies a dataset is built under (recorded in its manifest)."""

    rationale: str = "context"
    truncation: str = "exclude"
    max_length: int | None = None

    def __post_init__(self) -> None:
        if self.rationale not in RATIONALE_MODES:
            raise ValueError(f"rationale must be one of {RATIONALE_MODES}")
        if self.truncation not in TRUNCATION_POLICIES:
            raise ValueError(f"truncation must be one of {TRUNCATION_POLICIES}")


@dataclass(frozen=True)
class Augmentation:
    """Declared schema augmentation: which transformations, drawn with which seed, and how many
    derived records each parent gets per transformation (recorded in the dataset manifest).

    ``copies`` > 1 draws each copy afresh (its own renames, its own order). One rename per
    episode is a fixed alias a model can memorize like the original names; many, each seen about
    once, leave reading the delivered schema as the only way to predict a renamed call."""

    kinds: tuple[str, ...] = ()
    seed: int = 0
    copies: int = 1

    def __post_init__(self) -> None:
        if self.copies < 1:
            raise ValueError(f"augment_copies must be at least 1, got {self.copies}")


@dataclass(frozen=True)
class MaskedDataSettings:
    """What every token-masked table is built with (the SFT dataset and the preference dataset):
    the tokenizer and the masking policies, one source for both stages' knobs."""

    tokenizer_path: str = field(
        default="",
        metadata={"help": "HF tokenizer directory with a chat template ('': the embedded default)"},
    )
    rationale: str = field(
        default=MaskConfig.rationale,
        metadata={"choices": RATIONALE_MODES, "help": "assistant reasoning is context, a target, or removed"},
    )
    truncation: str = field(
        default=MaskConfig.truncation,
        metadata={
            "choices": TRUNCATION_POLICIES,
            "help": "a truncated turn is excluded or supervised on its prefix",
        },
    )
    max_length: int = field(
        default=0,
        metadata={
            "help": "drop (never truncate) a longer example, or a pair with a longer side (0: no limit)"
        },
    )

    def mask_config(self) -> MaskConfig:
        """The masking policies these settings select."""
        return MaskConfig(self.rationale, self.truncation, self.max_length or None)

    def tokenizer_dir(self, workdir: str | Path) -> str:
        """The configured tokenizer directory, or the embedded default built under ``workdir``."""
        if self.tokenizer_path:
            return self.tokenizer_path
        from trajectory_platform.training.data.tokenizer import build_default_tokenizer  # transformers

        return str(build_default_tokenizer(workdir))


@dataclass(frozen=True)
class DatasetSettings(MaskedDataSettings):
    """What a user sets for building a token-masked dataset, with the product's defaults: their one
    source. The ``mask`` CLI's flags and the ``token_masked_dataset`` asset's config are derived
    from these fields (all of them land in the dataset manifest)."""

    augment: tuple[str, ...] = field(
        default=(),
        metadata={
            "help": "schema augmentations added as derived records "
            "(rename, reorder, distractor, remove_optional)"
        },
    )
    augment_seed: int = field(default=0, metadata={"help": "augmentation seed"})
    augment_copies: int = field(
        default=1,
        metadata={"help": "derived records per episode and augmentation, each drawn afresh"},
    )
    batch_rows: int = field(
        default=DEFAULT_BATCH_ROWS,
        metadata={
            "help": "episodes rendered and masked at once: the stage's peak memory follows this, not the "
            "mixture's size (the table is the same for any value)"
        },
    )
    heldout_target_minimum: int = field(
        default=20,
        metadata={
            "help": "the held-out coverage audit: each target token of the held-out learnable suite must "
            "be a training target at least this often (0: audit off)"
        },
    )

    def __post_init__(self) -> None:
        self.augmentation()  # refuses a copy count below 1 before any work

    def augmentation(self) -> Augmentation:
        """The declared augmentation these settings select."""
        return Augmentation(tuple(self.augment), self.augment_seed, self.augment_copies)
