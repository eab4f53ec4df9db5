"""From a failure to a fixture: what production feedback may do, and nothing more (curation
§Production feedback signals, table 6).

Feedback arrives without an oracle and with biases of its own, so each signal gets only the use
the seed admits:

- ``edited`` (and ``reverted`` with a diff): the user's change shows what the output should have
  been. On an episode whose task environment is known (``episode.task.fixture_id`` names it), the
  episode's final state (S0 + ``outcome.workspace_diff``) with the user's edit applied becomes the
  reference solution of a *candidate* environment: the same S0, oracle and tools, that reference
  expressed as one unified diff against S0, and a task id derived from it
  (``<task_id>+edit-<8 hex>``). A candidate is only a proposal: :func:`validate_candidates` runs
  :func:`~trajectory_platform.environments.validate.validate_environment` on it (the oracle must
  still reject S0 and must accept the edited state, over several runs), because an edit mixes
  correction with personal preference and the oracle, not the user, decides.
- ``correction``: marks a candidate ``t_div`` (the corrected assistant turn). It is reported for
  triage, never written over the cascade's ``t_div``: it marks the turn, not the cause.
- ``accepted``, ``rating``, ``retry``, ``abandoned`` (and the edit signals, as evidence the output
  was not right): a per-episode score for ordering (a ranker's calibration data, a labeling
  queue's order). Nothing here reaches the verifier cascade, so no signal can change a sink or
  admit an episode: an episode with the best rating and no oracle stays ``unverifiable``.

Feedback names its episode by ``episode_id`` (:mod:`trajectory_platform.traces.feedback`); a record
naming an episode that is not among the episodes given is dropped as ``unknown_episode``, or as
``left_out_by_redaction`` when the redaction stage left that episode out of the corpus.
"""

from __future__ import annotations

import dataclasses
import hashlib
import re
import shutil
from collections import Counter, defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

import pyarrow as pa

from trajectory_platform.environments.format import (
    ENVIRONMENT_FILE,
    EnvironmentFormatError,
    TaskEnvironment,
    write_environment,
)
from trajectory_platform.environments.registry import safe_dirname
from trajectory_platform.environments.validate import (
    DEFAULT_RUNS,
    EnvironmentValidation,
    validate_environment,
)
from trajectory_platform.gym.sandbox import SandboxError, apply_diff, s0_digest, unified_diff
from trajectory_platform.traces.drops import Drop, Tally
from trajectory_platform.traces.feedback import FEEDBACK_TEXT_FIELDS, FeedbackRecord
from trajectory_platform.traces.record import Episode

_SAFE_DIFF_PROBLEM = re.compile(r"(context mismatch at line \d+|which does not exist)$")
"""The sandbox's diff errors that name only a path and a line number."""

LINK_DROP_REASONS = ("unknown_episode", "left_out_by_redaction", "turn_out_of_range")
"""Why a feedback record is not used at all: it names no episode given (``unknown_episode``), an
episode the redaction stage left out of the corpus (``left_out_by_redaction``: a blocked licence,
a record nested too deep; the detail names the stage's reason key), or
its ``turn_index`` is not an assistant event of that episode (``turn_out_of_range``)."""

CANDIDATE_REFUSALS = (
    "not_redactable",
    "not_a_policy_gap",
    "no_environment",
    "environment_mismatch",
    "episode_diff_does_not_apply",
    "edit_does_not_apply",
    "empty_reference",
    "known_reference",
    "duplicate_candidate",
    "not_validated",
    "redacted_not_validated",
)
"""Why an edit did not become a usable candidate environment:

- ``not_redactable``: the redaction engine failed on the episode's or the feedback's text; no
  candidate is built from text that was not redacted;
- ``not_a_policy_gap``: triage (curation §Capability gap diagnosis) put the episode's failure
  outside the weights (a runtime defect, a context deficit, an interface ambiguity): its remedy is a
  fix to the tool, the retrieval or the schema, and training on the edit would teach the policy to
  work around it;
- ``no_environment``: the episode names no task environment the catalog knows;
- ``environment_mismatch``: the episode records an environment digest that is neither this
  environment's nor its S0's (it ran on another version of the task);
- ``episode_diff_does_not_apply`` / ``edit_does_not_apply``: the episode's workspace diff does not
  apply to S0, or the user's edit does not apply to the episode's final state;
- ``empty_reference``: the edited state is S0 itself (nothing to learn as a solution);
- ``known_reference``: the edited state is one of the environment's references already;
- ``duplicate_candidate``: an earlier record produced the same reference (same task id);
- ``not_validated``: the candidate environment failed validation (its reasons in the detail);
- ``redacted_not_validated``: the same, for a candidate whose reference carries pseudonyms (the
  agent or the user wrote a secret into the workspace). A test that reads the replaced value
  (compares a key, parses a token's format) fails on the pseudonym; the candidate is dropped, never
  rebuilt from the raw value. The count bounds what redaction cost: an edit that fails for its
  own reasons but carries a pseudonym is counted here too, and telling the two apart would take
  the raw value.
"""

