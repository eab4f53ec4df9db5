"""Paired statistics for comparing a candidate policy with a baseline on the same tasks.

Fine-tuning 16.11.3: because both arms run on the same tasks, seeds and budgets, the comparison
is paired — an interval on the *difference*, never two overlapping single-arm intervals — and
several ablations read at once tighten the per-comparison level (Bonferroni). Everything here
is deterministic (a closed form, a bisection or a seeded bootstrap), so a scorecard is
reproducible byte for byte.

The interval is Tango's asymptotic score interval (Tango 1998), the one Fagerland, Lydersen and
Laake recommend for a paired difference: an *unconditional* interval, so the number of discordant
pairs is uncertain too. An exact conditional (McNemar) interval on the share of discordant pairs
that favour the candidate, scaled by the observed discordant fraction, treats that fraction as
known: with every discordant pair on one side its upper end is the estimate itself, and its
coverage at a true difference of 0.3 on 30 tasks is 0.56. The p-value is the asymptotic McNemar
test, the score test that interval inverts taken at a difference of zero, so p < alpha exactly when
the interval excludes zero: a scorecard never reports a "significant" interval beside a p above
alpha. The same authors found that test close to its nominal level even for few discordant pairs,
where the exact conditional test is conservative (Fagerland, Lydersen & Laake 2013).
"""

from __future__ import annotations

import bisect
import itertools
import math
import random
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from statistics import NormalDist

from trajectory_platform.curation.binomial import bisect_rising


def mcnemar_score_p(b: int, c: int) -> float:
    """Two-sided asymptotic McNemar p-value, z = (b - c) / sqrt(b + c) for discordant pairs b vs c:
    Tango's score statistic at a difference of zero (:func:`tango_score_interval`), so it rejects
    exactly when that interval excludes zero. No discordant pair is no evidence: p = 1. The two
    normal tails are ``erfc(z / sqrt 2)``, which keeps a p of 1e-23 where 1 - cdf(z) reads 0."""
    if b + c == 0:
        return 1.0
    z = abs(b - c) / math.sqrt(b + c)
    return min(1.0, math.erfc(z / math.sqrt(2.0)))


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


def tango_score_interval(
    candidate_only: int, baseline_only: int, n: int, alpha: float
) -> tuple[float, float]:
    """Tango's two-sided (1 - ``alpha``) score interval on the paired difference of proportions.

    The interval is every difference d that the score test of H0: p_cand_only - p_base_only = d
    does not reject: T(d) = (b - c - n d) / sqrt(n (2 q + d (1 - d))), with q the maximum
    likelihood estimate of p_base_only under H0 (the positive root of a quadratic). T falls as d
    rises, so each end is one bisection. No discordant pair still gives an interval of width
    about 2 z^2 / n, not a point.
    """
    b, c = candidate_only, baseline_only
    z = NormalDist().inv_cdf(1.0 - alpha / 2.0)

    def score(d: float) -> float:
        w = d * (2 * n - b + c) - (b + c)
        q = (math.sqrt(w * w + 8 * n * c * d * (1 - d)) - w) / (4 * n)
        variance = n * (2 * q + d * (1 - d))
        numerator = b - c - n * d
        if variance <= 0.0:  # only at d = +-1, where the table leaves no room to vary
            return math.copysign(math.inf, numerator) if numerator else 0.0
        return numerator / math.sqrt(variance)

    def falling(d: float) -> float:  # -T rises with d, as the bisection wants
        return -score(d)

    estimate = (b - c) / n
    return bisect_rising(falling, -z, -1.0, estimate), bisect_rising(falling, z, estimate, 1.0)


def paired_comparison(
    candidate: Sequence[bool],
    baseline: Sequence[bool],
    alpha: float = 0.05,
    method: str = "tango_score",
    bootstrap_samples: int = 2000,
    seed: int = 0,
) -> PairedComparison:
    """Compare paired binary outcomes (same task, seed and budget at each index).

    The difference is (b - c) / n with b, c the discordant counts. ``tango_score``: Tango's score
    interval (:func:`tango_score_interval`); ``bootstrap``: percentile interval from resampling
    task indices (pairs stay together), seeded. Either way the p-value is :func:`mcnemar_score_p`.
    """
    both, cand_only, base_only, neither = _discordant_counts(candidate, baseline)
    n = len(candidate)
    if n == 0:
        raise ValueError("paired comparison needs at least one paired trial")
    estimate = (cand_only - base_only) / n
    if method == "tango_score":
        low, high = tango_score_interval(cand_only, base_only, n, alpha)
    elif method == "bootstrap":
        rng = random.Random(seed)
        diffs = [int(c) - int(b) for c, b in zip(candidate, baseline, strict=True)]
        means = sorted(sum(diffs[rng.randrange(n)] for _ in range(n)) / n for _ in range(bootstrap_samples))
        low = means[int(math.floor(alpha / 2 * (bootstrap_samples - 1)))]
        high = means[int(math.ceil((1 - alpha / 2) * (bootstrap_samples - 1)))]
    else:
        raise ValueError(f"unknown paired method {method!r}; use 'tango_score' or 'bootstrap'")
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
        p_value=mcnemar_score_p(cand_only, base_only),
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


