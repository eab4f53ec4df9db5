"""Repository-family splits with dependency closure and reserved tool/domain families.

Curation §Split hygiene verification (tables 13 and 17): splitting trajectories or tasks at random
leaks directory layouts, helper shims and bug signatures across the train/evaluation divide. The
partition therefore happens at the root structural boundary, the repository family, closed under
every link that carries structure between families: forks, shared internal helper libraries and
vendored copies. Two families joined by any chain of such links form one *closure*, and a closure
lies in exactly one split.

On top of that, the test split reserves whole tool-schema families and problem domains (table 13
rows 2 and 3) so that the three transfer regimes of fine-tuning 16.7.2 can be scored separately:

- ``new_task_familiar_schema``: a held-out repository family driven through a tool family seen in train;
- ``familiar_task_renamed_schema``: a reserved (never trained) tool family on a domain seen in train;
- ``new_task_unfamiliar_tool_family``: a reserved tool family on a reserved domain.

A record carrying a reserved tool family or domain whose closure landed outside test is *excluded*
(kept out of every split, with its reason) rather than pulling its whole closure into test.

The plan is computed from the fixture library alone (before any trajectory is seen), which is the
"strict partitioning prior to task ingestion" regime of napkin math 0.6; episodes then inherit their
fixture's split, and derived records inherit their root parent's split.

Task environments users bring (:mod:`trajectory_platform.environments`) are planned by a second pass
(:func:`plan_environment_splits`) over the gym's finished plan, so the gym's assignment never moves
when environments are registered: an environment family linked into a gym closure follows that
closure; closures made only of environment families take the policy's fractions, pins and seed, each
closure drawn on its own so that a growing registry never moves a family already planned, once there
are at least ``SplitPolicy.min_environment_closures`` of them (fewer all train, with that reason: a
held-out split of one or two environments measures noise).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from trajectory_platform.curation.candidates import Labelled
from trajectory_platform.curation.dedup import normalize_action
from trajectory_platform.traces.record import ToolCall

TRAIN, VALIDATION, TEST, EXCLUDED = "train", "validation", "test", "excluded"
SPLITS = (TRAIN, VALIDATION, TEST)
EVALUATION_SPLITS = frozenset({VALIDATION, TEST})

REGIME_FAMILIAR_SCHEMA = "new_task_familiar_schema"
REGIME_RENAMED_SCHEMA = "familiar_task_renamed_schema"
REGIME_UNFAMILIAR_TOOLS = "new_task_unfamiliar_tool_family"
REGIMES = (REGIME_FAMILIAR_SCHEMA, REGIME_RENAMED_SCHEMA, REGIME_UNFAMILIAR_TOOLS)

UNKNOWN_FAMILY = "unknown"


@dataclass(frozen=True)
class FamilyLinks:
    """A repository family and the families it shares structure with.

    ``depends_on`` lists internal helper libraries (themselves families), ``forked_from`` the family it
    was forked from, ``vendored`` families whose code it carries a copy of. Public third-party
    dependencies do not belong here: they would join every family into one closure.
    """

    family: str
    depends_on: tuple[str, ...] = ()
    forked_from: str | None = None
    vendored: tuple[str, ...] = ()

    def neighbours(self) -> tuple[str, ...]:
        return (*self.depends_on, *((self.forked_from,) if self.forked_from else ()), *self.vendored)


@dataclass(frozen=True)
class FixtureInfo:
    """What the split plan and decontamination need to know about one task fixture."""

    fixture_id: str
    repo_family: str
    tool_family: str | None = None
    domain: str | None = None
    prompt: str | None = None
    reference_diff: str | None = None
    reference_actions: tuple[str, ...] = ()


@dataclass(frozen=True)
class SplitPolicy:
    """Declared split targets; fractions are shares of fixtures, the unit an evaluation suite counts."""

    train: float = 0.8
    validation: float = 0.1
    test: float = 0.1
    reserved_tool_families: tuple[str, ...] | None = None
    reserved_domains: tuple[str, ...] | None = None
    n_reserved_tool_families: int = 1
    n_reserved_domains: int = 1
    pinned: tuple[tuple[str, str], ...] = ()
    """(family, split) pairs fixed by decision, e.g. a family that backs a public benchmark is always
    held out; the family's whole closure follows it."""
    seed: int = 0
    min_environment_closures: int = 10
    """Environment-only closures (families of brought environments linked to no gym family) needed
    before any of them is held out; with fewer, all train (10% of 10 closures is one test closure,
    the least an evaluation can score)."""


