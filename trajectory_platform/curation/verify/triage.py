"""Failure triage (curation §Capability gap diagnosis, table 1, the four gates).

Every failing episode is classified into exactly one of four root causes, tested in the order of
the gates and always from evidence outside the model (exit codes, our own oracle runs, refusal
rates measured over the whole batch, missing-file observations, compaction), never from what the
model says about itself:

1. runtime defect: our oracle run timed out, was killed or disagreed with itself (flaky), the gym's
   runtime ended the episode on timeout/error or with its last turn cut by the token limit (read
   from its seal, :func:`gym.runtime.end_sealed`), or the unrecovered error was a substrate signal
   (exit 124/137/139, OOM, 429/5xx, dropped connection);
2. context deficit: the failure followed missing-file observations for paths absent from S0, or
   history compaction happened before the divergence turn;
3. interface ambiguity: the episode's refused or invalid calls hit a (tool, schema version) whose
   refusal rate across the batch is at or above a threshold, or used arguments that only another
   delivered version of the tool accepts (schema drift);
4. policy incapability: the residual, when context, interface and runtime are clean.

How an episode ended (``outcome.terminal_status``, the last turn's ``finish_reason``) is a value
the log states about itself. A gym log's counts only under its runtime's seal: unsealed, it is
not evidence at all (a red team's wrong fix stating ``timeout`` became a ``runtime_defect``, which
drops its feedback edits and tells operators to harden the sandbox, 2026-12-06). A brought log's
is its harness's statement and the only source there is, so it is kept, but as what it is: a gate
of its own after the measured ones (context, interface), its evidence line saying it is the log's
own statement, and not counted where the log's own events contradict it (the agent gave its final
answer: the harness did not stop it).

What a call's answer says (its status, exit code and output: a substrate signal for gate 1, a
missing file for gate 2) is measured only where replay re-derived that answer and found it as
recorded (the replay data's ``verified_answers``: gym replay, shell or tools replay). An answer no
replay re-derived (an environment whose replay mode is ``none``, a call replay could not compare,
an episode stopped before replay) is the log's own statement, like a brought log's end, and is
read the same way: after the measured gates, its evidence line saying so, a substrate signal only
where the agent did not end the episode itself, a missing file only where the call names a path S0
lacks (S0 bears that out; a shell line names none). In a gym log, like its unsealed end, it is no
evidence at all (the gym's runtime evidence is sealed or replayed). A wrong fix answered "fixed"
whose log recorded ``Killed``, ``HTTP/1.1 503`` or exit 137 under replay ``none`` was triaged a
runtime defect on gate 1, outranking any measured context or interface evidence, and a recorded
``cat: spec.md: No such file`` a context deficit (red team, 2026-12-06).

Refusals (gate 3) and compactions (gate 2) follow the same rule. A refusal is measured where the
verifier re-derives it: the delivered schema refuses the call (:func:`schema_errors`), replay
re-derived the answer, or, in a gym log, it is the runtime's refusal of that call in the runtime's
words; a compaction is measured in a gym log whose compactions are the ones its runtime writes
(:func:`gym_context.compactions_are_the_runtimes`). A brought log's other refusals and its
compactions are its own statement: after the measured gates, said so; in a gym log, no evidence.
The batch's refusal rate counts measured refusals alone (the stated gate counts the stated ones
too, and says so), so it is known only once every episode was verified (:class:`RefusalTally`:
the cascade triages in its last pass). Before, a refusal rate was counted off the logs before any
was verified, and a brought log's own ``refused`` answers or compaction summary outranked what
was measured (2026-12-06).

Only class 4 is a reason to change weights; the report says what to fix where for the rest.
"""

from __future__ import annotations

import re
from bisect import insort
from collections import Counter, defaultdict
from dataclasses import dataclass
from typing import Any

import pyarrow as pa

from trajectory_platform.curation.redact.engine import mask_secrets
from trajectory_platform.curation.verify.calls import CallRecord, call_records, schema_errors, specs_for
from trajectory_platform.curation.verify.context import FixtureContext
from trajectory_platform.curation.verify.gym_context import (
    compactions_are_the_runtimes,
    refusal_text_is_the_runtimes,
)
from trajectory_platform.curation.verify.write_targets import PATH_KEY
from trajectory_platform.gym.fixtures import Fixture, is_gym_task
from trajectory_platform.gym.runtime import end_sealed, last_finish
from trajectory_platform.traces.record import Episode

