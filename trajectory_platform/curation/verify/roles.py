"""Role labels (curation table 4 / 14) and per-turn target selection for admitted episodes.

- ``pristine``: admitted, no error observation, tool calls <= 1.2 x the fixture's minimum;
- ``recovery``: admitted with an error observation at ``t_div`` (the assistant turn whose call drew
  it), diagnosis, and the remediation that resolves it at ``t_rec`` (:func:`_recovery_turn`: a later
  successful write, or a later success of the program or tool that failed). Curation table 4: the
  trajectory "must encounter verified fault, resolve it autonomously"; ``Rectified(Δfs)``;
- ``inefficient``: admitted, but neither a pristine demonstration nor a recovery, so the mixture
  decides what to do with it: over the 1.2 x bound without error, or with an error observation
  nothing resolved (``t_div_reason`` ``error_unresolved``), or with recorded errors no replay
  verified (``error_status_unverified``: an environment without a replay spec);
- ``hard_negative``: failed the oracle reproducibly; ``t_div`` is where it left the salvageable path.

A non-zero exit that is a program's ordinary answer (:data:`ANSWER_EXITS`: ``grep`` finding
nothing, ``test`` false, ``diff`` finding a difference) is no error: a log ending in
``grep -c nothing-here`` was labelled a recovery before, as was one whose ``ls NOTES.md`` failed
after the fix (red team, 2026-12-06), though nothing was recovered from.

Indices are event indices into ``Episode.events``. Target selection follows fine-tuning 16.4: a
refused or erroneous proposal stays context (it explains the correction but must never be
imitated), as do truncated turns, loop repeats and turns that fabricate an observation (write a
tool result, or quote output no earlier event shows: :mod:`.fabrication`) and turns whose action
is risky outside the sandbox (:mod:`.action_safety`'s context rules: a force push, ``sudo``);
diagnosis, the
corrected call, ordinary successful actions and the final report are targets. Each assistant turn
gets a typed reason.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection
from dataclasses import dataclass, field

from trajectory_platform.curation.verify.action_safety import UNSAFE_ACTION, unsafe_turns
from trajectory_platform.curation.verify.calls import CallRecord, call_records
from trajectory_platform.curation.verify.fabrication import fabricated_turns
from trajectory_platform.curation.verify.replay import recorded_observation, simple_command_words
from trajectory_platform.traces.record import Episode

PRISTINE_TURN_FACTOR = 1.2
CONTEXT_REASONS = (
    "unsafe_action",
    "truncated_turn",
    "fabricated_observation",
    "refused_proposal",
    "erroneous_proposal",
    "loop_repeat",
    "empty_turn",
)
TARGET_REASONS = ("action", "diagnosis", "corrected_call", "message", "final_report")
ANSWER_EXITS: dict[str, frozenset[int]] = {
    "grep": frozenset({1}),
    "egrep": frozenset({1}),
    "fgrep": frozenset({1}),
    "rg": frozenset({1}),
    "ag": frozenset({1}),
    "git grep": frozenset({1}),
    "test": frozenset({1}),
    "[": frozenset({1}),
    "diff": frozenset({1}),
    "cmp": frozenset({1}),
}
"""Programs whose non-zero exit status is an answer, not a failure (by their manuals: ``grep`` 1 =
no line selected, ``test`` 1 = false, ``diff``/``cmp`` 1 = the inputs differ; 2 is their error),
when the command is that one program (optionally after ``cd DIR &&``), so its status is theirs."""
NOT_RECOVERY = ("error_unresolved", "error_status_unverified")
"""Why an admitted episode with error observations is not a recovery (its ``t_div_reason``)."""


@dataclass
class RoleLabel:
    role: str | None
    t_div: int | None = None
    t_rec: int | None = None
    t_div_reason: str | None = None
    target_turns: list[int] = field(default_factory=list)
    turn_reasons: dict[int, str] = field(default_factory=dict)


def _by_turn(records: list[CallRecord]) -> dict[int, list[CallRecord]]:
    grouped: dict[int, list[CallRecord]] = defaultdict(list)
    for record in records:
        grouped[record.turn].append(record)
    return grouped


def program(record: CallRecord) -> str | None:
    """The program a shell call ran (``git grep`` for git's search), when the command is one simple
    command, optionally after ``cd DIR &&``; else ``None``."""
    command = record.shell_command
    words = simple_command_words(command) if command is not None else None
    if words is None:
        return None
    return "git grep" if words[:2] == ["git", "grep"] else words[0].rsplit("/", 1)[-1]


def answered_by_exit(record: CallRecord) -> bool:
    """Whether a failed call's non-zero exit is its program's ordinary answer (:data:`ANSWER_EXITS`).
    The exit code is the log's, read through its format's framing where it keeps it there (Claude
    Code's ``Exit code N`` line, mini-swe-agent's ``<returncode>``: :func:`.replay.recorded_observation`)."""
    code = recorded_observation(record.answer)[1] if record.answer is not None else None
    name = program(record) if code is not None and not record.refused else None
    return name is not None and code in ANSWER_EXITS.get(name, frozenset())


def error_turns(episode: Episode, records: list[CallRecord]) -> list[int]:
    """Assistant turns whose calls drew an error or refusal (incl. refusals naming no call); a
    program's answer by its exit status (:func:`answered_by_exit`) is none."""
    turns = {r.turn for r in records if r.failed and not answered_by_exit(r)}
    last_assistant = None
    for index, event in enumerate(episode.events):
        if event.kind == "assistant":
            last_assistant = index
        elif event.kind == "refusal" and event.tool_call_id is None and last_assistant is not None:
            turns.add(last_assistant)
    return sorted(turns)


def loop_turns(records: list[CallRecord]) -> list[int]:
    """Turns repeating an identical call with nothing new in between (the spin trap).

    A successful write changes the workspace, so anything may be re-done after it. An error on a
    *different* call is new information, so re-reading after it is diagnosis. Re-issuing a failed
    call is a loop only when it fails again: a retry that now succeeds is the resumption of a
    recovery, not a spin.
    """
    seen: dict[str, bool] = {}
    out = []
    for record in records:
        if record.signature in seen and (record.failed or not seen[record.signature]):
            out.append(record.turn)
        if record.is_write and not record.failed:
            seen.clear()
        elif record.failed:
            seen = {k: v for k, v in seen.items() if k == record.signature}
        seen[record.signature] = record.failed
    return sorted(set(out))


def _action(record: CallRecord) -> str | None:
    """What a call did, for telling a corrected or resumed call: a shell call's program
    (:func:`program`; a shell tool runs everything), else the tool's name."""
    return program(record) if record.shell_command is not None else record.call.name


def _recovery_turn(records: list[CallRecord], t_div: int) -> int | None:
    """The remediation that resolves the error at ``t_div``: the first later successful write (the
    state repair); else the first later success of the program or tool that failed (a corrected
    or resumed call); else, for a proposal the runtime refused before dispatch (an undeclared tool,
    bad arguments), the first later call that ran and succeeded: the corrected proposal, under
    whichever tool the schema offers. Else ``None``: after a call that ran and failed, a later call
    that merely succeeded resolves nothing (a log whose last ``ls`` failed after the fix, then
    printed anything, was a recovery before)."""
    later = [r for r in records if r.turn > t_div and not r.failed]
    failing = [r for r in records if r.turn == t_div and r.failed]
    failed = {_action(r) for r in failing} - {None}
    refused = not failing or any(r.refused for r in failing)  # no failed call: a refusal naming none
    return next(
        (r.turn for r in later if r.is_write),
        next(
            (r.turn for r in later if _action(r) in failed),
            next((r.turn for r in later), None) if refused else None,
        ),
    )


def select_targets(
    episode: Episode,
    records: list[CallRecord],
    t_div: int | None,
    t_rec: int | None,
    checked: Collection[int] | None = None,
) -> dict[int, str]:
    """A typed reason for every assistant turn; targets are those with a reason in TARGET_REASONS
    (``checked``: the observations that back a quotation, :func:`.fabrication.fabricated_turns`)."""
    grouped = _by_turn(records)
    loops = set(loop_turns(records))
    errors = set(error_turns(episode, records))
    assistant = [i for i, e in enumerate(episode.events) if e.kind == "assistant"]
    fabricated = fabricated_turns(episode, checked)
    unsafe = unsafe_turns(episode)
    reasons: dict[int, str] = {}
    for index in assistant:
        event = episode.events[index]
        calls = grouped.get(index, [])
        if index in unsafe:  # risky outside the sandbox (:data:`.action_safety.RULES`): never imitated
            reasons[index] = UNSAFE_ACTION
        elif event.finish_reason in ("length", "max_tokens", "max_output_tokens"):
            reasons[index] = "truncated_turn"
        elif index in fabricated:  # its own tool result, or quoted output no event shows
            reasons[index] = "fabricated_observation"
        elif any(r.refused for r in calls):
            reasons[index] = "refused_proposal"
        elif index in errors:
            reasons[index] = "erroneous_proposal"
        elif index in loops:
            reasons[index] = "loop_repeat"
        elif index == t_rec:
            reasons[index] = "corrected_call"
        elif (
            calls
            and t_div is not None
            and t_div < index
            and (t_rec is None or index < t_rec)
            and all(r.is_read_only for r in calls)
        ):
            reasons[index] = "diagnosis"
        elif calls:
            reasons[index] = "action"
        elif not (event.content or "").strip():
            reasons[index] = "empty_turn"
        else:
            reasons[index] = "final_report" if index == assistant[-1] else "message"
    return reasons


def label_admitted(
    episode: Episode,
    min_tool_calls: int | None,
    statuses_verified: bool = True,
    unreplayed_answers: Collection[int] = (),
    checked_observations: Collection[int] | None = None,
) -> RoleLabel:
    """Role, t_div/t_rec and target turns of an episode that passed every gating stage.

    ``statuses_verified``: whether replay established the recorded statuses (false for an
    environment without a replay spec: nothing was re-run); ``unreplayed_answers``: the event
    indices of answers to calls replay did not re-run (:attr:`.replay.ReplayResult.unreplayed_answers`).
    A recorded error nothing verified is no fault to have recovered from, and a recorded success
    nothing verified repairs nothing: a clean log with a fabricated crash was a recovery (red team,
    2026-12-06), as was one whose read tool, never re-run, said it failed and then succeeded. Such
    a turn stays context all the same, and an episode whose only errors are unverified is
    ``inefficient`` (``error_status_unverified``): neither a verified recovery nor a demonstration
    without error. ``checked_observations``: the observations whose text the verifier checked, the
    only ones a turn may quote (:func:`.fabrication.fabricated_turns`; ``None``: every one).
    """
    records = call_records(episode)
    errors = error_turns(episode, records)
    answer_at = {id(event): index for index, event in enumerate(episode.events)}
    unreplayed = set(unreplayed_answers)
    checked = [r for r in records if r.answer is None or answer_at.get(id(r.answer)) not in unreplayed]
    faults = error_turns(episode, checked) if statuses_verified else []
    resolved = [(t, r) for t in faults if (r := _recovery_turn(checked, t)) is not None]
    if errors and not faults:
        label = RoleLabel("inefficient", t_div_reason="error_status_unverified")
    elif resolved:
        t_div, t_rec = resolved[0]
        label = RoleLabel("recovery", t_div, t_rec, "error_observation")
    elif errors:
        label = RoleLabel("inefficient", t_div_reason="error_unresolved")
    elif min_tool_calls and len(records) > PRISTINE_TURN_FACTOR * min_tool_calls:
        label = RoleLabel("inefficient")
    else:
        label = RoleLabel("pristine")
    label.turn_reasons = select_targets(episode, records, label.t_div, label.t_rec, checked_observations)
    label.target_turns = sorted(i for i, r in label.turn_reasons.items() if r in TARGET_REASONS)
    return label


def divergence_turn(episode: Episode) -> tuple[int | None, str | None]:
    """Where a failing episode left the salvageable path, with the evidence that located it.

    The earliest of: an error never followed by a successful call of the same tool; the onset of a
    loop; the first successful edit (the change the oracle then rejected). Without any of these the
    final turn (a report claiming an unverified success) is the divergence.
    """
    records = call_records(episode)
    candidates: list[tuple[int, str]] = []
    for record in records:
        if record.failed and not any(
            r.turn > record.turn and r.call.name == record.call.name and not r.failed for r in records
        ):
            candidates.append((record.turn, "unrecovered_error"))
            break
    loops = loop_turns(records)
    if loops:
        candidates.append((loops[0], "loop_onset"))
    first_edit = next((r.turn for r in records if r.is_write and not r.failed), None)
    if first_edit is not None:
        candidates.append((first_edit, "failing_edit"))
    if candidates:
        return min(candidates)
    assistant = [i for i, e in enumerate(episode.events) if e.kind == "assistant"]
    return (assistant[-1], "unverified_report") if assistant else (None, None)