class UnionFind:
    """Disjoint sets over strings with path halving; the closure of a family is its set."""

    def __init__(self) -> None:
        self._parent: dict[str, str] = {}

    def add(self, item: str) -> None:
        self._parent.setdefault(item, item)

    def find(self, item: str) -> str:
        self.add(item)
        parent = self._parent
        while parent[item] != item:
            parent[item] = parent[parent[item]]
            item = parent[item]
        return item

    def union(self, left: str, right: str) -> None:
        root_left, root_right = self.find(left), self.find(right)
        if root_left != root_right:
            # Attach the larger name under the smaller one so roots do not depend on insertion order.
            low, high = sorted((root_left, root_right))
            self._parent[high] = low

    def groups(self) -> dict[str, list[str]]:
        members: dict[str, list[str]] = defaultdict(list)
        for item in sorted(self._parent):
            members[self.find(item)].append(item)
        return dict(members)


def _join_links(forest: UnionFind, links: Iterable[FamilyLinks]) -> None:
    """Put every family in ``forest``, joined with the families it links to."""
    for link in links:
        forest.add(link.family)
        for other in link.neighbours():
            forest.union(link.family, other)


def family_closures(links: Iterable[FamilyLinks]) -> dict[str, str]:
    """Map every family (including linked libraries) to its closure id ``closure:<smallest member>``.

    The union is transitive: A depends on helper H and B vendors H, so A and B share a closure even
    though neither names the other (curation: "no two repositories sharing a transitive internal
    dependency appear across the train-evaluation boundary").
    """
    forest = UnionFind()
    _join_links(forest, links)
    closure_of: dict[str, str] = {}
    for members in forest.groups().values():
        closure_id = f"closure:{min(members)}"
        for member in members:
            closure_of[member] = closure_id
    return closure_of


def _rank(seed: int, name: str) -> str:
    """A seeded, stable tie-breaker: the same seed always orders the same names the same way."""
    return hashlib.sha256(f"{seed}:{name}".encode()).hexdigest()


def _reserve(
    values: Sequence[str | None], declared: tuple[str, ...] | None, count: int, seed: int
) -> frozenset:
    """The declared reservation (values present in the library), or the ``count`` least frequent values
    (losing the least training data).

    Never reserves every value: something must remain familiar or regimes A and B cannot be measured.
    """
    tally = Counter(v for v in values if v)
    if declared is not None:
        present = frozenset(d for d in declared if d in tally)
        # A declaration naming only values this library lacks falls back to the data-driven choice.
        if present or not declared:
            return present
    if len(tally) < 2:
        return frozenset()
    ordered = sorted(tally, key=lambda v: (tally[v], _rank(seed, v)))
    return frozenset(ordered[: min(count, len(tally) - 1)])


@dataclass
class SplitPlan:
    """Closure membership, the split of each closure, the reservations, and each fixture's split."""

    closure_of: dict[str, str]
    closure_split: dict[str, str]
    reserved_tool_families: frozenset
    reserved_domains: frozenset
    fixtures: dict[str, FixtureInfo] = field(default_factory=dict)
    seed: int = 0
    closure_reason: dict[str, str] = field(default_factory=dict)
    """Why a closure holds its split when the policy's fractions did not decide it (environment
    closures below the minimum, or bridging two splits); a closure absent here holds the split the
    policy assigned it."""
    environment_ids: tuple[str, ...] = ()
    """The fixtures that are brought task environments (planned by :func:`plan_environment_splits`)."""

    def is_reserved(self, tool_family: str | None, domain: str | None) -> bool:
        return tool_family in self.reserved_tool_families or domain in self.reserved_domains

    def closure(self, family: str | None) -> str:
        if not family:
            return f"closure:{UNKNOWN_FAMILY}"
        return self.closure_of.get(family, f"closure:{family}")

    def place(self, family: str | None, tool_family: str | None, domain: str | None) -> tuple[str, str]:
        """(split, reason) for something from ``family`` using ``tool_family`` on ``domain``."""
        closure_id = self.closure(family)
        if not family:
            split, reason = TRAIN, "no repository family: cannot hold out, train only (decontam screens it)"
        elif closure_id not in self.closure_split:
            split, reason = TRAIN, f"family {family} is outside the fixture library: no evaluation fixture"
        else:
            split = self.closure_split[closure_id]
            reason = self.closure_reason.get(closure_id) or f"{closure_id} assigned to {split}"
        if split != TEST and self.is_reserved(tool_family, domain):
            what = tool_family if tool_family in self.reserved_tool_families else domain
            return EXCLUDED, f"{what} is reserved for test but {closure_id} is in {split}"
        return split, reason

    def fixture_split(self, fixture_id: str) -> str:
        info = self.fixtures[fixture_id]
        return self.place(info.repo_family, info.tool_family, info.domain)[0]

    def evaluation_fixtures(self) -> list[FixtureInfo]:
        """Every fixture an evaluation may score: validation and test, in id order."""
        return [self.fixtures[f] for f in sorted(self.fixtures) if self.fixture_split(f) in EVALUATION_SPLITS]

    def regime(self, tool_family: str | None, domain: str | None) -> str:
        """The transfer regime (fine-tuning 16.7.2) a test item measures."""
        if tool_family not in self.reserved_tool_families:
            return REGIME_FAMILIAR_SCHEMA
        if domain in self.reserved_domains:
            return REGIME_UNFAMILIAR_TOOLS
        return REGIME_RENAMED_SCHEMA


