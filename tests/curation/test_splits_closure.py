"""Repository-family splits: closure over forks / shared helpers / vendored copies, reserved tool
families and domains for the three transfer regimes, inheritance by derived records."""

from __future__ import annotations

import itertools

from splits_mixture_factory import candidate

from trajectory_platform.curation.splits import (
    EXCLUDED,
    REGIMES,
    SPLITS,
    TEST,
    TRAIN,
    FamilyLinks,
    FixtureInfo,
    SplitPolicy,
    assign_splits,
    family_closures,
    plan_splits,
    reason_key,
    straddling_closures,
)

LINKS = [
    FamilyLinks("svc_auth", depends_on=("helpers",)),
    FamilyLinks("svc_billing", depends_on=("helpers",)),
    FamilyLinks("fork_x", forked_from="upstream_x"),
    FamilyLinks("app_y", vendored=("vendlib",)),
]
FAMILIES = [
    "helpers",
    "svc_auth",
    "svc_billing",
    "upstream_x",
    "fork_x",
    "app_y",
    "vendlib",
    "solo_1",
    "solo_2",
    "solo_3",
]
TOOLS = ["read_v1", "read_v2", "fs_combined"]
DOMAINS = ["bug_repair", "config_fix", "diagnostic"]


def library() -> list[FixtureInfo]:
    """Every family carries every (tool family, domain) combination, so every closure could feed
    every regime: the reservation, not luck, decides where each item goes."""
    return [
        FixtureInfo(
            f"{family}-{tool}-{domain}", family, tool, domain, prompt=f"task {family} {tool} {domain}"
        )
        for family in FAMILIES
        for tool, domain in itertools.product(TOOLS, DOMAINS)
    ]


POLICY = SplitPolicy(reserved_tool_families=("fs_combined",), reserved_domains=("diagnostic",))


def test_closure_is_transitive_over_helpers_forks_and_vendored_copies():
    closure = family_closures(LINKS)
    # svc_auth and svc_billing never name each other; the shared helper joins them.
    assert closure["svc_auth"] == closure["svc_billing"] == closure["helpers"] == "closure:helpers"
    assert closure["fork_x"] == closure["upstream_x"]
    assert closure["app_y"] == closure["vendlib"]
    assert len({closure[f] for f in ("svc_auth", "fork_x", "app_y")}) == 3
    # A chain through a second helper merges two closures.
    chained = family_closures([*LINKS, FamilyLinks("vendlib", depends_on=("helpers",))])
    assert chained["app_y"] == chained["svc_auth"]


def test_no_closure_straddles_and_every_split_is_populated():
    plan = plan_splits(LINKS, library(), POLICY)
    split_of_fixture = {f.fixture_id: plan.fixture_split(f.fixture_id) for f in library()}
    by_closure: dict[str, set[str]] = {}
    for info in library():
        split = split_of_fixture[info.fixture_id]
        if split != EXCLUDED:
            by_closure.setdefault(plan.closure(info.repo_family), set()).add(split)
    assert all(len(splits) == 1 for splits in by_closure.values()), by_closure
    assert set(plan.closure_split.values()) == set(SPLITS)
    # The heaviest closure (helpers + two services) stays in train.
    assert plan.closure_split["closure:helpers"] == TRAIN


def test_reserved_tool_family_and_domain_only_in_test_and_all_regimes_measurable():
    plan = plan_splits(LINKS, library(), POLICY)
    placed = {f.fixture_id: (f, plan.fixture_split(f.fixture_id)) for f in library()}
    for info, split in placed.values():
        if info.tool_family == "fs_combined" or info.domain == "diagnostic":
            assert split in (TEST, EXCLUDED), (info, split)
    test_items = [info for info, split in placed.values() if split == TEST]
    regimes = {plan.regime(i.tool_family, i.domain) for i in test_items}
    assert regimes == set(REGIMES)
    train_tools = {info.tool_family for info, split in placed.values() if split == TRAIN}
    assert "fs_combined" not in train_tools and {"read_v1", "read_v2"} <= train_tools


def test_reservation_is_chosen_from_data_when_not_declared():
    fixtures = [f for f in library() if not (f.tool_family == "fs_combined" and f.repo_family != "solo_1")]
    plan = plan_splits(LINKS, fixtures, SplitPolicy())
    # fs_combined is the rarest tool family: reserving it costs training the least.
    assert plan.reserved_tool_families == {"fs_combined"}
    assert len(plan.reserved_domains) == 1


