"""The OpenAI Assistants API's thread as a deployment logs it: its messages (``thread.message``) and
the run steps between them (``thread.run.step``), perhaps its runs (``thread.run``).

The API keeps a run's tool calls and their outputs apart from the thread's messages: a
``tool_calls`` step holds each call (``function``: name, arguments and the output submitted;
``code_interpreter``: the code and its logs; ``file_search``: the results shown when the log
asked for them) and a ``message_creation`` step names the message the run wrote. Read as messages
alone (the ``openai`` reader knows the thread's listing), the calls and results were lost and the
answers followed the question as if no tool had run; a file of steps was an ``unrecognized
format``.

Objects are found however they were saved: one a line (``messages.list`` / ``runs.steps.list``
items, or the stream's ``{"event": "thread.run.step.completed", "data": {...}}``), a JSON list of
them, or a document holding the list pages (``{"object": "list", "data": [...]}``) under any keys.
A record is one thread (``thread_id``). An object repeated (a stream's ``in_progress`` then
``completed`` copy) is read once, in its last version. The thread is read in the order it happened
(``created_at``, whole seconds: a tie keeps the steps' own order, a question before the run it
starts); the steps become Chat Completions messages (an assistant turn with the step's calls, a
tool message per output) read by the ``openai`` reader with the thread's messages, so their
content parts (``{"type": "text", "text": {"value"}}``) read as every other message's. A
``message_creation`` step naming a message the log does not hold is an ``item kept on the server``
reject: that answer is not in the log. A call whose output its step does not hold (a
``file_search`` saved without its results) is answered by a result that is not in the log, with the
status of how its step ended (``truncated`` or ``error``), never left an unpaired call that reads as
if the model acted on no output. A run's ``instructions`` open the episode as its system
prompt, its ``model`` and ``tools`` are the lineage's; a run or step that ``failed`` (or expired,
was cancelled) ends the episode ``error``. The task id is a run's ``metadata.task_id`` (the API's
free-form metadata, where a deployment tags its runs), else a message's.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from trajectory_platform.traces.adapters.base import (
    Adapter,
    RawRecord,
    RecordError,
    SourceFile,
    adapter_episode_id,
    expect,
    name_tool_results,
    optional_str,
    task_id_in,
)
from trajectory_platform.traces.adapters.openai import events_of_messages, tool_specs_of
from trajectory_platform.traces.drops import named
from trajectory_platform.traces.record import Episode, Event, canonical_json

MESSAGE, STEP, RUN = "thread.message", "thread.run.step", "thread.run"
OBJECTS = (MESSAGE, STEP, RUN)
FAILED = frozenset({"failed", "expired", "cancelled", "incomplete"})
BUILT_IN = ("code_interpreter", "file_search")
"""The API's own tools, whose step names no function: the call is named by its type."""
ABSENT, NOT_IN_LOG, ERROR = "result_absent", "truncated", "error"
"""A call's output that its step does not hold: the status its result is read with (``truncated``,
the log kept none of what the model was shown; ``error``, the step failed), under this key of the
tool message until it is handed to the ``openai`` reader; counted in ``extra_json.results_not_in_log``."""


def _object(value: Any) -> dict[str, Any] | None:
    """An Assistants API object, bare or as the stream's ``{"event": "thread....", "data"}``."""
    if (
        isinstance(value, dict)
        and isinstance(value.get("event"), str)
        and value["event"].startswith("thread.")
    ):
        value = value.get("data")
    return value if isinstance(value, dict) and value.get("object") in OBJECTS else None


def _objects_in(document: Any) -> list[dict[str, Any]] | None:
    """The API objects a saved document holds (a list of them; a list page; a document whose
    values are such lists or pages), or ``None`` when it holds anything else beside them."""
    found: list[dict[str, Any]] = []

    def take(value: Any) -> bool:
        if isinstance(value, list):
            return all(take(item) for item in value)
        obj = _object(value)
        if obj is not None:
            found.append(obj)
            return True
        return isinstance(value, dict) and value.get("object") == "list" and take(value.get("data"))

    if isinstance(document, dict) and _object(document) is None and document.get("object") != "list":
        lists = [v for v in document.values() if isinstance(v, list | dict)]
        return found if lists and all(take(v) for v in lists) else None
    return found if take(document) else None


def _holds_steps(objects: list[dict[str, Any]] | None) -> bool:
    """A thread with its run steps: thread messages alone (a listing) are the ``openai`` reader's."""
    return bool(objects) and any(o["object"] == STEP for o in objects or [])


