"""DAgger: the scripted expert labels states the learner visited; only oracle-verified labels count.

Fine-tuning 16.6: a policy trained on recorded prefixes meets, at its first error, states the
recording never showed. DAgger labels the states the learner itself visits. Here a state is a
learner trajectory truncated before one of its assistant turns; its label is the scripted expert's
next action there. The expert is :class:`~trajectory_platform.gym.policies.ScriptedExpert`
*resumed* at that state: it skips the steps of its plan the learner's executed calls already
performed (in order) and continues from the first one they did not.

A label is used only when it is verified: the learner's turns are replayed in the sandbox up to the
state (the same runtime, so the same observations; a prefix that does not reproduce is dropped),
the resumed expert continues from there, and the sealed oracle must accept the final workspace.
Learner-state disagreement is the share of verified labels whose action differs from the learner's
own action at that state (actions compared normalized, as dedup compares them).

A verified label becomes an SFT record through :func:`training_candidates`: the continuation,
judged by the full cascade, with its targets cut to the expert's turns (the learner's prefix is the
state it visited, context only). The same continuation check confirms a search harness's candidate
actions (``distill``): :func:`continue_to_verdict`.

The mixing schedule beta_i (``DaggerSettings.beta``) drives :class:`MixedPolicy`: at each turn of a
round-i collection rollout the resumed expert's action is executed with probability beta_i and the
learner's otherwise.
"""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from dataclasses import dataclass, replace

from trajectory_platform.curation.candidates import Candidate
from trajectory_platform.curation.dedup import normalize_action
from trajectory_platform.curation.verify.cascade import CascadeConfig
from trajectory_platform.gym import protocol
from trajectory_platform.gym.fixtures import Fixture, Step
from trajectory_platform.gym.policies import ScriptedExpert
from trajectory_platform.gym.policy import Policy, PolicyInput, PolicyTurn
from trajectory_platform.gym.runtime import REFUSED, EpisodeResult, RuntimeConfig, run_episode
from trajectory_platform.gym.tools import sha256_digest
from trajectory_platform.rounds.judge import judged_candidates
from trajectory_platform.rounds.sampling import Sampler, pinned_seed, round_of, stamp
from trajectory_platform.rounds.settings import DaggerSettings
from trajectory_platform.traces.record import Episode, Event, canonical_json

DAGGER_KEY = "dagger"
"""Key in ``extra_json``: the learner state a DAgger continuation labels (its source tag in a mix)."""


def executed_steps(fixture: Fixture, events: Sequence[Event]) -> list[tuple[str, dict[str, str]]]:
    """The abstract ``(op, roles)`` of every call that took effect (a tool result that is not an
    error answered it), in order; refused or failed calls changed nothing and are left out."""
    results = {e.tool_call_id: e for e in events if e.kind == "tool" and e.tool_call_id is not None}
    steps = []
    for event in events:
        for call in event.tool_calls if event.kind == "assistant" else []:
            result = results.get(call.id) if call.id is not None else None
            if result is None or result.status == "error" or call.name is None:
                continue
            steps.append(fixture.manifest.interpret(call.name, json.loads(call.arguments or "{}")))
    return steps


def _performs(step: Step, op: str, roles: dict[str, str]) -> bool:
    return step.op == op and all(roles.get(k) == v for k, v in step.roles().items())


def plan_progress(fixture: Fixture, events: Sequence[Event]) -> int:
    """Index of the first plan step the executed calls in ``events`` have not performed (matched in
    order, other calls in between allowed): where the resumed expert continues."""
    index = 0
    for op, roles in executed_steps(fixture, events):
        if index < len(fixture.plan) and _performs(fixture.plan[index], op, roles):
            index += 1
    return index


def require_gym_task(fixture: Fixture) -> None:
    """Refuse a task the scripted expert cannot act on: only a gym task has what it needs (a plan,
    and a tool family to read calls back in)."""
    if fixture.source != "gym" or fixture.tools is not None:
        raise ValueError(
            f"{fixture.fixture_id}: the scripted expert labels gym tasks only, not a brought one"
        )