SIGNAL_WEIGHTS = {
    "accepted": 1.0,
    "edited": -0.5,
    "reverted": -1.0,
    "correction": -0.5,
    "retry": -0.5,
    "abandoned": -1.0,
}
"""Each signal's contribution to an episode's score, in [-1, 1]. A ``rating`` r in [0, 1]
contributes ``2r - 1``. An edit or a correction counts half a failure: the output was usable
enough to fix. The score is the mean contribution; it orders episodes, it never admits one."""


CANDIDATE_SCHEMA = pa.schema(
    [
        pa.field("episode_id", pa.string(), nullable=False),
        pa.field("source", pa.string(), nullable=False),
        ("base_task_id", pa.string()),
        ("task_id", pa.string()),
        pa.field("status", pa.string(), nullable=False),
        ("reason", pa.string()),
        ("detail", pa.string()),
        ("environment_digest", pa.string()),
        ("reference_diff", pa.string()),
    ]
)
"""One row per edit: its candidate environment (id, digest, reference diff against S0) and its
status (``validated`` / ``refused`` / ``unvalidated``) with the refusal's reason and detail."""


@dataclass(frozen=True)
class Divergence:
    """A candidate ``t_div`` a user's correction marks: the assistant event the user corrected."""

    episode_id: str
    turn_index: int
    source: str
    """``file:line`` of the correction."""


@dataclass(frozen=True)
class EpisodeScore:
    """An episode's feedback score (mean signal contribution, in [-1, 1]) and its signals by kind."""

    episode_id: str
    score: float
    signals: dict[str, int]


@dataclass
class FeedbackCandidate:
    """One edit's candidate environment, or why there is none; validated by :func:`validate_candidates`."""

    episode_id: str
    source: str
    """``file:line`` of the feedback record."""
    base_task_id: str | None
    environment: TaskEnvironment | None = None
    refusal: Drop | None = None
    validation: EnvironmentValidation | None = None
    redacted_values: int = 0
    """Pseudonyms in the reference (values redaction replaced): a failed validation then may be
    redaction's doing (``redacted_not_validated``)."""

    @property
    def task_id(self) -> str | None:
        return self.environment.task_id if self.environment is not None else None

    @property
    def status(self) -> str:
        """``refused`` (see :attr:`refusal`), ``validated``, or ``unvalidated`` (not yet judged)."""
        if self.refusal is not None:
            return "refused"
        return "validated" if self.validation is not None and self.validation.ok else "unvalidated"


@dataclass
class FeedbackOutcome:
    """What a batch of feedback yields: candidate environments, candidate ``t_div`` marks, scores
    for ordering, and the records that could not be linked."""

    records_in: int = 0
    candidates: list[FeedbackCandidate] = field(default_factory=list)
    divergences: list[Divergence] = field(default_factory=list)
    scores: list[EpisodeScore] = field(default_factory=list)
    """Best first (score, then more signals, then episode id)."""
    drops: list[Drop] = field(default_factory=list)

    def tally(self) -> Tally:
        """Records in, linked to an episode (kept), dropped by :data:`LINK_DROP_REASONS`."""
        return Tally.of(self.records_in - len(self.drops), [d.reason for d in self.drops])

    def ranking(self) -> list[str]:
        """Episode ids in score order, best first."""
        return [s.episode_id for s in self.scores]

    def candidate_counts(self) -> dict[str, int]:
        """Candidates by status, and refusals by reason (``refused:<reason>``)."""
        counts = Counter(c.status for c in self.candidates)
        counts.update(f"refused:{c.refusal.reason}" for c in self.candidates if c.refusal is not None)
        return dict(sorted(counts.items()))

    def candidates_table(self) -> pa.Table:
        """The candidates as a :data:`CANDIDATE_SCHEMA` table, in feedback order (episode, file, line)."""
        rows = [
            {
                "episode_id": c.episode_id,
                "source": c.source,
                "base_task_id": c.base_task_id,
                "task_id": c.task_id,
                "status": c.status,
                "reason": c.refusal.reason if c.refusal is not None else None,
                "detail": c.refusal.detail if c.refusal is not None else None,
                "environment_digest": c.environment.digest if c.environment is not None else None,
                "reference_diff": c.environment.references[0] if c.environment is not None else None,
            }
            for c in self.candidates
        ]
        return pa.Table.from_pylist(rows, schema=CANDIDATE_SCHEMA)


