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

import bisect
import hashlib
import itertools
import sys
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


KEY_BYTES = 16
"""Bytes of each event key's digest in :attr:`PairProfile.keys`."""
PREFIX_BYTES = 32
"""Bytes of each prefix digest in :attr:`PairProfile.prefixes` (sha256: the table's ``prefix_digest``)."""


def _digest(text: str) -> bytes:
    return hashlib.blake2b(text.encode(), digest_size=KEY_BYTES).digest()


@dataclass(frozen=True, slots=True)
class PairProfile:
    """What deciding a pair reads of one episode, without the episode (the split/mixture stage holds
    one per pool episode instead of its events): its tool schemas and every event's conditioning key
    as digests, the event kinds, and per assistant event (``assistant``, in order) the digest of the
    prefix before it, of the inputs delivered for it, its tool calls and its target tokens."""

    episode_id: str
    fixture_id: str | None
    passed: bool | None
    tools: bytes
    keys: bytes
    """:data:`KEY_BYTES` per event: the digest of its :func:`event_keys` entry."""
    kinds: tuple[str, ...]
    assistant: tuple[int, ...]
    prefixes: bytes
    """:data:`PREFIX_BYTES` per assistant event: sha256 of the event keys before it, newline-joined."""
    delivered: tuple[bytes | None, ...]
    calls: tuple[int, ...]
    tokens: tuple[int, ...]

    def position(self, event_index: int) -> int:
        """Where ``event_index`` (an assistant event) sits in ``assistant``; the first assistant
        event at or after it otherwise."""
        return bisect.bisect_left(self.assistant, event_index)

    def cost(self, branch: int) -> tuple[int, int]:
        """(tool calls, target tokens) from the branch on: what the declared cost rule compares."""
        at = self.position(branch)
        return sum(self.calls[at:]), sum(self.tokens[at:])


def pair_profile(candidate: Candidate, counter: TokenCounter = count_tokens) -> PairProfile:
    """A candidate's :class:`PairProfile`, its target tokens counted by ``counter``."""
    episode = candidate.episode
    keys = event_keys(episode)
    assistant = tuple(i for i, event in enumerate(episode.events) if event.kind == "assistant")
    prefix, prefixes = hashlib.sha256(), []
    for index, key in enumerate(keys):
        if episode.events[index].kind == "assistant":
            prefixes.append(prefix.copy().digest())
        prefix.update((("\n" if index else "") + key).encode())
    return PairProfile(
        episode_id=candidate.episode_id,
        fixture_id=candidate.fixture_id,
        passed=candidate.passed,
        tools=_digest(_tools_key(episode)),
        keys=b"".join(_digest(key) for key in keys),
        kinds=tuple(sys.intern(event.kind) for event in episode.events),
        assistant=assistant,
        prefixes=b"".join(prefixes),
        delivered=tuple(None if (d := _delivered_at(episode, i)) is None else _digest(d) for i in assistant),
        calls=tuple(len(episode.events[i].tool_calls) for i in assistant),
        tokens=tuple(counter(event_target_text(episode.events[i])) for i in assistant),
    )


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


def _pair_id(left: str, right: str) -> str:
    return hashlib.sha256(f"{left}\n{right}".encode()).hexdigest()[:16]


