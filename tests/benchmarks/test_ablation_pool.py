"""Pooling ablation results over disjoint seeds (benchmarks/ablation/compare.py ``pool``, and
``ablations.py --pool``): two runs of one recipe read as one experiment give exactly what one run
over every seed reports, and results that are not one experiment are refused with the reason."""

from __future__ import annotations

import json
import random
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import ablations
import pytest
from ablation.compare import (
    COMPARISONS,
    POOLED_RECIPE,
    REFERENCE,
    SUMMARY_COLUMNS,
    UNRECORDED_RECIPE,
    compare,
    competence,
    pool,
)
from ablation.run import VARIANTS

from trajectory_platform.evaluation.stats import bonferroni_alpha

ALPHA = bonferroni_alpha(0.05, 3)
RECIPE: dict[str, Any] = {
    "tier": "full",
    "steps": 3000,
    "batch": 8,
    "lr": 3e-3,
    "episodes": 48,
    "recovery_episodes": 24,
    "claims": "ABC",
    "preamble_warmup_steps": 2000,
    "tasks": 4000,
    "gate": 0.3,
    "max_new_tokens": 83,
    "max_generated_tokens": 460,
    "bonferroni_alpha": ALPHA,
}


def _trials(rng: random.Random) -> list[SimpleNamespace]:
    """One run's trials in every suite and regime a comparison reads, outcomes drawn at random."""
    suites = [("acceptance", "familiar")] * 8 + [("acceptance", "renamed")] * 4
    suites += [("recovery", "familiar")] * 4
    return [
        SimpleNamespace(
            suite=suite,
            regime=regime,
            accepted=rng.random() < 0.5,
            recovered=rng.random() < 0.3,
            fabricated_turns=int(rng.random() < 0.2),
            calls=[],
        )
        for suite, regime in suites
    ]


RUNS = {(v, s): _trials(random.Random(f"{v}-{s}")) for v in VARIANTS for s in range(4)}
for _trial in RUNS[(REFERENCE, 1)]:  # seed 1's reference misses the gate: its seed is not compared
    _trial.accepted = False


def _row(variant: str, seed: int) -> dict[str, Any]:
    """A variant's summary row: pooling merges the rows and reads only the rates that hold a
    comparison's trials (acceptance, recovery) when a result lacks its per-seed differences."""

    def rate(suite: str, outcome: str) -> float:
        trials = [getattr(m, outcome) for m in RUNS[(variant, seed)] if m.suite == suite]
        return sum(trials) / len(trials)

    row = {**{c: 0.5 for c in SUMMARY_COLUMNS}, "sfa": {"renamed": 0.0}, "pre": {"renamed": 1.0}}
    return {**row, "acceptance": rate("acceptance", "accepted"), "recovery": rate("recovery", "recovered")}


def _result(seeds: tuple[int, ...], **recipe: Any) -> dict[str, Any]:
    """What ``--full`` writes for ``seeds`` (the variant table left out: pooling only merges it)."""
    gate = competence(RUNS, seeds, recipe.get("gate", RECIPE["gate"]))
    return {
        **RECIPE,
        **recipe,
        **gate,
        "variants": {f"{v}-{s}": _row(v, s) for v in VARIANTS for s in seeds},
        "comparisons": [compare(RUNS, c, gate["gated_seeds"], ALPHA) for c in COMPARISONS],
    }


def test_pooled_seeds_read_exactly_as_one_run_over_every_seed():
    one_run = _result((0, 1, 2, 3))
    assert one_run["gated_seeds"] and one_run["not_resolved_seeds"]  # the gate drops some seeds
    pooled = pool([_result((0, 1)), _result((2, 3))])
    assert pooled["comparisons"] == one_run["comparisons"]
    assert pooled["pooled_seeds"] == [0, 1, 2, 3]
    for key in ("familiar_acceptance", "gated_seeds", "not_resolved_seeds", "variants"):
        assert pooled[key] == one_run[key]
    assert {k: pooled[k] for k in POOLED_RECIPE} == RECIPE
    acceptance = pooled["comparisons"][0]["seed_level"]  # read per seed too, over the union
    assert sorted(acceptance["per_seed"]) == ["0", "2", "3"] and acceptance["smallest_p"] == 2 / 8