def _fill(
    order: list[str], weight: dict[str, int], target: float, taken: set[str], at_least_one: bool
) -> list[str]:
    """Free closures from ``order`` whose total weight comes closest to ``target``.

    With ``at_least_one`` the first pick is the first closure in ``order`` no heavier than twice the
    target (else the lightest free one), so a giant closure is never pushed into a small split just
    for being first; without it a closure is only added when it brings the total closer.
    """
    free = [c for c in order if c not in taken]
    chosen: list[str] = []
    total = 0
    if at_least_one and free:
        first = next((c for c in free if weight[c] <= 2 * target), min(free, key=lambda c: weight[c]))
        chosen, total = [first], weight[first]
    for closure_id in free:
        if closure_id not in chosen and abs(total + weight[closure_id] - target) < abs(total - target):
            chosen.append(closure_id)
            total += weight[closure_id]
    taken.update(chosen)
    return chosen


def plan_splits(
    links: Iterable[FamilyLinks], fixtures: Iterable[FixtureInfo], policy: SplitPolicy = SplitPolicy()
) -> SplitPlan:
    """Assign whole closures to train / validation / test from the fixture library.

    Closures are weighted by fixture count. Test is filled first, preferring closures that carry
    reserved tool families or domains (so every regime has items), then validation preferring
    closures without reserved content (it would be excluded there); train keeps the rest, which
    always includes the heaviest remaining closure. Ties break on a seeded hash, so the plan is a
    pure function of (library, policy).
    """
    fixture_map = {f.fixture_id: f for f in sorted(fixtures, key=lambda f: f.fixture_id)}
    all_links = [*links, *(FamilyLinks(f.repo_family) for f in fixture_map.values())]
    closure_of = family_closures(all_links)
    reserved_tools = _reserve(
        [f.tool_family for f in fixture_map.values()],
        policy.reserved_tool_families,
        policy.n_reserved_tool_families,
        policy.seed,
    )
    reserved_domains = _reserve(
        [f.domain for f in fixture_map.values()],
        policy.reserved_domains,
        policy.n_reserved_domains,
        policy.seed,
    )
    weight: Counter = Counter({c: 0 for c in set(closure_of.values())})
    reserved_weight: Counter = Counter()
    for info in fixture_map.values():
        closure_id = closure_of[info.repo_family]
        weight[closure_id] += 1
        if info.tool_family in reserved_tools or info.domain in reserved_domains:
            reserved_weight[closure_id] += 1
    closures = sorted(weight, key=lambda c: _rank(policy.seed, c))
    total = sum(weight.values()) or 1
    fractions = policy.train + policy.validation + policy.test
    taken: set[str] = set()
    closure_split: dict[str, str] = {}
    for family, split in policy.pinned:
        pinned = closure_of.get(family)
        if pinned is None or split not in SPLITS:
            raise ValueError(f"cannot pin family {family!r} to split {split!r}: unknown family or split")
        if closure_split.setdefault(pinned, split) != split:
            raise ValueError(f"pinned families in {pinned} ask for two splits")
        taken.add(pinned)
    # Keep the heaviest free closure for train when there are enough closures to go round.
    free = [c for c in closures if c not in taken]
    if len(closures) >= 3 and TRAIN not in closure_split.values() and free:
        taken.add(max(free, key=lambda c: (weight[c], _rank(policy.seed, c))))
    test_order = sorted(closures, key=lambda c: (reserved_weight[c] == 0, _rank(policy.seed, c)))
    val_order = sorted(closures, key=lambda c: (reserved_weight[c] > 0, _rank(policy.seed, c)))
    for split, share, order in ((TEST, policy.test, test_order), (VALIDATION, policy.validation, val_order)):
        if split == VALIDATION and len(closures) < 3:
            continue
        have = sum(weight[c] for c, s in closure_split.items() if s == split)
        target = total * share / fractions - have
        for closure_id in _fill(order, weight, target, taken, at_least_one=have == 0 and share > 0):
            closure_split[closure_id] = split
    for closure_id in closures:
        closure_split.setdefault(closure_id, TRAIN)
    return SplitPlan(
        closure_of=closure_of,
        closure_split=closure_split,
        reserved_tool_families=reserved_tools,
        reserved_domains=reserved_domains,
        fixtures=fixture_map,
        seed=policy.seed,
    )


