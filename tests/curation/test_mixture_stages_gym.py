"""The three curation III stages on a corpus over real gym fixtures: splits, mixture, pairs."""

from __future__ import annotations

import json

import pyarrow as pa
import pytest
from splits_mixture_factory import gym_corpus

from trajectory_platform.curation.mixture import NEGATIVE, PRISTINE, RECOVERY, MixturePolicy
from trajectory_platform.curation.split_mixture_stage import (
    mixture_stage,
    preference_stage,
    sft_token_shares,
    split_stage,
)
from trajectory_platform.curation.splits import REGIMES, SplitPolicy
from trajectory_platform.gym.library import build_library

POLICY = SplitPolicy(reserved_tool_families=("alias",))


@pytest.fixture(scope="module")
def staged():
    library = build_library(0)
    sample = library[::4]
    corpus, _ = gym_corpus(sample)
    rows = corpus.to_pylist()
    first = split_stage(corpus, library, POLICY)
    test_row = next(
        r for r in first.table.to_pylist() if r["split"] == "test" and r["episode_id"].startswith("pri")
    )
    train_row = next(
        r for r in first.table.to_pylist() if r["split"] == "train" and r["episode_id"].startswith("pri")
    )
    source = next(r for r in rows if r["episode_id"] == test_row["episode_id"])
    host = next(r for r in rows if r["episode_id"] == train_row["episode_id"])
    # A schema-augmented copy of a test trajectory whose family label says a training family.
    derived = {
        **source,
        "episode_id": "augmented-copy",
        "task": {**source["task"], "repo_family": host["task"]["repo_family"], "tool_family": "renamed"},
        "extra_json": json.dumps({"parent_episode_id": source["episode_id"]}),
    }
    # A train-fixture trajectory whose task statement is a test fixture's, verbatim.
    leaky = {
        **host,
        "episode_id": "leaky-prompt",
        "task": {**host["task"], "prompt": source["task"]["prompt"]},
    }
    corpus = pa.concat_tables([corpus, pa.Table.from_pylist([derived, leaky], schema=corpus.schema)])
    split = split_stage(corpus, library, POLICY)
    mixture = mixture_stage(corpus, split.table)
    pairs = preference_stage(corpus, split.table)
    return corpus, split, mixture, pairs


def test_split_stage_accounts_every_row_and_keeps_closures_whole(staged):
    corpus, split, _, _ = staged
    table = split.table.to_pylist()
    assert len(table) == corpus.num_rows == len({r["episode_id"] for r in table})
    assert split.summary["straddling"] == {}
    assert {r["regime"] for r in table if r["split"] == "test"} == set(REGIMES)
    assert not any(r["tool_family"] == "alias" for r in table if r["split"] in ("train", "validation"))
    sizes = split.summary["sizes"]
    assert set(sizes["train"]) >= {"repo_family", "tool_family", "domain"}


def test_derived_record_inherits_test_and_leaky_prompt_is_excluded(staged):
    _, split, _, _ = staged
    rows = {r["episode_id"]: r for r in split.table.to_pylist()}
    assert rows["augmented-copy"]["split"] == "test"
    assert rows["augmented-copy"]["parent_episode_id"]
    assert rows["leaky-prompt"]["split"] == "excluded"
    assert "task_ngram" in rows["leaky-prompt"]["reason"]
    # The templated boilerplate shared by every gym prompt does not flag honest trajectories.
    decon = split.summary["decontamination"]
    assert decon["leaked"] == 1 and 0 < decon["leakage_rate"] < 0.05