class FeedbackRedaction(Protocol):
    """What building candidates needs of the redaction engine, which lives in a layer above
    (:class:`trajectory_platform.curation.redact.feedback.FeedbackRedactor` is the one to pass)."""

    def redact(
        self, episode: Episode, records: Sequence[FeedbackRecord]
    ) -> tuple[Episode, list[FeedbackRecord]]:
        """``episode`` and ``records`` (its feedback) redacted through one symbol table."""
        ...

    def redacted_values(self, text: str) -> int:
        """How many pseudonyms ``text`` carries."""
        ...


POLICY_GAP = "policy_incapability"
"""The one triage class whose failures training can fix (curation/verify/triage.py's classes)."""


def candidates_from_feedback(
    feedback: list[FeedbackRecord],
    episodes: dict[str, Episode],
    environments: Callable[[str], TaskEnvironment | None],
    failure_class: Mapping[str, str | None] | None = None,
    *,
    redaction: FeedbackRedaction,
    left_out: Mapping[str, str] | None = None,
) -> FeedbackOutcome:
    """Link each record to its episode and give it its admissible use (module docstring).

    ``failure_class`` is triage's verdict per episode id (``triage_class``); an edit becomes a
    candidate only on an episode with no failure or a failure triaged as a policy gap. Every
    candidate is built from the episode and its feedback redacted together by ``redaction`` (under
    the corpus's salt; :func:`redacted_edits`), so no secret of either reaches a reference, whether
    ``episodes`` come from the redacted corpus (as the asset gives them) or not. Candidates come
    back unvalidated; pass the outcome to :func:`validate_candidates` before any candidate is used.
    ``left_out`` names the episodes the redaction stage left out (``redaction_rejects``: episode
    id to reason key), so feedback on them is counted as such rather than as ``unknown_episode``.
    The result is the same for the same records in any order.
    """
    classes = failure_class or {}
    outcome = FeedbackOutcome(records_in=len(feedback))
    signals: dict[str, list[float]] = defaultdict(list)
    kinds: dict[str, Counter[str]] = defaultdict(Counter)
    seen: set[str] = set()
    ordered = sorted(feedback, key=FeedbackRecord.sort_key)
    redacted = redacted_edits(ordered, episodes, redaction)
    for index, record in enumerate(ordered):
        episode = episodes.get(record.episode_id)
        if episode is None:
            outcome.drops.append(_unlinked(record, (left_out or {}).get(record.episode_id)))
            continue
        if record.turn_index is not None and not _is_assistant_turn(episode, record.turn_index):
            outcome.drops.append(
                Drop("turn_out_of_range", f"{record.where()}: turn_index is not an assistant event")
            )
            continue
        kinds[record.episode_id][record.kind] += 1
        signals[record.episode_id].append(
            2.0 * record.rating - 1.0 if record.rating is not None else SIGNAL_WEIGHTS[record.kind]
        )
        if record.kind == "correction" and record.turn_index is not None:
            outcome.divergences.append(Divergence(record.episode_id, record.turn_index, record.where()))
        if record.edit_diff is not None:
            pair = redacted[index]
            candidate = (
                FeedbackCandidate(record.episode_id, record.where(), None, refusal=pair)
                if isinstance(pair, Drop)
                else _candidate(*pair, environments, classes.get(record.episode_id))
            )
            if candidate.environment is not None:
                candidate.redacted_values = redaction.redacted_values(candidate.environment.references[0])
            if candidate.environment is not None and candidate.environment.task_id in seen:
                candidate.refusal = Drop(
                    "duplicate_candidate", f"{record.where()}: same reference as an earlier edit"
                )
            elif candidate.environment is not None:
                seen.add(candidate.environment.task_id)
            outcome.candidates.append(candidate)
    outcome.scores = sorted(
        (
            EpisodeScore(eid, sum(values) / len(values), dict(sorted(kinds[eid].items())))
            for eid, values in signals.items()
        ),
        key=lambda s: (-s.score, -sum(s.signals.values()), s.episode_id),
    )
    return outcome


