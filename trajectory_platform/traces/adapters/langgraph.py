"""LangGraph: the state of a thread, its checkpoints, and the updates a run streams.

A LangGraph agent keeps its conversation in the ``messages`` channel of the graph's state, as
LangChain messages (``{"type": "human" / "ai" / "tool", "content", "tool_calls", ...}``, or
serialised by ``dumpd`` as ``{"lc": 1, "type": "constructor", "id": [..., "AIMessage"],
"kwargs"}``). Five shapes leave it in a log, each told by its own fields:

- **a state snapshot** (``graph.get_state``, the server's ``/threads/{id}/state`` and its history):
  ``{"values": {"messages"}, "next", "tasks", "metadata", "checkpoint" / "config", ...}``;
- **a checkpoint** as a checkpointer stores it: ``{"checkpoint": {"channel_values": {"messages"}},
  "metadata", "thread_id" / "config", ...}``;
- **streamed updates** (``stream_mode="updates"``): one line per node that ran,
  ``{"<node>": {"messages": [...]}}``, or as the server streams it, ``{"event": "updates", "data":
  {...}}``;
- **streamed values** (``stream_mode="values"``): the state itself after each step, ``{"messages":
  [...]}`` a line (told from a chat log's ``messages`` by its LangChain messages); each value that
  holds the one before it and more is the same run;
- **streamed messages** (``stream_mode="messages"``): ``[message chunk, metadata]`` pairs, the
  pieces of each message joined by its id (``langgraph_messages.py``); a file is one run.

Snapshots and checkpoints of one thread (its ``thread_id``, at the top level, in ``config.
configurable``, ``checkpoint`` or ``metadata``), and the streamed values of one run, are one
record: each holds the whole conversation so far, so the one holding the most messages (the latest
step on a tie) is the episode, and how many were read is ``extra_json.snapshots``. The updates of
one file are one run: the messages of each update in the order they were streamed; an update that
carries no messages (another channel of the state) is counted in
``extra_json.updates_without_messages``. Messages are read as the
tracing platforms' LangChain payloads are (:func:`~trajectory_platform.traces.adapters.
chat_payloads.event_of`: tokens, finish reasons and invalid calls included). The task is
``metadata.task_id`` (or ``environment_id``, ``instance_id``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from trajectory_platform.traces.adapters.base import (
    DETECT_PROBE_LINES,
    Adapter,
    RawRecord,
    RecordError,
    SourceFile,
    adapter_episode_id,
    expect,
    first_record,
    frame_json,
    name_tool_results,
    object_field,
    one_record_per_file,
    task_id_in,
)
from trajectory_platform.traces.adapters.call_trace import CONVERSATION
from trajectory_platform.traces.adapters.chat_payloads import events_of
from trajectory_platform.traces.adapters.langgraph_messages import (
    MISSING,
    graph_of,
    is_run_metadata,
    joined_messages,
    message_pair,
    speaking_graphs,
)
from trajectory_platform.traces.adapters.langgraph_subgraphs import (
    READ_MODES,
    Conversation,
    StreamItem,
    holds_messages,
    item_messages,
    nodes_of,
    provenance,
    stream_item,
)
from trajectory_platform.traces.adapters.lone_answer import REQUEST_MISSING
from trajectory_platform.traces.adapters.message_roles import is_langchain_message
from trajectory_platform.traces.record import Episode, canonical_json

TASK_ID_SOURCE = "`metadata.task_id` (or `environment_id`, `instance_id`) of the thread's latest snapshot"
STREAM_EVENTS = ("updates", "metadata")
"""The server's stream events a run's updates come in (``metadata`` names the run and carries no
state)."""
SNAPSHOT_KEYS = ("next", "tasks", "checkpoint", "config", "parent_config", "parent_checkpoint")
UPDATES_MISSING = (
    "the input the run was given: a stream of updates holds what the graph's nodes wrote, not the "
    "prompt they were handed"
)
ITEMS = "stream_items"
"""The framed record of a stream whose items name their namespace or mode (``langgraph_subgraphs.py``)."""
PAIRS = "message_pairs"
RUN_EVENTS = "run_metadata_events"
"""The framed record of a ``stream_mode="messages"`` run: its pairs, and the server's run events."""


