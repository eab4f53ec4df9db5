"""OpenHands event streams: a bare list of events (``tests/runtime/trajs/*.json``), evaluation /
resolver output lines ``{"instance_id" | "issue", "instruction", "history": [events], ...}``, or a
session as its file store keeps it, one event a file (``sessions/<id>/events/<n>.json``, read in the
order of ``n`` with the session's ``metadata.json``: ``numbered_files.py``), the episode named by the
session's id.

Events are actions (``action``: message, system, run, read, edit, think, finish, ...) and
observations (``observation`` with ``cause`` = the action id). Actions produced by one model
response share ``tool_call_metadata.model_response.id`` and become ONE assistant event with
several tool calls in recorded order (fine-tuning 16.3.2: parallel calls are never re-sorted).
Observations keep their exit code (``extras.metadata.exit_code``, or the older top-level
``exit_code``); ``<response clipped>`` marks a truncated observation and a leading ``ERROR:`` line
a failed editor command; an ``error`` observation
without a tool call is the runtime refusing a malformed call (schema violation) and becomes a
``refusal`` event. State-change bookkeeping events (``agent_state_changed``, ``null``,
``change_agent_state``, ``recall`` requests) carry no conversation content and are skipped.

Not every action is the model's: one the user ran (``source: user``, a command typed into the
terminal) and its observation are user events (context the model is shown, never a call to train
on or replay), and a ``condensation`` (the condenser forgetting events, with or without a summary)
is a ``compaction`` event replacing through the last event it forgot.

A command observation of the event-stream layout records the agent's shell directory after the
command (``extras.metadata.working_dir``); the first one (where the runtime held the repository:
``/workspace``, ``/workspace/<repo>__<version>`` in evaluation runs) is kept as ``working_dir`` in
``extra_json``, which replay shows the workspace at (:func:`curation.verify.replay.repository_root`);
where they differ, every command observation's is kept too (``working_dirs``, by the index of the
event it became): the log's own evidence of a shell that keeps its folder between calls
(:func:`curation.verify.shell_session.shown_folders`).
The older layout records no such field (only the terminal prompt inside the output text) and
keeps none.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from trajectory_platform.traces.adapters.base import (
    Adapter,
    RawRecord,
    RecordError,
    SourceFile,
    arguments_text,
    expect,
    first_record,
    optional_str,
    sampling_params_json,
    task_id_of,
    text_of,
    timestamp_of,
)
from trajectory_platform.traces.adapters.numbered_files import companion_record, numbered_files, read_numbered
from trajectory_platform.traces.record import Episode, Event, ToolCall, canonical_json

BOOKKEEPING = {"agent_state_changed", "null", "change_agent_state", "recall", "condensation_request"}
CLIPPED = "<response clipped>"
EDITOR_ERROR = "ERROR:\n"
"""How the OpenHands file editor reports a failed command inside an otherwise normal observation."""
MAX_ITERATIONS = "maximum iteration"


def _is_event_list(value: Any) -> bool:
    return (
        isinstance(value, list)
        and bool(value)
        and isinstance(value[0], dict)
        and ("action" in value[0] or "observation" in value[0])
    )


EVENTS, EVENT_FILE, METADATA = "events", re.compile(r"(\d+)\.json"), "metadata.json"


def _stored_events(sample: Any, path: Path) -> Path | None:
    """The ``events`` folder of a session as OpenHands' file store keeps it (``sessions/<id>/events/
    <n>.json``, one event a file, beside the session's ``metadata.json``) that ``path`` (an event
    file, or that ``metadata.json``) belongs to; ``None`` for any other file."""
    if path.parent.name == EVENTS and EVENT_FILE.fullmatch(path.name):
        return (
            path.parent if isinstance(sample, dict) and _is_event_list([sample]) and "id" in sample else None
        )
    folder = path.parent / EVENTS
    if path.name == METADATA and isinstance(sample, dict) and numbered_files(folder, EVENT_FILE):
        return folder
    return None


def _events_page(value: Any) -> dict[str, Any] | None:
    """A page of the server's event listing (``GET /api/conversations/{id}/events``:
    ``{"events": [...], "has_more"}``) as an output line's ``history``; None for anything else."""
    if isinstance(value, dict) and "history" not in value and _is_event_list(value.get("events")):
        return {"history": value["events"], **{k: v for k, v in value.items() if k != "events"}}
    return None


