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
from trajectory_platform.curation.verify.write_targets import PATH_KEY
from trajectory_platform.gym.fixtures import is_gym_task
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


def refusal_rates(episodes: list[Episode]) -> dict[str, tuple[int, int]]:
    """(refused or schema-invalid calls, all calls) per ``tool@version`` over the batch."""
    counts: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for episode in episodes:
        for record in call_records(episode):
            key = f"{record.call.name}@{record.tools_version or '?'}"
            counts[key][1] += 1
            counts[key][0] += record.refused or bool(schema_errors(record))
    return {k: (v[0], v[1]) for k, v in counts.items()}


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


def _measured(
    episode: Episode, records: list[CallRecord], dynamic: dict[str, Any]
) -> tuple[list[CallRecord], list[CallRecord]]:
    """``records`` split into the calls whose answer replay re-derived and found as recorded (the
    replay data's ``verified_answers``: their status, exit code and output are measured) and the
    rest, whose answers are the log's own statement: a replay mode of ``none``, a call replay could
    not compare, an episode never replayed. Read as measured, a forger's ``Killed``, ``HTTP/1.1
    503`` or exit 137 beside a wrong fix made a policy failure a ``runtime_defect``, and a recorded
    ``No such file`` a ``context_deficit`` (red team, 2026-12-06)."""
    verified = set((dynamic.get("replay") or {}).get("verified_answers", []))
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


def triage_episode(
    episode: Episode,
    fixture: FixtureContext | None,
    dynamic: dict[str, Any],
    rates: dict[str, tuple[int, int]],
    t_div: int | None,
    ambiguity_threshold: float = 0.2,
    seal_key: bytes | None = None,
) -> TriageVerdict:
    """Classify one failing episode through the four gates in order; ``seal_key``: the pipeline's,
    under which a gym log's end is its runtime's (:func:`gym.runtime.end_sealed`)."""
    records = call_records(episode)
    measured, unmeasured = _measured(episode, records, dynamic)
    subject_fixture = episode.task.fixture_id or episode.task.repo_family or "unknown"
    evidence = _oracle_evidence(dynamic)
    if _gym_log(fixture) and end_sealed(episode, seal_key):
        evidence.extend(f"the runtime {line} (sealed)" for line in _ended_by(episode))
    evidence += _substrate_evidence(measured, measured)
    if evidence:
        return TriageVerdict("runtime_defect", subject_fixture, evidence)
    missing = _missing_paths(measured, fixture)
    compactions = [i for i, e in enumerate(episode.events) if e.kind == "compaction"]
    if missing:
        return TriageVerdict(
            "context_deficit", f"missing {missing[0]}", [f"missing-file observation for {p}" for p in missing]
        )
    if compactions and t_div is not None and compactions[0] < t_div:
        return TriageVerdict(
            "context_deficit",
            subject_fixture,
            [f"history compacted at event {compactions[0]} before divergence at {t_div}"],
        )
    for record in records:
        if not (record.refused or schema_errors(record)):
            continue
        key = f"{record.call.name}@{record.tools_version or '?'}"
        bad, total = rates.get(key, (0, 0))
        if total and bad / total >= ambiguity_threshold:
            return TriageVerdict(
                "interface_ambiguity",
                key,
                [f"{key}: {bad}/{total} calls refused or invalid across the batch"],
            )
        others = [s for s in specs_for(episode, record.call.name, None) if s.version != record.tools_version]
        if (
            others
            and record.arguments is not None
            and schema_errors(
                CallRecord(record.turn, record.call, record.arguments, None, None, False, None, others)
            )
            == []
        ):
            return TriageVerdict(
                "interface_ambiguity", key, [f"{key}: arguments fit another delivered version (schema drift)"]
            )
    if _gym_log(fixture):  # its runtime's evidence is sealed or replayed, or is none
        return _residual(subject_fixture)
    stated = _stated_runtime(episode, records, unmeasured)
    if stated:  # after the measured gates: the log's word never outranks what was measured
        return TriageVerdict("runtime_defect", subject_fixture, stated)
    if missing := _missing_paths(unmeasured, fixture, named=True):
        return TriageVerdict(
            "context_deficit",
            f"missing {missing[0]}",
            [f"missing-file observation for {p}{STATED}" for p in missing],
        )
    return _residual(subject_fixture)


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