BELOW_MINIMUM = "environment_below_minimum"
BRIDGES_SPLITS = "environment_bridges_splits"


def _drawn_splits(closures: Sequence[str], policy: SplitPolicy) -> dict[str, str]:
    """Each closure's split drawn from its own seeded hash against the policy's fractions.

    Unlike the gym's fill, a closure's draw ignores every other closure, so registering one more
    environment never moves another family (the registry grows, the gym library does not); a
    family that trained once is never held out later, where a test score would count memorized
    work. When no closure draws validation or test, the lowest draws take them (at least one
    each, with three closures or more, as the gym's plan guarantees).
    """
    total = policy.train + policy.validation + policy.test
    test_below, validation_below = policy.test / total, (policy.test + policy.validation) / total
    draw = {c: int(_rank(policy.seed, c), 16) / 16**64 for c in closures}
    splits = {c: TRAIN for c in closures}
    for closure_id, u in draw.items():
        if u < validation_below:
            splits[closure_id] = TEST if u < test_below else VALIDATION
    for split, share in ((TEST, policy.test), (VALIDATION, policy.validation)):
        free = sorted((c for c in closures if splits[c] == TRAIN), key=lambda c: draw[c])
        if share > 0 and split not in splits.values() and len(closures) >= 3 and len(free) > 1:
            splits[free[0]] = split
    return splits