def redacted_edits(
    ordered: list[FeedbackRecord], episodes: Mapping[str, Episode], redaction: FeedbackRedaction
) -> dict[int, tuple[FeedbackRecord, Episode] | Drop]:
    """Each record of ``ordered`` that carries text (by its index), redacted with its episode, and
    that episode redacted with all of its feedback: one symbol table per episode, so a secret in
    both the agent's diff and a user's edit gets one pseudonym and the edit still applies. Where
    the engine fails on an episode's text (a text it cannot encode, nesting too deep), each of its
    records is a ``not_redactable`` refusal instead, and the rest of the feedback goes on."""
    by_episode: dict[str, list[int]] = defaultdict(list)
    for index, record in enumerate(ordered):
        if record.episode_id in episodes and any(getattr(record, f) for f in FEEDBACK_TEXT_FIELDS):
            by_episode[record.episode_id].append(index)
    out: dict[int, tuple[FeedbackRecord, Episode] | Drop] = {}
    for episode_id, indices in by_episode.items():
        try:
            episode, records = redaction.redact(episodes[episode_id], [ordered[i] for i in indices])
        except (UnicodeError, RecursionError) as exc:
            out.update(
                (i, Drop("not_redactable", f"{ordered[i].where()}: redaction failed ({type(exc).__name__})"))
                for i in indices
            )
            continue
        out.update((i, (record, episode)) for i, record in zip(indices, records, strict=True))
    return out


def validate_candidates(outcome: FeedbackOutcome, runs: int = DEFAULT_RUNS) -> FeedbackOutcome:
    """Validate every unrefused candidate (in the sandbox, ``runs`` oracle runs each); one that
    fails is refused with the validator's reasons, as ``redacted_not_validated`` when its reference
    carries pseudonyms (a test may read the value redaction replaced: the raw value is never tried)
    and as ``not_validated`` otherwise. Returns ``outcome``."""
    for candidate in outcome.candidates:
        if candidate.environment is None or candidate.refusal is not None:
            continue
        candidate.validation = validate_environment(candidate.environment, runs)
        if not candidate.validation.ok:
            redacted = candidate.redacted_values
            reason, note = (
                ("redacted_not_validated", f"its reference carries {redacted} redacted value(s); ")
                if redacted
                else ("not_validated", "")
            )
            candidate.refusal = Drop(
                reason, f"{candidate.source}: {note}" + "; ".join(candidate.validation.reasons)
            )
    return outcome


@dataclass(frozen=True)
class ReviewFolder:
    """What :func:`write_validated` did to the review folder: the candidate directories it holds
    now (in candidate order) and the stale ones it removed."""

    written: list[Path]
    removed: list[Path]


def write_validated(outcome: FeedbackOutcome, root: Path) -> ReviewFolder:
    """Write each validated candidate as an environment directory under ``root`` for a person to
    review and import (``trajectory-platform env import``); one already there is left as it is
    (its name holds the digest of its reference, so the same name is the same candidate).

    The folder mirrors this outcome: an environment directory under ``root`` that is not one of
    its validated candidates is removed. A candidate stops being proposed when its edit stops
    validating or its text changes (a redaction fix changes the reference, and with it the name), and
    a directory left from before would keep text the corpus no longer holds, raw secrets included.
    Only environment directories (and half-written ones: the staging directory gets its
    ``environment.json`` first) are removed; anything else a person put there stays.

    Nothing is registered here: an edit mixes correction with preference, so a validated candidate
    is a proposal until someone imports it.
    """
    written = []
    for candidate in outcome.candidates:
        if candidate.status != "validated" or candidate.environment is None:
            continue
        target = Path(root) / safe_dirname(candidate.environment.task_id)
        if not target.exists():
            write_environment(candidate.environment, target)
        written.append(target)
    current = set(written)
    stale = sorted(
        entry
        for entry in (Path(root).iterdir() if Path(root).is_dir() else ())
        if entry not in current and (entry / ENVIRONMENT_FILE).is_file()
    )
    for entry in stale:
        shutil.rmtree(entry)
    return ReviewFolder(written, stale)


