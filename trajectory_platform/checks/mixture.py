"""Checks on ``split_assignments``, ``training_mixture`` and ``preference_pairs``.

Blocking invariants are re-derived from the stored tables with SQL (DuckDB over Arrow), the same
queries a person runs against ``warehouse.duckdb``; they do not trust the code that built the
tables. The mixture-share check needs the hard-negative (γ) tokens, which live outside the SFT
table, so the asset reports it through :data:`MIXTURE_SHARES_CHECK`: the SFT shares from the table
it returns, the whole-budget shares from its summary.
"""

from __future__ import annotations

import duckdb
import pyarrow as pa
from dagster import AssetCheckResult, AssetCheckSeverity, AssetCheckSpec, AssetIn, MetadataValue, asset_check

from trajectory_platform.curation.mixture import PRISTINE
from trajectory_platform.curation.preferences import event_keys
from trajectory_platform.curation.split_mixture_stage import sft_token_shares
from trajectory_platform.traces.record import Episode

STRADDLE_SQL = """
SELECT key, list(DISTINCT split ORDER BY split) AS splits FROM (
    SELECT closure_id AS key, split FROM split_assignments WHERE split IN ('train', 'validation', 'test')
    UNION ALL
    SELECT 'family:' || repo_family, split FROM split_assignments
    WHERE split IN ('train', 'validation', 'test') AND repo_family IS NOT NULL
) GROUP BY key HAVING count(DISTINCT split) > 1 ORDER BY key
"""

EVALUATION_FIXTURES_SQL = """
SELECT DISTINCT fixture_id FROM split_assignments
WHERE fixture_id IS NOT NULL AND (split IN ('validation', 'test') OR fixture_split IN ('validation', 'test'))
"""

LEAKED_TRAIN_SQL = f"""
SELECT episode_id, fixture_id FROM split_assignments
WHERE split = 'train' AND fixture_id IN ({EVALUATION_FIXTURES_SQL}) ORDER BY episode_id
"""

MIXTURE_LEAK_SQL = f"""
SELECT m.episode_id, m.fixture_id, m.split FROM training_mixture AS m
LEFT JOIN split_assignments AS s USING (episode_id)
WHERE m.split <> 'train' OR s.split IS DISTINCT FROM 'train' OR m.fixture_id IN ({EVALUATION_FIXTURES_SQL})
ORDER BY m.episode_id
"""


def _query(sql: str, **tables: pa.Table) -> list[tuple]:
    con = duckdb.connect()
    try:
        for name, table in tables.items():
            con.register(name, table)
        return con.execute(sql).fetchall()
    finally:
        con.close()


@asset_check(
    asset="split_assignments",
    blocking=True,
    description="No repository family and no dependency closure appears in two of train / validation / test.",
)
def no_closure_straddles_splits(split_assignments: pa.Table) -> AssetCheckResult:
    found = _query(STRADDLE_SQL, split_assignments=split_assignments)
    return AssetCheckResult(
        passed=not found,
        metadata={
            "straddling": len(found),
            "examples": MetadataValue.json({key: list(splits) for key, splits in found[:10]}),
        },
    )


@asset_check(
    asset="split_assignments",
    blocking=True,
    description="No training row attempted an evaluation (validation or test) fixture.",
)
def no_evaluation_fixture_in_train_split(split_assignments: pa.Table) -> AssetCheckResult:
    found = _query(LEAKED_TRAIN_SQL, split_assignments=split_assignments)
    return AssetCheckResult(
        passed=not found,
        metadata={"leaked_rows": len(found), "examples": MetadataValue.json([list(r) for r in found[:10]])},
    )