class AssistantsAdapter(Adapter):
    """OpenAI Assistants API threads: messages and the run steps between them."""

    name = "openai-assistants"
    task_id_source = (
        "`metadata.task_id` (or `environment_id`, `instance_id`) of the thread's first run, else of "
        "its first message naming one"
    )

    def sniff(self, sample: Any, path: Path) -> bool:
        if isinstance(sample, dict) and _object(sample) is not None:
            return True  # one object a line
        return _holds_steps(_objects_in(sample))

    def frame(self, src: SourceFile) -> Iterator[RawRecord]:
        document, error = src.document
        if error is None:
            objects = _objects_in(document)
            if objects is None:
                yield RawRecord(
                    src.document_line, "$", error=RecordError("wrong type", "not Assistants API objects")
                )
                return
            yield from self._threads([(src.document_line, o) for o in objects], "$")
            return
        lines: list[tuple[int | None, dict[str, Any]]] = []
        for record in src.lines():
            obj = _object(record.value) if record.error is None else None
            if obj is not None:
                lines.append((record.line, obj))
            elif record.error is not None:
                yield record
            else:
                yield RawRecord(
                    record.line,
                    None,
                    error=RecordError(
                        "wrong type", "not an Assistants API object (thread.message, thread.run.step)"
                    ),
                )
        yield from self._threads(lines, None)

    @staticmethod
    def _threads(objects: list[tuple[int | None, dict[str, Any]]], path: str | None) -> Iterator[RawRecord]:
        """One record per thread, located at its first object."""
        threads: dict[Any, list[tuple[int | None, dict[str, Any]]]] = {}
        for line, obj in objects:
            threads.setdefault(obj.get("thread_id"), []).append((line, obj))
        for thread, held in threads.items():
            where = path if len(threads) == 1 or path is None else f"thread_id={thread}"
            yield RawRecord(held[0][0], where, value={"thread_id": thread, "objects": [o for _, o in held]})

    def parse(self, record: RawRecord, src: SourceFile) -> Episode:
        value = expect(record.value, dict, "record")
        latest: dict[Any, dict[str, Any]] = {}
        for index, obj in enumerate(expect(value.get("objects"), list, "objects")):
            latest[(obj["object"], obj.get("id", index))] = obj  # a repeated object: its last version
        objects = list(latest.values())
        thread = optional_str(value.get("thread_id"), "thread_id")
        episode = self.new_episode(record, src, adapter_episode_id(self.name, thread, value))
        messages = {o.get("id"): o for o in objects if o["object"] == MESSAGE}
        steps = [o for o in objects if o["object"] == STEP]
        runs = [o for o in objects if o["object"] == RUN]
        thread_messages = self._messages(messages, steps)
        absent = {m["tool_call_id"]: m.pop(ABSENT) for m in thread_messages if ABSENT in m}
        episode.events = events_of_messages(thread_messages, "objects")
        name_tool_results(episode.events)
        for event in episode.events:
            if event.kind == "tool" and event.tool_call_id in absent:
                event.status = absent[event.tool_call_id]
        self._runs(runs, steps, episode, sum(status == NOT_IN_LOG for status in absent.values()))
        in_order = [*sorted(runs, key=_stamp), *(m for _, m in _chronological(list(messages.items())))]
        episode.task.fixture_id = task_id_in(
            (o.get("metadata"), f"{o['object']}.metadata.") for o in in_order
        )
        episode.task.prompt = next((e.content for e in episode.events if e.kind == "user"), None)
        return episode

    def _messages(
        self, messages: dict[Any, dict[str, Any]], steps: list[dict[str, Any]]
    ) -> list[dict[str, Any]]:
        """The thread in the order it happened, as Chat Completions messages."""
        created: dict[Any, dict[str, Any]] = {}
        for index, step in enumerate(steps):
            details = expect(step.get("step_details"), dict, f"run step {index}.step_details")
            if details.get("type") == "message_creation":
                made = expect(details.get("message_creation"), dict, "step_details.message_creation")
                if made.get("message_id") not in messages:
                    raise RecordError(
                        "item kept on the server",
                        f"run step {named(step.get('id'))} created message {named(made.get('message_id'))}, "
                        "which the log does not hold: that answer is not in the log",
                    )
                created[made["message_id"]] = step
        order = _step_order(steps)
        timeline: list[tuple[tuple[Any, ...], list[dict[str, Any]]]] = []
        for position, (mid, message) in enumerate(_chronological(list(messages.items()))):
            creator = created.get(mid)
            stamp = _stamp(creator if creator is not None else message)
            rank = (
                (1, order[id(creator)])
                if creator is not None
                else (0 if message.get("run_id") is None else 2, position)
            )
            timeline.append(((stamp, *rank), [message]))
        for step in steps:
            details = step["step_details"]
            if details.get("type") == "tool_calls":
                timeline.append(
                    ((_stamp(step), 1, order[id(step)]), _tool_messages(details, step.get("status")))
                )
        timeline.sort(key=lambda item: item[0])
        return [m for _, held in timeline for m in held]

    def _runs(
        self, runs: list[dict[str, Any]], steps: list[dict[str, Any]], episode: Episode, not_in_log: int
    ) -> None:
        """The first run's instructions, model and tools; a failed run or step ends it ``error``; the
        runs' and steps' errors and how many results the log does not hold in ``extra_json``."""
        runs = sorted(runs, key=_stamp)
        if runs:
            first = runs[0]
            instructions = optional_str(first.get("instructions"), "run.instructions")
            if instructions:
                episode.events.insert(0, Event(kind="system", content=instructions))
            episode.lineage.model = optional_str(first.get("model"), "run.model")
            functions = [
                t for t in first.get("tools") or [] if isinstance(t, dict) and t.get("type") == "function"
            ]
            episode.tools = tool_specs_of(functions, "run.tools") if functions else []
        statuses = [o.get("status") for o in [*runs, *steps]]
        if any(status in FAILED for status in statuses):
            episode.outcome.terminal_status = "error"
        elif runs and runs[-1].get("status") == "completed":
            episode.outcome.terminal_status = "completed"
        errors = [o["last_error"] for o in [*runs, *steps] if o.get("last_error")]
        extra: dict[str, Any] = {"last_errors": errors} if errors else {}
        extra |= {"results_not_in_log": not_in_log} if not_in_log else {}
        episode.extra_json = canonical_json(extra) if extra else None