CLASSES = ("runtime_defect", "context_deficit", "interface_ambiguity", "policy_incapability")
REMEDY = {
    "runtime_defect": "harden the sandbox: watchdog timeouts, memory limits, backoff retries",
    "context_deficit": "enrich retrieval / pin critical state; avoid compacting it away",
    "interface_ambiguity": "tighten the tool schema: strict types, enums, docstrings; version drift",
    "policy_incapability": "harvest recovery trajectories for SFT (the only class fixed in weights)",
}
SUBSTRATE_EXIT_CODES = {124: "timeout", 137: "killed (OOM?)", 139: "segfault"}
_HTTP_STATUS = r"(?:429|50[234])"
_SUBSTRATE_TEXT = re.compile(
    r"^Killed\b|^(?:\S+: )?line \d+: +\d+ Killed\b|\bOOMKilled\b|(?i:\bout of memory\b|\btimed out\b)"
    r"|^(?:[\w.]+\.)?(?:MemoryError|TimeoutError|TimeoutExpired|ReadTimeout|ConnectTimeout)(?::|$)"
    r"|\bETIMEDOUT\b"
    rf"|^HTTP(?:/\d(?:\.\d)?)? {_HTTP_STATUS}\b|(?i:\bstatus(?:[ _]code)?)[\"']?[:=] *[\"']?{_HTTP_STATUS}\b"
    rf"|\b{_HTTP_STATUS} (?:Too Many Requests|Bad Gateway|Service Unavailable|Gateway Time-?out)"
    r"|(?i:\bconnection (?:reset|refused|dropped)\b|\btoo many requests\b|\bservice unavailable\b)",
    re.MULTILINE,
)
"""A substrate signal where the runtime or sandbox writes it, not words any program prints: the
shell's ``Killed`` line (whole, or bash's ``line N: PID Killed``), an exception line that *is*
``MemoryError``/``TimeoutError``/``TimeoutExpired``, an HTTP status in a response status line
(``HTTP/1.1 503``) or a client error's ``status: 429``. Looser, it misread ordinary program output
as the runtime's fault: ``OOM`` inside "room", a line number 503, ``timeout`` in a test's name, a
game's ``player Killed by goblin`` (red team, 2026-12-06)."""
_TEST_ASSERTION = re.compile(r"^\s*(?:E\s|>\s|assert\b|FAILED\b)|DID NOT RAISE")
"""A test's own assertion output (pytest's ``E`` and ``>`` lines, an ``assert`` expression, the
``FAILED`` summary, ``pytest.raises``' ``DID NOT RAISE``): what the test expected of the code, never
the runtime's words, so ``assert resp.status_code == 503`` is no substrate signal."""


def _substrate_signal(text: str) -> str | None:
    """The first substrate signal in an output, read off lines that are not a test's assertions."""
    kept = "\n".join(line for line in text.splitlines() if not _TEST_ASSERTION.search(line))
    match = _SUBSTRATE_TEXT.search(kept)
    return match.group(0) if match else None


_MISSING = re.compile(r"No such file|FileNotFoundError|ENOENT|does not exist|not found", re.IGNORECASE)
TRIAGE_REPORT_SCHEMA = pa.schema(
    [
        ("failure_class", pa.string()),
        ("subject", pa.string()),
        ("episodes", pa.int64()),
        ("share", pa.float64()),
        ("remedy", pa.string()),
        ("evidence", pa.string()),
        ("example_episode_ids", pa.list_(pa.string())),
    ]
)


@dataclass
class TriageVerdict:
    failure_class: str
    subject: str
    evidence: list[str]


Rates = dict[str, tuple[int, int, int]]
"""Per ``tool@version`` over the batch: (calls refused or schema-invalid as measured, calls refused
as only their own log states, all calls): :class:`RefusalTally`."""
MEASURED_REFUSAL, STATED_REFUSAL = "measured", "stated"


def _call_key(record: CallRecord) -> str:
    return f"{record.call.name}@{record.tools_version or '?'}"


