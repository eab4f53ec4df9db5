"""A native gym episode's training context must be the context its runtime delivered.

What a model is trained on comes from the episode's record: the events (system prompt, task,
turns, observations, refusals, compaction summaries) and, for a call whose input was compacted,
the delivered input's ``messages_json``, used verbatim as that example's prefix
(:mod:`training.data.serialize`). The replay (:func:`.replay.replay_gym_episode`) ties the calls,
their observations and the diff to the gym; this module ties the rest of the context to what the
gym's runtime (:mod:`gym.runtime`) writes, by re-deriving it with the runtime's own functions from
the events it would have been derived from. A forger who keeps the events and the diff consistent
could otherwise edit what training sees and not what the replay checks:

- ``system_prompt_not_the_runtimes``: the first event is not the system prompt the lineage's
  ``prompt_template_digest`` names, or is one the platform neither registers nor sealed
  (:func:`gym.runtime.prompt_sealed`: a digest the record states is its own word), or a later
  system message is neither the runtime's notice of
  a schema drift (:func:`gym.runtime.drift_notice` of the task's drifted manifest) nor a note
  ending the log (a policy error: no model call follows it, so no example holds it).
- ``compaction_not_the_runtimes``: a compaction summary, its cut, its presence or its absence is
  not what :func:`gym.runtime.compaction_due` gives for the log before it under the recorded
  budgets (a summary the runtime never wrote; turns dropped from, or kept in, the context).
- ``delivered_input_not_the_runtimes``: a delivered input whose response is not an assistant
  turn, that is not that call's own, or whose ``event_indices`` / ``messages_json`` /
  ``compacted`` are not what :func:`gym.runtime.delivered_indices` re-derives from the log (the
  context training rebuilds for that call).
- ``refusal_not_the_runtimes`` (with :func:`.replay._runtime_log_findings`): a refusal whose text
  is not the runtime's reason for refusing that call (its validator's, the truncation notice, the
  fabrication notice), or, for a turn whose calls did not parse, not in the parser's form.

Findings hold indices and codes only, never record text.
"""

from __future__ import annotations

import dataclasses
import json
import re

from trajectory_platform.curation.candidates import PROMPT_REWRITE_KEY
from trajectory_platform.curation.verify.verdicts import Finding
from trajectory_platform.gym.fixtures import Fixture
from trajectory_platform.gym.protocol import find_fabricated_observation
from trajectory_platform.gym.runtime import (
    FABRICATION_REFUSAL,
    POLICY_ERROR,
    REFUSED,
    TRUNCATION_REFUSAL,
    compaction_due,
    delivered_indices,
    delivered_messages_json,
    drift_notice,
    prompt_sealed,
    recorded_config,
    refusal_reason,
)
from trajectory_platform.gym.tools import drifted, sha256_digest
from trajectory_platform.traces.record import Episode, Event, ToolCall

PARSE_REFUSAL = re.compile(r"(?:malformed|truncated) tool call: \S")
"""The form of a refusal of a turn whose calls did not parse: the parser's category and its
problems. The problems name text the record keeps only as salvaged calls, so only the form is
tied (documented in docs/verification.md)."""


SYSTEM = "system_prompt_not_the_runtimes"
COMPACTION = "compaction_not_the_runtimes"
DELIVERED = "delivered_input_not_the_runtimes"
BOOKKEEPING = frozenset({"timestamp", "input_tokens", "output_tokens"})
"""Event fields a delivered message carries that no training example renders: left out when a
recorded ``messages_json`` is compared with the events (a derived record restates them: context
distillation re-counts each turn's input tokens in the log and not in the delivered copies)."""


def context_findings(episode: Episode, fixture: Fixture, seal_key: bytes | None) -> list[Finding]:
    """The first way ``episode``'s training context departs from what its runtime delivered
    (``seal_key``: the pipeline's, which a prompt the platform does not register is sealed under)."""
    findings = _system_findings(episode, fixture, seal_key)
    for check in (_compaction_findings, _delivered_findings):
        findings = findings or check(episode, fixture)
    return findings


def _system_findings(episode: Episode, fixture: Fixture, seal_key: bytes | None) -> list[Finding]:
    """The runtime writes the prompt first and records its digest, and the prompt is one the
    platform registers or one the runtime sealed; any later system message is a drift notice it
    wrote, or the policy-error note it ends a log with."""
    events = episode.events
    first = events[0] if events else None
    if first is None or first.kind != "system" or first.content is None:
        return [Finding(SYSTEM, "the log does not open with a system prompt")]
    if sha256_digest(first.content) != episode.lineage.prompt_template_digest:
        return [Finding(SYSTEM, "the system prompt is not the one the lineage's prompt digest names", 0)]
    if not prompt_sealed(episode, seal_key):
        return [Finding(SYSTEM, "a system prompt the platform neither registers nor sealed", 0)]
    notice = drift_notice(drifted(fixture.manifest))
    for index, event in enumerate(events[1:], start=1):
        if event.kind != "system" or event.content == notice:
            continue
        closing = index == len(events) - 1 and (event.content or "").startswith(POLICY_ERROR)
        if not closing:
            return [Finding(SYSTEM, "a system message the runtime never writes", index)]
    return []


