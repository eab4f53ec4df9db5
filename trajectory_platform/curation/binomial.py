"""The exact binomial tail, the Clopper-Pearson interval, and the bisection it shares with Tango's interval.

The canary-leak estimate (``curation/redact/leak.py``: leaked of thousands of planted canaries)
needs the interval; the evaluation's paired statistics (``evaluation/stats.py``: Tango's score
interval) invert their test with the same bisection. Up to :data:`EXACT_TRIALS` trials each term
is ``math.comb`` times float powers, as exact as a float gets (three trials of 1/2 all failing
read 0.125, not 0.12500000000000003); beyond, where ``math.comb`` no longer fits a float, each term
is summed in log space, still finite for tens of thousands of canaries.
"""

from __future__ import annotations

import math
from collections.abc import Callable

EXACT_TRIALS = 1000
"""Largest trial count summed with ``math.comb`` (C(1000, 500) ~ 2.7e299 still fits a float)."""


def binomial_cdf(k: int, n: int, p: float) -> float:
    """P[X <= k] for X ~ Binomial(n, p), each term in log space."""
    if k < 0:
        return 0.0
    if k >= n:
        return 1.0
    if p <= 0.0:
        return 1.0
    if p >= 1.0:
        return 0.0
    if n <= EXACT_TRIALS:
        return min(sum(math.comb(n, i) * p**i * (1.0 - p) ** (n - i) for i in range(k + 1)), 1.0)
    log_p, log_q, log_n = math.log(p), math.log1p(-p), math.lgamma(n + 1)
    total = sum(
        math.exp(log_n - math.lgamma(i + 1) - math.lgamma(n - i + 1) + i * log_p + (n - i) * log_q)
        for i in range(k + 1)
    )
    return min(total, 1.0)


def clopper_pearson(successes: int, trials: int, alpha: float) -> tuple[float, float]:
    """The exact two-sided (1 - ``alpha``) interval of a binomial proportion (Clopper-Pearson)."""
    if trials == 0:
        return 0.0, 1.0
    lower = 0.0
    if successes > 0:  # P[X >= k | p] = alpha/2; rises with p
        lower = bisect_rising(lambda p: 1.0 - binomial_cdf(successes - 1, trials, p), alpha / 2)
    upper = 1.0
    if successes < trials:  # P[X <= k | p] = alpha/2; falls with p, so solve on its complement
        upper = bisect_rising(lambda p: 1.0 - binomial_cdf(successes, trials, p), 1.0 - alpha / 2)
    return lower, upper


def bisect_rising(
    func: Callable[[float], float], target: float, low: float = 0.0, high: float = 1.0
) -> float:
    """``x`` in [``low``, ``high``] with ``func(x) = target``, for a non-decreasing ``func``: the
    inversion every exact or score interval here ends in."""
    for _ in range(100):
        mid = (low + high) / 2.0
        if func(mid) < target:
            low = mid
        else:
            high = mid
    return (low + high) / 2.0