def plan_environment_splits(
    gym: SplitPlan,
    links: Iterable[FamilyLinks],
    environments: Iterable[FixtureInfo],
    policy: SplitPolicy = SplitPolicy(),
) -> SplitPlan:
    """``gym`` extended to brought environments, without moving anything ``gym`` assigned.

    Closures are rebuilt over the gym's families and the environments' links together. A closure
    that holds a gym family is the gym's: its environment families take that gym closure's id and
    split (an environment that depends on a held-out gym library is held out with it). One linking
    gym closures of different splits cannot sit anywhere without joining train to evaluation, so it
    is excluded. Closures of environment families alone take the policy's fractions, pins and seed
    (reservations stay the gym's) by :func:`_drawn_splits` when there are at least
    ``policy.min_environment_closures`` of them, else all train but pinned ones. Pins naming a
    family ``gym`` does not hold are honoured here. The result depends only on (gym plan,
    environment library, policy): adding episodes never moves a family, and registering another
    environment moves none either (short of linking closures, or crossing the minimum).
    """
    infos = {e.fixture_id: e for e in sorted(environments, key=lambda e: e.fixture_id)}
    clash = sorted(set(infos) & set(gym.fixtures))
    if clash:
        raise ValueError(f"environments {clash} have gym fixture ids: rename them before planning")
    pins = [(family, split) for family, split in policy.pinned if family not in gym.closure_of]
    env_links = [*links, *(FamilyLinks(e.repo_family) for e in infos.values())]
    forest = UnionFind()
    for family, gym_closure in gym.closure_of.items():
        forest.union(family, gym_closure.removeprefix("closure:"))
    _join_links(forest, env_links)
    closure_of, closure_split, closure_reason = dict(gym.closure_of), dict(gym.closure_split), {}
    own: dict[str, list[str]] = {}
    for members in forest.groups().values():
        new = [f for f in members if f not in gym.closure_of]
        gym_closures = sorted({gym.closure_of[f] for f in members if f in gym.closure_of})
        if not new:
            continue
        splits = sorted({gym.closure_split[c] for c in gym_closures})
        if len(splits) == 1:
            closure_of.update(dict.fromkeys(new, gym_closures[0]))
        elif splits:
            bridge = f"closure:{min(new)}"
            closure_of.update(dict.fromkeys(new, bridge))
            closure_split[bridge] = EXCLUDED
            joined = ", ".join(f"{c} ({gym.closure_split[c]})" for c in gym_closures)
            closure_reason[bridge] = (
                f"{BRIDGES_SPLITS}: {bridge} links {joined}: no split holds it without a leak"
            )
        else:
            own[f"closure:{min(new)}"] = members
    pinned: dict[str, str] = {}
    for family, split in pins:
        home = next((c for c, members in own.items() if family in members), None)
        if home is None or split not in SPLITS:
            raise ValueError(
                f"cannot pin family {family!r} to split {split!r}: unknown family or split"
                + (" (it follows a gym closure)" if family in closure_of else "")
            )
        if pinned.setdefault(home, split) != split:
            raise ValueError(f"pinned families in {home} ask for two splits")
    enough = len(own) >= policy.min_environment_closures
    drawn = _drawn_splits(sorted(own), policy) if enough else {}
    for closure_id, members in own.items():
        closure_of.update(dict.fromkeys(members, closure_id))
        closure_split[closure_id] = pinned.get(closure_id) or drawn.get(closure_id, TRAIN)
        if not enough and closure_id not in pinned:
            closure_reason[closure_id] = (
                f"{BELOW_MINIMUM}: {closure_id} is one of {len(own)} environment-only closures, "
                f"fewer than the {policy.min_environment_closures} needed to hold any out: train"
            )
    return SplitPlan(
        closure_of=closure_of,
        closure_split=closure_split,
        reserved_tool_families=gym.reserved_tool_families,
        reserved_domains=gym.reserved_domains,
        fixtures={**gym.fixtures, **infos},
        seed=gym.seed,
        closure_reason={**gym.closure_reason, **closure_reason},
        environment_ids=tuple(sorted({*gym.environment_ids, *infos})),
    )


def plan_with_environments(
    library: Iterable, environments: Iterable = (), policy: SplitPolicy = SplitPolicy()
) -> SplitPlan:
    """The one plan every stage reads: the gym library's (:func:`plan_splits`, with the pins that
    name its families), extended to the brought environments (:func:`plan_environment_splits`).

    Both are fixture-like objects (:func:`library_inputs`); with no environments this is exactly
    the gym library's plan, and pins naming no gym family (an environment's) are left unused, so a
    gym-only reader of a policy that pins an environment family still plans; the split stage
    refuses a pin its plan has no family for (:func:`unused_pins`).
    """
    links, infos = library_inputs(library)
    gym_families = set(family_closures([*links, *(FamilyLinks(i.repo_family) for i in infos)]))
    gym_pins = tuple((f, s) for f, s in policy.pinned if f in gym_families)
    gym = plan_splits(links, infos, replace(policy, pinned=gym_pins))
    env_links, env_infos = library_inputs(environments)
    if not env_infos:
        return gym
    return plan_environment_splits(gym, env_links, env_infos, policy)


def unused_pins(plan: SplitPlan, policy: SplitPolicy) -> list[str]:
    """``FAMILY:SPLIT`` pins of ``policy`` naming no family ``plan`` holds (a typo, or an
    environment that is not registered)."""
    return [f"{family}:{split}" for family, split in policy.pinned if family not in plan.closure_of]


REASON_KEYS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("inherited_from_parent", re.compile(r"^derived from .+: inherits ")),
    ("parent_not_followed_into_train", re.compile(r"^names .+ \(train\) as its parent, but ")),
    ("broken_lineage", re.compile(r"^derived record: ")),
    ("decontamination", re.compile(r"^decontamination: ")),
    (BELOW_MINIMUM, re.compile(rf"^{BELOW_MINIMUM}: ")),
    (BRIDGES_SPLITS, re.compile(rf"^{BRIDGES_SPLITS}: ")),
    ("no_repo_family", re.compile(r"^no repository family: ")),
    ("outside_library", re.compile(r"^family .+ is outside the fixture library")),
    ("closure_assigned", re.compile(r"^closure:.+ assigned to (train|validation|test)$")),
    ("reserved_outside_test", re.compile(r"^.+ is reserved for test but closure:.+ is in \w+$")),
)
"""Every reason an assignment can carry, by its stable key: the text says why for a person; the key
is what the stage counts (a reason from a table written by an older version reads as ``other``)."""