def test_mixture_stage_realizes_bounded_token_shares_on_train_only(staged):
    _, split, mixture, _ = staged
    summary = mixture.summary
    shares = summary["realized_token_shares"]
    assert summary["within_bounds"], summary
    assert 0.60 <= shares[PRISTINE] <= 0.70 and 0.20 <= shares[RECOVERY] <= 0.30
    assert shares[NEGATIVE] == pytest.approx(0.10, abs=0.03)
    table = mixture.table
    # The bound holds on the SFT rows the table really holds, not only over the whole budget.
    assert sft_token_shares(table) == summary["realized_sft_token_shares"]
    assert 0.60 <= summary["realized_sft_token_shares"][PRISTINE] <= 0.70
    split_of = {r["episode_id"]: r["split"] for r in split.table.to_pylist()}
    assert table.num_rows > 0 and all(split_of[e] == "train" for e in table["episode_id"].to_pylist())
    assert set(table["role"].to_pylist()) == {PRISTINE, RECOVERY}
    recovery = next(r for r in table.to_pylist() if r["role"] == RECOVERY)
    assert recovery["t_div"] not in recovery["target_turns"]  # the erroneous proposal stays context
    assert summary["considered"] == summary["selected"] + sum(summary["dropped"].values())


def test_preference_stage_pairs_pass_over_fail_on_shared_prefix(staged):
    _, split, mixture, pairs = staged
    table = pairs.table.to_pylist()
    assert table, pairs.summary
    assert {r["rule"] for r in table} == {"pass_vs_fail", "lower_cost"}
    assert all(r["split"] == "train" for r in table)
    for r in table:
        branch = r["branch_event_index"]
        assert r["chosen"]["events"][:branch] == r["rejected"]["events"][:branch]
        if r["rule"] == "pass_vs_fail":
            assert r["rejected_episode_id"].startswith("hard_negative:")
            # pristine and the negative share the first read; recovery leaves at its first call.
            assert branch == (4 if r["chosen_episode_id"].startswith("pristine:") else 2)
        else:
            # A pristine pass beats the recovery pass that detoured through a missing file.
            assert r["chosen_episode_id"].startswith("pristine:") and r["rejected_episode_id"].startswith(
                "recovery:"
            )
            assert r["chosen_cost_calls"] < r["rejected_cost_calls"] and branch == 2
    routed = {r.episode_id for r in mixture.mixture.rows if r.destination == "preference"}
    assert {r["rejected_episode_id"] for r in table if r["rule"] == "pass_vs_fail"} <= routed
    assert (
        pairs.summary["pairs_considered"] == pairs.summary["pairs_admitted"] + pairs.summary["pairs_refused"]
    )


def test_stages_are_deterministic(staged):
    corpus, split, mixture, pairs = staged
    library = build_library(0)
    again = split_stage(corpus, library, POLICY)
    assert again.table.equals(split.table)
    assert mixture_stage(corpus, again.table).table.equals(mixture.table)
    assert preference_stage(corpus, again.table).table.equals(pairs.table)


def test_pair_pool_caps_distinct_passes_per_fixture_so_pairs_stop_growing():
    # Every repeat adds a distinct recovery pass (its missing file differs) and an identical pristine
    # pass per fixture: without the cap the pool, and the pairs with the square of it, grow with the
    # corpus; with it, four times the episodes give the same pool and at most the cap per fixture.
    library = build_library(0)
    policy = MixturePolicy(pair_passes_per_fixture=3)
    summaries, passes_by_fixture = {}, {}
    for repeats in (2, 8):
        corpus, _ = gym_corpus(library[::8], per_fixture_repeats=repeats)
        split = split_stage(corpus, library, POLICY)
        pairs = preference_stage(corpus, split.table, policy)
        summaries[repeats] = pairs.summary
        used: dict[str, set[str]] = {}
        for row in pairs.table.to_pylist():
            for side in ("chosen_episode_id", "rejected_episode_id"):
                if not row[side].startswith("hard_negative:"):
                    used.setdefault(row["fixture_id"], set()).add(row[side])
        passes_by_fixture[repeats] = max(len(ids) for ids in used.values())
    small, large = summaries[2], summaries[8]
    assert large["pool"] == small["pool"] and large["pairs_considered"] == small["pairs_considered"]
    assert max(passes_by_fixture.values()) <= 3
    left_out = large["passes_left_out_of_pool"]
    assert left_out["fixture_cap"] > small["passes_left_out_of_pool"].get("fixture_cap", 0)
    assert left_out["duplicate_action_sequence"] > 0  # the repeated pristine passes