def _stamp(obj: dict[str, Any]) -> float:
    stamp = obj.get("created_at")
    return float(stamp) if isinstance(stamp, int | float) and not isinstance(stamp, bool) else 0.0


def _chronological(items: list[tuple[Any, dict[str, Any]]]) -> list[tuple[Any, dict[str, Any]]]:
    """A listing in the order it happened: the API lists newest first by default, so a listing whose
    stamps never rise and fall at least once is reversed (a tie says nothing of the order)."""
    stamps = [_stamp(o) for _, o in items]
    pairs = list(zip(stamps, stamps[1:], strict=False))
    return items[::-1] if pairs and all(a >= b for a, b in pairs) and any(a > b for a, b in pairs) else items


def _step_order(steps: list[dict[str, Any]]) -> dict[int, int]:
    """Each step's place among its thread's steps, in the order they happened."""
    ordered = [step for _, step in _chronological([(None, s) for s in steps])]
    return {id(step): index for index, step in enumerate(ordered)}


def _tool_messages(details: dict[str, Any], status: Any) -> list[dict[str, Any]]:
    """A ``tool_calls`` step as an assistant message making its calls and a tool message per output.
    A call whose output the step does not hold (a ``file_search`` saved without its results, which
    the API returns only when asked to include them) is answered all the same where the step ended:
    by a result that is not in the log (:data:`NOT_IN_LOG`, read as ``truncated``: the call ran and
    the model was shown its output, of which the log kept nothing) when the step completed, by a
    failed one (``error``) when it failed; a step still running left it unanswered."""
    calls: list[dict[str, Any]] = []
    results: list[dict[str, Any]] = []
    for index, raw in enumerate(expect(details.get("tool_calls"), list, "step_details.tool_calls")):
        call = expect(raw, dict, f"step_details.tool_calls[{index}]")
        kind = call.get("type")
        if kind not in ("function", *BUILT_IN):  # first: the type names the body's field in the path
            raise RecordError(
                "unknown content part", f"step_details.tool_calls[{index}] is of type {named(kind)}"
            )
        body = expect(call.get(kind), dict, f"step_details.tool_calls[{index}].{kind}")
        if kind == "function":
            name, arguments, output = body.get("name"), body.get("arguments"), body.get("output")
        elif kind == "code_interpreter":
            name, arguments = kind, canonical_json({"input": body.get("input")})
            output = _code_outputs(body.get("outputs"))
        else:
            name = kind
            arguments = canonical_json(body["ranking_options"]) if body.get("ranking_options") else None
            output = _search_results(body.get("results"))
        calls.append(
            {"id": call.get("id"), "type": "function", "function": {"name": name, "arguments": arguments}}
        )
        if output is not None:
            results.append({"role": "tool", "tool_call_id": call.get("id"), "content": output})
        elif status == "completed" or status in FAILED:
            absent = NOT_IN_LOG if status == "completed" else ERROR
            results.append({"role": "tool", "tool_call_id": call.get("id"), "content": None, ABSENT: absent})
    turn: dict[str, Any] = {"role": "assistant", "content": None, "tool_calls": calls}
    return [turn, *results]


def _code_outputs(outputs: Any) -> str | None:
    """A code interpreter's outputs as text: its logs, an image as a marker naming its file."""
    if not isinstance(outputs, list):
        return None
    texts: list[str] = []
    for output in outputs:
        if isinstance(output, dict) and output.get("type") == "logs":
            texts.append(str(output.get("logs") or ""))
        elif isinstance(output, dict) and output.get("type") == "image":
            texts.append(f"[image {(output.get('image') or {}).get('file_id', '')}]".replace(" ]", "]"))
        else:
            texts.append(canonical_json(output))
    return "".join(texts)


def _search_results(results: Any) -> str | None:
    """File search results as the model was shown them (their content, when the log asked for it);
    ``None`` when the step was saved without them."""
    if not isinstance(results, list):
        return None
    texts: list[str] = []
    for result in results:
        content = result.get("content") if isinstance(result, dict) else None
        if isinstance(content, list):
            texts.extend(str(part.get("text", "")) for part in content if isinstance(part, dict))
        else:
            texts.append(canonical_json(result))
    return "\n".join(texts)
