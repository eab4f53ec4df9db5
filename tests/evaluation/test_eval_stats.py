"""Paired statistics and cost per accepted task against hand-made cases and the seed's numbers."""

import math
import random

import pytest

from trajectory_platform.curation.binomial import clopper_pearson
from trajectory_platform.evaluation.cost import (
    break_even_attempt_cost,
    cost_per_accepted,
    per_attempt_cost_per_accepted,
)
from trajectory_platform.evaluation.stats import (
    MAX_SIGN_FLIP_UNITS,
    bonferroni_alpha,
    independent_difference_se,
    mcnemar_score_p,
    paired_comparison,
    pass_at_k,
    pass_hat_k,
    sign_flip_floor,
    sign_flip_interval,
    sign_flip_p,
    tango_score_interval,
)


def test_release_critique_exercise_numbers():
    # Fine-tuning 16.16 "Critique a release proposal": 60% at $1.20 vs 66% at $1.50, 500 trials each.
    baseline = per_attempt_cost_per_accepted(1.20, 0.60)
    candidate = per_attempt_cost_per_accepted(1.50, 0.66)
    assert baseline == pytest.approx(2.00)
    assert round(candidate, 2) == 2.27
    assert break_even_attempt_cost(baseline, 0.66) == pytest.approx(1.32)
    se = independent_difference_se(0.60, 500, 0.66, 500)
    assert round(se, 3) == 0.030
    assert 0.06 / se == pytest.approx(1.97, abs=0.01)


def test_cost_per_accepted_with_zero_acceptances_keeps_total_spend():
    result = cost_per_accepted(total_spend=12.5, attempts=10, accepted=0)
    assert result.value is None and result.total_spend == 12.5
    assert cost_per_accepted(12.5, 10, 5).value == pytest.approx(2.5)
    with pytest.raises(ValueError):
        cost_per_accepted(1.0, 3, 4)


def test_clopper_pearson_matches_known_values():
    low, high = clopper_pearson(5, 10, 0.05)
    assert low == pytest.approx(0.1871, abs=1e-4)
    assert high == pytest.approx(0.8129, abs=1e-4)
    assert clopper_pearson(0, 10, 0.05)[0] == 0.0
    assert clopper_pearson(10, 10, 0.05)[1] == 1.0


def test_mcnemar_score_p_value():
    # 10 discordant pairs all favouring one arm: z = 10 / sqrt(10), two-sided normal tail
    assert mcnemar_score_p(10, 0) == pytest.approx(0.0015654, abs=1e-7)
    assert mcnemar_score_p(3, 3) == 1.0
    assert mcnemar_score_p(0, 0) == 1.0
    assert 0.0 < mcnemar_score_p(100, 0) < 1e-22  # z = 10: a tail 1 - cdf(z) would round to 0


def test_p_value_and_interval_tell_the_same_story_on_every_small_table():
    """p < alpha exactly when the interval excludes zero: the p-value is the interval's own score
    test at zero. (The exact conditional test disagreed: 0 vs 5 discordant reads p = 0.0625 beside
    an interval that excludes zero.)"""
    n = 60
    for b in range(31):
        for c in range(31):
            low, high = tango_score_interval(b, c, n, 0.05)
            assert (mcnemar_score_p(b, c) < 0.05) == (low > 0.0 or high < 0.0), (b, c)


def test_paired_comparison_counts_discordant_pairs_and_brackets_estimate():
    candidate = [True] * 30 + [True] * 12 + [False] * 3 + [False] * 55
    baseline = [True] * 30 + [False] * 12 + [True] * 3 + [False] * 55
    result = paired_comparison(candidate, baseline)
    assert (result.n, result.both_pass, result.candidate_only, result.baseline_only, result.both_fail) == (
        100,
        30,
        12,
        3,
        55,
    )
    assert result.estimate == pytest.approx(0.09)
    assert result.ci_low < 0.09 < result.ci_high
    assert result.ci_low > 0  # 12 vs 3 discordant: significant at 5%
    assert result.p_value < 0.05
    boot = paired_comparison(candidate, baseline, method="bootstrap", seed=1)
    assert boot.ci_low < 0.09 < boot.ci_high
    assert boot == paired_comparison(candidate, baseline, method="bootstrap", seed=1)


