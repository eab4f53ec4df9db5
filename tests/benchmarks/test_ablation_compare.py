"""The ablation's reading (benchmarks/ablation/compare.py): trials paired over gated seeds, only the
comparison's suite and regime counted, unresolved when no seed passes the gate; the gate reads the
reference's familiar-schema acceptance only."""

from __future__ import annotations

import random
from types import SimpleNamespace

import pytest
from ablation.compare import (
    CLAIMS,
    COMPARISONS,
    REFERENCE,
    claim_variants,
    compare,
    competence,
    read_ablation,
    summaries,
)

from trajectory_platform.evaluation.calls import ScoredCall
from trajectory_platform.evaluation.episodes import EpisodeMeasure


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
    assert row["seed_level"] == {
        "per_seed": {"0": 0.5},
        "mean": 0.5,
        "p_value": 1.0,
        "smallest_p": 1.0,
        "interval": None,
    }


def test_compare_is_unresolved_without_a_gated_seed():
    row = compare({("selected", 0): [_trial(True)]}, COMPARISONS[0], gated=[], alpha=0.05)
    assert row == {**row, "resolved": False, "reason": "no seed passed the competence gate"}


def test_the_competence_gate_reads_the_references_familiar_schema_acceptance_only():
    runs = {
        # Seed 0 solves every renamed item and one familiar item of four: renamed items measure
        # ablation B and must not carry a seed over the gate.
        ("selected", 0): [_trial(True, "renamed")] * 8 + [_trial(True)] + [_trial(False)] * 3,
        # Seed 1 solves half the familiar items; its recovery trials do not count either.
        ("selected", 1): [_trial(True), _trial(False), _trial(False, suite="recovery")] * 2,
        ("augmented", 1): [_trial(True)],
    }
    gate = competence(runs, seeds=(0, 1), gate=0.3)
    assert gate["familiar_acceptance"] == {"0": 0.25, "1": 0.5}
    assert gate["gated_seeds"] == [1] and gate["not_resolved_seeds"] == [0]


def test_the_competence_gate_refuses_a_reference_without_familiar_items():
    with pytest.raises(ValueError, match="familiar-schema"):
        competence({("selected", 0): [_trial(True, "renamed")]}, seeds=(0,), gate=0.1)


def test_pre_charges_each_variant_for_the_keys_its_own_training_data_declares():
    """A renamed-schema call that recalls a name only the augmented copies taught counts against
    the augmented variant (its table declares that key), not against the reference (whose table
    never had it): the same key set ``make run``'s dataset manifest declares."""
    schema = {"properties": {"doc": {"type": "string"}}, "required": ["doc"], "type": "object"}
    call = ScoredCall("cat", {"doc": "a.py", "shelf": "x"}, {"cat": schema}, regime="renamed")
    fields = dict(item_id="i", fixture_id="f", suite="acceptance", regime="renamed", seed=0)
    counts = dict(turns=2, call_turns=1, fabricated_turns=0, runaway_turns=0, faults_fired=0)
    measure = EpisodeMeasure(
        **fields, **counts, task_kind="report_value", accepted=False, terminal_status="completed",
        fault_kinds=[], generated_tokens=9, input_tokens=9, wall_s=0.1, calls=[call],
    )  # fmt: skip
    runs = {("selected", 0): [measure], ("augmented", 0): [measure]}
    keys = {"selected": {"file_path", "match"}, "augmented": {"file_path", "match", "shelf"}}
    rows = summaries(runs, keys)
    assert rows["selected-0"]["pre"]["renamed"] == 0.0
    assert rows["augmented-0"]["pre"]["renamed"] == 1.0


def _measure(rng: random.Random, suite: str, regime: str) -> EpisodeMeasure:
    faults = ["timeout"] if suite == "recovery" else []
    return EpisodeMeasure(
        item_id="i", fixture_id="f", suite=suite, regime=regime, seed=0, task_kind="report_value",
        accepted=rng.random() < 0.5, terminal_status="completed", fault_kinds=faults,
        faults_fired=int(bool(faults) and rng.random() < 0.7), turns=2, call_turns=1, fabricated_turns=0,
        runaway_turns=0, generated_tokens=9, input_tokens=9, wall_s=0.1,
    )  # fmt: skip


def test_a_comparisons_summary_column_holds_exactly_its_trials_rate_per_seed():
    """Pooling reads an older result per seed from its variant table (``summary_column``): that is
    right only if the scorecard's column is the rate of exactly the comparison's trials."""
    rng = random.Random(7)
    kinds = (
        [("acceptance", "familiar")] * 9 + [("acceptance", "renamed")] * 5 + [("recovery", "familiar")] * 6
    )
    runs = {
        (v, s): [_measure(rng, *k) for k in kinds]
        for v in {c.variant for c in COMPARISONS} | {REFERENCE}
        for s in (0, 1)
    }
    rows = summaries(runs, {v: set() for v, _ in runs})
    derived = [c for c in COMPARISONS if c.summary_column]
    assert {c.summary_column for c in derived} == {"acceptance", "recovery"}
    for comparison in derived:
        per_seed = compare(runs, comparison, gated=[0, 1], alpha=0.05)["seed_level"]["per_seed"]
        column = comparison.summary_column
        assert per_seed == {
            str(s): rows[f"{comparison.variant}-{s}"][column] - rows[f"{REFERENCE}-{s}"][column]
            for s in (0, 1)
        }


def test_each_claim_trains_the_reference_and_the_variants_its_comparisons_read():
    assert claim_variants("C") == {REFERENCE, "recovery"}
    assert claim_variants("B") == {REFERENCE, "augmented"}
    assert claim_variants("A") == {REFERENCE, "all_token", "compute_matched"}
    assert claim_variants(CLAIMS) == {REFERENCE} | {c.variant for c in COMPARISONS}
    for bad in ("", "D", "CX"):
        with pytest.raises(ValueError, match="claims are some of A, B, C"):
            claim_variants(bad)


def test_a_run_of_one_claim_reads_only_its_comparisons_as_their_own_family():
    """A replication planned for (C) alone is (C)'s own test at 0.05, not a third of it, and its
    comparisons are exactly the ones the full run reads for (C), on the same trials."""
    rng = random.Random(3)
    kinds = (
        [("acceptance", "familiar")] * 8 + [("acceptance", "renamed")] * 4 + [("recovery", "familiar")] * 6
    )
    runs = {(v, s): [_measure(rng, *k) for k in kinds] for v in claim_variants(CLAIMS) for s in (0, 1)}
    keys = {v: set() for v, _ in runs}
    whole = read_ablation(runs, (0, 1), gate=0.0, keys=keys)
    only_c = read_ablation(
        {k: v for k, v in runs.items() if k[0] in claim_variants("C")},
        (0, 1),
        gate=0.0,
        keys=keys,
        claims="C",
    )
    assert (whole["claims"], whole["bonferroni_alpha"]) == ("ABC", pytest.approx(0.05 / 3))
    assert (only_c["claims"], only_c["bonferroni_alpha"]) == ("C", 0.05)
    assert [c["ablation"] for c in only_c["comparisons"]] == ["C"]
    at_05 = compare(runs, next(c for c in COMPARISONS if c.ablation == "C"), gated=[0, 1], alpha=0.05)
    assert only_c["comparisons"] == [at_05]
    assert sorted(only_c["variants"]) == ["recovery-0", "recovery-1", "selected-0", "selected-1"]
