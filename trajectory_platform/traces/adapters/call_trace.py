"""Episodes from a trace of model calls, as tracing platforms (LangSmith, Langfuse) and gateways store
an agent run: each model call records what it saw and what it answered, and tool runs sit beside them.

A run may hold more than one conversation: a gateway session where the user opened a second chat, a
supervisor that hands the task to sub-agents, each with its own instructions and history. Read as one
conversation, all but one would survive only as inputs with no answer. So the calls are first split
into conversations (:func:`conversations`): a call continues the conversation whose history its
input extends (or is a prefix of), or rewrites (compaction: the same instructions, then the history
re-joins it after the rewritten part, or the history replaced by a summary alone that an earlier
answer of the run wrote: :func:`_summarized`); any other call starts a conversation of its own. Each
conversation is an episode (:func:`run_episodes`).

An episode is the conversation of its call that saw the most (the agent loop's last call; ties go
to the later one), then its answer. Every call becomes a delivered input: the indices of the
episode prefix it saw (its answer the event after it, which takes the call's time, finish reason
and token counts), else its messages verbatim, marked compacted (history was rewritten between
calls, or a handoff's first agent saw instructions the log no longer shows), pointing at its
answer where the episode holds it. A call's answer the episode does not hold (a retry whose
answer was not kept, a turn a later compaction summarized away) is listed by call number in
``extra_json.answers_not_kept``, never dropped without a word. A failed tool run marks the result
of the call it ran ``error``: by the call id the run names, else by tool name among the calls not yet matched.

A trace exported over several files (a file per span batch, per day) is one record
(``cross_file``): :func:`joined_trace` joins its parts, each span (run, observation) once; one that
two files hold in different versions rejects the trace, naming both files.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import Any

from trajectory_platform.traces.adapters.base import RawRecord, RecordError, delivered_input, event_key
from trajectory_platform.traces.adapters.openai import choices_taken
from trajectory_platform.traces.drops import named
from trajectory_platform.traces.record import Episode, Event, canonical_json

CONVERSATION = "run_conversation"
"""The extra field linking the episodes of one run: ``{"run", "number", "of", "main", "calls"}``."""
CONFLICT = "conflicting versions"
"""The reject of a trace two files hold a span (run, observation) of in different versions."""
TRACE_FILE = "file"
"""The field of a trace's framed record naming the file it was framed from (:func:`joined_trace`)."""
ANSWERS_NOT_KEPT = "answers_not_kept"
"""The extra field listing the calls (numbers in the run) whose answer the episode does not hold."""


@dataclass
class ModelCall:
    """One model call of a trace: the messages it saw and its answer (``None`` when it failed
    before answering); ``choice`` which of several answers (``n`` > 1) that is, and of how many
    (``openai.choice_taken``), said in the episode's ``extra_json.choices_taken``. ``steps`` are the
    answer's turns before ``answer``, its last, where the provider ran a tool within the call (a
    server tool's call and its result: the words after it are a turn of their own, as every reader
    reads the same message in a later call's input); ``answer`` carries the call's facts (time,
    finish reason, tokens)."""

    seen: list[Event]
    answer: Event | None
    choice: tuple[int, int] | None = None
    steps: list[Event] = field(default_factory=list)

    @classmethod
    def answering(cls, seen: list[Event], answer: list[Event], choice: tuple[int, int] | None) -> ModelCall:
        """A call whose answer was read as its events (``chat_payloads.replies_of``; none: it failed)."""
        return cls(seen, answer[-1] if answer else None, choice, answer[:-1])

    @property
    def answered(self) -> list[Event]:
        """The answer's events, in order (none when the call failed before answering)."""
        return [*self.steps, self.answer] if self.answer is not None else []


@dataclass
class ToolRun:
    """One tool run of a trace: the call id it names (if any), the tool's name, whether it failed."""

    call_id: str | None
    name: str | None
    failed: bool