def _refusals(
    episode: Episode, fixture: FixtureContext | None, dynamic: dict[str, Any], records: list[CallRecord]
) -> list[str | None]:
    """Each call's refusal as evidence: :data:`MEASURED_REFUSAL`, :data:`STATED_REFUSAL` or none.

    A call the delivered schema refuses (:func:`schema_errors`: the verifier's own check) is
    measured; so is a refusal replay re-derived (the replay data's ``verified_answers``) and, in a
    gym log, a refusal in the runtime's words for that call (:func:`refusal_text_is_the_runtimes`:
    the runtime's validator re-derives it). Any other refusal of a brought log is its harness's
    statement, and of a gym log no evidence at all, as its unsealed end and its unreplayed
    answers are. Read as measured, a brought log's own ``refused`` answers made the batch rate,
    and the episode, an interface ambiguity outranking its measured evidence (2026-12-06)."""
    verified = _verified_answers(dynamic)
    index_of = {id(event): index for index, event in enumerate(episode.events)}
    gym = _gym_log(fixture)
    kinds: list[str | None] = []
    for record in records:
        answer = record.answer
        if schema_errors(record) or (
            answer is not None and record.refused and index_of.get(id(answer)) in verified
        ):
            kinds.append(MEASURED_REFUSAL)
        elif not record.refused or answer is None:
            kinds.append(None)
        elif gym:
            runtimes = answer.kind == "refusal" and refusal_text_is_the_runtimes(
                answer, record.call, record.tools_version, episode.events[record.turn]
            )
            kinds.append(MEASURED_REFUSAL if runtimes else None)
        else:
            kinds.append(STATED_REFUSAL)
    return kinds


class RefusalTally:
    """The batch's refusal rates (:data:`Rates`), an episode at a time, once verification has
    replayed it: which refusals are measured needs the replay's data, so a batch's rates are known
    only after every episode of it was verified (the cascade triages in its last pass)."""

    def __init__(self) -> None:
        self._counts: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])

    def add(self, episode: Episode, fixture: FixtureContext | None, dynamic: dict[str, Any]) -> None:
        records = call_records(episode)
        for record, kind in zip(records, _refusals(episode, fixture, dynamic, records), strict=True):
            counts = self._counts[_call_key(record)]
            counts[0] += kind == MEASURED_REFUSAL
            counts[1] += kind == STATED_REFUSAL
            counts[2] += 1

    def rates(self) -> Rates:
        return {
            key: (measured, stated, calls) for key, (measured, stated, calls) in sorted(self._counts.items())
        }


def _observation_text(record: CallRecord) -> str:
    return (record.answer.content or "") if record.answer is not None else ""


STATED = " (the log's own statement)"
"""What an evidence line read off text no replay re-derived says of itself."""


RUNTIME_ENDS = ("timeout", "error")
"""Terminal statuses that say the runtime, not the agent, ended the episode."""
LENGTH_FINISHES = ("length", "max_tokens", "max_output_tokens")
"""Finish reasons of a turn cut by the token limit (each provider's word)."""


def _ended_by(episode: Episode) -> list[str]:
    """How the record says the episode ended, where that is the runtime's doing."""
    ended = []
    if episode.outcome.terminal_status in RUNTIME_ENDS:
        ended.append(f"ended the episode: {episode.outcome.terminal_status}")
    if last_finish(episode.events) in LENGTH_FINISHES:
        ended.append("cut the final turn at the token limit")
    return ended


def _gym_log(fixture: FixtureContext | None) -> bool:
    """A log of a gym task (:func:`is_gym_task`, whatever format it declares): its end counts
    only under the runtime's seal, or is no evidence."""
    return is_gym_task(fixture.handle if fixture is not None else None)


def _agent_ended(episode: Episode) -> bool:
    """Did the agent end the episode itself: its final answer recorded, or a last turn making no
    call that no token limit cut? Then no harness or substrate stopped it, whatever the log says."""
    last = next((e for e in reversed(episode.events) if e.kind == "assistant"), None)
    return episode.outcome.final_answer is not None or (
        last is not None and not last.tool_calls and last_finish(episode.events) not in LENGTH_FINISHES
    )


def _stated_runtime(episode: Episode, records: list[CallRecord], unmeasured: list[CallRecord]) -> list[str]:
    """A brought log's own statement of a runtime defect, as evidence that says so: how its harness
    ended the episode, and the substrate signals of the failed calls no replay re-derived
    (``unmeasured``). Nothing where the log's events contradict it: an agent that ended the episode
    itself (:func:`_agent_ended`) was stopped by neither (a wrong fix answered "fixed" after a
    recorded ``Killed`` test run; red team, 2026-12-06)."""
    if _agent_ended(episode):
        return []
    ended = [f"the log states its harness {line}{STATED}" for line in _ended_by(episode)]
    return ended + [line + STATED for line in _substrate_evidence(records, unmeasured)]


