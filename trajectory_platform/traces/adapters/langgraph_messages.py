"""LangGraph's ``stream_mode="messages"``: the tokens of each model call as they came, and the
messages nodes wrote, one ``(message chunk, metadata)`` pair at a time.

Saved one a line, a pair is ``[chunk, metadata]`` (``graph.stream(..., stream_mode="messages")``),
``["messages", [chunk, metadata]]`` (several stream modes at once), or the server's
``{"event": "messages", "data": [chunk, metadata]}`` (``messages-tuple``; its ``metadata`` event,
which names the run, is counted). The metadata names the node (``langgraph_node``, ``langgraph_step``),
the thread (``thread_id``) and the model (``ls_model_name``). A model's answer arrives as many
``AIMessageChunk`` pieces sharing one ``id``: read a line at a time, each would be a fragment of a
sentence. So a file is one run, and the pieces of one message are joined as LangChain adds chunks
(:func:`joined_messages`): text concatenated (content parts merged by their ``index``), a tool call's
argument fragments (``tool_call_chunks``) joined by the call's ``index``, its id and name from the
piece that names them, token counts summed, the last stated finish reason kept. A whole message
(the tool node's ``ToolMessage``) is taken as it is.

The stream holds what the graph's nodes produced, not the input the run was given: the user's prompt
and a system prompt are in it only when a node wrote them. An episode without a user turn says so
(``request_missing`` in its extra fields, as an answer read alone does: ``lone_answer.py``). A chunk
without an ``id`` cannot be joined to its message and rejects the run naming its place; so do pairs
of several threads in one file (``several conversations``). A model's pieces streamed from more than
one graph (a supervisor and the agents it runs as subgraphs: :func:`speaking_graphs`) are that many
conversations, never merged into one: each graph's pairs (:func:`graph_of`) are read as a run of
their own. One agent run as a subgraph node of another graph is one graph speaking: one run.
"""

from __future__ import annotations

from typing import Any

from trajectory_platform.traces.adapters.base import RecordError, object_field
from trajectory_platform.traces.adapters.message_roles import CLASS_NAMES, LANGCHAIN_ROLES

MESSAGES_EVENT = "messages"
RUN_METADATA_EVENT = "metadata"
CHUNK = "Chunk"
NAMING_FIELDS = ("id", "name", "type", "index")
"""Fields a piece names its part or call by: kept as first stated, never concatenated."""
MISSING = (
    "the input the run was given: stream_mode='messages' streams what the graph's nodes produced, "
    "not the prompt they were handed"
)


def message_pair(value: Any) -> tuple[dict[str, Any], dict[str, Any]] | None:
    """The ``(message, metadata)`` a streamed line holds in any of its spellings, else None."""
    if (
        isinstance(value, dict)
        and value.get("event") == MESSAGES_EVENT
        and set(value) <= {"event", "data", "id"}
    ):
        value = value.get("data")
    if isinstance(value, list) and len(value) == 2 and value[0] == MESSAGES_EVENT:
        value = value[1]
    if not (isinstance(value, list) and len(value) == 2 and isinstance(value[1], dict)):
        return None
    message, metadata = value
    if not _is_message(message) or not any(str(k).startswith("langgraph_") for k in metadata):
        return None
    return message, metadata


def is_run_metadata(value: Any) -> bool:
    """The server's event opening a stream (``{"event": "metadata", "data": {"run_id"}}``)."""
    return isinstance(value, dict) and value.get("event") == RUN_METADATA_EVENT


def _fields(message: dict[str, Any]) -> tuple[dict[str, Any], bool]:
    """A message's fields with its LangChain ``type`` (``ai``, ``tool``, ...), whether
    ``model_dump()``-ed (a chunk's ``type`` is its class: ``AIMessageChunk``) or ``dumpd``-serialised
    (its class the last name of ``id``); and whether it is a chunk (a piece of a message)."""
    if message.get("lc") is not None:
        ids = message.get("id") if isinstance(message.get("id"), list) else [""]
        kwargs = object_field(message, "kwargs")
        message = {**kwargs, "type": kwargs.get("type", str(ids[-1] if ids else ""))}
    kind = str(message.get("type"))
    chunk = kind.endswith(CHUNK)
    base = kind.removesuffix(CHUNK)
    return {**message, "type": CLASS_NAMES.get(base, base)}, chunk


def _is_message(message: Any) -> bool:
    """A LangChain message or chunk, in either serialisation."""
    if not isinstance(message, dict):
        return False
    fields, _ = _fields(message)
    return "content" in fields and fields["type"] in LANGCHAIN_ROLES


def speaking_graphs(pairs: list[tuple[dict[str, Any], dict[str, Any]]]) -> list[tuple[str, ...]]:
    """The graphs (by their path of node names: the top graph ``()``, a subgraph run by node
    ``research`` ``("research",)``) whose nodes streamed a model's pieces, in the order they first
    did, read from each pair's ``langgraph_checkpoint_ns`` (``research:<task id>|agent:<task id>``).
    A supervisor and its agents each keep a conversation of their own: streamed together, their
    turns would interleave into one that no model saw."""
    graphs: dict[tuple[str, ...], None] = {}
    for message, metadata in pairs:
        _, chunk = _fields(message)
        graph = _graph_path(metadata)
        if chunk and graph is not None:
            graphs.setdefault(graph, None)
    return list(graphs)


