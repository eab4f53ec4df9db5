"""Stage figures over a corpus curated one day at a time (docs/operations.md, "Per-day curation").

``verified_traces`` and ``redacted_corpus`` are partitioned by day: each day's materialization
reports that day's sinks, funnel, ledger, tally and Λ_leak canaries. A corpus-wide reader (the
scorecard's dataset-quality row, an export's data card) needs the same figures over every day:
counts add up; R_flake is pooled (episodes whose oracle runs disagreed / episodes the oracle
judged, over all days, not a mean of daily rates); the verifier's cost per attempt is the
attempt-weighted mean of the days'; Λ_leak is leaked / injected canaries over every day's sample,
with its exact interval recomputed from those totals.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from trajectory_platform.curation.leak_report import LeakReport
from trajectory_platform.traces.drops import Tally


def added_counts(counts: Iterable[Mapping[str, int] | None]) -> dict[str, int]:
    """Several ``{key: count}`` maps added up, keys sorted (a day that reported none adds nothing)."""
    total: Counter[str] = Counter()
    for one in counts:
        total.update(dict(one or {}))
    return dict(sorted(total.items()))


def added_tally(days: Sequence[Mapping[str, Any]]) -> Tally:
    """The stage tally over all days, from each day's ``Tally.metadata()`` keys."""
    return Tally.total(
        Tally(
            int(day.get("records_in", 0)),
            int(day.get("kept", 0)),
            Counter(day.get("dropped_by_reason") or {}),
        )
        for day in days
    )


def corpus_verification(days: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The corpus's verification figures from the days' reported ones (the metadata of each day's
    latest ``verified_traces`` materialization), under the keys a single day reports them."""
    attempts = [int(day.get("episodes", 0)) for day in days]
    ledgers = [day.get("ledger") or {} for day in days]
    judged = sum(int(ledger.get("dynamic_verified", 0)) for ledger in ledgers)
    inconsistent = sum(int(ledger.get("inconsistent", 0)) for ledger in ledgers)
    total = sum(attempts)
    cost = sum(n * float(day.get("c_attempt_s") or 0.0) for n, day in zip(attempts, days, strict=True))
    return {
        "days": len(days),
        "episodes": total,
        "sinks": added_counts(day.get("sinks") for day in days),
        "funnel": added_counts(day.get("funnel") for day in days),
        "unverifiable_reasons": added_counts(day.get("unverifiable_reasons") for day in days),
        "roles": added_counts(day.get("roles") for day in days),
        "r_flake": round(inconsistent / judged, 6) if judged else 0.0,
        "oracle_judged": judged,
        "oracle_inconsistent": inconsistent,
        "c_attempt_s": round(cost / total, 6) if total else 0.0,
        **added_tally(days).metadata(),
    }


def corpus_redaction(days: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The corpus's redaction figures from the days' reported ones (the metadata of each day's
    latest ``redacted_corpus`` materialization), under the keys a single day reports them."""
    leak = LeakReport()
    for day in days:
        canaries = day.get("canaries") or {}
        leak.add(
            LeakReport(
                injected=int(canaries.get("injected", 0)),
                leaked=int(canaries.get("leaked", 0)),
                leaked_by_form=dict(canaries.get("leaked_by_form") or {}),
                leaked_by_kind=dict(canaries.get("leaked_by_kind") or {}),
                records_planted=int(canaries.get("records_planted", 0)),
                records_total=int(canaries.get("records_total", 0)),
            )
        )
    figures = leak.as_dict()
    return {
        "days": len(days),
        "leak_rate": leak.rate,
        "leak_rate_interval": figures["interval"],
        "leak_sample_records": leak.records_planted,
        "canaries": figures,
        "findings_by_kind": added_counts(day.get("findings_by_kind") for day in days),
        "rows_in": sum(int(day.get("rows_in", 0)) for day in days),
        "rows_out": sum(int(day.get("rows_out", 0)) for day in days),
        **added_tally(days).metadata(),
    }