def test_tango_interval_matches_the_published_paired_example():
    # Cavo et al. 2012 in Fagerland, Lydersen & Laake (contingencytables): 6 vs 16 discordant of
    # 161, estimate -0.0621, Tango 95% CI -0.1240 to -0.0054; asymptotic McNemar P = 0.0330 (the
    # exact conditional test's 0.0525 would sit above alpha beside an interval that excludes 0).
    assert tango_score_interval(6, 16, 161, 0.05) == pytest.approx((-0.1240, -0.0054), abs=5e-5)
    assert mcnemar_score_p(6, 16) == pytest.approx(0.0330, abs=5e-5)


def test_one_sided_discordance_still_has_room_above_the_estimate():
    """16 of 48 won by the candidate and none by the base: the true gain may well exceed 1/3."""
    low, high = tango_score_interval(16, 0, 48, 0.05)
    assert 0.0 < low < 16 / 48 < high < 1.0
    card = paired_comparison([True] * 16 + [False] * 32, [False] * 48)
    assert (card.ci_low, card.ci_high, card.method) == (low, high, "tango_score")
    none_low, none_high = tango_score_interval(0, 0, 48, 0.05)
    assert none_low == pytest.approx(-none_high) and none_high > 0.05  # no discordance is not certainty
    assert tango_score_interval(48, 0, 48, 0.05)[1] == pytest.approx(1.0)


@pytest.mark.parametrize(("p_cand_only", "p_base_only"), [(0.3, 0.0), (0.2, 0.05), (0.1, 0.1), (0.4, 0.1)])
def test_tango_interval_covers_the_true_difference_about_as_often_as_it_claims(
    p_cand_only: float, p_base_only: float
):
    """Exact coverage over every table of 30 pairs. A conditional interval scaled by the observed
    discordant fraction covered 0.56 at (0.3, 0.0); the score interval stays near 0.95."""
    n, covered = 30, 0.0
    truth = p_cand_only - p_base_only
    for b in range(n + 1):
        for c in range(n + 1 - b):
            low, high = tango_score_interval(b, c, n, 0.05)
            if low <= truth <= high:
                rest = (1 - p_cand_only - p_base_only) ** (n - b - c)
                covered += math.comb(n, b) * math.comb(n - b, c) * p_cand_only**b * p_base_only**c * rest
    assert covered >= 0.92


def test_paired_comparison_rejects_unpaired_input():
    with pytest.raises(ValueError, match="one baseline outcome per candidate"):
        paired_comparison([True, False], [True])


def test_bonferroni_and_pass_metrics():
    assert bonferroni_alpha(0.05, 3) == pytest.approx(0.05 / 3)
    assert pass_at_k(2, 4, 1) == pytest.approx(0.5)
    assert pass_at_k(2, 4, 3) == 1.0
    assert pass_hat_k(2, 4, 2) == pytest.approx(1 / 6)
    assert math.isclose(pass_hat_k(4, 4, 4), 1.0)


def test_the_interval_stays_finite_for_a_corpus_worth_of_canaries_and_agrees_with_small_counts():
    """One implementation serves the leak estimate (tens of thousands of trials) and small counts."""
    low, high = clopper_pearson(0, 28_000, 0.05)
    assert low == 0.0 and 0.0 < high < 2e-4  # about 3.69 / n, the rule of three's exact cousin
    assert clopper_pearson(3, 12, 0.05) == pytest.approx((0.0548606, 0.5718585), abs=1e-6)  # beta quantiles