@asset_check(
    asset="training_mixture",
    blocking=True,
    additional_ins={"split_assignments": AssetIn("split_assignments")},
    description="Training data holds only train-split rows and no evaluation fixture.",
)
def no_evaluation_fixture_in_training_mixture(
    training_mixture: pa.Table, split_assignments: pa.Table
) -> AssetCheckResult:
    found = _query(MIXTURE_LEAK_SQL, training_mixture=training_mixture, split_assignments=split_assignments)
    return AssetCheckResult(
        passed=not found,
        metadata={"leaked_rows": len(found), "examples": MetadataValue.json([list(r) for r in found[:10]])},
    )


@asset_check(
    asset="training_mixture",
    description="The SFT mix holds no hard negative (they go to preference data) and no empty target.",
)
def no_hard_negative_in_sft(training_mixture: pa.Table) -> AssetCheckResult:
    found = _query(
        "SELECT episode_id, role, selected_target_tokens FROM training_mixture "
        "WHERE role NOT IN ('pristine', 'recovery') OR destination <> 'sft' OR selected_target_tokens <= 0",
        training_mixture=training_mixture,
    )
    return AssetCheckResult(
        passed=not found,
        metadata={"bad_rows": len(found), "examples": MetadataValue.json([list(r) for r in found[:10]])},
    )


@asset_check(
    asset="preference_pairs",
    blocking=True,
    description="Every admitted pair shares its fixture, tools and every event before the branch, and "
    "branches at an assistant turn in both records (re-derived from the stored episodes).",
)
def preference_pairs_share_prefix(preference_pairs: pa.Table) -> AssetCheckResult:
    bad: list[str] = []
    for row in preference_pairs.to_pylist():
        chosen, rejected = Episode.from_dict(row["chosen"]), Episode.from_dict(row["rejected"])
        branch = row["branch_event_index"]
        keys_c, keys_r = event_keys(chosen), event_keys(rejected)
        same = (
            chosen.task.fixture_id == rejected.task.fixture_id == row["fixture_id"]
            and chosen.tools == rejected.tools
            and keys_c[:branch] == keys_r[:branch]
            and branch < min(len(keys_c), len(keys_r))
            and chosen.events[branch].kind == rejected.events[branch].kind == "assistant"
            and row["split"] == "train"
        )
        if not same:
            bad.append(row["pair_id"])
    return AssetCheckResult(
        passed=not bad, metadata={"pairs": preference_pairs.num_rows, "bad_pairs": bad[:10]}
    )


MIXTURE_SHARES_CHECK = AssetCheckSpec(
    "mixture_shares_within_bounds",
    asset="training_mixture",
    blocking=True,
    description="Selected-target-token shares: pristine in [0.60, 0.70] of the SFT rows the table holds "
    "(what SFT trains), and pristine in [0.60, 0.70], recovery in [0.20, 0.30], hard negatives at most "
    "0.20 of the pristine + recovery + hard-negative (preference) budget.",
)


def mixture_shares_result(training_mixture: pa.Table, summary: dict) -> AssetCheckResult:
    """The shares verdict. The SFT shares are re-derived from the stored table (the mix SFT trains);
    the hard-negative tokens live outside it, so the whole-budget shares come from the summary."""
    sft = sft_token_shares(training_mixture)
    (low, high) = summary["sft_bounds"][PRISTINE]
    sft_ok = low <= sft.get(PRISTINE, 0.0) <= high
    return AssetCheckResult(
        check_name=MIXTURE_SHARES_CHECK.name,
        asset_key="training_mixture",
        passed=bool(summary["within_bounds"]) and sft_ok,
        severity=AssetCheckSeverity.ERROR,
        metadata={
            "declared": MetadataValue.json(summary["declared"]),
            "bounds": MetadataValue.json(summary["bounds"]),
            "sft_bounds": MetadataValue.json(summary["sft_bounds"]),
            "sft_token_shares": MetadataValue.json(sft),
            "realized_token_shares": MetadataValue.json(summary["realized_token_shares"]),
            "realized_trajectory_shares": MetadataValue.json(summary["realized_trajectory_shares"]),
        },
    )
