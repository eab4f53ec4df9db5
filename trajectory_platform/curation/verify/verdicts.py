"""Typed verdicts of the verifier cascade: one per stage, one per episode.

A stage verdict says whether the episode survived the stage, why not, and what the stage cost
(wall seconds measured around the stage function). The episode verdict carries the sink the
episode lands in (exactly one), its role label, the divergence and recovery turns, and the
per-turn target selection the training stages consume.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

STAGES = ("syntactic", "static", "dynamic", "delta", "advisory")
"""Cascade stages in cost order (curation table 3)."""

SINKS = (
    "admitted",
    "syntax_reject",
    "static_reject",
    "hard_negative",
    "tamper_quarantine",
    "flaky_quarantine",
    "unverifiable",
)
"""Every episode lands in exactly one of these."""

UNVERIFIABLE_REASONS = (
    "no_task_identity",
    "unknown_task",
    "no_oracle",
    "s0_digest_mismatch",
    "replay_drift",
    "replay_nondeterministic",
    "replay_unsupported_call",
    "replay_failed",
    "gym_log_not_replayable",
    "final_state_not_text",
    "prompt_not_the_tasks",
    "refusal_not_the_harness",
    "refusal_unregistered",
)
"""Why an episode lands in ``unverifiable`` (its ``sink_reason``): the log names no task; it names
a task no gym fixture or registered environment has; the fixture found carries no oracle to replay
against; or the episode ran on another S0 than the fixture's; a log of a gym task in another format
than the gym runtime's own (its observations came from tools the gym cannot replay, so nothing
shows they happened); or re-executing the log on a brought
environment (``replay.py``) showed outputs other than those recorded (the same way on a second
replay), drifted differently on two replays (the environment does not replay deterministically),
met a call the environment cannot re-execute, or could not run; or the replayed actions left a file
holding bytes that are not UTF-8, which no text state, recorded diff or trained example can hold
(``final_state_not_text``); or a log linked to a brought environment records an instruction that is
not that environment's task (``instruction.py``: the oracle would certify one task while training
pairs the actions with another); or a refusal the log records is not in its harness's words for
that call (``refusals.py``: ``refusal_not_the_harness``), or is in a format whose refusal wording no
rule registers (``refusal_unregistered``): a refused call never ran, so its text is the log's word
alone, and would be trained as the environment's answer."""

ROLES = ("pristine", "recovery", "inefficient", "hard_negative")
"""Role labels (curation table 4); admitted episodes are pristine, recovery or inefficient (verified
but over the pristine turn bound without any error); hard negatives carry ``t_div``."""

REJECT_SINK = {"syntactic": "syntax_reject", "static": "static_reject", "dynamic": "hard_negative"}
"""Where a plain failure of a gating stage sends the episode (tamper and flakiness take precedence)."""


@dataclass
class Finding:
    """One piece of evidence a stage found: a short code, the event or file it concerns, a detail."""

    code: str
    detail: str = ""
    event_index: int | None = None
    path: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if v not in (None, "")}


@dataclass
class StageVerdict:
    """Outcome of one stage for one episode.

    ``passed`` is ``None`` when the stage could not judge (no fixture for the dynamic stage), which
    never counts as a pass. ``blocking`` findings fail the stage; ``notes`` are recorded evidence that
    does not (for example a refused call the runtime already caught). ``retries`` are what the
    machine, not the episode, caused (a first replay that drifted and a second that matched): like
    the timings they stay out of the stored verdict, whose bytes must not depend on how busy the
    host was, and are counted in the run's summary instead.
    """

    stage: str
    passed: bool | None
    wall_s: float = 0.0
    findings: list[Finding] = field(default_factory=list)
    notes: list[Finding] = field(default_factory=list)
    data: dict[str, Any] = field(default_factory=dict)
    timings: dict[str, float] = field(default_factory=dict)
    retries: list[Finding] = field(default_factory=list)

    @property
    def reason(self) -> str | None:
        """The first blocking finding's code: the one-word why a person reads first."""
        return self.findings[0].code if self.findings else None

    def as_dict(self) -> dict[str, Any]:
        """Deterministic form (no timings or retries: those belong to the ledger and the run's
        summary, not to the stored verdict)."""
        return {
            "stage": self.stage,
            "passed": self.passed,
            "findings": [f.as_dict() for f in self.findings],
            "notes": [f.as_dict() for f in self.notes],
            "data": self.data,
        }


@dataclass
class EpisodeVerdict:
    """Everything curation decided about one episode."""

    episode_id: str
    sink: str
    reason: str
    role: str | None = None
    t_div: int | None = None
    t_rec: int | None = None
    t_div_reason: str | None = None
    target_turns: list[int] | None = None
    turn_reasons: dict[int, str] = field(default_factory=dict)
    stages: list[StageVerdict] = field(default_factory=list)
    advisory_score: float | None = None
    advisory_rank: int | None = None
    oracle_runs: int = 0
    triage_class: str | None = None
    triage_subject: str | None = None
    triage_evidence: list[str] = field(default_factory=list)
    verifier_suite_digest: str | None = None
    """The judging fixture's sealed-oracle digest (``curation.lineage.verifier_suite_digest``)."""

    def stage(self, name: str) -> StageVerdict | None:
        """The verdict of stage ``name`` if the episode reached it."""
        return next((s for s in self.stages if s.stage == name), None)