def conversations(calls: list[ModelCall], *, chained: bool = False) -> list[list[int]]:
    """The run's calls (their numbers) split into conversations, in the order each first spoke.

    A call belongs to the conversation, most recently continued first, that one of its calls is
    consistent with (:func:`_continues`); else it starts one. ``chained`` groups calls no run id
    ties together (a log that names no run): a call then continues a conversation only when its
    input carries that conversation's last call on (:func:`_carries_on`), as an agent loop's next
    call does; two samples of one prompt, or two chats that share an opening, stay apart."""
    groups: list[list[int]] = []
    known: list[list[tuple[list[tuple], list[tuple]]]] = []
    written: list[str] = []  # the run's answers so far long enough to be a summary
    for number, call in enumerate(calls):
        seen = [event_key(event) for event in call.seen]
        answered = seen + [event_key(event) for event in call.answered]
        home = next(
            (
                group
                for group in reversed(range(len(groups)))
                if (
                    _carries_on(seen, *known[group][-1])
                    if chained
                    else any(_continues(seen, *earlier) for earlier in known[group])
                )
            ),
            None,
        )
        if home is None and not chained:
            home = next(
                (g for g in reversed(range(len(groups))) if _summarized(seen, known[g][-1][0], written)),
                None,
            )
        answer = call.answer.content if call.answer is not None else None
        if answer is not None and len(answer.strip()) >= SUMMARY_MIN_CHARS:
            written.append(answer.strip())
        if home is None:
            groups.append([number])
            known.append([(seen, answered)])
        else:
            groups[home].append(number)
            known[home].append((seen, answered))
    return groups


def _continues(seen: list[tuple], earlier: list[tuple], answered: list[tuple]) -> bool:
    """Does a call that saw ``seen`` continue the conversation of an earlier call, which saw
    ``earlier`` and ``answered`` it (its input, then its answer)?

    Yes when one is a prefix of the other (the history grew, or a retry saw an earlier point).
    Under other instructions (leading system messages), only when the call carries the whole
    answered dialogue on: a handoff to another agent, or instructions rewritten as the run goes; a
    sub-agent handed the task alone (not the answer that handed it over) starts its own
    conversation. Under the same instructions, the call continues the earlier input (its answer may
    come back in another spelling), or a history that was rewritten (compaction, a sliding window,
    elided outputs) when, after the point where the two part, the call's input meets the answered
    history again; another chat (nothing in common after the opening) is another conversation."""
    if _prefix_either_way(seen, answered):
        return True
    opening, earlier_opening = _instructions(seen), _instructions(answered)
    if seen[:opening] != answered[:earlier_opening]:
        dialogue, earlier_dialogue = seen[opening:], answered[earlier_opening:]
        return dialogue[: len(earlier_dialogue)] == earlier_dialogue
    if _prefix_either_way(seen, earlier):
        return True
    shared = next(i for i, (a, b) in enumerate(zip(seen, answered, strict=False)) if a != b)
    later = {key for key in answered[shared:] if key[0] != "system"}
    return any(key in later for key in seen[shared:])


SUMMARY_MIN_CHARS = 40
"""How long an answer of the run must be for a later input carrying it to be read as its summary
(a short answer, "Done.", may be quoted by another chat)."""


def _summarized(seen: list[tuple], earlier: list[tuple], written: list[str]) -> bool:
    """Is a call that saw ``seen`` an earlier call's (``earlier``) conversation with its history
    replaced by a summary (compaction that keeps no turn after it)? Yes when, under the earlier
    call's instructions (stated: agents without any are told apart by nothing else), the first
    message where the two inputs part carries, word for word, an answer the run's model wrote
    before (``written``: a summarizing call's answer, the summary). A call whose input meets no
    earlier turn again otherwise reads as another chat (:func:`_continues`); a summary the model
    wrote is what tells the two apart, whichever reader (OTel, Langfuse, LangSmith, MLflow, a
    gateway's calls) logged the run."""
    opening = _instructions(earlier)
    if not opening or seen[:opening] != earlier[:opening]:
        return False
    shared = min(len(seen), len(earlier))
    parted = next((i for i, (a, b) in enumerate(zip(seen, earlier, strict=False)) if a != b), shared)
    if parted >= len(seen) or seen[parted] in earlier:
        return False
    text = seen[parted][1]
    return isinstance(text, str) and any(summary in text for summary in written)