def test_a_result_written_without_per_seed_differences_is_read_per_seed_from_its_variant_table():
    older = _result((2, 3))
    older["comparisons"] = [{k: v for k, v in c.items() if k != "seed_level"} for c in older["comparisons"]]
    pooled = pool([_result((0, 1)), older])
    one_run = _result((0, 1, 2, 3))["comparisons"]
    assert [c["n"] for c in pooled["comparisons"]] == [c["n"] for c in one_run]
    for comparison, pooled_comparison, expected in zip(
        COMPARISONS, pooled["comparisons"], one_run, strict=True
    ):
        if comparison.summary_column:  # acceptance, recovery: the variant table holds each seed's rate
            assert pooled_comparison["seed_level"] == expected["seed_level"]
        else:  # fabrication, renamed-schema readings: pooled over trials only, as the older result was
            assert "seed_level" not in pooled_comparison


def test_a_result_whose_seeds_all_missed_the_gate_adds_nothing():
    missed, kept = _result((1,)), _result((0, 2))
    assert missed["gated_seeds"] == [] and all(not c["resolved"] for c in missed["comparisons"])
    pooled = pool([kept, missed])
    assert pooled["comparisons"] == kept["comparisons"] and pooled["not_resolved_seeds"] == [1]


def _unrecorded(result: dict[str, Any]) -> dict[str, Any]:
    """``result`` as ``--full`` wrote it before recording the learning rate, episodes and claims."""
    return {k: v for k, v in result.items() if k not in UNRECORDED_RECIPE}


def test_a_result_that_predates_recording_lr_and_episodes_is_read_at_the_values_of_its_day():
    pooled = pool([_unrecorded(_result((0, 1))), _result((2, 3))])
    assert {k: pooled[k] for k in UNRECORDED_RECIPE} == UNRECORDED_RECIPE
    assert UNRECORDED_RECIPE == {"lr": 3e-3, "episodes": 48, "recovery_episodes": 24, "claims": "ABC"}


@pytest.mark.parametrize(
    ("results", "reason"),
    [
        ([_result((0, 1))], "at least two"),
        ([_result((0, 1)), _result((1, 2))], "share a seed"),
        ([_result((0, 1)), _result((2, 3), steps=2000)], "differ in 'steps'"),
        ([_result((0, 1)), _result((2, 3), lr=1e-3)], "differ in 'lr'"),
        ([_unrecorded(_result((0, 1))), _result((2, 3), lr=1e-3)], "differ in 'lr'"),  # read as 3e-3
        ([_result((0, 1)), _result((2, 3), episodes=24)], "differ in 'episodes'"),
        ([_result((0, 1)), _result((2, 3), recovery_episodes=48)], "differ in 'recovery_episodes'"),
        ([_unrecorded(_result((0, 1))), _result((2, 3), claims="C")], "differ in 'claims'"),
        ([_result((0, 1)), {**RECIPE, "familiar_acceptance": {"2": 0.0}}], "without comparisons"),
        (
            [_result((0, 1)), {**_result((2, 3)), "comparisons": _result((2, 3))["comparisons"][:2]}],
            "different variants",
        ),
    ],
)
def test_results_that_are_not_one_experiment_are_refused(results: list[dict[str, Any]], reason: str):
    with pytest.raises(ValueError, match=reason):
        pool(results)


def _pool_cli(capsys: pytest.CaptureFixture[str], *paths: Path) -> tuple[int, str, str]:
    """``ablations.py --pool PATHS`` as a user runs it (parser, printing, exit status), in this
    process: the script's own import of torch and transformers would cost seconds a call."""
    try:
        status = ablations.main(["--pool", *map(str, paths)])
    except SystemExit as exit_:  # argparse's error: the usage line and the reason on stderr
        status = int(exit_.code or 0)
    out, err = capsys.readouterr()
    return status, out, err


def test_the_pool_command_prints_the_pooled_json_and_names_what_it_refuses(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
):
    first, second, broken = tmp_path / "a.json", tmp_path / "b.json", tmp_path / "broken.json"
    first.write_text(json.dumps(_result((0, 1))))
    second.write_text(json.dumps(_result((2, 3))))
    broken.write_text("{not json")
    status, out, err = _pool_cli(capsys, first, second)
    assert status == 0, err
    pooled = json.loads(out.strip().splitlines()[-1])
    assert pooled["comparisons"] == json.loads(json.dumps(_result((0, 1, 2, 3))["comparisons"]))
    assert f'"reference": "{REFERENCE}"' in err  # each comparison printed for a person
    status, _, err = _pool_cli(capsys, first, first)
    assert status == 2 and "share a seed" in err
    status, _, err = _pool_cli(capsys, first, broken)
    assert status == 2 and f"{broken}: not a readable result JSON" in err