def _model_call(
    metadata: dict[str, Any] | None, tool_call_id: str | None
) -> tuple[str | None, ToolCall | None]:
    """(model response id, the call as the model wrote it) from ``tool_call_metadata``."""
    if not metadata:
        return None, None
    response = metadata.get("model_response") or {}
    call = None
    for choice in response.get("choices") or []:
        for raw in (choice.get("message") or {}).get("tool_calls") or []:
            if raw.get("id") == tool_call_id:
                function = raw.get("function") or {}
                call = ToolCall(tool_call_id, function.get("name"), arguments_text(function.get("arguments")))
    if call is None:
        call = ToolCall(tool_call_id, metadata.get("function_name"), None)
    return response.get("id"), call


def _usage_of(metadata: dict[str, Any] | None, event: Event) -> None:
    response = (metadata or {}).get("model_response") or {}
    usage = response.get("usage") or {}
    event.input_tokens = usage.get("prompt_tokens")
    event.output_tokens = usage.get("completion_tokens")
    choices = response.get("choices") or [{}]
    event.finish_reason = choices[0].get("finish_reason")


class OpenHandsAdapter(Adapter):
    """Both OpenHands layouts; a bare event list is one episode, an output line is one episode."""

    name = "openhands"
    task_id_source = "`instance_id` of an output line (a bare event list and a resolver line name no task)"

    def sniff(self, sample: Any, path: Path) -> bool:
        if _is_event_list(sample) or _events_page(sample) is not None or _stored_events(sample, path):
            return True
        sample = first_record(sample)
        return isinstance(sample, dict) and _is_event_list(sample.get("history"))

    def frame(self, src: SourceFile) -> Iterator[RawRecord]:
        doc, error = src.document
        folder = _stored_events(doc, Path(src.path)) if error is None else None
        if folder is not None:
            return iter([self._stored_session(src, folder)])
        if error is None and _is_event_list(doc):
            return iter([RawRecord(None, "$", value={"history": doc})])
        page = _events_page(doc) if error is None else None
        if page is not None:
            return iter([RawRecord(None, "$", value=page)])
        return super().frame(src)

    @staticmethod
    def _stored_session(src: SourceFile, folder: Path) -> RawRecord:
        """A file-store session: its first event file is the record, every event of the folder in
        index order (``numbered_files``); its other files (events, ``metadata.json``) are read with it."""
        first = numbered_files(folder, EVENT_FILE)[0][1]
        path = Path(src.path)
        if path != first:
            inside = path.relative_to(folder.parent)
            head = src.display[: -len(str(inside))] if src.display.endswith(str(inside)) else ""
            return companion_record(src, first, head + str(first.relative_to(folder.parent)))
        try:
            events = read_numbered(folder, EVENT_FILE, EVENTS)
        except RecordError as exc:
            return RawRecord(None, "$", error=exc, excerpt=src.fingerprint())
        return RawRecord(
            None, "$", value={"history": [event for _, event in events], "session_id": folder.parent.name}
        )

    def parse(self, record: RawRecord, src: SourceFile) -> Episode:
        value = expect(record.value, dict, "record")
        history = expect(value.get("history"), list, "history")
        own_id = value.get("instance_id") or _issue_id(value.get("issue")) or value.get("session_id")
        own_id = own_id or src.path.name.removesuffix(".json")
        episode = self.new_episode(record, src, f"{self.name}:{own_id}")
        folders = self._convert(history, episode, value.get("instruction"))
        self._outcome(value, episode, _first_working_dir(history), folders)
        return episode

    def _convert(self, history: list[Any], episode: Episode, instruction: Any) -> dict[str, str]:
        """Fill ``episode``'s events from ``history``; returns the shell directory each command
        observation records (``extras.metadata.working_dir``), by the index of the event it became."""
        folders: dict[str, str] = {}
        last_response: str | None = None
        index_of_id: dict[Any, int] = {}  # OpenHands event id -> index of the event it became
        user_actions: set[Any] = set()  # ids of the actions the user ran
        for index, raw in enumerate(history):
            where = f"history[{index}]"
            expect(raw, dict, where)
            args = raw.get("args") if isinstance(raw.get("args"), dict) else raw
            stamp = timestamp_of(raw.get("timestamp"), f"{where}.timestamp")
            for key in ("id", "cause"):  # a key of the session's index: a number or a string
                if raw.get(key) is not None and not isinstance(raw[key], int | str):
                    raise RecordError(
                        "wrong type", f"{where}.{key} is {type(raw[key]).__name__}, expected id"
                    )
            if "action" in raw:
                action = expect(raw["action"], str, f"{where}.action")
                if action in BOOKKEEPING:
                    continue
                if action in ("message", "system"):
                    content = text_of(args.get("content", raw.get("message")), f"{where}.content")
                    kind = (
                        "system" if action == "system" else _speaker(raw.get("source"), content, instruction)
                    )
                    episode.events.append(Event(kind=kind, content=content, timestamp=stamp))
                    last_response = None
                elif action == "condensation":
                    episode.events.append(_compaction(args, index_of_id, where, stamp))
                    last_response = None
                elif raw.get("source") == "user":
                    if raw.get("id") is not None:
                        user_actions.add(raw["id"])
                    command = args.get("command", args.get("code", raw.get("message")))
                    episode.events.append(
                        Event(kind="user", content=text_of(command, f"{where}.command"), timestamp=stamp)
                    )
                    last_response = None
                else:
                    last_response = self._model_action(raw, args, episode, where, stamp, last_response)
            elif "observation" in raw:
                kind = expect(raw["observation"], str, f"{where}.observation")
                if kind in BOOKKEEPING:
                    continue
                if raw.get("cause") in user_actions:
                    content = text_of(raw.get("content"), f"{where}.content")
                    episode.events.append(Event(kind="user", content=content, timestamp=stamp))
                else:
                    episode.events.append(self._observation(raw, kind, where, stamp))
                    if folder := _working_dir(raw, where):
                        folders[str(len(episode.events) - 1)] = folder
                last_response = None
            else:
                raise RecordError("unknown event", f"{where} is neither an action nor an observation")
            if raw.get("id") is not None and episode.events:
                index_of_id[raw["id"]] = len(episode.events) - 1  # joined to a turn: that turn
        return folders

    @staticmethod
    def _model_action(
        raw: dict[str, Any],
        args: dict[str, Any],
        episode: Episode,
        where: str,
        stamp: str | None,
        last_response: str | None,
    ) -> str | None:
        """An action the agent's model proposed: a call, joined to the previous assistant turn when
        both came from one model response. Returns that response's id."""
        action = raw["action"]
        metadata = raw.get("tool_call_metadata")
        call_id = optional_str((metadata or {}).get("tool_call_id"), f"{where}.tool_call_id")
        response_id, call = _model_call(metadata, call_id)
        if call is None:
            rest = {k: v for k, v in args.items() if k not in ("thought", "action")}
            call = ToolCall(None, action, canonical_json(rest))
        previous = episode.events[-1] if episode.events else None
        if response_id and response_id == last_response and previous and previous.kind == "assistant":
            previous.tool_calls.append(call)
            return response_id
        thought = args.get("thought") or args.get("final_thought")
        content = text_of(thought, f"{where}.thought") if thought else None
        if action == "finish":
            final = args.get("final_thought") or raw.get("message")
            episode.outcome.final_answer = text_of(final, f"{where}.message") or None
            episode.outcome.terminal_status = "completed"
        event = Event(kind="assistant", content=content, tool_calls=[call], timestamp=stamp)
        _usage_of(metadata, event)
        episode.events.append(event)
        return response_id

    @staticmethod
    def _observation(raw: dict[str, Any], kind: str, where: str, stamp: str | None) -> Event:
        metadata = raw.get("tool_call_metadata") or {}
        content = text_of(raw.get("content"), f"{where}.content")
        extras = found if isinstance(found := raw.get("extras"), dict) else {}
        nested = found if isinstance(found := extras.get("metadata"), dict) else {}
        exit_code = nested.get("exit_code", extras.get("exit_code", raw.get("exit_code")))
        event = Event(
            kind="tool",
            content=content,
            tool_call_id=optional_str(metadata.get("tool_call_id"), f"{where}.tool_call_id"),
            tool_name=optional_str(metadata.get("function_name"), f"{where}.function_name") or kind,
            exit_code=exit_code if isinstance(exit_code, int) and exit_code != -1 else None,
            timestamp=stamp,
        )
        if kind == "error":
            event.status = "error"
            if not event.tool_call_id:
                event.kind, event.status, event.tool_name = "refusal", "refused", None
        elif content and content.startswith(EDITOR_ERROR):
            event.status = "error"
        elif content and CLIPPED in content:
            event.status = "truncated"
        elif event.exit_code is not None:
            event.status = "ok" if event.exit_code == 0 else "error"
        else:
            event.status = "ok"
        return event

    @staticmethod
    def _outcome(
        value: dict[str, Any], episode: Episode, working_dir: str | None, folders: dict[str, str]
    ) -> None:
        error = value.get("error")
        if isinstance(error, str) and error:
            episode.outcome.terminal_status = "truncated" if MAX_ITERATIONS in error else "error"
        test_result = found if isinstance(found := value.get("test_result"), dict) else {}
        patch = test_result.get("git_patch", value.get("git_patch"))
        episode.outcome.workspace_diff = optional_str(patch, "git_patch")
        if "success" in value:
            verdict = {k: value.get(k) for k in ("success", "result_explanation") if k in value}
            episode.outcome.verifier_results_json = canonical_json(verdict)
        instance = found if isinstance(found := value.get("instance"), dict) else {}
        episode.task.fixture_id = task_id_of(value.get("instance_id"), "instance_id")
        episode.task.repo_family = optional_str(instance.get("repo"), "instance.repo") or _repo_of(
            value.get("issue")
        )
        first_user = next((e.content for e in episode.events if e.kind == "user"), None)
        episode.task.prompt = optional_str(value.get("instruction"), "instruction") or first_user
        metadata = found if isinstance(found := value.get("metadata"), dict) else {}
        llm = found if isinstance(found := metadata.get("llm_config"), dict) else {}
        episode.lineage.model = optional_str(llm.get("model"), "metadata.llm_config.model")
        sampling = {
            k: llm[k] for k in ("temperature", "top_p", "seed", "reasoning_effort") if llm.get(k) is not None
        }
        episode.lineage.sampling_params_json = sampling_params_json(sampling)
        extra = {
            k: value[k]
            for k in ("metrics", "error", "issue", "base_commit", "has_more")
            if value.get(k) is not None
        }
        if metadata:
            extra["agent_class"] = metadata.get("agent_class")
            extra["max_iterations"] = metadata.get("max_iterations")
        if working_dir:
            extra["working_dir"] = working_dir
        if len(set(folders.values())) > 1:  # where the shell moved: evidence it kept its folder
            extra["working_dirs"] = folders
        episode.extra_json = canonical_json(extra) if extra else None


