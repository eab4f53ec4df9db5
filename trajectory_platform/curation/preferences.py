"""Preference pairs for trajectory DPO: admitted only when both branch from one conditioning prefix.

Fine-tuning 16.8: a valid comparison contrasts alternative decisions made under identical available
information. A correction that conditioned on an error message its rival never saw is not an
alternative, it is a later state. So a pair is admitted only when both trajectories attempt the same
fixture, were delivered the same tools, and agree event for event up to a *policy* decision (an
assistant turn) where they first differ; if they first differ on anything else (an observation, a
prompt, a compaction), the prefixes differ and the pair is refused with that reason.

Declared ordering rule:

1. ``pass_vs_fail``: a verified pass is preferred to a verified failure;
2. ``lower_cost``: between two passes, the one with fewer tool calls after the branch, then fewer
   target tokens after the branch, is preferred; equal cost has no preference and is refused;
3. two failures, or an outcome the oracle never decided, are refused.

A refused pair carries a :class:`~trajectory_platform.traces.drops.Drop`: a stable reason key from
:data:`REFUSAL_REASONS` (what the stage counts) and a detail for a person (which events, which
fixtures).

The divergent spans (``[branch_event_index, len(events))`` in each record, and their assistant
turns) are marked: a shared prefix cancels in the DPO gradient, so only the spans are scored.
"""

from __future__ import annotations

import hashlib
import itertools
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field

from trajectory_platform.curation.candidates import Candidate
from trajectory_platform.curation.mixture import TokenCounter, count_tokens, event_target_text
from trajectory_platform.traces.drops import Drop
from trajectory_platform.traces.record import Episode, Event, canonical_json

RULE_PASS_VS_FAIL = "pass_vs_fail"
RULE_LOWER_COST = "lower_cost"

REFUSAL_REASONS = (
    "different_fixtures",
    "tool_schemas_differ",
    "identical_trajectories",
    "prefix_of_other",
    "prefixes_differ",
    "delivered_inputs_differ",
    "outcome_unverified",
    "both_failed",
    "equal_cost",
)
"""Every reason a pair is refused for, in the order :func:`admit_pair` checks them."""


def _event_key(event: Event, call_ids: dict[str, int]) -> str:
    """What a model conditioned on in ``event``; volatile bookkeeping (timestamps, token counts, the
    random spelling of tool-call ids) is left out, ids are replaced by their order of appearance."""

    def ordinal(call_id: str | None) -> int | None:
        if call_id is None:
            return None
        return call_ids.setdefault(call_id, len(call_ids))

    return canonical_json(
        {
            "kind": event.kind,
            "content": event.content,
            "reasoning": event.reasoning,
            "calls": [[ordinal(c.id), c.name, c.arguments] for c in event.tool_calls],
            "answers": ordinal(event.tool_call_id),
            "tool": event.tool_name,
            "status": event.status,
            "exit": event.exit_code,
            "name": event.name,
            "replaces": event.replaces_through,
        }
    )


def event_keys(episode: Episode) -> list[str]:
    call_ids: dict[str, int] = {}
    return [_event_key(event, call_ids) for event in episode.events]


def _tools_key(episode: Episode) -> str:
    return canonical_json([[t.name, t.parameters_json, t.version, t.description] for t in episode.tools])


def _delivered_at(episode: Episode, event_index: int) -> str | None:
    for delivered in episode.delivered_inputs:
        if delivered.response_event_index == event_index:
            return canonical_json(
                {
                    "messages": delivered.messages_json,
                    "indices": delivered.event_indices,
                    "tools": delivered.tools_version,
                }
            )
    return None


@dataclass(frozen=True)
class PairDecision:
    """One considered pair: admitted with an order and spans, or refused with a :class:`Drop`."""

    pair_id: str
    fixture_id: str | None
    chosen_episode_id: str
    rejected_episode_id: str
    refusal: Drop | None = None
    rule: str | None = None
    branch_event_index: int | None = None
    prefix_digest: str | None = None
    chosen_span: tuple[int, int] | None = None
    rejected_span: tuple[int, int] | None = None
    chosen_turns: list[int] = field(default_factory=list)
    rejected_turns: list[int] = field(default_factory=list)
    chosen_cost: tuple[int, int] | None = None
    rejected_cost: tuple[int, int] | None = None

    @property
    def admitted(self) -> bool:
        return self.refusal is None

    @property
    def reason(self) -> str:
        """For a person: an admitted pair's rule and branch (the table's ``reason``), else the
        refusal's detail."""
        if self.refusal is not None:
            return self.refusal.detail
        return f"{self.rule}: branch at event {self.branch_event_index}"


def _cost(episode: Episode, branch: int, counter: TokenCounter) -> tuple[int, int]:
    """(tool calls, target tokens) from the branch on: what the declared cost rule compares."""
    after = [e for e in episode.events[branch:] if e.kind == "assistant"]
    return sum(len(e.tool_calls) for e in after), sum(counter(event_target_text(e)) for e in after)