def compactions_are_the_runtimes(episode: Episode, fixture: Fixture) -> bool:
    """Are ``episode``'s compaction summaries (and their absence) what its runtime writes? The one
    rule stage 4 holds a gym log to (``compaction_not_the_runtimes``), for triage's gate 2, which
    reads a gym log's compaction as measured only then."""
    return not _compaction_findings(episode, fixture)


def _compaction_findings(episode: Episode, fixture: Fixture) -> list[Finding]:
    """Before each model call the runtime compacts exactly when :func:`compaction_due` says, and
    only then; a summary stands just before that call (or ends the log: the policy abandoned the
    call, or raised and the note of it follows).

    A record that declares a system-prompt rewrite (:data:`PROMPT_REWRITE_KEY`: context
    distillation) ran under a prompt it no longer holds, whose tokens counted toward the watermark:
    when its runtime compacted cannot be re-derived, so only what each summary says and where it
    cuts are (its parent, verified under its own prompt, was held to the timing too)."""
    config = recorded_config(episode)
    anywhere = dataclasses.replace(config, compaction_watermark_tokens=-1)
    timed = not _prompt_rewritten(episode)
    events = episode.events
    for index, event in enumerate(events):
        if event.kind == "compaction":
            following = events[index + 1] if index + 1 < len(events) else None
            before_call = (
                following is None  # the policy abandoned the call the summary was made for
                or following.kind == "assistant"
                or (following.kind == "system" and index + 2 == len(events))
            )
            due = compaction_due(events[:index], config if timed else anywhere)
            if not before_call or due is None or _compaction_of(event) != _compaction_of(due):
                return [Finding(COMPACTION, "a summary the runtime would not have written", index)]
        elif (
            timed
            and event.kind == "assistant"  # never the first event: the system prompt is (checked first)
            and events[index - 1].kind != "compaction"
            and compaction_due(events[:index], config) is not None
        ):
            return [Finding(COMPACTION, "the runtime compacted before this call; the log did not", index)]
    return []


def _prompt_rewritten(episode: Episode) -> bool:
    """Whether the record declares it ran under another system prompt than the one it shows."""
    try:
        extra = json.loads(episode.extra_json or "{}")
    except json.JSONDecodeError:
        return False
    rewrite = extra.get(PROMPT_REWRITE_KEY) if isinstance(extra, dict) else None
    return isinstance(rewrite, dict) and rewrite.get("teacher_prompt_digest") != rewrite.get(
        "student_prompt_digest"
    )


def _compaction_of(event: Event) -> tuple[str | None, int | None]:
    return event.content, event.replaces_through


def _delivered_findings(episode: Episode, fixture: Fixture) -> list[Finding]:
    """Each recorded delivered input is its own call's, and what the runtime delivered to it: the
    indices it re-derives, the messages verbatim where the runtime records them (a compacted
    call), and the compaction flag. An episode that records none (a stream) is trained on the
    event log, which the other checks tie."""
    events = episode.events
    seen: set[int] = set()
    for position, delivered in enumerate(episode.delivered_inputs):
        response = delivered.response_event_index
        if (
            response is None
            or not 0 <= response < len(events)
            or events[response].kind != "assistant"
            or response in seen
            or delivered.call_index != position
        ):
            return [Finding(DELIVERED, "a delivered input of no call of its own")]
        seen.add(response)
        before = events[:response]
        indices = delivered_indices(before)
        compacted = any(e.kind == "compaction" for e in before)
        recorded = delivered.event_indices
        messages = delivered.messages_json
        runtimes = delivered_messages_json(events, indices)
        if (
            (recorded is not None and recorded != indices)
            or delivered.compacted != compacted
            or (messages is not None and _messages(messages) != _messages(runtimes))
        ):
            return [Finding(DELIVERED, "not what the runtime delivered to this call", response)]
    return []


def _messages(messages_json: str) -> object:
    """The delivered messages as data (a re-serialization with another key order is the same input),
    without the bookkeeping no example renders (:data:`BOOKKEEPING`)."""
    try:
        messages = json.loads(messages_json)
    except json.JSONDecodeError:
        return messages_json
    if not isinstance(messages, list):
        return messages
    return [
        {k: v for k, v in m.items() if k not in BOOKKEEPING} if isinstance(m, dict) else m for m in messages
    ]


def refusal_text_is_the_runtimes(refusal: Event, call: ToolCall | None, tag: str | None, turn: Event) -> bool:
    """Whether ``refusal``, answering ``call`` (``None``: the turn's own refusal) of ``turn`` made
    under manifest ``tag``, says what the runtime says when it refuses: the truncation notice for a
    turn cut off at the length limit, the fabrication notice for a turn that wrote its own tool
    result, its validator's reason for a call it refuses, or a parse refusal's form."""
    text = refusal.content or ""
    if not text.startswith(REFUSED):
        return False
    reason = text[len(REFUSED) :]
    if turn.finish_reason == "length":
        return reason == TRUNCATION_REFUSAL
    if call is None:
        fabricated = find_fabricated_observation(turn.content or "") is not None
        return fabricated and reason == FABRICATION_REFUSAL
    if PARSE_REFUSAL.match(reason):
        return True
    return tag is not None and reason == refusal_reason(call, tag)