def _compaction(args: dict[str, Any], index_of_id: dict[Any, int], where: str, stamp: str | None) -> Event:
    """A ``condensation`` action: the condenser (the runtime, not the model) dropped events from
    what later calls see, optionally summarising them. It replaces through the last event it
    forgot (``forgotten_events_end_id``, else the largest of ``forgotten_event_ids``); forgotten
    events that became no event (bookkeeping) count as the nearest earlier one that did."""
    end = args.get("forgotten_events_end_id")
    ids = args.get("forgotten_event_ids")
    if not isinstance(end, int) or isinstance(end, bool):
        whole = [i for i in ids or [] if isinstance(i, int) and not isinstance(i, bool)]
        end = max(whole) if whole else None
    known = [i for i in index_of_id if isinstance(i, int) and end is not None and i <= end]
    through = index_of_id[max(known)] if known else None
    summary = optional_str(args.get("summary"), f"{where}.summary")
    return Event(kind="compaction", content=summary, replaces_through=through, timestamp=stamp)


def _first_working_dir(history: list[Any]) -> str | None:
    """The shell directory the first command observation records (:func:`_working_dir`)."""
    for index, raw in enumerate(history):
        if (
            isinstance(raw, dict)
            and "observation" in raw
            and (found := _working_dir(raw, f"history[{index}]"))
        ):
            return found
    return None


