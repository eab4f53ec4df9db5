"""Dataset-quality scorecard (curation table 15) for the corpus that trained a candidate.

Pipeline-internal proxies (yield, leakage, flakiness) sit beside the end-to-end number that
decides whether the curation worked: downstream closed-loop acceptance of a policy trained on
the corpus, and what each clean trajectory cost to produce.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass


@dataclass(frozen=True)
class DatasetQualityScorecard:
    """One row of table 15 for this pipeline configuration."""

    pipeline_configuration: str
    accepted_yield: float | None
    redaction_leakage: float | None
    flakiness_index: float | None
    downstream_pass_rate: float | None
    cost_per_clean_trajectory: float | None
    admitted: int
    attempted: int
    redaction_leakage_interval: list[float] | None = None
    """Λ_leak's 95% Clopper-Pearson interval, as the redaction stage reported it."""
    redaction_leak_sample_records: int | None = None
    """Records that carried canaries (Λ_leak is measured on a declared sample)."""

    def to_dict(self) -> dict:
        """JSON-ready form for the scorecard."""
        return asdict(self)


def dataset_quality(
    *,
    pipeline_configuration: str,
    attempted: int,
    admitted: int,
    redaction_leakage: float | None,
    flakiness_index: float | None,
    downstream_pass_rate: float | None,
    curation_cost: float | None,
    redaction_leakage_interval: list[float] | None = None,
    redaction_leak_sample_records: int | None = None,
) -> DatasetQualityScorecard:
    """η = admitted / attempted; cost per clean trajectory = curation cost / admitted."""
    if admitted > attempted:
        raise ValueError(f"admitted ({admitted}) cannot exceed attempted ({attempted})")
    return DatasetQualityScorecard(
        pipeline_configuration=pipeline_configuration,
        accepted_yield=admitted / attempted if attempted else None,
        redaction_leakage=redaction_leakage,
        flakiness_index=flakiness_index,
        downstream_pass_rate=downstream_pass_rate,
        cost_per_clean_trajectory=(curation_cost / admitted)
        if (curation_cost is not None and admitted)
        else None,
        admitted=admitted,
        attempted=attempted,
        redaction_leakage_interval=redaction_leakage_interval,
        redaction_leak_sample_records=redaction_leak_sample_records,
    )


def pipeline_quality(
    *,
    sinks: dict[str, int] | None,
    flakiness_index: float | None,
    redaction_leakage: float | None,
    verifier_seconds_per_attempt: float | None,
    downstream_pass_rate: float | None,
    pipeline_configuration: str = "full pipeline (embedded default)",
    redaction_leakage_interval: list[float] | None = None,
    redaction_leak_sample_records: int | None = None,
) -> DatasetQualityScorecard:
    """Table 15's row from what the upstream stages report: the verifier's sink counts (attempted =
    every sink, admitted = ``admitted``), its R_flake, the redaction canaries' Λ_leak, and the
    cascade's expected verifier seconds per attempt as the curation cost (the unit is verifier
    seconds, not dollars: cost per clean trajectory = seconds spent per admitted trajectory)."""
    sinks = sinks or {}
    attempted = sum(sinks.values())
    admitted = sinks.get("admitted", 0)
    cost = verifier_seconds_per_attempt * attempted if verifier_seconds_per_attempt is not None else None
    return dataset_quality(
        pipeline_configuration=pipeline_configuration,
        attempted=attempted,
        admitted=admitted,
        redaction_leakage=redaction_leakage,
        flakiness_index=flakiness_index,
        downstream_pass_rate=downstream_pass_rate,
        curation_cost=cost,
        redaction_leakage_interval=redaction_leakage_interval,
        redaction_leak_sample_records=redaction_leak_sample_records,
    )