def _verified_answers(dynamic: dict[str, Any]) -> set[int]:
    """The event indices of the answers replay re-derived and found as recorded."""
    return set((dynamic.get("replay") or {}).get("verified_answers", []))


def _measured(
    episode: Episode, records: list[CallRecord], dynamic: dict[str, Any]
) -> tuple[list[CallRecord], list[CallRecord]]:
    """``records`` split into the calls whose answer replay re-derived and found as recorded (the
    replay data's ``verified_answers``: their status, exit code and output are measured) and the
    rest, whose answers are the log's own statement: a replay mode of ``none``, a call replay could
    not compare, an episode never replayed. Read as measured, a forger's ``Killed``, ``HTTP/1.1
    503`` or exit 137 beside a wrong fix made a policy failure a ``runtime_defect``, and a recorded
    ``No such file`` a ``context_deficit`` (red team, 2026-12-06)."""
    verified = _verified_answers(dynamic)
    index_of = {id(event): index for index, event in enumerate(episode.events)}
    measured: list[CallRecord] = []
    stated: list[CallRecord] = []
    for record in records:
        is_verified = record.answer is not None and index_of.get(id(record.answer)) in verified
        (measured if is_verified else stated).append(record)
    return measured, stated


def _oracle_evidence(dynamic: dict[str, Any]) -> list[str]:
    """What our own oracle runs measured of the runtime."""
    evidence = []
    if dynamic.get("timed_out"):
        evidence.append("oracle run timed out")
    if dynamic.get("inconsistent"):
        evidence.append(f"oracle runs disagreed: {dynamic.get('run_outcomes')}")
    if dynamic.get("fixture_oracle_flaky"):
        evidence.append("the fixture's oracle disagrees with itself (calibration or other episodes)")
    return evidence


def _substrate_evidence(records: list[CallRecord], counted: list[CallRecord]) -> list[str]:
    """The substrate signals (exit code, then the runtime's words) of the failed calls among
    ``counted`` that no later successful call of the same tool among ``records`` recovered."""
    failed = [r for r in counted if r.failed]
    recovered = {r.call.name for r in records if not r.failed and failed and r.turn > failed[0].turn}
    evidence = []
    for record in failed:
        if record.call.name in recovered:
            continue
        code = record.answer.exit_code if record.answer is not None else None
        if code in SUBSTRATE_EXIT_CODES:
            evidence.append(f"{record.call.name} exit {code} ({SUBSTRATE_EXIT_CODES[code]})")
        elif signal := _substrate_signal(_observation_text(record)):
            evidence.append(f"{record.call.name}: substrate error '{signal}' never recovered")
    return evidence


def _missing_paths(
    records: list[CallRecord], fixture: FixtureContext | None, named: bool = False
) -> list[str]:
    """The paths absent from S0 that failed calls among ``records`` were told are missing (``?``
    for a call naming none, a shell line). ``named``: only paths a call names, so S0 itself bears
    out the answer; an unnamed one is the answer's word alone (a forged ``cat: x: No such file``
    of a shell line was a context deficit; red team, 2026-12-06)."""
    missing = []
    for record in records:
        if not record.failed or not _MISSING.search(_observation_text(record)):
            continue
        paths = [v for k, v in record.string_values() if PATH_KEY.search(k)]
        for path in paths or ([] if named else ["?"]):
            if fixture is None or path.removeprefix("./") not in fixture.files:
                missing.append(path)
    return missing


@dataclass(frozen=True)
class InterfaceCheck:
    """Gate 3 over an episode's refused or invalid calls (:func:`_interface`), in call order:
    ``(tool@version, whether the arguments fit another delivered version)`` each, read as
    ``kind`` says. Its verdict waits for the batch's rates."""

    kind: str
    calls: tuple[tuple[str, bool], ...]

    def verdict(self, rates: Rates, threshold: float) -> TriageVerdict | None:
        """A (tool, version) refused or invalid at or above ``threshold`` of its calls across the
        batch, else arguments only another delivered version accepts (schema drift). Measured, the
        rate counts measured refusals alone; stated (a brought log's own, after every measured
        gate), the refusals the logs state too, and its evidence says so."""
        stated = self.kind == STATED_REFUSAL
        said = STATED if stated else ""
        for key, fits_another in self.calls:
            counted, claimed, total = rates.get(key, (0, 0, 0))
            bad = counted + claimed if stated else counted
            if total and bad / total >= threshold:
                line = f"{key}: {bad}/{total} calls refused or invalid across the batch{said}"
                return TriageVerdict("interface_ambiguity", key, [line])
            if fits_another:
                line = f"{key}: arguments fit another delivered version (schema drift){said}"
                return TriageVerdict("interface_ambiguity", key, [line])
        return None


