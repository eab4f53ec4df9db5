"""The split plan over brought task environments (issue 18: "every downstream stage treats both
alike: splits (repository families and closures), decontamination, evaluation suites").

Environments are real :class:`TaskEnvironment` values turned into fixtures as the registry serves
them; the gym library is the real one. The gym's plan must not move when environments join it
(its split table for gym-only data is pinned to the digest it had before environments were
planned), environment-only closures are planned by the same policy once there are enough of them,
and an environment placed in test is neither trained on nor missing from the evaluation pool.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json

import pyarrow as pa
import pytest
from splits_mixture_factory import gym_corpus

from trajectory_platform.cli import main
from trajectory_platform.curation.split_mixture_stage import (
    DEFAULT_SPLIT_POLICY,
    SplitSettings,
    mixture_stage,
    split_stage,
)
from trajectory_platform.curation.splits import (
    BELOW_MINIMUM,
    BRIDGES_SPLITS,
    EVALUATION_SPLITS,
    EXCLUDED,
    SPLITS,
    TEST,
    TRAIN,
    VALIDATION,
    plan_with_environments,
    reason_key,
)
from trajectory_platform.environments.format import TaskEnvironment
from trajectory_platform.evaluation.harness import held_out
from trajectory_platform.evaluation.settings import SuiteSpec
from trajectory_platform.gym.fixtures import Fixture, ReplaySpec
from trajectory_platform.gym.library import build_library
from trajectory_platform.gym.sandbox import unified_diff

BASH = {
    "name": "bash",
    "description": "Run a bash command in the repository root.",
    "parameters": {"type": "object", "properties": {"command": {"type": "string"}}, "required": ["command"]},
}
GYM_ONLY_SPLIT_DIGEST = "a74045be7fc0c0ee10106bcc54f3a494d4bb8a655bee474408a9418b8381c6cc"
"""sha256 of the split table (rows as sorted JSON) of ``gym_corpus(library[::3])`` under the default
policy, computed before environments were planned: the gym-only output must keep these bytes."""


def environment(index: int, family: str, *, depends_on: tuple[str, ...] = ()) -> Fixture:
    """A small real environment (own statement, module and fix per index) as the registry serves it."""
    name = f"mod{index}"
    buggy = f"def value_{index}():\n    return {index} - 1\n"
    s0 = {f"{name}/__init__.py": "", f"{name}/core.py": buggy}
    fixed = {**s0, f"{name}/core.py": buggy.replace(f"{index} - 1", f"{index} + 1")}
    test = (
        f"from {name}.core import value_{index}\n\n\n"
        f"def test_value():\n    assert value_{index}() == {index + 1}\n"
    )
    return TaskEnvironment(
        task_id=f"env-{index:02d}",
        statement=f"value_{index} in {family} returns {index - 1} where {index + 1} is expected; fix {name}.",
        repo_family=family,
        domain="bug_repair",
        license="MIT",
        tool_family="acme-shell",
        tools=[BASH],
        s0_files=s0,
        sealed_tests={f"tests/test_{name}.py": test},
        tests_dir="tests",
        fail_to_pass=[f"tests/test_{name}.py::test_value"],
        pass_to_pass=[],
        oracle_timeout_s=20.0,
        references=[unified_diff(s0, fixed)],
        replay=ReplaySpec(shell=True),
        depends_on=list(depends_on),
    ).fixture()


def own_families(count: int, per_family: int = 1) -> list[Fixture]:
    """``per_family`` environments in each of ``count`` families linked to nothing."""
    return [
        environment(f * per_family + i, f"org{f:02d}/proj") for f in range(count) for i in range(per_family)
    ]


@pytest.fixture(scope="module")
def library() -> list[Fixture]:
    return build_library(0)


def digest(table: pa.Table) -> str:
    return hashlib.sha256(json.dumps(table.to_pylist(), sort_keys=True, default=str).encode()).hexdigest()


def test_gym_only_split_output_keeps_its_bytes_and_environments_never_move_the_gym_plan(library):
    corpus, _ = gym_corpus(library[::3])
    gym_only = split_stage(corpus, library, DEFAULT_SPLIT_POLICY)
    assert digest(gym_only.table) == GYM_ONLY_SPLIT_DIGEST
    assert gym_only.summary["environments"]["registered"] == 0

    envs = own_families(12)
    with_envs = split_stage(corpus, library, DEFAULT_SPLIT_POLICY, environments=envs)
    assert digest(with_envs.table) == GYM_ONLY_SPLIT_DIGEST  # the same gym rows, the same bytes
    gym_closures = gym_only.plan.closure_split
    assert {c: with_envs.plan.closure_split[c] for c in gym_closures} == gym_closures
    assert with_envs.summary["environments"]["registered"] == 12


def test_environment_only_closures_take_the_policy_fractions_once_there_are_enough(library):
    policy = dataclasses.replace(DEFAULT_SPLIT_POLICY, min_environment_closures=10)
    envs = own_families(12, per_family=2)
    plan = plan_with_environments(library, envs, policy)
    env_split = {e.fixture_id: plan.fixture_split(e.fixture_id) for e in envs}
    assert set(env_split.values()) == {TRAIN, VALIDATION, TEST}
    # Whole families, whole closures: both environments of a family share its split.
    for first, second in zip(envs[::2], envs[1::2], strict=True):
        assert env_split[first.fixture_id] == env_split[second.fixture_id]
    assert sum(s == TRAIN for s in env_split.values()) > len(envs) / 2
    split, reason = plan.place(envs[0].repo_family, envs[0].tool_family, envs[0].domain)
    assert reason_key(reason) == "closure_assigned" and split == env_split[envs[0].fixture_id]
    # The plan is a function of the inputs, not of their order.
    again = plan_with_environments(list(reversed(library)), list(reversed(envs)), policy)
    assert again.closure_split == plan.closure_split and again.closure_of == plan.closure_of


def test_registering_more_environments_never_holds_out_a_family_that_trained(library):
    """The registry grows (feedback turns edits into environments); a family once trained on must
    never become evaluation evidence, and a held-out one moves only to train, never the reverse."""
    policy = dataclasses.replace(DEFAULT_SPLIT_POLICY, min_environment_closures=10)
    envs = own_families(30)
    before = None
    for count in range(10, 31, 4):
        plan = plan_with_environments(library, envs[:count], policy)
        now = {e.repo_family: plan.fixture_split(e.fixture_id) for e in envs[:count]}
        assert TEST in now.values() and VALIDATION in now.values()
        if before is not None:
            assert not [f for f, split in before.items() if split == TRAIN and now[f] != TRAIN]
            assert sum(before[f] != now[f] for f in before) <= 2  # only the at-least-one fallback moves
        before = now


def test_below_the_minimum_every_environment_family_trains_with_that_reason(library):
    envs = own_families(3)
    plan = plan_with_environments(library, envs, DEFAULT_SPLIT_POLICY)
    for env in envs:
        split, reason = plan.place(env.repo_family, env.tool_family, env.domain)
        assert split == TRAIN and reason_key(reason) == BELOW_MINIMUM
        assert f"{DEFAULT_SPLIT_POLICY.min_environment_closures} needed" in reason
    pinned = dataclasses.replace(
        DEFAULT_SPLIT_POLICY, pinned=(*DEFAULT_SPLIT_POLICY.pinned, ("org01/proj", TEST))
    )
    held = plan_with_environments(library, envs, pinned)
    assert held.fixture_split(envs[1].fixture_id) == TEST
    assert held.fixture_split(envs[0].fixture_id) == TRAIN
    # A gym-only reader of that policy plans the gym as ever; the split stage refuses the pin when
    # no registered environment has the family.
    gym = plan_with_environments(library, (), pinned)
    assert gym.closure_split == plan_with_environments(library, (), DEFAULT_SPLIT_POLICY).closure_split
    with pytest.raises(ValueError, match="org01/proj:test"):
        split_stage(gym_corpus(library[:1])[0], library, pinned)
    with pytest.raises(ValueError, match="nobody/proj"):
        plan_with_environments(
            library, envs, dataclasses.replace(DEFAULT_SPLIT_POLICY, pinned=(("nobody/proj", TEST),))
        )


def test_an_environment_linked_into_gym_closures_follows_them_or_is_excluded_when_they_disagree(library):
    gym = plan_with_environments(library, (), DEFAULT_SPLIT_POLICY)
    by_split: dict[str, str] = {}
    for family, closure_id in sorted(gym.closure_of.items()):
        by_split.setdefault(gym.closure_split[closure_id], family)
    test_family, train_family = by_split[TEST], by_split[TRAIN]
    follower = environment(1, "acme/uses-held-out-helper", depends_on=(test_family,))
    bridge = environment(2, "acme/bridge", depends_on=(test_family, train_family))
    plan = plan_with_environments(library, [follower], DEFAULT_SPLIT_POLICY)
    assert plan.fixture_split(follower.fixture_id) == TEST
    assert plan.closure(follower.repo_family) == gym.closure(test_family)
    assert plan.closure_split == {**gym.closure_split}  # no new closure, nothing moved
    # With the bridge beside it, the follower is transitively linked to train too: both excluded.
    plan = plan_with_environments(library, [follower, bridge], DEFAULT_SPLIT_POLICY)
    assert plan.fixture_split(follower.fixture_id) == EXCLUDED
    split, reason = plan.place(bridge.repo_family, bridge.tool_family, bridge.domain)
    assert split == EXCLUDED and reason_key(reason) == BRIDGES_SPLITS
    assert gym.closure(test_family) in reason and gym.closure(train_family) in reason
    assert bridge.fixture_id not in {f.fixture_id for f in plan.evaluation_fixtures()}
    # Environment families linked to each other share one closure, so one split.
    pair = [environment(3, "acme/app", depends_on=("acme/shared",)), environment(4, "acme/shared")]
    linked = plan_with_environments(library, pair, DEFAULT_SPLIT_POLICY)
    assert linked.closure("acme/app") == linked.closure("acme/shared") == "closure:acme/app"


@pytest.fixture(scope="module")
def staged(library):
    """A corpus over gym fixtures and 12 environment families (3 episodes each), split and mixed."""
    envs = own_families(12)
    policy = DEFAULT_SPLIT_POLICY
    plan = plan_with_environments(library, envs, policy)
    held = next(e for e in envs if plan.fixture_split(e.fixture_id) == TEST)
    corpus, _ = gym_corpus([*library[::6], *envs])
    mislabeled = next(r for r in corpus.to_pylist() if r["task"]["fixture_id"] == held.fixture_id)
    trained = next(e for e in envs if plan.fixture_split(e.fixture_id) == TRAIN)
    mislabeled = {
        **mislabeled,
        "episode_id": "mislabeled-held-out",
        "task": {**mislabeled["task"], "repo_family": trained.repo_family},
    }
    corpus = pa.concat_tables([corpus, pa.Table.from_pylist([mislabeled], schema=corpus.schema)])
    split = split_stage(corpus, library, policy, environments=envs)
    mixture = mixture_stage(corpus, split.table)
    return envs, held, corpus, split, mixture


def test_a_test_split_environment_is_never_trained_on_and_every_row_has_a_counted_reason(staged):
    envs, held, corpus, split, mixture = staged
    rows = {r["episode_id"]: r for r in split.table.to_pylist()}
    env_ids = {e.fixture_id for e in envs}
    env_rows = [r for r in rows.values() if r["fixture_id"] in env_ids]
    held_rows = [r for r in env_rows if r["fixture_id"] == held.fixture_id]
    # every episode of the held-out environment, the one whose log claims a training family too: a
    # planned fixture places its episodes by its own labels (it was caught later, by decontamination)
    assert "mislabeled-held-out" in {r["episode_id"] for r in held_rows}
    assert held_rows and all(r["split"] == TEST for r in held_rows)
    assert rows["mislabeled-held-out"]["repo_family"] == held.repo_family
    trained_fixtures = set(mixture.table.column("fixture_id").to_pylist())
    evaluated = {r["fixture_id"] for r in env_rows if r["split"] in EVALUATION_SPLITS}
    assert held.fixture_id in evaluated and not evaluated & trained_fixtures
    assert "mislabeled-held-out" not in set(mixture.table.column("episode_id").to_pylist())
    assert trained_fixtures & env_ids  # train-side environments do reach the mixture
    assert split.summary["straddling"] == {}
    by_reason = split.summary["assignments_by_reason"]
    assert sum(n for keys in by_reason.values() for n in keys.values()) == corpus.num_rows
    assert all(key != "other" for keys in by_reason.values() for key in keys)
    tally = split.tally()
    assert tally.records_in == corpus.num_rows == tally.kept + sum(tally.dropped.values())
    assert set(tally.dropped) <= {key for key in by_reason.get(EXCLUDED, {})}
    assert split.summary["environments"]["by_split"].get(TEST, 0) >= 1


def test_adding_an_episode_never_moves_a_family_and_the_evaluation_pool_reads_the_same_plan(staged, library):
    envs, held, corpus, split, _ = staged
    extra = {**corpus.to_pylist()[-2], "episode_id": "one-more-day"}
    grown = split_stage(
        pa.concat_tables([corpus, pa.Table.from_pylist([extra], schema=corpus.schema)]),
        library,
        DEFAULT_SPLIT_POLICY,
        environments=envs,
    )
    assert grown.plan.closure_split == split.plan.closure_split
    before = {r["episode_id"]: r["split"] for r in split.table.to_pylist()}
    after = {r["episode_id"]: r["split"] for r in grown.table.to_pylist()}
    assert {k: after[k] for k in before} == before
    pool = held_out(SuiteSpec(), library, SplitSettings().policy(), environments=envs)
    assert pool.environment_splits == {e.fixture_id: split.plan.fixture_split(e.fixture_id) for e in envs}
    assert held.fixture_id in {f.fixture_id for f, _ in pool.environments}
    assert set(pool.environment_splits.values()) <= set(SPLITS)


def test_the_split_cli_names_an_envs_folder_that_is_no_registry(tmp_path, capsys):
    (tmp_path / "envs").mkdir()
    code = main(
        [
            "split",
            str(tmp_path / "corpus.parquet"),
            "--out",
            str(tmp_path / "out"),
            "--envs",
            str(tmp_path / "envs"),
        ]
    )
    assert code == 2
    assert (
        f"--envs {tmp_path / 'envs'}: not an environment registry (no index.json)" in capsys.readouterr().err
    )
