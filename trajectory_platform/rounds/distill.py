"""Distillation: a stronger configuration's verified trajectories become the student's targets
(fine-tuning 16.9).

**Teacher distillation** (16.9.2). The teacher is a policy that does better than the student at a
cost the student should not pay at serving time: the scripted expert, or :class:`SearchPolicy`, a
search harness that tries several candidate actions per turn and keeps one the oracle confirms.
Its trajectories are sampled and judged by the same round machinery as any sampler's
(:func:`teacher_round`: ``sample_round``, the full cascade), so a teacher never bypasses
admission; each carries the teacher's description in ``extra_json["teacher"]`` besides the
sampler digest every round trajectory has. Distillation from discrete, verified trajectories is
filtered imitation, not soft targets: a collector sees sampled calls, not the teacher's logits.

A search candidate is confirmed the way a DAgger label is (``dagger.continue_to_verdict``): the
kept turns and the candidate are replayed in the sandbox, the scripted expert resumed at the state
they reach finishes the episode, and the sealed oracle must accept it. A confirmed action is one
the task can still be completed from, not the only good one; a turn with no confirmed candidate
ends the episode (abandoned), so admission sees it fail rather than a guess standing in for it.

**Context distillation** (16.9.1). A policy runs with a long procedural prompt (the short system
prompt plus a checklist: :func:`gym.prompts.long_prompt`, :func:`prompted_sampler`); the admitted trajectories
are rewritten to the short prompt (:func:`context_distilled`): the recorded system prompt, in the
log and in every delivered-input manifest that carries message text, is replaced, so the loader
builds each example from the prefix the student will really see at serving time (16.4: targets are
selected from the prefix the model actually saw; a target conditioned on hints the student never
gets would teach it to act on evidence it does not have). Only static guidance is removed:
observations, refusals and errors stay, so every kept action remains motivated by its prefix. The
derived record names its parent and both prompt digests, and gets its own cascade verdict
(:func:`context_distill`); the runtime verdict stays with the long-prompt original.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Sequence
from dataclasses import dataclass, replace

from trajectory_platform.curation.candidates import PARENT_KEY, PROMPT_REWRITE_KEY, Candidate
from trajectory_platform.curation.verify.cascade import CascadeConfig
from trajectory_platform.gym.faults import FAULTS_SEAL, seal_faults
from trajectory_platform.gym.fixtures import Fixture
from trajectory_platform.gym.policy import Policy, PolicyInput, PolicyTurn
from trajectory_platform.gym.prompts import PROMPT_SEAL, REGISTERED_PROMPTS, SYSTEM_PROMPT, seal_prompt
from trajectory_platform.gym.runtime import (
    END_SEAL,
    RuntimeConfig,
    approx_tokens,
    end_sealed,
    faults_sealed,
    recorded_faults,
    seal_end,
)
from trajectory_platform.gym.tools import sha256_digest
from trajectory_platform.rounds.dagger import continue_to_verdict, require_gym_task
from trajectory_platform.rounds.judge import judged_candidates
from trajectory_platform.rounds.sampling import RoundSample, Sampler, pinned_seed, sample_round, stamp
from trajectory_platform.rounds.settings import RoundSettings
from trajectory_platform.traces.record import LOGGED_ID_KEY, Episode, canonical_json

TEACHER_KEY = "teacher"
"""Key in ``extra_json``: the description of the teacher that produced a distilled trajectory."""
CONTEXT_KEY = PROMPT_REWRITE_KEY
"""Key in ``extra_json``: the prompt rewrite a context-distilled record went through."""


def prompted_sampler(sampler: Sampler, system_prompt: str) -> Sampler:
    """``sampler`` run under ``system_prompt``; the digest covers the prompt, so a long-prompt
    trajectory is never counted as the short-prompt policy's own."""
    digest = sha256_digest(
        canonical_json({"sampler": sampler.digest, "system_prompt": sha256_digest(system_prompt)})
    )
    return replace(sampler, digest=digest, system_prompt=system_prompt)


def teacher_round(
    teacher: Sampler,
    fixtures: Sequence[Fixture],
    round_index: int,
    settings: RoundSettings,
    *,
    runtime: RuntimeConfig | None = None,
    cascade: CascadeConfig | None = None,
) -> RoundSample:
    """A round sampled by ``teacher`` and judged by the full cascade like any round; every
    trajectory also records who the teacher was (``extra_json["teacher"]``)."""
    sample = sample_round(teacher, fixtures, round_index, settings, runtime=runtime, cascade=cascade)
    for episode in sample.episodes:
        stamp(episode, teacher, round_index, **{TEACHER_KEY: teacher.policy.describe()})
    return sample