def resumed_expert(fixture: Fixture, seed: int, events: Sequence[Event]) -> ScriptedExpert:
    """A scripted expert started on ``fixture`` and positioned at the state ``events`` reached."""
    require_gym_task(fixture)
    expert = ScriptedExpert()
    expert.start(fixture, seed)
    expert.index = plan_progress(fixture, events)
    return expert


def recorded_turn(event: Event) -> PolicyTurn:
    """A logged assistant turn as the text the runtime parses again (prose, reasoning, calls)."""
    calls = [(c.name or "", c.arguments or "{}") for c in event.tool_calls]
    text = protocol.render_turn(event.content or "", calls, event.reasoning)
    return PolicyTurn(text, finish_reason=event.finish_reason or "stop")


class StateTrace:
    """The events a policy's own episode has produced so far, as the runtime logged them: each of
    its turns (parsed with the runtime's call ids) and what answered it. Read from the delivered
    input turn by turn, so a compacted history (which no longer delivers old turns) loses nothing."""

    def __init__(self) -> None:
        self.events: list[Event] = []

    def observe(self, inp: PolicyInput) -> None:
        """Add what answered the previous turn (the delivered events after the last assistant)."""
        last = max((i for i, e in enumerate(inp.messages) if e.kind == "assistant"), default=None)
        if last is not None:
            self.events.extend(inp.messages[last + 1 :])

    def record(self, turn: PolicyTurn, step: int) -> None:
        """Add our own turn, its calls parsed as the runtime parses them (same ids)."""
        parsed = protocol.parse_turn(turn.text, id_prefix=f"call_{step}")
        calls = parsed.calls.calls if isinstance(parsed.calls, protocol.ParseError) else parsed.calls
        self.events.append(Event(kind="assistant", tool_calls=calls))


class ContinuationPolicy(Policy):
    """Replays recorded turns, then lets the expert, resumed at the state they reached, finish.

    The state is read from the replayed episode itself (:class:`StateTrace`), so the same policy
    verifies a DAgger label (a learner's prefix) and a search candidate (kept turns plus the
    candidate, whose observation nobody has seen yet)."""

    name = "dagger-continuation"

    def __init__(self, replay: Sequence[PolicyTurn]):
        self.replay = list(replay)

    def start(self, fixture: Fixture, seed: int) -> None:
        require_gym_task(fixture)  # before the episode starts, not as a policy error mid-run
        self.fixture, self.seed = fixture, seed
        self.trace = StateTrace()
        self.expert: ScriptedExpert | None = None

    def act(self, inp: PolicyInput) -> PolicyTurn:
        self.trace.observe(inp)
        if inp.step < len(self.replay):
            turn = self.replay[inp.step]
        else:
            if self.expert is None:
                self.expert = resumed_expert(self.fixture, self.seed, self.trace.events)
            turn = self.expert.act(inp)
        self.trace.record(turn, inp.step)
        return turn

    def describe(self) -> dict:
        return {"policy": self.name, "expert": ScriptedExpert.name}


def continue_to_verdict(
    fixture: Fixture,
    replay: Sequence[PolicyTurn],
    seed: int,
    episode_id: str,
    runtime: RuntimeConfig | None = None,
) -> EpisodeResult:
    """Replay ``replay`` in the sandbox, let the resumed expert finish, and run the sealed oracle:
    the one check both a DAgger label and a search harness's candidate action must pass."""
    return run_episode(fixture, ContinuationPolicy(replay), seed=seed, config=runtime, episode_id=episode_id)