def _messages_of(state: Any) -> Any:
    return state.get("messages") if isinstance(state, dict) else None


def snapshot_messages(record: dict[str, Any]) -> Any:
    """The ``messages`` channel of a state snapshot or a checkpoint; None for any other record."""
    values = record.get("values")
    if (
        isinstance(values, dict)
        and isinstance(values.get("messages"), list)
        and any(k in record for k in SNAPSHOT_KEYS)
    ):
        return values["messages"]
    channels = object_field(record, "checkpoint").get("channel_values")
    if isinstance(_messages_of(channels), list):
        return _messages_of(channels)
    streamed = record.get("messages")  # the state itself, as stream_mode="values" writes it
    if isinstance(streamed, list) and streamed and all(is_langchain_message(m) for m in streamed):
        return streamed
    return None


def _update(record: Any) -> dict[str, Any] | None:
    """A streamed update's ``{node: state}`` (the server's ``data`` of an ``updates`` event)."""
    if not isinstance(record, dict):
        return None
    if isinstance(record.get("event"), str) and set(record) <= {"event", "data", "id"}:
        data = record.get("data")
        return data if record["event"] in STREAM_EVENTS and isinstance(data, dict) else None
    return record


def is_update(record: Any) -> bool:
    """A line that tells a file is a stream: an update holding LangChain messages, or the server's
    ``metadata`` event that opens its stream."""
    if isinstance(record, dict) and record.get("event") == "metadata":
        return True
    update = _update(record)
    return is_stream_line(record) and any(
        any(is_langchain_message(m) for m in _listed(_messages_of(state)))
        for state in (update or {}).values()
    )


def is_stream_line(record: Any) -> bool:
    """A line of a stream of updates: an update of any channels (a node that wrote no messages
    counts: :func:`is_update` tells the file is a stream by the lines that did)."""
    if isinstance(record, dict) and record.get("event") == "metadata":
        return True
    update = _update(record)
    return bool(update) and all(isinstance(v, dict) or v is None for v in (update or {}).values())


def _listed(messages: Any) -> list[Any]:
    """A node's ``messages`` update: a list, or the one message it returned."""
    return messages if isinstance(messages, list) else [messages] if isinstance(messages, dict) else []


def _is_stream(src: SourceFile) -> bool:
    """Is the file a stream of updates (else snapshots and checkpoints)? Judged, as detection judged
    the format, by its first value that is either (a document's first element)."""
    for sample in src.samples(DETECT_PROBE_LINES):
        first = first_record(sample)
        if is_update(first):
            return True
        if isinstance(first, dict) and snapshot_messages(first) is not None:
            return False
    return False


def _extends(before: dict[str, Any], after: dict[str, Any]) -> bool:
    """Does ``after`` hold ``before``'s conversation and more (the next state of the same run)?"""
    earlier, later = snapshot_messages(before) or [], snapshot_messages(after) or []
    return len(later) >= len(earlier) and later[: len(earlier)] == earlier


def _thread_of(record: dict[str, Any]) -> str | None:
    configurable = object_field(object_field(record, "config"), "configurable")
    for scope in (record, configurable, object_field(record, "checkpoint"), object_field(record, "metadata")):
        thread = scope.get("thread_id")
        if isinstance(thread, str | int) and not isinstance(thread, bool):
            return str(thread)
    return None