@dataclass(frozen=True)
class SearchTrial:
    """One candidate action the harness tried: at which turn, which candidate, whether confirmed."""

    step: int
    candidate: int
    confirmed: bool


class SearchPolicy(Policy):
    """Per turn, ask every candidate policy for its action on the delivered input and keep the first
    one (in candidate order) whose continuation the oracle confirms; none confirmed: abandon.

    Every candidate is asked every turn, so a plan-following scripted candidate stays in step with
    the episode even when another candidate's action was kept. The continuation runs with the
    episode's own seed, so the replayed turns see the observations the episode saw; ``runtime``
    is the budget continuations run under (pass the episode's own when it is not the default).
    ``trials`` lists every try of the current episode, for a report of how hard the search worked.
    """

    name = "search-harness"

    def __init__(self, candidates: Sequence[Policy], runtime: RuntimeConfig | None = None):
        if not candidates:
            raise ValueError("a search harness needs at least one candidate policy")
        self.candidates = list(candidates)
        self.runtime = runtime
        self.trials: list[SearchTrial] = []

    def start(self, fixture: Fixture, seed: int) -> None:
        require_gym_task(fixture)  # confirmation resumes the scripted expert
        for candidate in self.candidates:
            candidate.start(fixture, seed)
        self.fixture, self.seed = fixture, seed
        self.kept: list[PolicyTurn] = []
        self.trials = []

    def act(self, inp: PolicyInput) -> PolicyTurn:
        proposals = [candidate.act(inp) for candidate in self.candidates]
        for index, turn in enumerate(proposals):
            episode_id = f"search-{self.fixture.fixture_id}-{self.seed}-t{inp.step}-c{index}"
            result = continue_to_verdict(
                self.fixture, [*self.kept, turn], self.seed, episode_id, self.runtime
            )
            confirmed = result.oracle is not None and result.oracle.passed
            self.trials.append(SearchTrial(inp.step, index, confirmed))
            if confirmed:
                self.kept.append(turn)
                return turn
        return PolicyTurn(abandon=True)

    def sampling_params(self) -> dict:
        return {"decoding": "search", "candidates": [c.sampling_params() for c in self.candidates]}

    def describe(self) -> dict:
        return {
            "policy": self.name,
            "candidates": [c.describe() for c in self.candidates],
            "confirmation": "scripted-expert continuation, sealed oracle",
        }


class Redrawn(Policy):
    """One of ``n`` draws of a sampling policy at each turn: ``base`` restarted with this draw's seed
    before every action. Only for a base whose ``start`` does nothing but set its seed (a model
    policy acts from the delivered input and the seed alone); a scripted policy keeps plan state
    and is given to :class:`SearchPolicy` as its own candidate instead."""

    def __init__(self, base: Policy, draw: int):
        self.base, self.draw = base, draw
        self.name = f"{base.name}#draw{draw}"

    def start(self, fixture: Fixture, seed: int) -> None:
        self.fixture, self.seed = fixture, pinned_seed(seed, 0, "search-draw", self.draw)

    def act(self, inp: PolicyInput) -> PolicyTurn:
        self.base.start(self.fixture, self.seed)
        return self.base.act(inp)

    def sampling_params(self) -> dict:
        return self.base.sampling_params()

    def describe(self) -> dict:
        return {"policy": "redrawn", "base": self.base.describe(), "draw": self.draw}


def sampled_candidates(base: Policy, n: int) -> list[Policy]:
    """``n`` seeded draws of ``base`` as a search harness's candidate set."""
    if n < 1:
        raise ValueError(f"a search needs at least one draw, got n={n}")
    return [Redrawn(base, draw) for draw in range(n)]


def _replace_prompt(messages_json: str, long: str, short: str) -> str:
    messages = json.loads(messages_json)
    for message in messages:
        if message.get("kind") == "system" and message.get("content") == long:
            message["content"] = short
    return canonical_json(messages)


