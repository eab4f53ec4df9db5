"""Chat calls and conversations in an envelope: what a gateway, a proxy or a team's own middleware
logs around a model call.

Deployed agents are often logged by what sits between them and the model (LiteLLM, Helicone,
Portkey, OpenRouter, a logging middleware) or by a logger of the team's own, which wraps the call in
a shape of its own: ``{"request": {"body": {"model", "messages", "tools"}}, "response": {"body":
{"choices": [...]}}}``, ``{"input": {"messages"}, "output": {...}}``, ``{"messages", "response"}``,
a conversation under ``history``, ``conversation``, ``turns``, ``data.messages``. The class is the
same: a list of role messages, perhaps the response the call returned. This adapter finds them
wherever the record keeps them, rather than one adapter per gateway:

- **The conversation and the response** are found as
  :mod:`~trajectory_platform.traces.adapters.chat_envelope` says: the longest list of role messages
  within four levels of objects (or a prompt and its continuation kept apart, a preference row's
  rejected side named in ``read_from``), and the first response of any provider's kind outside it.
- **The call** is the object holding the conversation (its ``model``, ``tools``, ``system``,
  sampling parameters) with the conversation and the response put back where its provider's own
  record keeps them, and it is read by that provider's adapter (:data:`DIALECTS`: Bedrock Converse
  for blocks named by their key, Anthropic when content blocks, a ``system`` field or
  ``input_schema`` tools say so, Gemini for ``parts``, the Responses API for typed items, else
  OpenAI), so a ``tool_use`` block is a call, never text. The response is the call's answer: its
  finish reason and token counts (in either provider's words) on the answer, and the events before
  it the call's delivered input; a conversation that already ends with the answer keeps it once.

A gateway logs each call of an agent's run on its own line. Calls that name one run (a
``session_id``, ``trace_id``, ``run_id``, ``thread_id`` or ``root_span_id``:
``chat_envelope.RUN_KEYS``) are one record (a record of the run holding no model call, such as a
tracer's root span, is counted, not read as one), read as the tracing platforms' runs are
(:mod:`~trajectory_platform.traces.adapters.call_trace`: an episode per conversation of the run,
each the conversation of its call that saw the most, every call a delivered input), not one
overlapping episode per call.

The record's own shape decides nothing else, so an envelope never seen before reads the same. A
record whose conversation is the top-level ``messages`` with no response is the ``openai`` format,
and formats with an adapter of their own are detected before this one. The dialect and where each
part was found are kept in ``extra_json`` (``dialect``, ``read_from``), with the record's top-level
fields the parts did not come from. The task id is read as for ``openai`` records, at the record's
top level or beside the conversation.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Iterator
from typing import Any

from trajectory_platform.traces.adapters.anthropic import AnthropicAdapter
from trajectory_platform.traces.adapters.base import (
    STRUCTURE_ERRORS,
    Adapter,
    RawRecord,
    RecordError,
    SourceFile,
    adapter_episode_id,
    content_digest,
    delivered_input,
    event_key,
    expect,
    frame_json,
    name_tool_results,
    optional_str,
    read_chat_outcome,
    sampling_params_json,
    task_id_in,
)
from trajectory_platform.traces.adapters.bedrock import BedrockAdapter
from trajectory_platform.traces.adapters.call_trace import ModelCall, conversations, run_episodes
from trajectory_platform.traces.adapters.chat_envelope import (
    MAX_DEPTH,
    Envelope,
    answer_facts,
    call_settings,
    locate,
    run_of,
    tree_level,
    unwrapped,
)
from trajectory_platform.traces.adapters.gemini import GeminiAdapter
from trajectory_platform.traces.adapters.json_text import parsed_json_text
from trajectory_platform.traces.adapters.openai import (
    UNREAD_STREAM,
    OpenAIAdapter,
    choice_taken,
    choices_taken,
)
from trajectory_platform.traces.adapters.openai_responses import PREVIOUS, OpenAIResponsesAdapter
from trajectory_platform.traces.drops import path_of
from trajectory_platform.traces.record import Episode, Event, canonical_json

SAMPLING_KEYS = (
    "temperature",
    "top_p",
    "max_tokens",
    "max_completion_tokens",
    "seed",
    "n",
    "stop",
    "presence_penalty",
    "frequency_penalty",
    "tool_choice",
    "reasoning_effort",
)
"""Request fields beside the conversation that say how the call sampled."""
TASK_ID_SOURCE = (
    "`metadata.task_id` (or `environment_id`, `instance_id`; or the same key at the top level), "
    "else the same keys beside the conversation"
)

RUN = "run"
RUN_AT = "run="
"""How a run's record is located: ``run=<id>``."""
LOOSE = "lines="
"""How the record of a run found among calls that name none is located: ``lines=<first>-<last>``."""