@dataclass(frozen=True)
class PendingTriage:
    """An episode's gates in order, each a verdict or a gate-3 check that needs the batch's refusal
    rates: decided where the episode is verified (the episode as replay left it), resolved once
    every episode of the batch was (:class:`RefusalTally`)."""

    steps: tuple[TriageVerdict | InterfaceCheck, ...]
    subject: str

    def resolve(self, rates: Rates, threshold: float) -> TriageVerdict:
        for step in self.steps:
            verdict = step.verdict(rates, threshold) if isinstance(step, InterfaceCheck) else step
            if verdict is not None:
                return verdict
        return _residual(self.subject)


def pending_triage(
    episode: Episode,
    fixture: FixtureContext | None,
    dynamic: dict[str, Any],
    t_div: int | None,
    seal_key: bytes | None = None,
) -> PendingTriage:
    """One failing episode's four gates in order, measured evidence first and a brought log's own
    statements after it; ``seal_key``: the pipeline's, under which a gym log's end is its
    runtime's (:func:`gym.runtime.end_sealed`). The first gate with evidence decides."""
    records = call_records(episode)
    measured, unmeasured = _measured(episode, records, dynamic)
    refusals = _refusals(episode, fixture, dynamic, records)
    subject = episode.task.fixture_id or episode.task.repo_family or "unknown"
    steps: list[TriageVerdict | InterfaceCheck] = []
    evidence = _oracle_evidence(dynamic)
    if _gym_log(fixture) and end_sealed(episode, seal_key):
        evidence.extend(f"the runtime {line} (sealed)" for line in _ended_by(episode))
    evidence += _substrate_evidence(measured, measured)
    if evidence:
        steps.append(TriageVerdict("runtime_defect", subject, evidence))
    if missing := _missing_paths(measured, fixture):
        steps.append(
            TriageVerdict(
                "context_deficit",
                f"missing {missing[0]}",
                [f"missing-file observation for {p}" for p in missing],
            )
        )
    compacted = _compacted_before(episode, t_div)
    if compacted is not None and _runtimes_compactions(episode, fixture):
        steps.append(TriageVerdict("context_deficit", subject, [compacted]))
    steps.append(_interface(episode, records, refusals, MEASURED_REFUSAL))
    if not _gym_log(fixture):  # a gym log's runtime evidence is sealed, replayed or re-derived, or is none
        if stated := _stated_runtime(episode, records, unmeasured):  # the log's word after the measured
            steps.append(TriageVerdict("runtime_defect", subject, stated))
        if missing := _missing_paths(unmeasured, fixture, named=True):
            lines = [f"missing-file observation for {p}{STATED}" for p in missing]
            steps.append(TriageVerdict("context_deficit", f"missing {missing[0]}", lines))
        if compacted is not None:
            steps.append(TriageVerdict("context_deficit", subject, [compacted + STATED]))
        steps.append(_interface(episode, records, refusals, STATED_REFUSAL))
    return PendingTriage(tuple(steps), subject)


def triage_episode(
    episode: Episode,
    fixture: FixtureContext | None,
    dynamic: dict[str, Any],
    rates: Rates,
    t_div: int | None,
    ambiguity_threshold: float = 0.2,
    seal_key: bytes | None = None,
) -> TriageVerdict:
    """Classify one failing episode (:func:`pending_triage`) with the batch's refusal ``rates``
    (:class:`RefusalTally`) known."""
    return pending_triage(episode, fixture, dynamic, t_div, seal_key).resolve(rates, ambiguity_threshold)


def _compacted_before(episode: Episode, t_div: int | None) -> str | None:
    """The evidence line of a compaction the log records before the divergence turn, if any."""
    first = next((i for i, e in enumerate(episode.events) if e.kind == "compaction"), None)
    if first is None or t_div is None or first >= t_div:
        return None
    return f"history compacted at event {first} before divergence at {t_div}"


