"""Whether a brought log's refusal says what its harness says when it refuses.

A refused call never ran, so replay has no output to compare its answer with: the answer is the
log's word. Before this check (red team, 2026-12-06) a log could record any text as a refusal (a
forged file listing, a note telling the agent the tests are stale) and the episode was admitted,
that text rendered into training as what the environment answered. But a harness refuses in its
own fixed words, so each refusal's text is held to its format's registered wordings
(:data:`REFUSAL_FORMS`, read in full, nothing before or after), and where a rule decides the
refusal the rule is run again:

- :data:`PERSON`: a person declined the call at an approval prompt (Claude Code's permission
  prompt, Continue's cancel, the OpenHands SDK's ``UserRejectObservation``). The decision is the
  person's and cannot be re-derived; the text must be the harness's template. Where the template
  quotes the person (Claude Code's "the user said:", the SDK's ``rejection_reason``) those words
  are a user's message, not an environment fact: the instruction check reads them as it reads a
  user turn (:func:`persons_words`, read by :func:`.instruction.shown_texts`);
- :data:`UNDECLARED`: the call named a tool nobody delivered (ToolBench's "No such function
  name"): the name must be the call's own, and one the delivered tools do not hold;
- :data:`VALIDATOR`: the harness's validator refused a turn's call (OpenHands' enum check): only the
  validator's form, whose only variable parts are identifiers;
- the gym runtime's own refusal in a ``native`` log: :func:`.gym_context.refusal_text_is_the_runtimes`
  (its validator re-derives the reason for that call).

An empty refusal carries nothing and passes in any format. Anything else routes the episode to
``unverifiable`` (:func:`refusal_findings`): ``refusal_not_the_harness`` where the format's wording
is registered and the text departs from it or its rule says the call would have run,
``refusal_unregistered`` where no wording is registered for the format (the refusal cannot be
re-derived; registering the harness's wording here admits its logs again). Findings hold counts
and event indices, never the text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from trajectory_platform.curation.verify.calls import CallRecord, call_records
from trajectory_platform.curation.verify.gym_context import refusal_text_is_the_runtimes
from trajectory_platform.curation.verify.verdicts import Finding
from trajectory_platform.traces.adapters.claude_code import USER_REJECTED
from trajectory_platform.traces.record import Episode, Event

PERSON = "person"
UNDECLARED = "undeclared"
VALIDATOR = "validator"
NOT_THE_HARNESS = "refusal_not_the_harness"
UNREGISTERED = "refusal_unregistered"


@dataclass(frozen=True)
class RefusalForm:
    """One wording a harness refuses in: the whole text matches ``pattern``; its group ``said`` is a
    person's own words, its group ``name`` the refused tool's name; ``rule`` says what decided it."""

    pattern: re.Pattern[str]
    rule: str


_IDENTIFIER = r"[\w.-]+"
_CLAUDE_REJECTED = (
    re.escape(USER_REJECTED)
    + r"\. The tool use was rejected \(eg\. if it was a file edit, the new_string was NOT written to "
    r"the file\)\. (?:STOP what you are doing(?: and wait for the user to tell you how to proceed)?\."
    r"|To tell you how to proceed, the user said:\n(?P<said>.+))"
)
REFUSAL_FORMS: dict[str, tuple[RefusalForm, ...]] = {
    "claude-code": (RefusalForm(re.compile(_CLAUDE_REJECTED, re.DOTALL), PERSON),),
    "continue": (
        RefusalForm(re.compile(r"The user cancell?ed this tool call\."), PERSON),
        RefusalForm(
            re.compile(
                r"This tool call was cancell?ed by the user\. You should clarify next steps, as they "
                r"don't wish you to run this tool call\."
            ),
            PERSON,
        ),
    ),
    "openhands-sdk": (RefusalForm(re.compile(r"(?P<said>.+)", re.DOTALL), PERSON),),
    "toolbench": (
        RefusalForm(
            re.compile(rf'\{{"error": "No such function name: (?P<name>{_IDENTIFIER})", "response": ""\}}'),
            UNDECLARED,
        ),
    ),
    "openhands": (
        RefusalForm(
            re.compile(
                rf"Parameter '{_IDENTIFIER}' is expected to be one of "
                rf"\[(?:'{_IDENTIFIER}'(?:, '{_IDENTIFIER}')*)?\]\."
            ),
            VALIDATOR,
        ),
    ),
}
"""Each format's refusal wordings, by ``source_format``. Claude Code's are its permission prompt's
two rejection messages (``USER_REJECTED`` is where the adapter recognises one); Continue's, a
cancelled call's; the OpenHands SDK's answer is the person's ``rejection_reason`` alone; ToolBench's
runtime answers an undeclared name as JSON; OpenHands' validator message is the one the real
multi-SWE-bench logs hold. A format absent here (Inspect's approvals, Letta's approval reasons, a
chat log's refused status) has no wording the verifier knows, so its refusals are unregistered."""
SAID_FORMATS = frozenset(
    name for name, forms in REFUSAL_FORMS.items() for f in forms if "said" in f.pattern.groupindex
)


def is_refusal(event: Event) -> bool:
    """A refusal event, or a tool answer whose status says the call was refused before it ran."""
    return event.kind == "refusal" or (event.kind == "tool" and event.status == "refused")


def _form(episode: Episode, text: str) -> tuple[RefusalForm, re.Match[str]] | None:
    for form in REFUSAL_FORMS.get(episode.source_format, ()):
        if (match := form.pattern.fullmatch(text)) is not None:
            return form, match
    return None


def _rule_holds(episode: Episode, form: RefusalForm, match: re.Match[str], record: CallRecord | None) -> bool:
    """Whether the harness's rule gives this refusal: an undeclared name is the call's own and no
    delivered tool's (a log without a tools list delivered none it records, so only the name is
    held); a person's decision and a validator's form carry nothing a rule can re-derive."""
    if form.rule != UNDECLARED:
        return True
    name = match["name"]
    if record is not None and record.call.name != name:
        return False
    return name not in {tool.name for tool in episode.tools}


def _verdict(episode: Episode, index: int, record: CallRecord | None) -> str | None:
    """Why the refusal at event ``index`` is not its harness's (:data:`NOT_THE_HARNESS`,
    :data:`UNREGISTERED`), or ``None``."""
    event = episode.events[index]
    text = event.content or ""
    if not text.strip():
        return None
    if episode.source_format == "native":
        turn = episode.events[record.turn] if record is not None else _turn_before(episode, index)
        runtimes = event.kind == "refusal" and turn is not None and _runtimes(event, record, turn)
        return None if runtimes else NOT_THE_HARNESS
    if episode.source_format not in REFUSAL_FORMS:
        return UNREGISTERED
    found = _form(episode, text)
    if found is None or not _rule_holds(episode, *found, record):
        return NOT_THE_HARNESS
    return None


def _runtimes(event: Event, record: CallRecord | None, turn: Event) -> bool:
    """The gym runtime's wording for this refusal; a manifest tag the gym does not hold re-derives
    nothing (a brought environment's log in the runtime's format)."""
    try:
        return refusal_text_is_the_runtimes(
            event, record.call if record else None, record.tools_version if record else None, turn
        )
    except (KeyError, ValueError):
        return False


def _turn_before(episode: Episode, index: int) -> Event | None:
    return next((e for e in reversed(episode.events[:index]) if e.kind == "assistant"), None)


def _refusals(episode: Episode) -> list[tuple[int, CallRecord | None]]:
    """Each refusal's event index, with the call it answers where the log pairs one."""
    by_answer = {id(r.answer): r for r in call_records(episode) if r.answer is not None}
    return [(i, by_answer.get(id(e))) for i, e in enumerate(episode.events) if is_refusal(e)]


def refusal_findings(episode: Episode) -> list[Finding]:
    """One finding when any refusal of ``episode`` is not what its harness says when it refuses
    (the first such refusal's reason and event, and how many there are), else none."""
    found = [(i, why) for i, record in _refusals(episode) if (why := _verdict(episode, i, record))]
    if not found:
        return []
    index, why = found[0]
    if why == UNREGISTERED:
        fmt = episode.source_format
        detail = f"{len(found)} refusal(s) in a format ({fmt}) with no registered refusal wording"
    else:
        detail = f"{len(found)} refusal(s) whose text is not what the harness says when it refuses that call"
    return [Finding(why, detail, event_index=index)]


def persons_words(episode: Episode) -> list[tuple[int, str]]:
    """The words a person gave with a refusal the harness quotes (event index, text): a user's
    message, never the environment's answer."""
    if episode.source_format not in SAID_FORMATS:
        return []
    words = []
    for index, _ in _refusals(episode):
        found = _form(episode, episode.events[index].content or "")
        if found is not None and found[1]["said"] is not None:
            words.append((index, found[1]["said"]))
    return words
