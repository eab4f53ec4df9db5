"""Dagster: split_assignments, training_mixture and preference_pairs materialize into the warehouse,
their checks pass, and the issue's SQL over warehouse.duckdb finds no straddle and no leak."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
from dagster import asset, materialize
from splits_mixture_factory import gym_corpus

from trajectory_platform.assets.mixture import preference_pairs, split_assignments, training_mixture
from trajectory_platform.checks import mixture as mixture_checks
from trajectory_platform.gym.library import build_library
from trajectory_platform.resources import build_resources, warehouse_connection

CONFIG = {
    "ops": {
        "training_mixture": {"config": {"token_measure": "word_pieces"}},
        "preference_pairs": {"config": {"token_measure": "word_pieces"}},
    }
}


@asset(name="redacted_corpus")
def redacted_corpus_stand_in() -> pa.Table:
    """Stands in for the redaction stage: the documented upstream columns over real gym fixtures,
    every episode sampled by one policy (its digest written, as the gym's runtime writes it)."""
    corpus = gym_corpus(build_library(0)[::6])[0]
    rows = corpus.to_pylist()
    for row in rows:
        row["lineage"] = {**(row["lineage"] or {}), "sampler_policy_digest": "sha256:policy-a"}
    return pa.Table.from_pylist(rows, schema=corpus.schema)


def test_assets_materialize_with_checks_and_sql_finds_no_straddle_or_leak(tmp_path: Path):
    checks = [
        mixture_checks.no_closure_straddles_splits,
        mixture_checks.no_evaluation_fixture_in_train_split,
        mixture_checks.no_evaluation_fixture_in_training_mixture,
        mixture_checks.no_hard_negative_in_sft,
        mixture_checks.preference_pairs_share_prefix,
    ]
    result = materialize(
        [redacted_corpus_stand_in, split_assignments, training_mixture, preference_pairs, *checks],
        resources=build_resources(tmp_path),
        run_config=CONFIG,
    )
    assert result.success
    evaluations = result.get_asset_check_evaluations()
    assert len(evaluations) == 6 and all(e.passed for e in evaluations), [
        (e.check_name, e.metadata) for e in evaluations if not e.passed
    ]
    mixture_meta = result.asset_materializations_for_node("training_mixture")[0].metadata
    assert mixture_meta["within_bounds"].value is True
    assert mixture_meta["sampler_policy_digest"].value == "sha256:policy-a"  # what the checkpoint records
    table = result.output_for_node("training_mixture")
    # The reported tokens are the table's (the hard negatives' are reported apart: they are not in it).
    assert mixture_meta["selected_target_tokens"].value == sum(table["selected_target_tokens"].to_pylist())
    assert mixture_meta["preference_target_tokens"].value > 0
    split_meta = result.asset_materializations_for_node("split_assignments")[0].metadata
    assert "sizes_by_family_tool_domain" in split_meta and "leakage_rate" in split_meta
    with warehouse_connection(tmp_path / "warehouse.duckdb", read_only=True) as con:
        straddles = con.execute(
            "SELECT closure_id FROM split_assignments WHERE split IN ('train','validation','test') "
            "GROUP BY closure_id HAVING count(DISTINCT split) > 1"
        ).fetchall()
        leaks = con.execute(
            "SELECT m.episode_id FROM training_mixture m WHERE m.fixture_id IN ("
            "SELECT fixture_id FROM split_assignments "
            "WHERE split IN ('validation','test') OR fixture_split IN ('validation','test'))"
        ).fetchall()
        splits = dict(con.execute("SELECT split, count(*) FROM split_assignments GROUP BY split").fetchall())
        mixture_rows = con.execute("SELECT count(*) FROM training_mixture").fetchone()[0]
        pair_rows = con.execute("SELECT count(*) FROM preference_pairs").fetchone()[0]
    assert straddles == [] and leaks == []
    assert {"train", "validation", "test"} <= set(splits) and mixture_rows > 0 and pair_rows > 0


def test_blocking_checks_fail_on_a_straddling_or_leaking_table():
    rows = {
        "episode_id": ["a", "b", "c"],
        "fixture_id": ["fx-1", "fx-2", "fx-3"],
        "repo_family": ["fam", "fam", "other"],
        "closure_id": ["closure:fam", "closure:fam", "closure:other"],
        "tool_family": ["path"] * 3,
        "domain": ["bug_repair"] * 3,
        "split": ["train", "test", "train"],
        "fixture_split": ["train", "test", "test"],
        "regime": [None, "new_task_familiar_schema", None],
        "parent_episode_id": [None] * 3,
        "reason": ["hand-built"] * 3,
    }
    table = pa.table(rows)
    straddle = mixture_checks.no_closure_straddles_splits(table)
    assert not straddle.passed and straddle.metadata["straddling"].value == 2  # closure and family
    leak = mixture_checks.no_evaluation_fixture_in_train_split(table)
    assert not leak.passed and leak.metadata["leaked_rows"].value == 1  # c: its fixture is a test fixture


def test_shares_check_blocks_an_sft_mix_past_alpha_even_when_the_whole_budget_is_inside():
    """65/25/10 over the whole budget trains a 72/28 SFT mix: the check reads the SFT rows and
    blocks the downstream dataset."""
    table = pa.table({"role": ["pristine", "recovery"], "selected_target_tokens": [650, 250]})
    summary = {
        "within_bounds": True,  # what a whole-budget-only summary said before
        "declared": {},
        "bounds": {},
        "sft_bounds": {"pristine": [0.60, 0.70]},
        "realized_token_shares": {"pristine": 0.65, "recovery": 0.25, "hard_negative": 0.10},
        "realized_trajectory_shares": {},
    }
    verdict = mixture_checks.mixture_shares_result(table, summary)
    assert mixture_checks.MIXTURE_SHARES_CHECK.blocking
    assert not verdict.passed
    assert verdict.metadata["sft_token_shares"].value == {"pristine": 0.722222, "recovery": 0.277778}
    inside = pa.table({"role": ["pristine", "recovery"], "selected_target_tokens": [690, 310]})
    assert mixture_checks.mixture_shares_result(inside, summary).passed