class LangGraphAdapter(Adapter):
    """LangGraph thread states, checkpoints and streamed updates."""

    name = "langgraph"
    task_id_source = TASK_ID_SOURCE

    def sniff(self, sample: Any, path: Path) -> bool:
        opening = _opening_item(sample)
        if opening is not None:
            return holds_messages(opening)
        return _opening_pair(sample) is not None or super().sniff(sample, path)

    def claims_record(self, record: dict[str, Any]) -> bool:
        item = stream_item(record)
        if item is not None:
            return holds_messages(item)
        if message_pair(record) is not None:
            return True
        messages = snapshot_messages(record)
        if messages is not None:
            return not messages or any(is_langchain_message(m) for m in messages)
        return is_update(record) and record.get("event") != "metadata"

    def frame(self, src: SourceFile) -> Iterator[RawRecord]:
        if _is_item_stream(src):
            yield from _item_stream(src)
            return
        if _is_message_stream(src):
            yield from _message_stream(src)
            return
        if _is_stream(src):
            document, error = src.document
            if error is None and isinstance(document, list):
                yield RawRecord(None, "$", value={"updates": document})
                return
            for record in one_record_per_file(
                src, is_stream_line, "a LangGraph update ({node: {channel: value}})"
            ):
                value = record.value
                yield (
                    record
                    if value is None
                    else RawRecord(
                        record.line, record.json_path, value={"updates": [e.value for e in value["entries"]]}
                    )
                )
            return
        threads: dict[str, list[tuple[RawRecord, dict[str, Any]]]] = {}
        unnamed: str | None = None
        for record in frame_json(src):
            value = record.value
            if record.error is not None or not isinstance(value, dict) or snapshot_messages(value) is None:
                yield (
                    record
                    if record.error is not None
                    else RawRecord(
                        record.line,
                        record.json_path,
                        error=RecordError("wrong type", "not a LangGraph state or checkpoint"),
                    )
                )
                continue
            thread = _thread_of(value)
            key = thread if thread is not None else f"{record.line}:{record.json_path}"
            if thread is None and unnamed is not None and _extends(threads[unnamed][-1][1], value):
                key = unnamed  # the next value of one run's stream: its conversation so far, grown
            unnamed = key if thread is None else unnamed
            threads.setdefault(key, []).append((record, value))
        for thread, snapshots in threads.items():
            first = snapshots[0][0]
            where = f"thread_id={thread}" if _thread_of(snapshots[0][1]) is not None else first.json_path
            yield RawRecord(first.line, where, value={"snapshots": [v for _, v in snapshots]})

    def parse_all(self, record: RawRecord, src: SourceFile) -> list[Episode]:
        """One episode; or, for a streamed run whose graphs kept conversations apart (a supervisor
        and a sub-agent handed only its task, :func:`split_run`), one per conversation."""
        value = expect(record.value, dict, "record")
        if PAIRS in value:
            return self._messages(record, src, value[PAIRS], value[RUN_EVENTS])
        if ITEMS in value:
            return self._items(record, src, value[ITEMS], value[RUN_EVENTS])
        return [self.parse(record, src)]

    def parse(self, record: RawRecord, src: SourceFile) -> Episode:
        value = expect(record.value, dict, "record")
        if "updates" in value:
            return self._run(record, src, value["updates"])
        snapshots = value["snapshots"]

        def rank(snapshot: dict[str, Any]) -> tuple[int, int]:
            step = object_field(snapshot, "metadata").get("step")
            return len(snapshot_messages(snapshot) or []), step if isinstance(step, int) else -1

        latest = max(snapshots, key=rank)
        thread = _thread_of(latest)
        episode = self.new_episode(record, src, adapter_episode_id(self.name, thread, latest))
        messages = snapshot_messages(latest) or []
        episode.events = [e for i, m in enumerate(messages) for e in events_of(m, f"messages[{i}]")]
        name_tool_results(episode.events)
        episode.task.fixture_id = task_id_in([(latest.get("metadata"), "metadata."), (latest, "")])
        episode.task.prompt = next((e.content for e in episode.events if e.kind == "user"), None)
        streamed = "messages" in latest  # a value of stream_mode="values": the state itself
        rest = {} if streamed else {k: v for k, v in latest.items() if k not in ("values", "checkpoint")}
        checkpoint = {k: v for k, v in object_field(latest, "checkpoint").items() if k != "channel_values"}
        channels = latest if streamed else object_field(object_field(latest, "checkpoint"), "channel_values")
        state = {k: v for k, v in {**object_field(latest, "values"), **channels}.items() if k != "messages"}
        episode.extra_json = canonical_json(
            {**rest, "checkpoint": checkpoint or None, "state": state or None, "snapshots": len(snapshots)}
        )
        return episode

    def _run(self, record: RawRecord, src: SourceFile, updates: list[Any]) -> Episode:
        episode = self.new_episode(record, src, adapter_episode_id(self.name, None, updates))
        without = 0
        channels: set[str] = set()
        for index, line in enumerate(updates):
            update = _update(line) if not (isinstance(line, dict) and line.get("event") == "metadata") else {}
            read = False
            for node, state in (update or {}).items():
                channels.update(k for k in (state or {}) if k != "messages")
                for number, message in enumerate(_listed(_messages_of(state))):
                    episode.events += events_of(message, f"updates[{index}].{node}.messages[{number}]")
                    read = True
            without += not read
        name_tool_results(episode.events)
        episode.task.prompt = next((e.content for e in episode.events if e.kind == "user"), None)
        episode.extra_json = canonical_json(
            {"updates": len(updates), "updates_without_messages": without, "other_channels": sorted(channels)}
        )
        return episode

    def _messages(
        self,
        record: RawRecord,
        src: SourceFile,
        pairs: list[tuple[dict[str, Any], dict[str, Any]]],
        events: int,
        more: dict[str, Any] | None = None,
    ) -> list[Episode]:
        """A run streamed with ``stream_mode="messages"`` (``langgraph_messages.py``), one episode per
        graph whose model spoke (:func:`speaking_graphs`); ``more``: extra fields of a stream that
        also says its items' modes."""
        threads = sorted({str(m["thread_id"]) for _, m in pairs if m.get("thread_id") is not None})
        if len(threads) > 1:
            raise RecordError(
                "several conversations",
                f"the stream's pairs name {len(threads)} threads (metadata.thread_id): "
                "one file is read as one run",
            )
        run_id = adapter_episode_id(self.name, threads[0] if threads else None, pairs)
        graphs = speaking_graphs(pairs) or [()]
        by_graph: dict[tuple[str, ...], list[tuple[dict[str, Any], dict[str, Any]]]] = {}
        for pair in pairs:
            by_graph.setdefault(graph_of(pair[1], graphs), []).append(pair)
        main = min(graphs, key=lambda g: (len(g), graphs.index(g)))
        return split_run(
            [
                (graph, self._pairs_episode(record, src, graph_pairs, events, more))
                for graph, graph_pairs in by_graph.items()
            ],
            run_id,
            main,
        )

    def _pairs_episode(
        self,
        record: RawRecord,
        src: SourceFile,
        pairs: list[tuple[dict[str, Any], dict[str, Any]]],
        events: int,
        more: dict[str, Any] | None,
    ) -> Episode:
        """One graph's conversation of a ``stream_mode="messages"`` run (its id set by :func:`split_run`)."""
        episode = self.new_episode(record, src, "")
        messages = joined_messages(pairs)
        episode.events = [e for i, m in enumerate(messages) for e in events_of(m, f"messages[{i}]")]
        name_tool_results(episode.events)
        episode.task.prompt = next((e.content for e in episode.events if e.kind == "user"), None)
        metadata = [m for _, m in pairs]
        episode.lineage.model = next(
            (m["ls_model_name"] for m in metadata if isinstance(m.get("ls_model_name"), str)), None
        )
        episode.task.fixture_id = task_id_in([(metadata[0], "")])
        extra: dict[str, Any] = {
            "pairs": len(pairs),
            "nodes": sorted({str(m.get("langgraph_node")) for m in metadata if m.get("langgraph_node")}),
        }
        if events:
            extra["run_metadata_events"] = events
        if episode.task.prompt is None:
            extra[REQUEST_MISSING] = MISSING
        episode.extra_json = canonical_json({**extra, **(more or {})})
        return episode

    def _items(
        self, record: RawRecord, src: SourceFile, items: list[StreamItem], events: int
    ) -> list[Episode]:
        """A stream whose items say their namespace or mode (``langgraph_subgraphs.py``): read from
        the most complete mode it holds messages in, each message once, the subgraph that streamed
        it kept; a subgraph that kept a conversation apart is an episode of its own."""
        modes = {mode: sum(i.mode == mode for i in items) for mode in sorted({i.mode for i in items})}
        more: dict[str, Any] = {"items_by_mode": modes}
        mode = next((m for m in READ_MODES if any(i.mode == m and holds_messages(i) for i in items)), None)
        if mode is None:
            raise RecordError(
                "empty conversation", f"no item of the stream carries a message ({', '.join(modes)})"
            )
        if mode == "messages":
            pairs = [_placed_pair(i) for i in items if i.mode == mode and message_pair(i.chunk) is not None]
            return self._messages(record, src, pairs, events, more)
        conversation = Conversation()
        for number, item in enumerate(items):
            if item.mode == mode:
                placed = [(f"items[{number}].{where}", m) for where, m in item_messages(item)]
                conversation.add(placed, item.namespace)
        raw = [[list(i.namespace), i.mode, i.chunk] for i in items]
        more.update(read_mode=mode)
        if events:
            more["run_metadata_events"] = events
        read = []
        for namespace, said in conversation.split():
            episode = self.new_episode(record, src, "")
            episode.events = [e for s in said for e in events_of(s.message, s.where)]
            name_tool_results(episode.events)
            episode.task.prompt = next((e.content for e in episode.events if e.kind == "user"), None)
            extra = {**more, "subgraph_events": provenance(said)}
            if episode.task.prompt is None:
                extra[REQUEST_MISSING] = UPDATES_MISSING
            episode.extra_json = canonical_json(extra)
            read.append((tuple(nodes_of(namespace)), episode))
        return split_run(read, adapter_episode_id(self.name, None, raw), ())