def _working_dir(raw: dict[str, Any], where: str) -> str | None:
    """The shell directory an observation records after its command (``extras.metadata.working_dir``;
    a ``null`` one, as a non-command observation's metadata may hold, is none). A non-string is a
    ``wrong type`` error, like any other field."""
    extras = raw.get("extras")
    metadata = extras.get("metadata") if isinstance(extras, dict) else None
    if not isinstance(metadata, dict):
        return None
    return optional_str(metadata.get("working_dir"), f"{where}.extras.metadata.working_dir")


def _speaker(source: Any, content: str | None, instruction: Any) -> str:
    """Who sent a message. Older resolver logs have no ``source``: there the only user message is
    the task instruction the record also stores, so a message equal to it is the user's."""
    if source is not None:
        return "user" if source == "user" else "assistant"
    return "user" if content is not None and content == instruction else "assistant"


def _issue_id(issue: Any) -> str | None:
    if isinstance(issue, dict) and issue.get("number") is not None:
        return f"{issue.get('owner')}/{issue.get('repo')}#{issue.get('number')}"
    return None


def _repo_of(issue: Any) -> str | None:
    if isinstance(issue, dict) and issue.get("owner") and issue.get("repo"):
        return f"{issue['owner']}/{issue['repo']}"
    return None