def reason_key(reason: str) -> str:
    """The stable key of an assignment's ``reason`` (:data:`REASON_KEYS`), ``other`` if none."""
    return next((key for key, pattern in REASON_KEYS if pattern.search(reason)), "other")


@dataclass(frozen=True)
class SplitAssignment:
    """One row of ``split_assignments``."""

    episode_id: str
    fixture_id: str | None
    repo_family: str | None
    closure_id: str
    tool_family: str | None
    domain: str | None
    split: str
    regime: str | None
    parent_episode_id: str | None
    reason: str


def _root_parents(candidates: Sequence[Labelled]) -> dict[str, tuple[str | None, str]]:
    """episode id -> (root ancestor id or None, note) following ``parent_episode_id`` chains."""
    parent = {c.episode_id: c.parent_episode_id for c in candidates}
    resolved: dict[str, tuple[str | None, str]] = {}
    for episode_id in parent:
        seen = [episode_id]
        current = episode_id
        while next_id := parent.get(current):
            current = next_id
            if current in seen:
                resolved[episode_id] = (None, f"parent chain loops through {current}")
                break
            if current not in parent:
                resolved[episode_id] = (None, f"parent {current} is not in the corpus")
                break
            seen.append(current)
        else:
            resolved[episode_id] = (current if current != episode_id else None, "")
    return resolved


def assign_splits(candidates: Sequence[Labelled], plan: SplitPlan) -> list[SplitAssignment]:
    """Split of every candidate: its fixture's closure, or its root parent's split when derived.

    A derived record inherits its root parent's split, repository family and closure whatever its own
    task fields say (its content came from the parent's repository):
    a schema-augmented copy of a test trajectory is test evidence (fine-tuning 16.7.2). A derived
    record whose parent chain is broken cannot prove where it belongs and is excluded. Inheriting
    never moves a record into train: the parent link is the record's own claim (``extra_json``),
    and an episode held out by its own fixture that named a training episode as its parent would
    have been trained on; such a record keeps its own placement.
    """
    roots = _root_parents(candidates)
    own: dict[str, SplitAssignment] = {}
    for candidate in candidates:
        family, tool_family, domain = _task_labels(candidate, plan)
        split, reason = plan.place(family, tool_family, domain)
        regime = plan.regime(tool_family, domain) if split == TEST else None
        own[candidate.episode_id] = SplitAssignment(
            episode_id=candidate.episode_id,
            fixture_id=candidate.fixture_id,
            repo_family=family,
            closure_id=plan.closure(family),
            tool_family=tool_family,
            domain=domain,
            split=split,
            regime=regime,
            parent_episode_id=candidate.parent_episode_id,
            reason=reason,
        )
    result: list[SplitAssignment] = []
    for candidate in candidates:
        row = own[candidate.episode_id]
        if candidate.parent_episode_id:
            root, note = roots[candidate.episode_id]
            if root is None:
                row = _replace(row, split=EXCLUDED, regime=None, reason=f"derived record: {note}")
            elif own[root].split == TRAIN and row.split != TRAIN:
                row = _replace(row, reason=f"names {root} (train) as its parent, but {row.reason}: kept")
            else:
                parent_row = own[root]
                row = _replace(
                    row,
                    repo_family=parent_row.repo_family,
                    closure_id=parent_row.closure_id,
                    split=parent_row.split,
                    regime=parent_row.regime,
                    reason=f"derived from {root}: inherits {parent_row.split} ({parent_row.reason})",
                )
        result.append(row)
    return result


def _task_labels(candidate: Labelled, plan: SplitPlan) -> tuple[str | None, str | None, str | None]:
    """(repository family, tool family, domain) a candidate is placed by: its fixture's, as the plan
    holds them, when the plan knows the fixture (the split that fixture is in, whatever the record
    says: a relabelled tool family or domain moved a held-out regime's episode into train, red
    team); the record's own labels only for a task outside the plan, which no evaluation scores."""
    info = plan.fixtures.get(candidate.fixture_id or "")
    if info is None:
        return candidate.repo_family, candidate.tool_family, candidate.domain
    return info.repo_family, info.tool_family, info.domain