CONVERSATION_PATH = "graph"
"""Where a streamed run's split conversation names its graph in ``extra_json.run_conversation``: its
path of node names (``[]`` for the root graph, ``["researcher"]`` for a sub-agent run by node
``researcher``)."""


def split_run(
    read: list[tuple[tuple[str, ...], Episode]], run_id: str, main: tuple[str, ...]
) -> list[Episode]:
    """The episodes of one streamed run, one per conversation (``(graph, episode)``, in the order
    the conversations first spoke), as the tracing readers split a run
    (:func:`~trajectory_platform.traces.adapters.call_trace.run_episodes`): the ``main`` graph's
    keeps ``run_id`` and the record's path; the others are ``<run_id>/<k>`` (path ``<path>/<k>``),
    ``k`` the conversation's number from 1; where there are several, each says which it is in
    ``extra_json.run_conversation`` (``run``, ``number``, ``of``, ``main``, :data:`CONVERSATION_PATH`).
    A graph's pieces merged into another's would interleave two histories into one no model saw."""
    for number, (graph, episode) in enumerate(read, start=1):
        episode.episode_id = run_id if graph == main else f"{run_id}/{number}"
        if graph != main and episode.source_path is not None:
            episode.source_path = f"{episode.source_path}/{number}"
        if len(read) > 1:
            link = {"run": run_id, "number": number, "of": len(read), "main": graph == main}
            episode.extra_json = canonical_json(
                {**episode.extra(), CONVERSATION: {**link, CONVERSATION_PATH: list(graph)}}
            )
    return [episode for _, episode in read]


