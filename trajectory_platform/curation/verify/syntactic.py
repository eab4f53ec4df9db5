"""Stage 1, syntactic: every call parses and validates against the schema delivered at its turn.

A call that violates its schema is a *blocking* finding only when the runtime let it through (no
refusal, no error answered it): the log then shows an action no well-behaved runtime would have
dispatched. A violation the runtime refused or answered with an error is recorded as a note: it is
a caught mistake, the very material a recovery demonstration is made of, and later stays context.
The same rule covers a turn that writes its own tool result in the wire form (a fabricated
observation, :data:`.fabrication.TOOL_TOKEN`), in its text or in its reasoning (both are the
model's output, and both are trained on). A turn that quotes tool output no earlier event shows
(:data:`.fabrication.UNQUOTED_OUTPUT`: a test tally, a command transcript) is no runtime's to
refuse, so it is a note, and the turn stays context (:mod:`.roles`). The final
workspace diff and every patch passed as an argument must parse; a final assistant turn cut off by
the token limit and an episode without any assistant turn are rejected.
"""

from __future__ import annotations

from trajectory_platform.curation.verify.calls import CallRecord, call_records, schema_errors
from trajectory_platform.curation.verify.context import DiffView
from trajectory_platform.curation.verify.fabrication import TOOL_TOKEN, UNQUOTED_OUTPUT, fabricated_turns
from trajectory_platform.curation.verify.verdicts import Finding, StageVerdict
from trajectory_platform.gym.diffs import PatchError, parse_unified_diff
from trajectory_platform.traces.record import Episode

TRUNCATED_FINISH = ("length", "max_tokens", "max_output_tokens")
PATCH_KEYS = ("patch", "diff")
FABRICATION_DETAIL = {
    TOOL_TOKEN: "the turn writes its own tool result",
    UNQUOTED_OUTPUT: "the turn quotes tool output no earlier event shows (kept as context)",
}


def _call_findings(record: CallRecord, tool_calling_log: bool) -> list[Finding]:
    """Violations of one call. In a log that delivered no tools (a text-action format such as
    ReAct or a shell-command agent) arguments are the source's own syntax: only patches are judged."""
    name, turn = record.call.name, record.turn
    if not name:
        return [Finding("call_without_name", "tool call has no tool name", event_index=turn)]
    if tool_calling_log:
        if record.parse_error:
            return [Finding("arguments_not_json", f"{name}: {record.parse_error}", event_index=turn)]
        if not record.specs:
            return [Finding("undeclared_tool", f"{name!r} was not delivered at this turn", event_index=turn)]
        errors = schema_errors(record)
        if errors:
            return [Finding("schema_violation", f"{name}: {errors[0]}", event_index=turn)]
    for key, value in record.string_values():
        if key in PATCH_KEYS and value.strip():
            try:
                parse_unified_diff(value)
            except PatchError as exc:
                return [Finding("patch_unparseable", f"{name}.{key}: {exc}", event_index=turn)]
    return []


def _fabrication_refused(episode: Episode, turn: int) -> bool:
    """Did the runtime refuse the fabricated result of assistant turn ``turn``? Its first answer is
    a refusal, or a refusal naming no call answers it: the gym's runtime runs the calls written
    before the fabricated result, then refuses the result itself (the turn's last answer)."""
    answers = []
    for event in episode.events[turn + 1 :]:
        if event.kind == "assistant":
            break
        answers.append(event)
    return bool(answers) and (
        answers[0].kind == "refusal" or any(e.kind == "refusal" and e.tool_call_id is None for e in answers)
    )


def check_syntax(episode: Episode, diff: DiffView) -> StageVerdict:
    """Run stage 1 over ``episode``; ``diff`` carries the parsed final workspace diff."""
    verdict = StageVerdict("syntactic", passed=True)
    assistant = [i for i, e in enumerate(episode.events) if e.kind == "assistant"]
    if not assistant:
        verdict.findings.append(Finding("no_assistant_turn", "the episode has no assistant turn"))
    else:
        last = episode.events[assistant[-1]]
        if last.finish_reason in TRUNCATED_FINISH:
            verdict.findings.append(
                Finding("final_turn_truncated", f"finish_reason={last.finish_reason}", assistant[-1])
            )
    for index, form in fabricated_turns(episode).items():
        finding = Finding("fabricated_observation", FABRICATION_DETAIL[form], index)
        blocking = form == TOOL_TOKEN and not _fabrication_refused(episode, index)
        (verdict.findings if blocking else verdict.notes).append(finding)
    tool_calling_log = bool(episode.tools)
    for record in call_records(episode):
        for finding in _call_findings(record, tool_calling_log):
            caught = record.failed
            (verdict.notes if caught else verdict.findings).append(finding)
            if caught:
                finding.detail += f" (caught: {record.status})"
    if diff.parse_error is not None:
        verdict.findings.append(Finding("workspace_diff_unparseable", str(diff.parse_error)))
    verdict.passed = not verdict.findings
    verdict.data = {"caught_violations": len(verdict.notes)}
    if not tool_calling_log:
        verdict.notes.append(Finding("no_tool_schemas", "no tools delivered: call arguments not judged"))
    return verdict