MAX_SIGN_FLIP_UNITS = 16
"""Units (seeds) up to which :func:`sign_flip_p` enumerates every sign assignment (65,536)."""

SIGN_FLIP_TIE = 1e-12
"""Sums (and subset means) closer than this are one value: float rounding, not an effect."""


def sign_flip_p(differences: Sequence[float]) -> float:
    """Exact two-sided randomization p-value that the mean of ``differences`` is zero.

    One difference per independent unit (a training seed: candidate minus baseline rate on that
    seed's trials). Under no effect each difference is as likely negated, so the p-value is the
    share of the 2^k sign assignments whose mean is at least as far from zero as the observed one
    (Fisher's sign-flip test). Why beside the paired interval: trials of one seed share its
    weights, and when acceptance swings between seeds the per-trial interval is too narrow for a
    claim about the recipe; this reading treats the seed as the unit. It can never go below
    :func:`sign_flip_floor` of k, which says how many seeds a claim needs.
    """
    k = _sign_flip_units(differences)
    observed = abs(sum(differences)) - SIGN_FLIP_TIE
    extreme = sum(
        abs(sum(d if mask >> i & 1 else -d for i, d in enumerate(differences))) >= observed
        for mask in range(2**k)
    )
    return extreme / 2**k


def sign_flip_interval(differences: Sequence[float], alpha: float) -> tuple[float, float] | None:
    """The mean differences :func:`sign_flip_p` does not reject at ``alpha``: every shift ``delta``
    with ``sign_flip_p(differences - delta) > alpha``, the test inverted, so the interval and the
    test never disagree about zero. ``None`` when no shift is rejected (the floor for so few units
    is above ``alpha``: no claim can be made, the interval is the whole line).

    Why exact, and why one pass: shifted by ``delta``, the assignment with signs + on a subset A
    and - on the rest is at least as extreme as the observed one exactly when ``delta`` lies
    between the mean of A and the mean of the rest (the squared sums differ by a constant times
    ``(delta - mean(rest)) * (mean(A) - delta)``); the all-alike pair always is. So the p-value
    changes only at subset means and is constant between neighbouring ones, and one sweep over
    the 2^k subsets gives it on every stretch at once (no test per stretch: 16 units take a
    fraction of a second, not hours). The interval is the run of accepted stretches around the mean of all
    (p = 1 there), walked out until one is rejected; its ends are subset means.
    """
    k = _sign_flip_units(differences)
    if sign_flip_floor(k) > alpha:
        return None
    everyone = 2**k - 1
    means = [0.0] + [
        sum(d for i, d in enumerate(differences) if mask >> i & 1) / mask.bit_count()
        for mask in range(1, everyone + 1)
    ]
    breaks: list[float] = []  # the distinct subset means, each the least of its ties
    last_tie: list[float] = []  # and the greatest: an upper end is read there
    for value in sorted(set(means[1:])):
        if breaks and value - breaks[-1] <= SIGN_FLIP_TIE:
            last_tie[-1] = value
        else:
            breaks.append(value)
            last_tie.append(value)

    def at(value: float) -> int:
        return bisect.bisect_right(breaks, value) - 1

    # extreme[j] counts the assignments at least as extreme on the stretch (breaks[j], breaks[j+1]):
    # each subset and its complement (the same pair of means) cover the stretches between them.
    starts = [0] * len(breaks)
    for subset in range(1, everyone):
        rest = everyone ^ subset
        if subset < rest:
            low, high = sorted((at(means[subset]), at(means[rest])))
            starts[low] += 2
            starts[high] -= 2
    extreme = list(itertools.accumulate(starts, initial=2))[1:]

    def accepted(stretch: int) -> bool:
        return extreme[stretch] / 2**k > alpha

    upper = lower = at(means[everyone])
    while upper + 1 < len(breaks) and accepted(upper):
        upper += 1
    while lower > 0 and accepted(lower - 1):
        lower -= 1
    return breaks[lower], last_tie[upper]


def _sign_flip_units(differences: Sequence[float]) -> int:
    """How many units ``differences`` holds, refused outside what the tests enumerate."""
    k = len(differences)
    if not 0 < k <= MAX_SIGN_FLIP_UNITS:
        raise ValueError(f"sign-flip test needs 1 to {MAX_SIGN_FLIP_UNITS} units (got {k})")
    return k


def sign_flip_floor(units: int) -> float:
    """The smallest p :func:`sign_flip_p` can give over ``units`` units: only the observed signs and
    their negation are that extreme (2 / 2^k: 0.031 for six seeds, 0.0078 for eight)."""
    return 2 / 2**units
