"""Split hygiene on the gym fixture library: random task-level splits vs repository-family closures.

Curation table 17 contrasts three partition boundaries; napkin math 0.6 prices the difference with
equation 4. This benchmark splits the real fixture library three ways and measures, for each, the
LeakageRate a post-hoc audit would purge (training fixtures whose dependency closure, reserved tool
family or reserved domain also appears on the evaluation side) and the resulting C_usable, using the
seed's costs ($27.50 per 20 accepted trajectories):

- ``task_random``: fixtures shuffled and cut 80/10/10 (table 17 "task-level random");
- ``family_no_closure``: whole repository families, but ignoring shared helpers and forks;
- ``closure_reserved`` (ours): :func:`trajectory_platform.curation.splits.plan_splits`.

Run: ``.venv/bin/python benchmarks/split_hygiene.py``; the last line is a JSON object.
"""

from __future__ import annotations

import json
import random
from collections import defaultdict

from trajectory_platform.curation.decontam import c_usable
from trajectory_platform.curation.splits import (
    EVALUATION_SPLITS,
    EXCLUDED,
    TRAIN,
    FamilyLinks,
    SplitPolicy,
    family_closures,
    library_inputs,
    plan_splits,
)
from trajectory_platform.gym.library import build_library

COST_PER_ACCEPTED = 27.50 / 20  # napkin math 0.6


def _random_split(keys: list[str], seed: int) -> dict[str, str]:
    shuffled = sorted(keys)
    random.Random(seed).shuffle(shuffled)
    n = len(shuffled)
    cut_train, cut_val = int(0.8 * n), int(0.9 * n)
    return {
        k: ("train" if i < cut_train else "validation" if i < cut_val else "test")
        for i, k in enumerate(shuffled)
    }


def _leakage(
    infos, split_of_fixture: dict[str, str], closure_of: dict[str, str], reserved: tuple[set, set]
) -> dict:
    """Audit: a training fixture leaks when its closure, or a reserved tool family / domain it uses,
    also appears on the evaluation side."""
    eval_closures, eval_tools, eval_domains = set(), set(), set()
    for info in infos:
        if split_of_fixture[info.fixture_id] in EVALUATION_SPLITS:
            eval_closures.add(closure_of[info.repo_family])
            eval_tools.add(info.tool_family)
            eval_domains.add(info.domain)
    reserved_tools, reserved_domains = reserved
    train = [i for i in infos if split_of_fixture[i.fixture_id] == TRAIN]
    reasons: dict[str, int] = defaultdict(int)
    leaked = 0
    for info in train:
        hits = []
        if closure_of[info.repo_family] in eval_closures:
            hits.append("closure")
        if info.tool_family in reserved_tools & eval_tools:
            hits.append("reserved_tool_family")
        if info.domain in reserved_domains & eval_domains:
            hits.append("reserved_domain")
        for hit in hits:
            reasons[hit] += 1
        leaked += bool(hits)
    rate = leaked / len(train) if train else 0.0
    return {
        "train_fixtures": len(train),
        "excluded_fixtures": sum(1 for s in split_of_fixture.values() if s == EXCLUDED),
        "leaked": leaked,
        "leakage_rate": round(rate, 4),
        "by_reason": dict(sorted(reasons.items())),
        # Every training trajectory purged: no usable data at any cost (eq. 4 is undefined at 1).
        "c_usable": round(c_usable(COST_PER_ACCEPTED * len(train), 0, 0, len(train), rate), 4)
        if train and rate < 1
        else None,
    }


def main() -> None:
    fixtures = build_library(0)
    links, infos = library_inputs(fixtures)
    policy = SplitPolicy(reserved_tool_families=("alias",))
    plan = plan_splits(links, infos, policy)
    closure_of = family_closures([*links, *(FamilyLinks(i.repo_family) for i in infos)])
    reserved = (set(plan.reserved_tool_families), set(plan.reserved_domains))

    task_random = _random_split([i.fixture_id for i in infos], seed=0)
    family_split = _random_split(sorted({i.repo_family for i in infos}), seed=0)
    family_no_closure = {i.fixture_id: family_split[i.repo_family] for i in infos}
    ours = {i.fixture_id: plan.fixture_split(i.fixture_id) for i in infos}

    results = {
        "task_random": _leakage(infos, task_random, closure_of, reserved),
        "family_no_closure": _leakage(infos, family_no_closure, closure_of, reserved),
        "closure_reserved": _leakage(infos, ours, closure_of, reserved),
    }
    base = results["closure_reserved"]["c_usable"]
    print(
        f"{'strategy':<20} {'train':>6} {'leaked':>7} {'LeakageRate':>12} {'C_usable $':>11} {'vs ours':>8}"
    )
    for name, row in results.items():
        ratio = row["c_usable"] / base if base and row["c_usable"] else None
        row["c_usable_vs_ours"] = None if ratio is None else round(ratio, 4)
        cost = "all purged" if row["c_usable"] is None else f"{row['c_usable']:.4f}"
        versus = "-" if ratio is None else f"{ratio:.3f}x"
        print(
            f"{name:<20} {row['train_fixtures']:>6} {row['leaked']:>7} {row['leakage_rate']:>12.4f} "
            f"{cost:>11} {versus:>8}"
        )
    print(
        json.dumps(
            {
                "fixtures": len(infos),
                "closures": len(set(closure_of.values())),
                "reserved_tool_families": sorted(reserved[0]),
                "reserved_domains": sorted(reserved[1]),
                "results": results,
            },
            sort_keys=True,
        )
    )


if __name__ == "__main__":
    main()