def _branch(left: bytes, right: bytes) -> int | None:
    """The first event whose key digests differ, None when one key run is a prefix of the other."""
    for index in range(min(len(left), len(right)) // KEY_BYTES):
        at = index * KEY_BYTES
        if left[at : at + KEY_BYTES] != right[at : at + KEY_BYTES]:
            return index
    return None


def admit_pair(left: Candidate, right: Candidate, counter: TokenCounter = count_tokens) -> PairDecision:
    """Decide one pair; the order of ``left`` and ``right`` does not change the decision."""
    return admit_profiles(pair_profile(left, counter), pair_profile(right, counter))


def admit_profiles(left: PairProfile, right: PairProfile) -> PairDecision:
    """:func:`admit_pair` on the two episodes' profiles (what the split/mixture stage keeps)."""
    left, right = sorted((left, right), key=lambda p: p.episode_id)
    pair_id = _pair_id(left.episode_id, right.episode_id)

    def refuse(reason: str, detail: str) -> PairDecision:
        return PairDecision(pair_id, left.fixture_id, left.episode_id, right.episode_id, Drop(reason, detail))

    if not left.fixture_id or left.fixture_id != right.fixture_id:
        return refuse(
            "different_fixtures",
            f"different fixtures ({left.fixture_id} vs {right.fixture_id}): no shared task",
        )
    if left.tools != right.tools:
        return refuse(
            "tool_schemas_differ", "delivered tool schemas differ: not the same conditioning context"
        )
    branch = _branch(left.keys, right.keys)
    if branch is None:
        if len(left.kinds) == len(right.kinds):
            return refuse("identical_trajectories", "identical trajectories: nothing to prefer")
        return refuse("prefix_of_other", "one trajectory is a prefix of the other: no alternative decision")
    kinds = (left.kinds[branch], right.kinds[branch])
    if kinds != ("assistant", "assistant"):
        return refuse(
            "prefixes_differ",
            f"prefixes differ at event {branch} ({kinds[0]} vs {kinds[1]}): the alternatives did not branch "
            "from an identical conditioning prefix",
        )
    at_left, at_right = left.position(branch), right.position(branch)
    if left.delivered[at_left] != right.delivered[at_right]:
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
    costs = {p.episode_id: p.cost(branch) for p in (left, right)}
    if left.passed != right.passed:
        chosen, rejected = (left, right) if left.passed else (right, left)
        rule = RULE_PASS_VS_FAIL
    elif costs[left.episode_id] == costs[right.episode_id]:
        return refuse("equal_cost", "same outcome at equal cost: the declared rule has no preference")
    else:
        chosen, rejected = sorted((left, right), key=lambda p: costs[p.episode_id])
        rule = RULE_LOWER_COST
    prefix = left.prefixes[at_left * PREFIX_BYTES : (at_left + 1) * PREFIX_BYTES].hex()
    return PairDecision(
        pair_id=pair_id,
        fixture_id=left.fixture_id,
        chosen_episode_id=chosen.episode_id,
        rejected_episode_id=rejected.episode_id,
        rule=rule,
        branch_event_index=branch,
        prefix_digest=prefix,
        chosen_span=(branch, len(chosen.kinds)),
        rejected_span=(branch, len(rejected.kinds)),
        chosen_turns=list(chosen.assistant[chosen.position(branch) :]),
        rejected_turns=list(rejected.assistant[rejected.position(branch) :]),
        chosen_cost=costs[chosen.episode_id],
        rejected_cost=costs[rejected.episode_id],
    )


def build_pairs(candidates: Sequence[Candidate], counter: TokenCounter = count_tokens) -> list[PairDecision]:
    """Every same-fixture pair decided, in a stable order (fixture, then episode ids)."""
    return pair_decisions([pair_profile(c, counter) for c in candidates])


def pair_decisions(profiles: Sequence[PairProfile]) -> list[PairDecision]:
    """:func:`build_pairs` over profiles (each episode normalized once, however many pairs it is in).

    Pairs across fixtures are not candidates at all (no shared task), so they are not enumerated.
    """
    by_fixture: dict[str, list[PairProfile]] = defaultdict(list)
    for profile in profiles:
        if profile.fixture_id:
            by_fixture[profile.fixture_id].append(profile)
    decisions: list[PairDecision] = []
    for fixture_id in sorted(by_fixture):
        group = sorted(by_fixture[fixture_id], key=lambda p: p.episode_id)
        decisions.extend(admit_profiles(a, b) for a, b in itertools.combinations(group, 2))
    return decisions