def _opening_pair(sample: Any) -> tuple[dict[str, Any], dict[str, Any]] | None:
    """The message pair a line is, or a document's first element is (a JSON list of pairs)."""
    return message_pair(sample) or message_pair(first_record(sample))


def _is_message_stream(src: SourceFile) -> bool:
    """Is the file a ``stream_mode="messages"`` stream? Judged by the values detection looks at."""
    return any(_opening_pair(sample) is not None for sample in src.samples(DETECT_PROBE_LINES))


def _message_stream(src: SourceFile) -> Iterator[RawRecord]:
    """The file's pairs as one record ``{PAIRS, RUN_EVENTS}`` at its first pair."""
    expected = "not a LangGraph message pair ([message chunk, metadata])"
    yield from _one_run(src, message_pair, message_pair, PAIRS, expected)


def _one_run(
    src: SourceFile,
    read: Callable[[Any], Any | None],
    whole: Callable[[Any], Any | None],
    key: str,
    expected: str,
) -> Iterator[RawRecord]:
    """The file's values ``read`` accepts (its lines, or the elements of a document ``whole`` does
    not accept as one value) as one record ``{key: values, RUN_EVENTS: count}`` at its first
    accepted value: a stream is one run, read whole. The server's run ``metadata`` event is
    counted; any other value is a ``wrong type`` reject saying what was ``expected``."""
    document, error = src.document
    lines = (
        [RawRecord(None, f"[{i}]", value=v) for i, v in enumerate(document)]
        if error is None and isinstance(document, list) and whole(document) is None
        else [RawRecord(1, None, value=document)]
        if error is None
        else list(src.lines())
    )
    values, events, first = [], 0, None
    for line in lines:
        if line.error is not None:
            yield line
            continue
        value = None if is_run_metadata(line.value) else read(line.value)
        if value is not None:
            values.append(value)
            first = first or line
        elif is_run_metadata(line.value):
            events += 1
        else:
            yield RawRecord(line.line, line.json_path, error=RecordError("wrong type", expected))
    if first is not None:
        yield RawRecord(first.line, first.json_path or "$", value={key: values, RUN_EVENTS: events})