def test_small_counts_sum_exactly_and_both_regimes_meet():
    from trajectory_platform.curation.binomial import EXACT_TRIALS, binomial_cdf

    assert binomial_cdf(0, 3, 0.5) == 0.125  # 0.5**3, no log-space rounding
    at, past = binomial_cdf(480, EXACT_TRIALS, 0.5), binomial_cdf(480, EXACT_TRIALS + 1, 0.5)
    assert 0.0 < past < at < 1.0 and (at, past) == pytest.approx((0.108724, 0.103054), abs=1e-6)  # scipy


def test_sign_flip_p_counts_the_sign_assignments_at_least_as_extreme():
    # [3, 1, 1]: sums over the 8 assignments are +-5, +-3, +-3, +-1; only +-5 reach |5|.
    assert sign_flip_p([3, 1, 1]) == 2 / 8
    assert sign_flip_p([3, 1, 1, 1]) == 2 / 16  # |6| only with every sign alike (3+1+1-1 = 4)
    assert sign_flip_p([1, 1, -1, -1]) == 1.0  # a zero mean: every assignment is as extreme
    assert sign_flip_p([-0.3] * 6) == 2 / 64 == sign_flip_floor(6)  # the floor, whatever the size
    assert sign_flip_p([0.1 + 0.2, -0.3]) == 1.0  # 0.30000000000000004 - 0.3 is zero, not an effect


def test_sign_flip_p_refuses_no_unit_and_more_than_it_enumerates():
    with pytest.raises(ValueError, match="1 to 16 units"):
        sign_flip_p([])
    with pytest.raises(ValueError, match="got 17"):
        sign_flip_p([0.1] * 17)


def test_sign_flip_interval_inverts_the_test_at_subset_means():
    # [1, 2, 3]: subset means 1, 1.5, 2, 2.5, 3. A shift in (2.5, 3) leaves differences like
    # (-1.75, -0.75, 0.25): 4 of 8 assignments reach |-2.25| (p 0.5); past 3 every sign is alike
    # (p 0.25, the floor); in (2, 2.5) p is 0.75.
    assert sign_flip_interval([1, 2, 3], alpha=0.3) == (1.0, 3.0)
    assert sign_flip_interval([1, 2, 3], alpha=0.5) == (1.5, 2.5)
    assert sign_flip_interval([1, 2, 3], alpha=0.2) is None  # floor 0.25: nothing is rejected


def test_sign_flip_interval_excludes_zero_exactly_when_the_test_rejects_it():
    rng = random.Random(0)
    for _ in range(200):
        differences = [rng.randint(-10, 6) / 8 for _ in range(rng.randint(5, 8))]
        alpha = rng.choice([0.05, 0.05 / 3, 0.1])
        interval = sign_flip_interval(differences, alpha)
        if interval is None:
            assert sign_flip_floor(len(differences)) > alpha
        elif 0.0 not in interval:
            assert (interval[0] < 0 < interval[1]) == (sign_flip_p(differences) > alpha)


def test_sign_flip_interval_reads_as_many_units_as_the_test_and_its_ends_are_where_p_crosses():
    # Sixteen seeds (65,536 assignments): one sweep over the subsets, then the test itself says the
    # ends are right: just inside each end p is above alpha, just outside it is not.
    rng = random.Random(16)
    differences = [rng.randint(-30, 10) / 48 for _ in range(MAX_SIGN_FLIP_UNITS)]
    alpha = 0.05 / 3
    low, high = sign_flip_interval(differences, alpha) or (math.nan, math.nan)
    assert low < sum(differences) / len(differences) < high

    def p_at(shift: float) -> float:
        return sign_flip_p([d - shift for d in differences])

    assert p_at(low + 1e-9) > alpha >= p_at(low - 1e-9)
    assert p_at(high - 1e-9) > alpha >= p_at(high + 1e-9)
    with pytest.raises(ValueError, match="got 17"):
        sign_flip_interval([0.1] * 17, alpha)