def _graph_path(metadata: dict[str, Any]) -> tuple[str, ...] | None:
    """The graph a pair's node ran in, by its ``langgraph_checkpoint_ns`` (the node's own path, its
    last part, left off); None when the pair names none."""
    namespace = metadata.get("langgraph_checkpoint_ns", metadata.get("checkpoint_ns"))
    if not isinstance(namespace, str):
        return None
    return tuple(part.partition(":")[0] for part in namespace.split("|") if part)[:-1]


def graph_of(metadata: dict[str, Any], graphs: list[tuple[str, ...]]) -> tuple[str, ...]:
    """Which of the speaking ``graphs`` a pair belongs to: its own graph, else the innermost
    speaking graph holding it (a tool node of a sub-agent's own subgraph), else the outermost
    speaking graph (a pair naming no graph: the run's)."""
    own = _graph_path(metadata)
    holding = [g for g in graphs if own is not None and own[: len(g)] == g]
    return max(holding, key=len) if holding else min(graphs, key=lambda g: (len(g), graphs.index(g)))


def joined_messages(pairs: list[tuple[dict[str, Any], dict[str, Any]]]) -> list[dict[str, Any]]:
    """The messages a stream of pairs adds up to, in the order each first appeared (see the module
    docstring); each a LangChain message as ``model_dump()`` writes it."""
    joined: dict[str, dict[str, Any]] = {}
    for number, (message, _) in enumerate(pairs):
        fields, chunk = _fields(message)
        own_id = fields.get("id")
        if not chunk:
            key = own_id if isinstance(own_id, str) and own_id else f"#{number}"
            joined[key] = fields  # a whole message: itself (after its own chunks: the complete one)
            continue
        if not isinstance(own_id, str) or not own_id:
            raise RecordError(
                "unjoinable chunk",
                f"pairs[{number}] is a message chunk without an id: the pieces of its message cannot "
                "be told from another message's",
            )
        if own_id in joined:
            _add_chunk(joined[own_id], fields)
        else:
            joined[own_id] = {**fields, "tool_call_chunks": list(fields.get("tool_call_chunks") or [])}
    return [_finished(message) for message in joined.values()]


def _add_chunk(message: dict[str, Any], chunk: dict[str, Any]) -> None:
    """``chunk`` added to the message its earlier pieces made (LangChain's ``AIMessageChunk.__add__``)."""
    message["content"] = _joined_content(message.get("content"), chunk.get("content"))
    message["tool_call_chunks"] = _merged_by_index(message["tool_call_chunks"], chunk.get("tool_call_chunks"))
    if chunk.get("tool_calls") and not chunk.get("tool_call_chunks"):
        message["tool_calls"] = chunk["tool_calls"]  # a model that gives its calls whole
    for key, concatenated in (("additional_kwargs", True), ("response_metadata", False)):
        message[key] = _merged_fields(object_field(message, key), object_field(chunk, key), concatenated)
    usage = object_field(chunk, "usage_metadata")
    if usage:
        before = object_field(message, "usage_metadata")
        message["usage_metadata"] = {
            **before,
            **{k: (before.get(k) or 0) + v for k, v in usage.items() if isinstance(v, int)},
        }


def _joined_content(before: Any, after: Any) -> Any:
    """Text concatenated; content parts merged by their ``index`` (a text part's pieces joined)."""
    if isinstance(before, str) and isinstance(after, str):
        return before + after
    parts = [
        *([{"type": "text", "text": before}] if isinstance(before, str) and before else before or []),
        *([{"type": "text", "text": after}] if isinstance(after, str) and after else after or []),
    ]
    return _merged_by_index([], parts)


def _merged_by_index(before: list[Any], after: Any) -> list[Any]:
    """List items merged as LangChain merges chunk lists: an item naming an ``index`` an earlier
    one names is added to it (strings concatenated), any other appended."""
    out = [dict(item) if isinstance(item, dict) else item for item in before]
    for item in after or []:
        index = item.get("index") if isinstance(item, dict) else None
        same = next(
            (o for o in out if isinstance(o, dict) and index is not None and o.get("index") == index),
            None,
        )
        if same is None:
            out.append(dict(item) if isinstance(item, dict) else item)
        else:
            same.update(_merged_fields(same, item))
    return out


def _merged_fields(
    before: dict[str, Any], after: dict[str, Any], concatenated: bool = True
) -> dict[str, Any]:
    """Two pieces' fields: strings concatenated when ``concatenated`` (text, arguments, reasoning;
    a name, id or type stated once stays as stated), else, and for other values, the later stated
    value (a response's metadata: its finish reason comes with the last piece)."""
    out = dict(before)
    for key, value in after.items():
        earlier = out.get(key)
        if value is None or key in NAMING_FIELDS and earlier:
            continue
        joins = concatenated and isinstance(earlier, str) and isinstance(value, str)
        out[key] = earlier + value if joins else value
    return out


def _finished(message: dict[str, Any]) -> dict[str, Any]:
    """A joined message as the whole message it adds up to: its type without ``Chunk``, its calls
    from the joined call pieces (their arguments as the model wrote them)."""
    out = {k: v for k, v in message.items() if k not in ("tool_call_chunks", "invalid_tool_calls")}
    pieces = message.get("tool_call_chunks") or []
    if pieces:
        out["tool_calls"] = [
            {"id": p.get("id"), "name": p.get("name"), "args": p.get("args") or ""}
            for p in pieces
            if isinstance(p, dict)
        ]
    return out