def test_episodes_follow_their_fixture_and_derived_records_inherit_parent_split():
    plan = plan_splits(LINKS, library(), POLICY)
    test_family = next(f for f in FAMILIES if plan.closure_split[plan.closure(f)] == TEST)
    train_family = next(f for f in FAMILIES if plan.closure_split[plan.closure(f)] == TRAIN)

    def fields(family: str) -> dict:
        return {
            "fixture_id": f"{family}-read_v1-bug_repair",
            "repo_family": family,
            "tool_family": "read_v1",
            "domain": "bug_repair",
        }

    parent = candidate("ep-parent", **fields(test_family))
    # An augmented copy with a renamed schema and a relabelled family still belongs to its parent's split.
    augmented = candidate("ep-aug", **fields(train_family), extra={"parent_episode_id": "ep-parent"})
    grandchild = candidate("ep-aug-redacted", **fields(train_family), extra={"parent_episode_id": "ep-aug"})
    orphan = candidate("ep-orphan", **fields(train_family), extra={"parent_episode_id": "missing"})
    plain = candidate("ep-train", **fields(train_family))
    rows = {r.episode_id: r for r in assign_splits([parent, augmented, grandchild, orphan, plain], plan)}
    assert rows["ep-parent"].split == TEST
    assert rows["ep-aug"].split == TEST and rows["ep-aug"].closure_id == rows["ep-parent"].closure_id
    assert rows["ep-aug-redacted"].split == TEST and "ep-parent" in rows["ep-aug-redacted"].reason
    assert rows["ep-orphan"].split == EXCLUDED and "missing" in rows["ep-orphan"].reason
    assert rows["ep-train"].split == TRAIN
    assert not straddling_closures(rows.values())


def test_an_episode_of_a_planned_fixture_is_placed_by_the_fixtures_labels_not_its_own():
    """The split placed an episode by the tool family and domain it recorded: an episode of a
    reserved (held-out) tool family or domain relabelled as a familiar one landed in train (red
    team). A fixture the plan knows decides its episodes' labels; the record's own only place a task
    outside the plan."""
    plan = plan_splits(LINKS, library(), POLICY)
    train_family = next(f for f in FAMILIES if plan.closure_split[plan.closure(f)] == TRAIN)
    for reserved_id in (f"{train_family}-fs_combined-bug_repair", f"{train_family}-read_v1-diagnostic"):
        assert plan.fixture_split(reserved_id) == EXCLUDED
        relabelled = candidate(
            "relabelled",
            fixture_id=reserved_id,
            repo_family="solo_9",
            tool_family="read_v1",
            domain="bug_repair",
        )
        (row,) = assign_splits([relabelled], plan)
        info = plan.fixtures[reserved_id]
        assert row.split == EXCLUDED and "reserved" in row.reason
        placed_by = (row.repo_family, row.tool_family, row.domain)
        assert placed_by == (info.repo_family, info.tool_family, info.domain)


def test_a_parent_link_never_moves_a_held_out_episode_into_train():
    """The parent link is the record's own claim: an episode of a held-out fixture (test, or reserved
    content outside test) that names any training episode as its parent inherited train."""
    plan = plan_splits(LINKS, library(), POLICY)
    train_family = next(f for f in FAMILIES if plan.closure_split[plan.closure(f)] == TRAIN)
    test_family = next(f for f in FAMILIES if plan.closure_split[plan.closure(f)] == TEST)
    parent = candidate("train-ep", fixture_id=f"{train_family}-read_v1-bug_repair")
    claims = {
        "test-ep": f"{test_family}-read_v1-bug_repair",
        "reserved-ep": f"{train_family}-fs_combined-bug_repair",
    }
    children = [
        candidate(e, fixture_id=f, extra={"parent_episode_id": "train-ep"}) for e, f in claims.items()
    ]
    rows = {r.episode_id: r for r in assign_splits([parent, *children], plan)}
    assert rows["train-ep"].split == TRAIN
    assert (rows["test-ep"].split, rows["reserved-ep"].split) == (TEST, EXCLUDED)
    assert {reason_key(rows[e].reason) for e in claims} == {"parent_not_followed_into_train"}


def test_parent_loop_is_excluded_not_followed_forever():
    plan = plan_splits(LINKS, library(), POLICY)
    a = candidate("loop-a", extra={"parent_episode_id": "loop-b"})
    b = candidate("loop-b", extra={"parent_episode_id": "loop-a"})
    rows = assign_splits([a, b], plan)
    assert [r.split for r in rows] == [EXCLUDED, EXCLUDED]
    assert all("loops" in r.reason for r in rows)


def test_unknown_and_unlisted_families_train_only_and_reserved_content_excluded_outside_test():
    plan = plan_splits(LINKS, library(), POLICY)
    rows = assign_splits(
        [
            candidate("no-family", fixture_id=None, repo_family=None),
            candidate("new-family", fixture_id=None, repo_family="brand_new"),
            candidate("new-family-fs", fixture_id=None, repo_family="brand_new", tool_family="fs_combined"),
        ],
        plan,
    )
    assert [r.split for r in rows] == [TRAIN, TRAIN, EXCLUDED]
    assert "reserved" in rows[2].reason


def test_straddle_detector_catches_a_broken_assignment():
    plan = plan_splits(LINKS, library(), POLICY)
    rows = assign_splits([candidate("x1", repo_family="solo_1"), candidate("x2", repo_family="solo_1")], plan)
    broken = [
        rows[0],
        type(rows[1])(
            **{**rows[1].__dict__, "split": "validation" if rows[0].split != "validation" else TRAIN}
        ),
    ]
    assert straddling_closures(broken)


def test_plan_is_deterministic_and_seeded():
    first = plan_splits(LINKS, library(), POLICY)
    again = plan_splits(list(reversed(LINKS)), list(reversed(library())), POLICY)
    assert first.closure_split == again.closure_split and first.closure_of == again.closure_of
    seeds = {
        tuple(sorted(plan_splits(LINKS, library(), SplitPolicy(seed=s)).closure_split.items()))
        for s in range(8)
    }
    assert len(seeds) > 1