def _runtimes_compactions(episode: Episode, fixture: FixtureContext | None) -> bool:
    """Are the log's compactions measured? In a gym log, where they are what its runtime writes
    (:func:`compactions_are_the_runtimes`, re-derived with the runtime's own rule); a brought log's
    are its harness's statement (gate 2 read a summary anyone can write as measured, 2026-12-06)."""
    handle = fixture.handle if fixture is not None else None
    return _gym_log(fixture) and isinstance(handle, Fixture) and compactions_are_the_runtimes(episode, handle)


def _interface(
    episode: Episode, records: list[CallRecord], refusals: list[str | None], kind: str
) -> InterfaceCheck:
    """Gate 3's check over the calls refused as ``kind`` says: measured ones (measured), or any
    (stated: the rate the logs state, whatever the episode's own call)."""
    calls = []
    for record, found in zip(records, refusals, strict=True):
        if found is None or (kind == MEASURED_REFUSAL and found != kind):
            continue
        others = [s for s in specs_for(episode, record.call.name, None) if s.version != record.tools_version]
        fits_another = (
            bool(others)
            and record.arguments is not None
            and schema_errors(
                CallRecord(record.turn, record.call, record.arguments, None, None, False, None, others)
            )
            == []
        )
        calls.append((_call_key(record), fits_another))
    return InterfaceCheck(kind, tuple(calls))


def _residual(subject: str) -> TriageVerdict:
    """Policy incapability: no gate found evidence."""
    return TriageVerdict(
        "policy_incapability", subject, ["context complete, schemas unambiguous, runtime clean; still failed"]
    )


EXAMPLE_IDS = 5
"""Episode ids a triage group names as examples (the smallest, by id)."""


class TriageTally:
    """The triage report built an episode at a time: per (class, subject) group a count, the first
    evidence lines counted, and the :data:`EXAMPLE_IDS` smallest ids, so a streaming verification
    holds its groups, not one entry per failing episode.

    Subjects and evidence quote the record before redaction (a tool name, a path, a task id) and the
    report is published as run metadata, so a secret of a known format in them is masked
    (:func:`mask_secrets`); the verdict columns keep them for redaction to pseudonymize."""

    def __init__(self) -> None:
        self.episodes = 0
        self._counts: Counter[tuple[str, str]] = Counter()
        self._evidence: dict[tuple[str, str], Counter[str]] = defaultdict(Counter)
        self._examples: dict[tuple[str, str], list[str]] = defaultdict(list)
        self._masked: dict[str, str] = {}

    def _mask(self, text: str) -> str:
        """:func:`mask_secrets`, once per distinct text (subjects repeat across a day's episodes)."""
        if text not in self._masked:
            self._masked[text] = mask_secrets(text)
        return self._masked[text]

    def add(self, episode_id: str, verdict: TriageVerdict) -> None:
        key = (verdict.failure_class, self._mask(verdict.subject))
        self.episodes += 1
        self._counts[key] += 1
        self._evidence[key].update(self._mask(line) for line in verdict.evidence[:1])
        examples = self._examples[key]
        if len(examples) < EXAMPLE_IDS or episode_id < examples[-1]:
            insort(examples, episode_id)
            del examples[EXAMPLE_IDS:]

    def table(self) -> pa.Table:
        """What a person acts on, largest groups first."""
        total = self.episodes or 1
        ordered = sorted(self._counts.items(), key=lambda kv: (CLASSES.index(kv[0][0]), -kv[1], kv[0][1]))
        return pa.Table.from_pylist(
            [
                {
                    "failure_class": cls,
                    "subject": subject,
                    "episodes": count,
                    "share": round(count / total, 6),
                    "remedy": REMEDY[cls],
                    "evidence": self._evidence[(cls, subject)].most_common(1)[0][0],
                    "example_episode_ids": self._examples[(cls, subject)],
                }
                for (cls, subject), count in ordered
            ],
            schema=TRIAGE_REPORT_SCHEMA,
        )


def triage_report(rows: list[tuple[str, TriageVerdict]]) -> pa.Table:
    """Aggregate (episode_id, verdict) pairs into what a person acts on, largest groups first."""
    tally = TriageTally()
    for episode_id, verdict in rows:
        tally.add(episode_id, verdict)
    return tally.table()