class MixedPolicy(Policy):
    """A collection rollout of round i: each turn is the resumed expert's with probability ``beta``,
    the learner's otherwise (a seeded draw per episode seed and turn)."""

    name = "dagger-mixed"

    def __init__(self, learner: Policy, beta: float):
        self.learner = learner
        self.beta = beta

    def start(self, fixture: Fixture, seed: int) -> None:
        self.learner.start(fixture, seed)
        self.fixture, self.seed = fixture, seed
        self.trace = StateTrace()

    def act(self, inp: PolicyInput) -> PolicyTurn:
        self.trace.observe(inp)
        expert_turn = random.Random(f"{self.seed}:{inp.step}").random() < self.beta
        if expert_turn:
            turn = resumed_expert(self.fixture, self.seed, self.trace.events).act(inp)
        else:
            turn = self.learner.act(inp)
        self.trace.record(turn, inp.step)
        return turn

    def sampling_params(self) -> dict:
        return {**self.learner.sampling_params(), "beta": self.beta}

    def describe(self) -> dict:
        return {"policy": self.name, "beta": self.beta, "learner": self.learner.describe()}


def mixed_sampler(learner: Sampler, round_index: int, settings: DaggerSettings) -> Sampler:
    """Round ``round_index``'s collection sampler: the learner mixed with the expert at beta_i; its
    digest names both the learner's digest and beta_i, so a mixed trajectory is never mistaken for
    the learner's own."""
    mixed = MixedPolicy(learner.policy, settings.beta(round_index))
    digest = sha256_digest(
        canonical_json({"policy": mixed.name, "learner": learner.digest, "beta": mixed.beta})
    )
    return Sampler(mixed, digest, learner.model_digest)


def continuation_sampler(policy: ContinuationPolicy, learner_digest: str | None) -> Sampler:
    """The sampler a DAgger record is stamped with: the continuation policy together with the
    learner's sampler digest (the checkpoint whose state it labels), so records of different learners
    never share a digest and none passes for the learner's own trajectory."""
    digest = sha256_digest(canonical_json({**policy.describe(), "learner": learner_digest}))
    return Sampler(policy, digest)


@dataclass(frozen=True)
class DaggerLabel:
    """The expert's label at one learner state, and whether its continuation verified it.

    ``continuation`` is the episode the label is trained from: the learner's turns as context and
    the expert's turn at ``label_event`` (an event index, as ``target_turns`` are) as the target.
    ``reason`` says why an unverified label is dropped.
    """

    learner_episode_id: str
    turn: int
    learner_action: tuple[str, ...]
    expert_action: tuple[str, ...]
    verified: bool
    reason: str
    continuation: Episode
    label_event: int

    @property
    def disagrees(self) -> bool:
        return self.learner_action != self.expert_action


@dataclass
class DaggerRound:
    """Every label a round asked for; only :attr:`used` ones may train."""

    round_index: int
    labels: list[DaggerLabel]

    @property
    def used(self) -> list[DaggerLabel]:
        return [label for label in self.labels if label.verified]

    @property
    def disagreement(self) -> float | None:
        """Learner-state disagreement over verified labels; ``None`` when none verified."""
        used = self.used
        return sum(label.disagrees for label in used) / len(used) if used else None

    def summary(self) -> dict:
        dropped: dict[str, int] = {}
        for label in self.labels:
            if not label.verified:
                dropped[label.reason] = dropped.get(label.reason, 0) + 1
        return {
            "round": self.round_index,
            "states_labelled": len(self.labels),
            "labels_used": len(self.used),
            "labels_dropped": dict(sorted(dropped.items())),
            "learner_state_disagreement": self.disagreement,
        }


def chosen_turns(assistant_turns: int, states: int) -> list[int]:
    """Up to ``states`` evenly spaced assistant turns after the first (turn 1 always among them).

    The state before turn 0 is the bare task: the learner has not acted yet, so the resumed expert's
    label there is its own episode from scratch, which the corpus already holds (dedup drops it, after
    a sandbox run spent on it). A state is worth labelling only once the learner's own turns shaped it.
    """
    later = assistant_turns - 1
    if later <= states:
        return list(range(1, assistant_turns))
    step = later / states
    return sorted({1 + int(i * step) for i in range(states)})


def _action(event: Event) -> tuple[str, ...]:
    return tuple(normalize_action(call) for call in event.tool_calls)


PARSE_REFUSALS = tuple(f"{REFUSED}{category} tool call" for category in ("malformed", "truncated"))
"""How the runtime's refusal of an unparsable call begins (``<category> tool call: <parser reason>``)."""