def _unlinked(record: FeedbackRecord, left_out_because: str | None) -> Drop:
    if left_out_because is None:
        return Drop("unknown_episode", f"{record.where()}: no such episode_id")
    return Drop(
        "left_out_by_redaction",
        f"{record.where()}: the redaction stage left the episode out ({left_out_because})",
    )


def _is_assistant_turn(episode: Episode, index: int) -> bool:
    return 0 <= index < len(episode.events) and episode.events[index].kind == "assistant"


def _diff_problem(exc: SandboxError) -> str:
    """Where a diff failed to apply, without its text: some of the sandbox's messages quote a line
    of the diff, which may hold a secret (a drop's detail never holds record text)."""
    message = str(exc)
    return message if _SAFE_DIFF_PROBLEM.search(message) else "a hunk is malformed"


def _candidate(
    record: FeedbackRecord,
    episode: Episode,
    environments: Callable[[str], TaskEnvironment | None],
    failure_class: str | None,
) -> FeedbackCandidate:
    """The candidate environment of one edit, or the refusal saying why there is none."""
    where = record.where()
    task_id = episode.task.fixture_id
    candidate = FeedbackCandidate(record.episode_id, where, task_id)
    if failure_class is not None and failure_class != POLICY_GAP:
        candidate.refusal = Drop(
            "not_a_policy_gap", f"{where}: triage says {failure_class}: fix it outside the weights"
        )
        return candidate
    env = environments(task_id) if task_id else None
    if env is None:
        candidate.refusal = Drop("no_environment", f"{where}: the episode's task is not a known environment")
        return candidate
    recorded = episode.lineage.environment_digest
    if recorded and recorded not in (env.digest, s0_digest(env.s0_files)):
        candidate.refusal = Drop(
            "environment_mismatch", f"{where}: episode ran on {recorded}, {env.task_id} is {env.digest}"
        )
        return candidate
    try:
        final = apply_diff(env.s0_files, episode.outcome.workspace_diff or "")
    except SandboxError as exc:
        candidate.refusal = Drop("episode_diff_does_not_apply", f"{where}: {_diff_problem(exc)}")
        return candidate
    try:
        edited = apply_diff(final, record.edit_diff or "")
    except SandboxError as exc:
        candidate.refusal = Drop("edit_does_not_apply", f"{where}: {_diff_problem(exc)}")
        return candidate
    reference = unified_diff(env.s0_files, edited)
    if not reference:
        candidate.refusal = Drop("empty_reference", f"{where}: the edited state is S0")
        return candidate
    try:
        known = env.reference_solutions()
    except EnvironmentFormatError as exc:
        candidate.refusal = Drop("no_environment", f"{where}: {exc}")
        return candidate
    if edited in known:
        candidate.refusal = Drop("known_reference", f"{where}: already a reference of {env.task_id}")
        return candidate
    digest = hashlib.sha256(reference.encode("utf-8")).hexdigest()[:8]
    candidate.environment = dataclasses.replace(
        env, task_id=f"{env.task_id}+edit-{digest}", references=[reference]
    )
    return candidate


def unjudged_candidates(table: pa.Table) -> dict[str, list[str]]:
    """Rows of a stored candidates table (:data:`CANDIDATE_SCHEMA`) that break its promise, by
    problem, as their sources: a status other than validated / refused, a refusal whose reason is
    not one of :data:`CANDIDATE_REFUSALS`, a validated row without its task id, digest or reference."""
    rows = table.to_pylist()
    return {
        "unjudged": [r["source"] for r in rows if r["status"] not in ("validated", "refused")],
        "unexplained_refusals": [
            r["source"] for r in rows if r["status"] == "refused" and r["reason"] not in CANDIDATE_REFUSALS
        ],
        "validated_without_environment": [
            r["source"]
            for r in rows
            if r["status"] == "validated"
            and not (r["task_id"] and r["environment_digest"] and r["reference_diff"])
        ],
    }
