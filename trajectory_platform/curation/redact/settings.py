"""What a user sets for a redaction run: the Λ_leak canary sample and the batch size, with their
product defaults.

The one source of these knobs: the ``redacted_corpus`` asset's config, the ``redact`` CLI's flags
and ``curate --set redact.FIELD=VALUE`` are derived from :class:`RedactSettings`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from trajectory_platform.traces.batching import check_batch_rows


@dataclass(frozen=True)
class RedactSettings:
    """How many records carry Λ_leak's canaries.

    Planting canaries in a copy of every record was most of redaction's time, while Λ_leak's
    interval narrows with the number of canaries, not the share of records: a tenth of the records,
    and never fewer than ``leak_min_canaries`` canaries (every record when the corpus is smaller),
    bounds a clean run's Λ_leak below about 1.8% at 95% with the minimum and far lower on a real
    corpus. Any surviving canary in the sample still refuses the corpus.
    """

    leak_sample_fraction: float = field(
        default=0.1,
        metadata={"help": "share of records that carry Λ_leak canaries (1.0: every record)"},
    )
    leak_min_canaries: int = field(
        default=200,
        metadata={"help": "canaries planted at least (more records join the sample; all when fewer)"},
    )
    leak_sample_seed: int = field(
        default=0, metadata={"help": "seed of the canary sample (with the redaction salt)"}
    )
    batch_rows: int = field(
        default=256,
        metadata={
            "help": "rows read and redacted at once: the stage's peak memory follows this, not the "
            "corpus's size (the output is the same for any value)"
        },
    )

    def __post_init__(self) -> None:
        if not 0.0 <= self.leak_sample_fraction <= 1.0:
            raise ValueError(f"leak_sample_fraction must be in [0, 1], got {self.leak_sample_fraction}")
        if self.leak_min_canaries < 0:
            raise ValueError(f"leak_min_canaries must be >= 0, got {self.leak_min_canaries}")
        check_batch_rows(self.batch_rows)