def _observed(event: Event) -> tuple[str, str | None]:
    """What a tool result or refusal showed the agent, as a replay must reproduce it. An unparsable
    call's refusal counts by its category alone: the log keeps such a call as the fragments the
    parser recovered, not the model's raw text, so the replay re-renders them and the parser's reason
    names other positions (the call is refused all the same and the workspace is untouched)."""
    category = next((p for p in PARSE_REFUSALS if (event.content or "").startswith(p)), None)
    return (event.kind, category) if event.kind == "refusal" and category else (event.kind, event.content)


def _observations(events: Sequence[Event]) -> list[tuple[str, str | None]]:
    return [_observed(e) for e in events if e.kind in ("tool", "refusal")]


def label_state(
    learner: Episode, fixture: Fixture, turn: int, round_index: int, runtime: RuntimeConfig | None = None
) -> DaggerLabel:
    """The resumed expert's label before the learner's assistant turn ``turn``, verified in the
    sandbox by continuing to an oracle verdict."""
    cuts = [i for i, e in enumerate(learner.events) if e.kind == "assistant"]
    if not 0 <= turn < len(cuts):
        raise ValueError(f"{learner.episode_id} has no assistant turn {turn}")
    prefix_events = learner.events[: cuts[turn]]
    replay = [recorded_turn(learner.events[i]) for i in cuts[:turn]]
    seed = pinned_seed(0, round_index, learner.episode_id, turn)
    result = continue_to_verdict(fixture, replay, seed, f"{learner.episode_id}-dagger-t{turn}", runtime)
    episode = result.episode
    assistant = [i for i, e in enumerate(episode.events) if e.kind == "assistant"]
    learner_event = learner.events[cuts[turn]]
    expert_action: tuple[str, ...] = ()
    if len(assistant) <= turn:
        reason, label_event = "prefix_not_reproduced", -1
    else:
        label_event = assistant[turn]
        expert_action = _action(episode.events[label_event])
        reproduced = _observations(episode.events[:label_event]) == _observations(prefix_events)
        passed = result.oracle is not None and result.oracle.passed
        reason = (
            "" if reproduced and passed else "prefix_not_reproduced" if not reproduced else "oracle_rejected"
        )
    learner_digest = learner.lineage.sampler_policy_digest
    dagger = {
        "state_of": learner.episode_id,
        "turn": turn,
        "label_event": label_event,
        "learner_sampler_policy_digest": learner_digest,
    }
    stamp(
        episode,
        continuation_sampler(ContinuationPolicy(replay), learner_digest),
        round_index,
        **{DAGGER_KEY: dagger},
    )
    return DaggerLabel(
        learner.episode_id,
        turn,
        _action(learner_event),
        expert_action,
        not reason,
        reason,
        episode,
        label_event,
    )


def label_states(
    learners: Sequence[Episode],
    fixtures: Sequence[Fixture],
    settings: DaggerSettings,
    runtime: RuntimeConfig | None = None,
) -> DaggerRound:
    """Labels on ``settings.states_per_trajectory`` states of each learner trajectory (all from one
    round, which their lineage records)."""
    by_id = {f.fixture_id: f for f in fixtures}
    rounds = {round_of(e) for e in learners}
    if len(rounds) != 1 or None in rounds:
        raise ValueError(
            f"learner trajectories must come from one recorded round, got rounds {sorted(map(str, rounds))}"
        )
    round_index = int(next(iter(rounds)))  # type: ignore[arg-type]  # None excluded above
    labels = []
    for learner in learners:
        fixture = by_id.get(learner.task.fixture_id or "")
        if fixture is None:
            raise ValueError(f"{learner.episode_id}: no fixture {learner.task.fixture_id!r} to label against")
        turns = sum(1 for e in learner.events if e.kind == "assistant")
        for turn in chosen_turns(turns, settings.states_per_trajectory):
            labels.append(label_state(learner, fixture, turn, round_index, runtime))
    return DaggerRound(round_index, labels)


