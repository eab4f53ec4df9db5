"""Λ_leak's report: canaries planted and found, with the rate's exact interval (no values).

Its own module, outside the ``curation.redact`` package (whose ``__init__`` loads the engine),
so a reader of reported figures (the corpus-wide day figures ``resources.facts`` combines,
``export``'s data card) adds reports up without importing the redaction engine that produced them
(``redact/leak.py`` makes them).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from trajectory_platform.curation.binomial import clopper_pearson

CONFIDENCE = 0.95
"""The level of Λ_leak's reported interval."""
INTERVAL_METHOD = "clopper-pearson"


@dataclass
class LeakReport:
    """Canaries planted and found after redaction, in total and by encoding and kind (no values)."""

    injected: int = 0
    leaked: int = 0
    leaked_by_form: dict[str, int] = field(default_factory=dict)
    leaked_by_kind: dict[str, int] = field(default_factory=dict)
    records_planted: int = 0
    """Records that carried canaries (the sample)."""
    records_total: int = 0
    """Records the sample was drawn from (set by the caller; 0 when it did not say)."""

    @property
    def rate(self) -> float:
        """Λ_leak; 0.0 when nothing was injected."""
        return self.leaked / self.injected if self.injected else 0.0

    @property
    def interval(self) -> tuple[float, float]:
        """Λ_leak's exact two-sided :data:`CONFIDENCE` interval; (0, 1) when nothing was injected."""
        return clopper_pearson(self.leaked, self.injected, 1.0 - CONFIDENCE)

    def add(self, other: LeakReport) -> None:
        self.injected += other.injected
        self.leaked += other.leaked
        self.records_planted += other.records_planted
        self.records_total += other.records_total
        for mine, theirs in (
            (self.leaked_by_form, other.leaked_by_form),
            (self.leaked_by_kind, other.leaked_by_kind),
        ):
            for key, count in theirs.items():
                mine[key] = mine.get(key, 0) + count

    def as_dict(self) -> dict:
        low, high = self.interval
        return {
            "injected": self.injected,
            "leaked": self.leaked,
            "rate": self.rate,
            "interval": [round(low, 6), round(high, 6)],
            "confidence": CONFIDENCE,
            "interval_method": INTERVAL_METHOD,
            "records_planted": self.records_planted,
            "records_total": self.records_total,
            "leaked_by_form": dict(sorted(self.leaked_by_form.items())),
            "leaked_by_kind": dict(sorted(self.leaked_by_kind.items())),
        }