def _replace(row: SplitAssignment, **changes: Any) -> SplitAssignment:
    return SplitAssignment(**{**row.__dict__, **changes})


def straddling_closures(rows: Iterable[SplitAssignment]) -> dict[str, list[str]]:
    """Closures (and families) found in more than one of train / validation / test: must be empty."""
    seen: dict[str, set[str]] = defaultdict(set)
    for row in rows:
        if row.split in SPLITS:
            seen[row.closure_id].add(row.split)
            if row.repo_family:
                seen[f"family:{row.repo_family}"].add(row.split)
    return {key: sorted(splits) for key, splits in sorted(seen.items()) if len(splits) > 1}


def split_sizes(rows: Iterable[SplitAssignment]) -> dict[str, dict[str, dict[str, int]]]:
    """Counts per split by repository family, tool family and domain (metadata a person reads)."""
    sizes: dict[str, dict[str, Counter]] = defaultdict(lambda: defaultdict(Counter))
    for row in rows:
        sizes[row.split]["repo_family"][row.repo_family or UNKNOWN_FAMILY] += 1
        sizes[row.split]["tool_family"][row.tool_family or UNKNOWN_FAMILY] += 1
        sizes[row.split]["domain"][row.domain or UNKNOWN_FAMILY] += 1
        if row.regime:
            sizes[row.split]["regime"][row.regime] += 1
    return {
        split: {axis: dict(sorted(counts.items())) for axis, counts in sorted(axes.items())}
        for split, axes in sorted(sizes.items())
    }


def library_inputs(fixtures: Iterable) -> tuple[list[FamilyLinks], list[FixtureInfo]]:
    """Family links and fixture infos from gym fixtures (:class:`trajectory_platform.gym.fixtures.Fixture`).

    Read by attribute so any fixture-like object with the gym's field names works: ``repo_family``,
    ``depends_on`` (internal helper libraries), ``forked_from``, ``vendored``, ``tool_family``,
    ``domain``, ``prompt`` and ``reference_diff``; a brought environment's fixture
    (:meth:`~trajectory_platform.environments.format.TaskEnvironment.fixture`) is one.
    """
    links: dict[str, FamilyLinks] = {}
    infos: list[FixtureInfo] = []
    for fixture in fixtures:
        family = fixture.repo_family
        known = links.get(family, FamilyLinks(family))
        # Two environments of one family may each declare their own links: the family has them all.
        links[family] = FamilyLinks(
            family,
            depends_on=_union(known.depends_on, getattr(fixture, "depends_on", ())),
            forked_from=known.forked_from or getattr(fixture, "forked_from", None),
            vendored=_union(known.vendored, getattr(fixture, "vendored", ())),
        )
        infos.append(
            FixtureInfo(
                fixture_id=fixture.fixture_id,
                repo_family=family,
                tool_family=getattr(fixture, "tool_family", None),
                domain=getattr(fixture, "domain", None),
                prompt=getattr(fixture, "prompt", None),
                reference_diff=getattr(fixture, "reference_diff", None),
                reference_actions=_reference_actions(fixture),
            )
        )
    return [links[f] for f in sorted(links)], infos


def _union(known: tuple[str, ...], more: Iterable[str] | None) -> tuple[str, ...]:
    """``known`` then the members of ``more`` it lacks, in order."""
    return tuple(dict.fromkeys((*known, *(more or ()))))


def _reference_actions(fixture: object) -> tuple[str, ...]:
    """The expert plan rendered in the fixture's own tool family and normalized like any trajectory's
    actions, so the decontamination action axis has a reference even before anyone rolls it out."""
    plan = getattr(fixture, "plan", None)
    if not plan:  # a brought environment has no scripted plan (nor a gym manifest to render one in)
        return ()
    manifest = getattr(fixture, "manifest", None)
    if manifest is None:
        return ()
    actions = []
    for step in plan:
        if step.op == "answer":
            continue
        try:
            name, arguments = manifest.render(step.op, step.roles())
        except (KeyError, StopIteration):
            return ()
        actions.append(normalize_action(ToolCall(id=None, name=name, arguments=json.dumps(arguments))))
    return tuple(actions)