def _is_run(record: RawRecord) -> bool:
    """Is ``record`` the calls of a run that names itself (framed from its calls)?"""
    return (record.json_path or "").startswith(RUN_AT)


NO_CONVERSATION = "records_without_conversation"
"""The extra field saying how many records of a run held no model call."""


def _task_id(value: dict[str, Any], found: Envelope | None) -> str | None:
    """The task id a call names: at the record's top level (or its ``metadata``), else beside its
    conversation."""
    scopes: list[tuple[Any, str]] = [(value.get("metadata"), "metadata."), (value, "")]
    if found is not None:
        parent = path_of(found.conversation_at[:-1])
        scopes += [(found.request.get("metadata"), f"{parent}.metadata."), (found.request, f"{parent}.")]
    return task_id_in(scopes)


DIALECTS: tuple[Adapter, ...] = (
    BedrockAdapter(),
    AnthropicAdapter(),
    GeminiAdapter(),
    OpenAIResponsesAdapter(),
    OpenAIAdapter(),
)
"""The providers a conversation may be written for, most specific first: each reads the unwrapped
call as it reads its own records."""


PREFILL_DIALECTS = ("anthropic", "bedrock")
"""Providers that continue a request's last assistant message (a prefill the caller wrote, such as
``{`` to hold Claude to JSON) instead of answering it with a turn of its own: Anthropic's Messages
API, and Claude through Bedrock. The prefill and the continuation are one turn."""


def _continues_prefill(prefill: Event, answer: Event) -> bool:
    """Is ``answer`` the continuation of ``prefill``, the text the caller put in the model's mouth?"""
    return (
        prefill.kind == answer.kind == "assistant"
        and prefill.content is not None
        and not prefill.tool_calls
        and prefill.reasoning is None
    )


def _same_turn(a: Event, b: Event) -> bool:
    return a.kind == b.kind == "assistant" and (a.content, [(c.name, c.arguments) for c in a.tool_calls]) == (
        b.content,
        [(c.name, c.arguments) for c in b.tool_calls],
    )


def _text_answer_beside_turn(found: Envelope, last: Event, answer: Event) -> None:
    """A plain string answer beside a conversation that already ends on an assistant turn: the same
    text (whitespace aside) is that turn logged twice, read once (its spacing taken from the turn);
    other text is an ``ambiguous answer`` reject (where the provider continues a prefilled turn, the
    prefill rule reads it instead). A string says nothing of which turn it is: the
    turn's continuation, another sample of it, or an answer to a turn the log left out. Kept as a
    second assistant turn, the model would be trained to answer twice in a row; kept aside, the
    record would be admitted with its answer-bearing field unread. A structured response (a Chat
    Completions response) is a call's own answer to that input, and stays a turn of its own."""
    if last.tool_calls or (last.content or "").split() != (answer.content or "").split():
        raise RecordError(
            "ambiguous answer",
            f"{path_of(found.response_at)} is a plain string answer beside a conversation that already "
            "ends on an assistant turn, and says something else: whether it continues that turn, "
            "samples it again or answers a turn the log left out cannot be told",
        )
    answer.content = last.content


def _previous(found: Envelope | None) -> str | None:
    """The response a Responses API call continues (:data:`PREVIOUS`, in its request or echoed in
    its response), or ``None``."""
    if found is None:
        return None
    named = found.request.get(PREVIOUS, (found.response or {}).get(PREVIOUS))
    return named if isinstance(named, str) else None


