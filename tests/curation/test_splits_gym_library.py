"""The split plan over the real gym fixture library: closures, reservations, regimes."""

from __future__ import annotations

from collections import defaultdict

from trajectory_platform.curation.splits import (
    EXCLUDED,
    REGIMES,
    TEST,
    TRAIN,
    SplitPolicy,
    library_inputs,
    plan_splits,
)
from trajectory_platform.gym.fixtures import build_library


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
