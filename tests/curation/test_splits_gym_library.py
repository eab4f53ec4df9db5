"""The split plan over the real gym fixture library: closures, reservations, regimes."""

from __future__ import annotations

import json
from collections import defaultdict

from splits_mixture_factory import candidate

from trajectory_platform.curation.decontam import decontaminate
from trajectory_platform.curation.splits import (
    EXCLUDED,
    REGIMES,
    TEST,
    TRAIN,
    SplitPolicy,
    assign_splits,
    library_inputs,
    plan_splits,
)
from trajectory_platform.gym.library import build_library


def test_gym_library_plan_keeps_helper_closure_whole_and_measures_every_regime():
    fixtures = build_library(0)
    links, infos = library_inputs(fixtures)
    plan = plan_splits(links, infos, SplitPolicy(reserved_tool_families=("alias",)))
    helper_users = {f.repo_family for f in fixtures if "corelib" in f.depends_on}
    assert len(helper_users) >= 2
    assert len({plan.closure(family) for family in helper_users}) == 1
    splits_per_closure: dict[str, set[str]] = defaultdict(set)
    for info in infos:
        split = plan.fixture_split(info.fixture_id)
        if split != EXCLUDED:
            splits_per_closure[plan.closure(info.repo_family)].add(split)
    assert all(len(s) == 1 for s in splits_per_closure.values())
    test_regimes = {
        plan.regime(i.tool_family, i.domain) for i in infos if plan.fixture_split(i.fixture_id) == TEST
    }
    assert test_regimes == set(REGIMES)
    train = [i for i in infos if plan.fixture_split(i.fixture_id) == TRAIN]
    assert train and not any(i.tool_family == "alias" or i.domain in plan.reserved_domains for i in train)
    evaluation_ids = {f.fixture_id for f in plan.evaluation_fixtures()}
    assert evaluation_ids and not evaluation_ids & {i.fixture_id for i in train}


def test_replaying_an_evaluation_fixtures_plan_is_caught_by_the_action_axis():
    fixtures = build_library(0)
    links, infos = library_inputs(fixtures)
    plan = plan_splits(links, infos, SplitPolicy(reserved_tool_families=("alias",)))
    target = next(f for f in plan.evaluation_fixtures() if len(f.reference_actions) >= 4)
    host = next(i for i in infos if plan.fixture_split(i.fixture_id) == TRAIN)
    calls = [json_call(action) for action in target.reference_actions]
    leaky = candidate(
        "replay",
        fixture_id=host.fixture_id,
        repo_family=host.repo_family,
        tool_family=host.tool_family,
        domain=host.domain,
        prompt=host.prompt,
        actions=calls,
    )
    honest = candidate(
        "honest",
        fixture_id=host.fixture_id,
        repo_family=host.repo_family,
        tool_family=host.tool_family,
        domain=host.domain,
        prompt=host.prompt,
    )
    rows, report = decontaminate([leaky, honest], assign_splits([leaky, honest], plan), plan)
    assert rows[0].split == EXCLUDED and f"action_sequence: 100% of {target.fixture_id}" in rows[0].reason
    assert rows[1].split == TRAIN and report.by_axis == {"action_sequence": 1}


def json_call(action: str) -> tuple[str, dict]:
    """Back from ``name(canonical json)`` to the (tool, arguments) a trajectory would carry."""
    name, _, rest = action.partition("(")
    return name, json.loads(rest[:-1])


def test_the_default_plan_holds_out_one_learnable_family_and_trains_the_others():
    import pytest

    from trajectory_platform.curation.split_mixture_stage import SplitSettings

    library = build_library(0)
    links, infos = library_inputs(library)
    plan = plan_splits(links, infos, SplitSettings().policy())
    learnable = {f.fixture_id: f.repo_family for f in library if f.learnable}
    held_out = {family for fid, family in learnable.items() if plan.fixture_split(fid) == TEST}
    assert held_out == {"learn-delta"}
    trained = {family for fid, family in learnable.items() if plan.fixture_split(fid) == TRAIN}
    assert trained == {"learn-alpha", "learn-beta", "learn-gamma"}
    pinned = SplitSettings(pinned=("learn-gamma:validation",)).policy().pinned
    assert pinned == (("learn-gamma", "validation"),)
    with pytest.raises(ValueError, match="FAMILY:SPLIT"):
        SplitSettings(pinned=("learn-delta",)).policy()