def _continued(before: ModelCall, call: ModelCall) -> ModelCall:
    """``call`` with the conversation ``before`` saw and answered put before what it saw (its
    instructions said again are said once)."""
    history = [*before.seen, *before.answered]
    own, same = call.seen, 0
    while (
        same < min(len(own), len(history))
        and own[same].kind == "system"
        and event_key(own[same]) == event_key(history[same])
    ):
        same += 1
    seen = [*history, *own[same:]]
    name_tool_results(seen)
    return ModelCall(seen, call.answer, call.choice, call.steps)


def _one_conversation(found: Envelope) -> None:
    """Reject a record whose lists of messages are not one conversation: one level of a message
    tree (:func:`tree_level`: OpenAssistant's ``replies``, alternative answers read as turns, the
    prompt and the follow-ups lost), or several conversations side by side (a column-oriented
    export, ``{"messages": {"0": [...], "1": [...]}}``). Read as the longest list, the others were
    dropped while the record counted as read."""
    at = path_of(found.conversation_at)
    if tree_level(found.conversation):
        raise RecordError(
            "message tree",
            f"{at} holds messages with their replies nested: siblings of a message tree are "
            "alternative answers, not turns, and the conversation is a path through the tree",
        )
    if found.other_conversations:
        raise RecordError(
            "several conversations",
            f"{at} and {path_of(found.other_conversations[0])} each hold a conversation of its own: "
            "read as one record, all but one would be lost",
        )