def _pair_id(left: str, right: str) -> str:
    return hashlib.sha256(f"{left}\n{right}".encode()).hexdigest()[:16]


def admit_pair(
    left: Candidate,
    right: Candidate,
    counter: TokenCounter = count_tokens,
    keys_cache: dict[str, list[str]] | None = None,
) -> PairDecision:
    """Decide one pair; the order of ``left`` and ``right`` does not change the decision.

    ``keys_cache`` (episode id -> :func:`event_keys`) lets :func:`build_pairs` normalize each
    episode once instead of once per pair.
    """
    cache = {} if keys_cache is None else keys_cache
    left, right = sorted((left, right), key=lambda c: c.episode_id)
    pair_id = _pair_id(left.episode_id, right.episode_id)

    def refuse(reason: str, detail: str) -> PairDecision:
        return PairDecision(pair_id, left.fixture_id, left.episode_id, right.episode_id, Drop(reason, detail))

    if not left.fixture_id or left.fixture_id != right.fixture_id:
        return refuse(
            "different_fixtures",
            f"different fixtures ({left.fixture_id} vs {right.fixture_id}): no shared task",
        )
    if _tools_key(left.episode) != _tools_key(right.episode):
        return refuse(
            "tool_schemas_differ", "delivered tool schemas differ: not the same conditioning context"
        )
    for candidate in (left, right):
        if candidate.episode_id not in cache:
            cache[candidate.episode_id] = event_keys(candidate.episode)
    keys_left, keys_right = cache[left.episode_id], cache[right.episode_id]
    branch = next((i for i, (a, b) in enumerate(zip(keys_left, keys_right, strict=False)) if a != b), None)
    if branch is None:
        if len(keys_left) == len(keys_right):
            return refuse("identical_trajectories", "identical trajectories: nothing to prefer")
        return refuse("prefix_of_other", "one trajectory is a prefix of the other: no alternative decision")
    kinds = (left.episode.events[branch].kind, right.episode.events[branch].kind)
    if kinds != ("assistant", "assistant"):
        return refuse(
            "prefixes_differ",
            f"prefixes differ at event {branch} ({kinds[0]} vs {kinds[1]}): the alternatives did not branch "
            "from an identical conditioning prefix",
        )
    if _delivered_at(left.episode, branch) != _delivered_at(right.episode, branch):
        return refuse(
            "delivered_inputs_differ",
            f"delivered inputs for the call at event {branch} differ: not the same conditioning prefix",
        )
    if left.passed is None or right.passed is None:
        return refuse(
            "outcome_unverified",
            "an outcome was never verified (sink is neither admitted nor hard_negative)",
        )
    if not left.passed and not right.passed:
        return refuse(
            "both_failed",
            "both alternatives failed: the declared rule prefers passes and cheaper passes only",
        )
    costs = {c.episode_id: _cost(c.episode, branch, counter) for c in (left, right)}
    if left.passed != right.passed:
        chosen, rejected = (left, right) if left.passed else (right, left)
        rule = RULE_PASS_VS_FAIL
    elif costs[left.episode_id] == costs[right.episode_id]:
        return refuse("equal_cost", "same outcome at equal cost: the declared rule has no preference")
    else:
        chosen, rejected = sorted((left, right), key=lambda c: costs[c.episode_id])
        rule = RULE_LOWER_COST

    def turns(candidate: Candidate) -> list[int]:
        events = candidate.episode.events
        return [i for i in range(branch, len(events)) if events[i].kind == "assistant"]

    prefix = hashlib.sha256("\n".join(keys_left[:branch]).encode()).hexdigest()
    return PairDecision(
        pair_id=pair_id,
        fixture_id=left.fixture_id,
        chosen_episode_id=chosen.episode_id,
        rejected_episode_id=rejected.episode_id,
        rule=rule,
        branch_event_index=branch,
        prefix_digest=prefix,
        chosen_span=(branch, len(chosen.episode.events)),
        rejected_span=(branch, len(rejected.episode.events)),
        chosen_turns=turns(chosen),
        rejected_turns=turns(rejected),
        chosen_cost=costs[chosen.episode_id],
        rejected_cost=costs[rejected.episode_id],
    )


def build_pairs(candidates: Sequence[Candidate], counter: TokenCounter = count_tokens) -> list[PairDecision]:
    """Every same-fixture pair decided, in a stable order (fixture, then episode ids).

    Pairs across fixtures are not candidates at all (no shared task), so they are not enumerated.
    """
    by_fixture: dict[str, list[Candidate]] = defaultdict(list)
    for candidate in candidates:
        if candidate.fixture_id:
            by_fixture[candidate.fixture_id].append(candidate)
    decisions: list[PairDecision] = []
    cache: dict[str, list[str]] = {}
    for fixture_id in sorted(by_fixture):
        group = sorted(by_fixture[fixture_id], key=lambda c: c.episode_id)
        decisions.extend(admit_pair(a, b, counter, cache) for a, b in itertools.combinations(group, 2))
    return decisions