def judged_labels(
    labelled: DaggerRound, fixtures: Sequence[Fixture], cascade: CascadeConfig | None = None
) -> list[Candidate]:
    """Each verified label's continuation judged by the full cascade (admitted or not), its targets
    cut to the expert's turns: the learner's own turns (before ``label_event``) are the state it
    visited, context the model conditions on, never behaviour to imitate.

    Each is an anchor (the round's table carries it in its ``ANCHOR_KEY`` column, which the
    platform writes; a record's own fields never make one): its targets are the expert's
    demonstration, not the learner's sample. DAgger aggregates its labels over rounds (Ross et al.:
    D <- D u D_i), and a label stays right for its state whichever policy reached it, so staleness
    retirement, which retires a policy's own off-policy samples, does not apply; and in the
    mixture's fill order it competes with the corpus's expert anchors instead of queueing behind
    them (behind them, a default run's recovery class was full before any DAgger record: all 28
    were dropped for the token budget)."""
    used = labelled.used
    judged = judged_candidates([label.continuation for label in used], fixtures, cascade)
    return [
        replace(
            candidate,
            target_turns=[i for i in candidate.target_turns or [] if i >= label.label_event],
            anchor=True,
        )
        for label, candidate in zip(used, judged, strict=True)
    ]


def training_candidates(
    labelled: DaggerRound, fixtures: Sequence[Fixture], cascade: CascadeConfig | None = None
) -> list[Candidate]:
    """Each verified label as an SFT record: the learner's prefix up to its state, then the expert's
    verified continuation, with only the expert's turns as targets (:func:`judged_labels`); one the
    cascade does not admit is left out, so its role, ``t_div`` and per-turn target selection are
    curation's.

    The record keeps ``extra_json["dagger"]`` (its source tag in the mix, naming the learner
    trajectory as ``state_of``) but no ``parent_episode_id``: it runs on the learner's own task, so
    the split plan places it where it places the learner's attempt, while a parent link would
    exclude it from every split, because the failed attempt it names never enters a mix (the split
    stage excludes a derived record whose parent is not in the corpus).
    """
    return [c for c in judged_labels(labelled, fixtures, cascade) if c.sink == "admitted"]


@dataclass
class DaggerRecords:
    """DAgger on a round's learner attempts: every label asked for and every used one judged."""

    labelled: DaggerRound
    judged: list[Candidate]

    @property
    def admitted(self) -> list[Candidate]:
        """The records that may train: verified labels whose continuation the cascade admitted."""
        return [c for c in self.judged if c.sink == "admitted"]

    def summary(self) -> dict:
        """The labels' summary plus what admission made of the used ones (used = admitted + the rest
        by sink), so every state labelled is accounted for."""
        not_admitted: dict[str, int] = {}
        for candidate in self.judged:
            if candidate.sink != "admitted":
                not_admitted[str(candidate.sink)] = not_admitted.get(str(candidate.sink), 0) + 1
        return {
            **self.labelled.summary(),
            "records_admitted": len(self.admitted),
            "records_not_admitted": dict(sorted(not_admitted.items())),
        }


def dagger_records(
    learners: Sequence[Candidate],
    fixtures: Sequence[Fixture],
    round_index: int,
    settings: DaggerSettings,
    *,
    runtime: RuntimeConfig | None = None,
    cascade: CascadeConfig | None = None,
) -> DaggerRecords:
    """DAgger on round ``round_index``'s judged learner attempts: states of every attempt the cascade
    did not admit are labelled by the resumed expert and verified (:func:`label_states`), and the
    used labels judged into records (:func:`judged_labels`).

    Only failed attempts are labelled: on an admitted one the learner already did what the expert
    would, and a task the learner never solves yields no success of its own, so labels on the states
    it reached there are the only training signal the round can get from it (fine-tuning 16.6).
    """
    failed = [c.episode for c in learners if c.sink != "admitted"]
    labelled = label_states(failed, fixtures, settings, runtime) if failed else DaggerRound(round_index, [])
    return DaggerRecords(labelled, judged_labels(labelled, fixtures, cascade))