def context_distilled(teacher: Episode, short: str = SYSTEM_PROMPT, seal_key: bytes | None = None) -> Episode:
    """``teacher`` (run under a long prompt) as the student's training record under ``short``.

    The system prompt is replaced in the log and in every delivered-input manifest that carries
    message text; actions, observations and event indices are unchanged, so the teacher's target
    selection still points at the same turns. Each call's recorded input size shrinks by the
    prompt's difference. Raises when the episode's first event is not the prompt its lineage names.

    The verifier takes a system prompt only when the platform registers it or the pipeline sealed
    it (:func:`gym.runtime.prompt_sealed`). ``short`` is the platform's to deliver here as the
    runtime's prompt is at a run, so with ``seal_key`` (the pipeline's, the cascade's
    ``seal_key``) the student records :func:`gym.prompts.seal_prompt` of ``short`` under its own
    id, as the runtime records it: a custom short prompt then verifies, and the record's prompt
    edited afterwards does not. The teacher's seals are over another episode and are never carried
    over (:data:`TEACHERS_OWN`); under the key its sealed fault schedule and end are sealed again
    for the student (:func:`_student_seals`)."""
    first = teacher.events[0] if teacher.events else None
    long = first.content if first is not None and first.kind == "system" else None
    if long is None or sha256_digest(long) != teacher.lineage.prompt_template_digest:
        raise ValueError(
            f"episode {teacher.episode_id}: its first event is not the system prompt its lineage "
            "records, so there is no prompt to replace"
        )
    if long == short:
        raise ValueError(f"episode {teacher.episode_id} already runs under the short prompt")
    student = copy.deepcopy(teacher)
    student.episode_id = f"{teacher.episode_id}-ctx"
    student.events[0].content = short
    saved = approx_tokens(long) - approx_tokens(short)
    for event in student.events:
        if event.kind == "assistant" and event.input_tokens is not None:
            event.input_tokens -= saved
    for delivered in student.delivered_inputs:
        if delivered.messages_json:
            delivered.messages_json = _replace_prompt(delivered.messages_json, long, short)
    student.lineage.prompt_template_digest = sha256_digest(short)
    recorded = {k: v for k, v in teacher.extra().items() if k not in TEACHERS_OWN}
    rewrite = {
        "teacher_prompt_digest": sha256_digest(long),
        "student_prompt_digest": sha256_digest(short),
        "rule": "system prompt replaced by the student's; actions and observations unchanged",
    }
    student.extra_json = canonical_json({**recorded, PARENT_KEY: teacher.episode_id, CONTEXT_KEY: rewrite})
    if seal_key is not None:
        student.extra_json = canonical_json({**student.extra(), **_student_seals(teacher, student, seal_key)})
    return student


TEACHERS_OWN = (PROMPT_SEAL, FAULTS_SEAL, END_SEAL, LOGGED_ID_KEY)
"""What a teacher's record holds of its own run and id that a student never carries over: its
seals are over the teacher's id (and prompt, and events), and the id its log wrote is not the
student's. Carried, they never verified for the student: its end never counted as sealed, and a
student of a faulted teacher was refused as a fault schedule no runtime injected (2026-12-06)."""


def _student_seals(teacher: Episode, student: Episode, key: bytes) -> dict[str, str]:
    """The seals the platform writes for a student it made from ``teacher`` under ``key``, as the
    runtime writes them for a run: its prompt (the platform delivers ``short`` here), and the fault
    schedule and end the teacher's runtime sealed, now over the student's id and events (the
    prompt rewrite is the platform's own edit). A teacher seal that does not hold under ``key`` is
    not renewed, so a student never launders a schedule or an end its teacher only stated."""
    fixture_id = student.task.fixture_id or ""
    prompt = student.events[0].content or ""
    seals = {PROMPT_SEAL: seal_prompt(key, student.episode_id, fixture_id, prompt)}
    faults = recorded_faults(teacher)
    if faults and faults_sealed(teacher, key):
        seals[FAULTS_SEAL] = seal_faults(key, student.episode_id, fixture_id, faults)
    if end_sealed(teacher, key):
        seals[END_SEAL] = seal_end(key, student)
    return seals


def context_distill(
    admitted: Sequence[Candidate],
    fixtures: Sequence[Fixture],
    short: str = SYSTEM_PROMPT,
    cascade: CascadeConfig | None = None,
) -> list[Candidate]:
    """The context-distilled training candidates of admitted long-prompt trajectories: each
    rewritten to ``short`` (:func:`context_distilled`, sealed under the cascade's seal key) and
    judged again by the cascade (its own target review), keeping those it admits; each names its
    long-prompt parent. A ``short`` the platform does not register needs that key: without it
    every student would be refused as a prompt no runtime delivered, so that is an error here."""
    refused = [c.episode_id for c in admitted if c.sink != "admitted"]
    if refused:
        raise ValueError(f"only admitted trajectories are distilled; not admitted: {refused[:5]}")
    key = cascade.seal_key if cascade is not None else None
    if key is None and short not in REGISTERED_PROMPTS:
        raise ValueError(
            "the short prompt is not one the platform registers, so its students must be sealed: "
            "pass the cascade that holds the pipeline's seal key (VerifySettings.cascade)"
        )
    students = [context_distilled(c.episode, short, key) for c in admitted]
    judged = judged_candidates(students, fixtures, cascade)
    return [
        replace(candidate, parent_episode_id=parent.episode_id)
        for candidate, parent in zip(judged, admitted, strict=True)
        if candidate.sink == "admitted"
    ]