def _opening_item(sample: Any) -> StreamItem | None:
    """The namespaced or mode-naming item a line is, or a document's first element is."""
    return stream_item(sample) or stream_item(first_record(sample))


def _is_item_stream(src: SourceFile) -> bool:
    """Does the file stream items naming their namespace or mode? Judged by the values detection
    looks at; the file's plain updates, values and pairs are then the root graph's items."""
    return any(_opening_item(sample) is not None for sample in src.samples(DETECT_PROBE_LINES))


def _as_item(value: Any) -> StreamItem | None:
    """A line of such a stream as an item: a namespaced one as it is, a plain one the root graph's
    (a message pair, an update, a value, the server's ``{"event": mode, "data"}``)."""
    item = stream_item(value)
    if item is not None:
        return item
    if message_pair(value) is not None:
        return StreamItem((), "messages", value)
    update = _update(value)
    if isinstance(value, dict) and snapshot_messages(value) is not None and "event" not in value:
        return StreamItem((), "values", value)
    return StreamItem((), "updates", update) if update and is_stream_line(value) else None


def _item_stream(src: SourceFile) -> Iterator[RawRecord]:
    """The file's items as one record ``{ITEMS, RUN_EVENTS}`` at its first item."""
    yield from _one_run(
        src,
        _as_item,
        stream_item,
        ITEMS,
        "not a LangGraph stream item ([namespace, chunk] or [namespace, mode, chunk])",
    )


def _placed_pair(item: StreamItem) -> tuple[dict[str, Any], dict[str, Any]]:
    """A streamed message pair whose metadata says which graph it came from: its own
    ``langgraph_checkpoint_ns``, else the item's namespace and node (as LangGraph writes it)."""
    pair = message_pair(item.chunk)
    assert pair is not None  # the caller picked pairs
    message, metadata = pair
    if "langgraph_checkpoint_ns" in metadata or "checkpoint_ns" in metadata:
        return message, metadata
    node = str(metadata.get("langgraph_node") or "")
    return message, {**metadata, "langgraph_checkpoint_ns": "|".join([*item.namespace, node])}