def _carries_on(seen: list[tuple], earlier: list[tuple], answered: list[tuple]) -> bool:
    """Does a call that saw ``seen`` carry on from an earlier call (its input ``earlier``, then its
    answer: ``answered``)? Yes when its input starts with the earlier input and answer and goes
    further (the history grew past that answer), or, when the earlier call got no answer (it
    failed), starts with the earlier input (a retry, or the next step)."""
    failed = len(answered) == len(earlier)
    return seen[: len(answered)] == answered and (failed or len(seen) > len(answered))


def _prefix_either_way(a: list[tuple], b: list[tuple]) -> bool:
    shorter = min(len(a), len(b))
    return a[:shorter] == b[:shorter]


def _instructions(keys: list[tuple]) -> int:
    """How many system messages open a call's input (its instructions)."""
    return next((i for i, key in enumerate(keys) if key[0] != "system"), len(keys))


@dataclass
class Conversation:
    """One conversation of a run read into its episode: ``calls`` are the numbers of its calls in
    the run, ``chosen`` the one whose conversation it is (its tools and model are the episode's);
    ``main`` is the conversation of the call that saw the most, which keeps the run's id and its
    outcome."""

    episode: Episode
    calls: list[int]
    chosen: int
    main: bool


def run_episodes(
    new_episode: Callable[[str], Episode],
    run_id: str,
    calls: list[ModelCall],
    fill: Callable[[Episode, list[int]], int] | None = None,
) -> list[Conversation]:
    """One episode per conversation of the run (:func:`conversations`), events and delivered inputs filled: by
    ``fill`` (given the episode and its calls' numbers, returning the number of the call whose
    conversation it is), for a format that builds an episode from more than its calls (OTel's tool spans),
    else from the calls alone. The main conversation keeps ``run_id`` and the record's path; the others
    are ``<run_id>/<k>`` (path ``<path>/<k>``), ``k`` its number in the order the conversations first
    spoke (from 1); where there are several, each says which it is in ``extra_json.run_conversation`` (the
    run, its number, how many, whether it is the main one, its calls' numbers in the run)."""
    if not calls:
        raise RecordError("no model call", "the trace has no model call with messages")
    groups = conversations(calls)
    richest = max(range(len(calls)), key=lambda number: (len(calls[number].seen), number))
    read = []
    for number, group in enumerate(groups, start=1):
        main = richest in group
        episode = new_episode(run_id if main else f"{run_id}/{number}")
        if not main and episode.source_path is not None:
            episode.source_path = f"{episode.source_path}/{number}"
        if fill is None:
            chosen = group[_conversation_of(episode, [calls[i] for i in group])]
        else:
            chosen = fill(episode, group)
        kept = {event_key(event) for event in episode.events}
        answers = [(i, calls[i].answer) for i in group]
        not_kept = [i for i, answer in answers if answer is not None and event_key(answer) not in kept]
        if not_kept:
            _add_extra(episode, {ANSWERS_NOT_KEPT: not_kept})
        taken = choices_taken([(i, calls[i].choice) for i in group])
        if taken:
            _add_extra(episode, taken)
        read.append(Conversation(episode, group, chosen, main))
    if len(groups) > 1:
        for number, (group, conversation) in enumerate(zip(groups, read, strict=True), start=1):
            link = {
                "run": run_id,
                "number": number,
                "of": len(groups),
                "main": conversation.main,
                "calls": group,
            }
            _add_extra(conversation.episode, {CONVERSATION: link})
    return read


def _add_extra(episode: Episode, fields: dict) -> None:
    episode.extra_json = canonical_json({**episode.extra(), **fields})


def _conversation_of(episode: Episode, calls: list[ModelCall]) -> int:
    """Fill ``episode.events`` and ``delivered_inputs`` from one conversation's model calls, in call
    order; return the number of the call the conversation is (whose tools and model the episode
    records)."""
    chosen, last = max(enumerate(calls), key=lambda numbered: (len(numbered[1].seen), numbered[0]))
    episode.events = [*last.seen, *last.answered]
    for number, call in enumerate(calls):
        manifest = delivered_input(number, call.seen, episode.events, None)
        after = len(call.seen)
        answered = after < len(episode.events) and episode.events[after].kind == "assistant"
        if manifest.event_indices is not None and answered:
            manifest.response_event_index = after  # it saw a prefix: its answer comes next
            if call.answer is not None and _answer_at(call, episode.events, after):
                _take_call_facts(episode.events[after : after + len(call.answered)], call.answered)
        episode.delivered_inputs.append(manifest)
    _answers_of_verbatim_inputs(episode, calls)
    return chosen


