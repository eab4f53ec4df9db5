"""Paired statistics for comparing a candidate policy with a baseline on the same tasks.

Fine-tuning 16.11.3: because both arms run on the same tasks, seeds and budgets, the comparison
is paired — an interval on the *difference*, never two overlapping single-arm intervals — and
several ablations read at once tighten the per-comparison level (Bonferroni). Everything here
is exact or seeded, so a scorecard is reproducible byte for byte.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import asdict, dataclass

from trajectory_platform.curation.binomial import binomial_cdf, clopper_pearson


def mcnemar_exact_p(b: int, c: int) -> float:
    """Two-sided exact McNemar p-value: discordant pairs b vs c under Binomial(b + c, 1/2)."""
    m = b + c
    if m == 0:
        return 1.0
    tail = binomial_cdf(min(b, c), m, 0.5)
    return min(1.0, 2.0 * tail)


@dataclass(frozen=True)
class PairedComparison:
    """Candidate minus baseline acceptance on paired trials, with its interval and counts."""

    n: int
    candidate_rate: float
    baseline_rate: float
    estimate: float
    ci_low: float
    ci_high: float
    alpha: float
    method: str
    both_pass: int
    candidate_only: int
    baseline_only: int
    both_fail: int
    p_value: float

    def to_dict(self) -> dict:
        """JSON-ready form for the scorecard."""
        return asdict(self)


def _discordant_counts(candidate: Sequence[bool], baseline: Sequence[bool]) -> tuple[int, int, int, int]:
    if len(candidate) != len(baseline):
        raise ValueError(
            f"paired comparison needs one baseline outcome per candidate outcome "
            f"(got {len(candidate)} vs {len(baseline)})"
        )
    both = sum(1 for c, b in zip(candidate, baseline, strict=True) if c and b)
    cand_only = sum(1 for c, b in zip(candidate, baseline, strict=True) if c and not b)
    base_only = sum(1 for c, b in zip(candidate, baseline, strict=True) if b and not c)
    return both, cand_only, base_only, len(candidate) - both - cand_only - base_only


def paired_comparison(
    candidate: Sequence[bool],
    baseline: Sequence[bool],
    alpha: float = 0.05,
    method: str = "mcnemar_exact",
    bootstrap_samples: int = 2000,
    seed: int = 0,
) -> PairedComparison:
    """Compare paired binary outcomes (same task, seed and budget at each index).

    ``mcnemar_exact``: the difference is (b - c) / n with b, c the discordant counts. Conditional
    on the m = b + c discordant pairs, b ~ Binomial(m, q) and the difference is m/n * (2q - 1), so
    the exact Clopper-Pearson interval on q maps to an interval on the difference; the p-value is
    the exact McNemar test. ``bootstrap``: percentile interval from resampling task indices
    (pairs stay together), seeded.
    """
    both, cand_only, base_only, neither = _discordant_counts(candidate, baseline)
    n = len(candidate)
    if n == 0:
        raise ValueError("paired comparison needs at least one paired trial")
    estimate = (cand_only - base_only) / n
    if method == "mcnemar_exact":
        m = cand_only + base_only
        if m == 0:
            low = high = 0.0
        else:
            q_low, q_high = clopper_pearson(cand_only, m, alpha)
            low, high = m / n * (2 * q_low - 1), m / n * (2 * q_high - 1)
    elif method == "bootstrap":
        rng = random.Random(seed)
        diffs = [int(c) - int(b) for c, b in zip(candidate, baseline, strict=True)]
        means = sorted(sum(diffs[rng.randrange(n)] for _ in range(n)) / n for _ in range(bootstrap_samples))
        low = means[int(math.floor(alpha / 2 * (bootstrap_samples - 1)))]
        high = means[int(math.ceil((1 - alpha / 2) * (bootstrap_samples - 1)))]
    else:
        raise ValueError(f"unknown paired method {method!r}; use 'mcnemar_exact' or 'bootstrap'")
    return PairedComparison(
        n=n,
        candidate_rate=(both + cand_only) / n,
        baseline_rate=(both + base_only) / n,
        estimate=estimate,
        ci_low=low,
        ci_high=high,
        alpha=alpha,
        method=method,
        both_pass=both,
        candidate_only=cand_only,
        baseline_only=base_only,
        both_fail=neither,
        p_value=mcnemar_exact_p(cand_only, base_only),
    )


def bonferroni_alpha(alpha: float, comparisons: int) -> float:
    """Per-comparison level when ``comparisons`` ablations are read at once."""
    if comparisons < 1:
        raise ValueError("Bonferroni needs at least one comparison")
    return alpha / comparisons


def independent_difference_se(p1: float, n1: int, p2: float, n2: int) -> float:
    """Normal-approximation standard error of p2 - p1 for *independent* arms.

    Kept for the seed's release-critique exercise, which asks for it to show why the paired
    record (discordant counts) is needed instead.
    """
    return math.sqrt(p1 * (1 - p1) / n1 + p2 * (1 - p2) / n2)


def pass_at_k(successes: int, attempts: int, k: int) -> float:
    """Unbiased pass@k: probability at least one of k draws (without replacement) succeeds."""
    if k > attempts:
        raise ValueError(f"pass@k needs k <= attempts (k={k}, attempts={attempts})")
    if attempts - successes < k:
        return 1.0
    return 1.0 - math.comb(attempts - successes, k) / math.comb(attempts, k)


def pass_hat_k(successes: int, attempts: int, k: int) -> float:
    """pass^k (repeated-run consistency): probability all k draws succeed."""
    if k > attempts:
        raise ValueError(f"pass^k needs k <= attempts (k={k}, attempts={attempts})")
    return math.comb(successes, k) / math.comb(attempts, k)
