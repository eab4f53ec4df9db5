"""The ablation's reading (benchmarks/ablation/compare.py): trials paired over gated seeds, only the
comparison's suite and regime counted, unresolved when no seed passes the gate."""

from __future__ import annotations

from types import SimpleNamespace

from ablation.compare import COMPARISONS, compare


def _trial(accepted: bool, regime: str = "familiar", suite: str = "acceptance") -> SimpleNamespace:
    return SimpleNamespace(accepted=accepted, regime=regime, suite=suite)


def test_compare_pairs_trials_of_the_gated_seeds_in_the_comparison_suite_and_regime():
    renamed_acceptance = next(c for c in COMPARISONS if c.metric == "renamed_acceptance")
    runs = {
        ("selected", 0): [_trial(True, "renamed"), _trial(False, "renamed"), _trial(True)],
        ("augmented", 0): [_trial(True, "renamed"), _trial(True, "renamed"), _trial(False)],
        ("selected", 1): [_trial(True, "renamed")] * 3,
        ("augmented", 1): [_trial(False, "renamed")] * 3,
    }
    row = compare(runs, renamed_acceptance, gated=[0], alpha=0.05)  # seed 1 missed the gate
    assert row["resolved"] and row["gated_seeds"] == [0]
    assert row["n"] == 2 and row["candidate_only"] == 1 and row["baseline_only"] == 0


def test_compare_is_unresolved_without_a_gated_seed():
    row = compare({("selected", 0): [_trial(True)]}, COMPARISONS[0], gated=[], alpha=0.05)
    assert row == {**row, "resolved": False, "reason": "no seed passed the competence gate"}