class ChatLogAdapter(Adapter):
    """Chat calls and conversations wrapped in a gateway's or a logger's own envelope."""

    name = "chat-log"
    task_id_source = TASK_ID_SOURCE

    def claims_record(self, record: dict[str, Any]) -> bool:
        parsed = parsed_json_text(record)
        found = locate(parsed)
        if found is None:
            return False
        from_text = parsed[found.conversation_at[0]] is not record.get(found.conversation_at[0])
        return found.conversation_at != ("messages",) or found.response is not None or from_text

    @property
    def reads_each_record_alone(self) -> bool:
        """A lone call is a record of its own (a run's calls, grouped by their run id, are one)."""
        return True

    def frame(self, src: SourceFile) -> Iterator[RawRecord]:
        """The calls of one run a record: the calls that name a run, and the calls of a log that
        names none which carry one another on (:meth:`_loose_runs`); any other call its own record.
        The calls that name no run are held until the file ends (a later call may carry one on)."""
        runs: dict[str, list[RawRecord]] = {}
        loose: list[RawRecord] = []
        for record in frame_json(src):
            # a logger's JSON-text fields, read as the data they hold (:meth:`parse` reads them of a
            # lone call: one routed here from another format's file is framed by that format)
            value = parsed_json_text(record.value) if isinstance(record.value, dict) else record.value
            run = run_of(value) if record.error is None else None
            if run is not None:
                runs.setdefault(run, []).append(dataclasses.replace(record, value=value))
            elif record.error is None and isinstance(value, dict) and locate(value) is not None:
                loose.append(dataclasses.replace(record, value=value))
            else:
                yield record
        yield from self._loose_runs(loose, src)
        for run, records in runs.items():
            if len(records) == 1:
                yield records[0]
            else:
                calls = [r.value for r in records]
                yield RawRecord(records[0].line, f"{RUN_AT}{run}", value={RUN: run, "calls": calls})

    def group_of(self, record: RawRecord) -> str | None:
        """The run a call or a run's calls belong to: one run may be logged over several files."""
        if not isinstance(record.value, dict) or record.error is not None:
            return None
        if _is_run(record):
            return str(record.value[RUN])
        return None if (record.json_path or "").startswith(LOOSE) else run_of(parsed_json_text(record.value))

    def merged(self, parts: list[RawRecord]) -> RawRecord:
        """One run's calls from several files, in file order."""
        calls: list[Any] = []
        for part in parts:
            calls.extend(part.value["calls"] if _is_run(part) else [parsed_json_text(part.value)])
        run = self.group_of(parts[0])
        return RawRecord(parts[0].line, f"{RUN_AT}{run}", value={RUN: run, "calls": calls})

    def runs_among(self, records: Iterable[RawRecord], src: SourceFile) -> Iterator[RawRecord]:
        """Another format's records with the calls of one run, logged a call a line and naming no
        run (Bedrock invocation logs and Converse request/response, Gemini ``contents`` /
        ``response``, stateless Responses ``input`` / ``output``), made one record as this format's
        own are (:meth:`_loose_runs`); that record is read by this format
        (``adapters.record_reader``), every other record passes as it was framed, and all come in
        the order of their first line. Left a record each, a run of N calls would be stored N
        times, each a prefix of the next."""
        framed = list(records)
        at = {id(r): i for i, r in enumerate(framed)}
        loose = [
            r
            for r in framed
            if r.error is None and isinstance(r.value, dict) and run_of(r.value) is None and locate(r.value)
        ]
        grouped = {id(r) for r in loose}
        first_of_run = {id(r.value): at[id(r)] for r in loose}
        placed = [(at[id(r)], r) for r in framed if id(r) not in grouped]
        for record in self._loose_runs(loose, src):
            run = (record.json_path or "").startswith(LOOSE)
            placed.append((first_of_run[id(record.value["calls"][0])] if run else at[id(record)], record))
        return iter([record for _, record in sorted(placed, key=lambda p: p[0])])

    def _loose_runs(self, records: list[RawRecord], src: SourceFile) -> Iterator[RawRecord]:
        """Calls that name no run, grouped as an agent loop makes them: a call whose input carries
        an earlier call's input and answer on is the next call of that run
        (``call_trace.conversations``, ``chained``). Logged alone, each call of a run of N would be
        an episode, each a prefix of the next: the run stored N times, all but the last ending on
        an unanswered turn. A run so found is one record located ``lines=<first>-<last>``, its id
        the one its last call (the one that saw the most) has alone; a call that cannot be read is
        its own record (its reject says why)."""
        calls: list[ModelCall] = []
        readable: list[RawRecord] = []
        read = self._linked_calls([(r, locate(r.value)) for r in records], src)
        for record, result in zip(records, read, strict=True):
            if isinstance(result, Exception):
                yield record
                continue
            calls.append(result[0])
            readable.append(record)
        for group in conversations(calls, chained=True):
            run = [readable[number] for number in group]
            if len(run) == 1:
                yield run[0]
                continue
            last = run[-1].value
            own = last.get("id")
            run_id = own if isinstance(own, str) and own else content_digest(last)
            located = f"{LOOSE}{run[0].line}-{run[-1].line}"
            yield RawRecord(run[0].line, located, value={RUN: run_id, "calls": [r.value for r in run]})

    def parse_all(self, record: RawRecord, src: SourceFile) -> list[Episode]:
        """A run's calls: an episode per conversation (:meth:`_run`); any other record: one."""
        value = expect(record.value, dict, "record")
        return self._run(record, src) if RUN in value else [self.parse(record, src)]

    def parse(self, record: RawRecord, src: SourceFile) -> Episode:
        value = parsed_json_text(expect(record.value, dict, "record"))
        found = locate(value)
        if found is None:
            raise RecordError("missing field", f"no list of role messages within {MAX_DEPTH} levels")
        episode, dialect = self._call(record, src, found)
        episode.episode_id = adapter_episode_id(self.name, value.get("id"), value)
        read_chat_outcome(value, episode)
        episode.task.fixture_id = _task_id(value, found)
        taken = choices_taken([(0, choice_taken(found.response))])
        self._settings(found, episode, dialect, {**value, **taken})
        return episode

    def _run(self, record: RawRecord, src: SourceFile) -> list[Episode]:
        """The calls of one run: an episode per conversation, each the conversation of its call
        that saw the most, every call a delivered input
        (:func:`~trajectory_platform.traces.adapters.call_trace.run_episodes`); the task id the
        first record naming one names. A record of the run holding no conversation
        (a tracer's root span of the agent, which restates its first question and last answer) is
        no call: it may name the task, and how many there were is said in :data:`NO_CONVERSATION`."""
        read: list[tuple[Envelope, Episode, str]] = []
        calls, tasks, bare = [], [], 0
        founds = [(value, locate(value)) for value in record.value["calls"]]
        for value, found in founds:
            if found is None:  # a span of the run that is no model call (the agent's root span)
                tasks.append(_task_id(value, None) if isinstance(value, dict) else None)
                bare += 1
        ones = [(value, found) for value, found in founds if found is not None]
        results = self._linked_calls([(record, found) for _, found in ones], src)
        for (value, found), result in zip(ones, results, strict=True):
            if isinstance(result, Exception):
                raise result
            call, episode, dialect = result
            calls.append(call)
            read.append((found, episode, dialect))
            tasks.append(_task_id(value, found))
        if not read:
            raise RecordError("missing field", "no call of the run holds a list of role messages")
        task = next((task for task in tasks if task is not None), None)
        without = {NO_CONVERSATION: bare} if bare else {}
        conversations = run_episodes(
            lambda episode_id: self.new_episode(record, src, episode_id),
            f"{self.name}:{record.value[RUN]}",
            calls,
        )
        for conversation in conversations:
            episode = conversation.episode
            found, read_by, dialect = read[conversation.chosen]
            episode.tools = read_by.tools
            episode.outcome = read_by.outcome
            episode.task.prompt = read_by.task.prompt
            episode.task.fixture_id = task
            self._settings(
                found,
                episode,
                dialect,
                {
                    "calls": len(conversation.calls),
                    **without,
                    **episode.extra(),
                },
            )
        return [conversation.episode for conversation in conversations]

    def _linked_calls(
        self, calls: list[tuple[RawRecord, Envelope | None]], src: SourceFile
    ) -> list[tuple[ModelCall, Episode, str] | Exception]:
        """Each call read (:meth:`_model_call`), or the error that stopped it, in order; a Responses
        API call that names, by :data:`PREVIOUS`, the response of an earlier call here saw that
        call's input and answer first (the API keeps the conversation on its server, so the log
        holds only each call's new items): its history is put back (:func:`_continued`). Read
        without it, the chain's second call answered a call it never showed (an ``orphan tool
        result``) and the first was a run of its own."""
        by_response: dict[str, int] = {}
        out: list[tuple[ModelCall, Episode, str] | Exception] = []
        for index, (record, found) in enumerate(calls):
            before = by_response.get(_previous(found) or "")
            if found is not None and before is not None:
                found = dataclasses.replace(
                    found, request={k: v for k, v in found.request.items() if k != PREVIOUS}
                )
            try:
                call, episode, dialect = self._model_call(record, src, found)
            except (RecordError, *STRUCTURE_ERRORS) as error:
                out.append(error)
                continue
            earlier = out[before] if before is not None else None
            if earlier is not None and not isinstance(earlier, Exception):
                call = _continued(earlier[0], call)
            out.append((call, episode, dialect))
            own = (found.response or {}).get("id") if found is not None else None
            if isinstance(own, str):
                by_response.setdefault(own, index)
        return out

    def _model_call(
        self, record: RawRecord, src: SourceFile, found: Envelope | None
    ) -> tuple[ModelCall, Episode, str]:
        """One call of a run: what it saw and its answer, the episode it reads as, its dialect."""
        if found is None:
            raise RecordError("missing field", f"no list of role messages within {MAX_DEPTH} levels")
        episode, dialect = self._call(record, src, found)
        answered = episode.delivered_inputs[0].response_event_index if episode.delivered_inputs else None
        seen = episode.events if answered is None else episode.events[:answered]
        answer = None if answered is None else episode.events[answered]
        return ModelCall(seen, answer, choice_taken(found.response)), episode, dialect

    def _call(self, record: RawRecord, src: SourceFile, found: Envelope) -> tuple[Episode, str]:
        """One call read by its provider's reader, its response as its answer; and that reader's name."""
        if found.response is not None and found.response.get(UNREAD_STREAM):
            where = path_of(found.response_at)
            raise RecordError(
                "unreadable stream", f"{where} is an event stream of no Chat Completions chunks"
            )
        _one_conversation(found)
        call = unwrapped(found)
        dialect = next((d for d in DIALECTS if d.claims_record(call)), DIALECTS[-1])
        episode = self._read(dialect, record, src, call, found)
        episode.source_format = self.name
        if found.response is not None:
            bare = self._read(dialect, record, src, unwrapped(found, False), found)
            self._answer(found, episode, len(bare.events), dialect.name in PREFILL_DIALECTS)
        return episode, dialect.name

    @staticmethod
    def _settings(found: Envelope, episode: Episode, dialect: str, value: dict[str, Any]) -> None:
        """The call's model and sampling parameters; where its parts were found, and the rest."""
        settings = call_settings(found, ("model", *SAMPLING_KEYS))
        model = settings.pop("model", (found.response or {}).get("model"))
        # what the envelope says, else what the provider's reader found in the call (Gemini's
        # ``modelVersion`` and ``generationConfig``)
        episode.lineage.model = optional_str(model, "model") or episode.lineage.model
        sampling = sampling_params_json(settings)
        episode.lineage.sampling_params_json = sampling or episode.lineage.sampling_params_json
        read_from = {  # the record's own keys: episode data, redacted with it (details never are)
            "messages": ".".join(found.conversation_at),
            **({"response": ".".join(found.response_at)} if found.response else {}),
            **({"continuation": ".".join(found.continuation_at)} if found.continuation_at else {}),
            **({"alternatives": [".".join(at) for at in found.alternatives]} if found.alternatives else {}),
            **({"not_read": [".".join(at) for at in found.not_read]} if found.not_read else {}),
        }
        consumed = {found.conversation_at[0], *found.response_at[:1], *found.continuation_at[:1], "id"}
        rest = {k: v for k, v in value.items() if k not in consumed}
        episode.extra_json = canonical_json({"dialect": dialect, "read_from": read_from, **rest})

    @staticmethod
    def _read(
        dialect: Adapter, record: RawRecord, src: SourceFile, call: dict[str, Any], found: Envelope
    ) -> Episode:
        """The unwrapped call read by its provider's adapter; an error says where the call was."""
        try:
            return dialect.parse(RawRecord(record.line, record.json_path, value=call), src)
        except RecordError as error:
            where = f"the {dialect.name} call read from {path_of(found.conversation_at)}"
            raise RecordError(error.reason, f"{error.detail} ({where})") from None

    @staticmethod
    def _answer(found: Envelope, episode: Episode, asked: int, prefills: bool) -> None:
        """The events from ``asked`` on are the response: the call's answer, whose input was the
        ``asked`` events before it (a delivered input). A conversation that already ended with the
        answer keeps it once; where the provider ``prefills`` (:data:`PREFILL_DIALECTS`), an answer
        to a conversation ending in assistant text continues that text: one turn, prefill first."""
        events = episode.events
        last_said = events[asked - 1] if 0 < asked < len(events) else None
        if found.answer_is_text and not prefills and last_said is not None and last_said.kind == "assistant":
            _text_answer_beside_turn(found, last_said, events[asked])
        if len(events) == asked + 1 and asked and _same_turn(events[asked - 1], events[asked]):
            del events[asked:]
            asked -= 1
        elif prefills and 0 < asked < len(events) and _continues_prefill(events[asked - 1], events[asked]):
            events[asked].content = (events[asked - 1].content or "") + (events[asked].content or "")
            del events[asked - 1]
            asked -= 1
        if len(events) <= asked:
            return
        finish, tokens_in, tokens_out = answer_facts(found)
        answer = events[asked]
        answer.finish_reason = answer.finish_reason or finish
        answer.input_tokens = answer.input_tokens if answer.input_tokens is not None else tokens_in
        answer.output_tokens = answer.output_tokens if answer.output_tokens is not None else tokens_out
        episode.delivered_inputs.append(delivered_input(0, events[:asked], events, asked))