def _answers_of_verbatim_inputs(episode: Episode, calls: list[ModelCall]) -> None:
    """Point each call whose input the episode shows only verbatim (a handoff's first agent under
    its own instructions, a history rewritten since) at its answer in the episode: the first
    assistant turn, answering no other call, that is that answer. Without it, training rebuilds
    that answer's prefix from the event log, which shows the instructions of the agent that
    spoke last, not the ones the call was given."""
    taken = {d.response_event_index for d in episode.delivered_inputs}
    for manifest, call in zip(episode.delivered_inputs, calls, strict=True):
        if manifest.response_event_index is not None or call.answer is None or not manifest.messages_json:
            continue
        at = next(
            (
                j
                for j, event in enumerate(episode.events)
                if event.kind == "assistant" and j not in taken and _answer_at(call, episode.events, j)
            ),
            None,
        )
        if at is not None:
            manifest.response_event_index = at
            taken.add(at)
            _take_call_facts(episode.events[at : at + len(call.answered)], call.answered)


def _answer_at(call: ModelCall, events: list[Event], at: int) -> bool:
    """Do the episode's events from ``at`` on hold the call's answer, each of its events (a turn,
    a provider-run tool's result, the turn after it) the same turn as the episode's?"""
    answer = call.answered
    return len(events) - at >= len(answer) and all(
        _same_turn(a, e) for a, e in zip(answer, events[at : at + len(answer)], strict=False)
    )


def _same_turn(answer: Event, event: Event) -> bool:
    return (answer.kind, answer.content, [(c.id, c.name) for c in answer.tool_calls]) == (
        event.kind,
        event.content,
        [(c.id, c.name) for c in event.tool_calls],
    )


def _take_call_facts(events: list[Event], answer: list[Event]) -> None:
    """What only the call's own record says about its answer (a later call's input repeats the
    answer's text and calls, not when it came or what it cost), event by event."""
    for event, said in zip(events, answer, strict=True):
        event.timestamp = event.timestamp or said.timestamp
        event.finish_reason = event.finish_reason or said.finish_reason
        event.input_tokens = event.input_tokens if event.input_tokens is not None else said.input_tokens
        event.output_tokens = event.output_tokens if event.output_tokens is not None else said.output_tokens


def mark_failed_tools(events: list[Event], runs: list[ToolRun]) -> None:
    """Mark the result of each failed run's call ``error`` (see the module docstring)."""
    results = {e.tool_call_id: e for e in events if e.kind == "tool" and e.tool_call_id}
    open_calls = [c for e in events for c in e.tool_calls if c.id in results]
    for run in runs:
        call_id = run.call_id
        if call_id is None:
            call = next((c for c in open_calls if c.name == run.name), None)
            call_id = call.id if call is not None else None
        open_calls = [c for c in open_calls if c.id != call_id]
        if run.failed and call_id in results:
            results[call_id].status = "error"


def joined_trace(
    parts: list[RawRecord],
    items: str,
    id_of: Callable[[Any], Hashable],
    what: str,
    version: Callable[[Any], Any] = lambda item: item,
) -> RawRecord:
    """One trace's records framed from several files (in file order) as one: the items under
    ``items`` of every part, each (by ``id_of``) once, in the order first met; the reader orders
    them by time and parent. An item two files hold in different versions (``version``: what is
    compared; a span re-exported after it changed) is a conflict no order resolves: the record is
    then a reject naming both files, never one version picked silently."""
    first = parts[0]
    kept: dict[Hashable, tuple[Any, str]] = {}
    joined = []
    for part in parts:
        for item in part.value[items]:
            key = id_of(item)
            if key not in kept:
                kept[key] = (item, part.value[TRACE_FILE])
                joined.append(item)
            elif version(kept[key][0]) != version(item):
                detail = (
                    f"{what} {named(key)} is written differently in {kept[key][1]} "
                    f"and in {part.value[TRACE_FILE]}"
                )
                error = RecordError(CONFLICT, detail)
                return RawRecord(first.line, first.json_path, error=error)
    return RawRecord(first.line, first.json_path, value={**first.value, items: joined})
