"""LangGraph streams that say where each item came from: ``subgraphs=True`` and several modes at once.

``graph.stream(..., subgraphs=True)`` yields ``(namespace, chunk)``: the namespace is the path of
the subgraph that produced the chunk (``()`` for the graph itself, ``("agent:<task id>",)`` for a
subgraph run by node ``agent``), and with a list of stream modes each item is ``(namespace, mode,
chunk)``; saved as JSON, the tuples are arrays (``[["agent:1f0c"], {"model": {"messages": [...]}}]``).
Other spellings of the same item: ``[mode, chunk]`` (several modes, no subgraphs), the server's
``{"event": "updates|agent:1f0c", "data": ...}`` (``stream_subgraphs=True``), and LangGraph's typed
stream parts ``{"type": "updates", "ns": [...], "data": ...}``. Read a line at a time they were each
rejected; :func:`stream_item` reads every spelling as one :class:`StreamItem`.

A subgraph that shares its parent's ``messages`` channel adds to the parent's conversation, and the
parent's own update (or value) repeats the subgraph's messages once the subgraph is done. So the run's
conversation is every item's messages in stream order, each message once (:class:`Conversation`,
LangGraph's ``add_messages`` rule: a message whose id was seen replaces it in place; one without an
id is the same message as an earlier one from another namespace saying exactly the same), and where
each message was first streamed from is kept (``extra_json.subgraph_events``: namespace -> event
indices). A subgraph none of whose messages the parent's conversation holds, while the parent has
one of its own, kept a conversation apart (a sub-agent handed only its task): merged, its turns would
interleave with the parent's into a history no model saw, so each such subgraph's messages are a
conversation of their own, split off the run (:meth:`Conversation.split`), read as an episode of its
own beside the parent's, as the tracing readers split a sub-agent's calls off a run.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from trajectory_platform.traces.adapters.langgraph_messages import message_pair
from trajectory_platform.traces.adapters.message_roles import is_langchain_message, langchain_fields
from trajectory_platform.traces.record import canonical_json

MODES = frozenset({"values", "updates", "messages", "custom", "debug", "checkpoints", "tasks", "events"})
"""LangGraph's stream modes (and the server's ``events``)."""
READ_MODES = ("values", "updates", "messages")
"""The modes holding the conversation, the most complete first: a value holds the input the run was
given, an update only what nodes wrote, a message stream only the models' and tools' pieces. A
stream of several modes is read from the first it holds messages in; the others repeat it and are
counted (``extra_json.items_by_mode``)."""
EVENT_SEPARATOR = "|"
"""How the server joins a subgraph's namespace to its event name (``updates|agent:1f0c``)."""
TYPED_PART_KEYS = frozenset({"type", "ns", "data", "interrupts"})
SAID_KEYS = ("type", "content", "tool_call_id", "tool_calls")
"""What a message says (its id aside): an id-less message repeated by another namespace says the same."""


@dataclass(frozen=True)
class StreamItem:
    """One streamed item: the namespace it came from, its mode, its chunk."""

    namespace: tuple[str, ...]
    mode: str
    chunk: Any


def _namespace(value: Any) -> tuple[str, ...] | None:
    return tuple(value) if isinstance(value, list) and all(isinstance(p, str) for p in value) else None


def _is_update(chunk: Any) -> bool:
    """``{node: state}`` (an interrupt, ``__interrupt__``, is a list)."""
    return (
        isinstance(chunk, dict)
        and bool(chunk)
        and all(isinstance(v, dict) or v is None for k, v in chunk.items() if not str(k).startswith("__"))
    )


def _mode_of(chunk: Any) -> str | None:
    """The mode a chunk streamed without one was in, by its shape."""
    if message_pair(chunk) is not None:
        return "messages"
    if isinstance(chunk, dict) and isinstance(chunk.get("messages"), list):
        return "values"
    return "updates" if _is_update(chunk) else None


def stream_item(value: Any) -> StreamItem | None:
    """The item a saved line (or a JSON list's element) is, in any spelling the module docstring
    lists; None for anything else (a bare update, value or message pair: ``langgraph.py`` reads those)."""
    if isinstance(value, dict):
        event = value.get("event")
        if isinstance(event, str) and EVENT_SEPARATOR in event and set(value) <= {"event", "data", "id"}:
            mode, *path = event.split(EVENT_SEPARATOR)
            return StreamItem(tuple(path), mode, value.get("data")) if mode in MODES else None
        namespace = _namespace(value.get("ns"))
        if set(value) <= TYPED_PART_KEYS and namespace is not None and value.get("type") in MODES:
            return StreamItem(namespace, str(value["type"]), value.get("data"))
        return None
    if not isinstance(value, list) or len(value) not in (2, 3):
        return None
    if len(value) == 3:
        namespace = _namespace(value[0])
        ok = namespace is not None and value[1] in MODES
        return StreamItem(namespace or (), str(value[1]), value[2]) if ok else None
    if isinstance(value[0], str) and value[0] in MODES and value[0] != "messages":
        return StreamItem((), value[0], value[1])  # ["messages", pair] is a pair: langgraph_messages.py
    namespace = _namespace(value[0])
    inferred = _mode_of(value[1]) if namespace is not None else None
    return StreamItem(namespace or (), inferred, value[1]) if inferred is not None else None


def nodes_of(namespace: tuple[str, ...]) -> list[str]:
    """A namespace's node names (``agent:<task id>`` is node ``agent``): what a detail may show."""
    return [part.partition(":")[0] for part in namespace]


def item_messages(item: StreamItem) -> list[tuple[str, Any]]:
    """The messages an item of ``values`` or ``updates`` carries, each with its path in the chunk."""
    chunk = item.chunk
    if item.mode == "values":
        messages = chunk.get("messages") if isinstance(chunk, dict) else None
        return [(f"messages[{i}]", m) for i, m in enumerate(messages if isinstance(messages, list) else [])]
    if item.mode != "updates" or not isinstance(chunk, dict):
        return []
    out: list[tuple[str, Any]] = []
    for node, state in chunk.items():
        messages = state.get("messages") if isinstance(state, dict) else None
        listed = messages if isinstance(messages, list) else [messages] if isinstance(messages, dict) else []
        out.extend((f"{node}.messages[{i}]", m) for i, m in enumerate(listed))
    return out


def holds_messages(item: StreamItem) -> bool:
    """Does the item carry a LangChain message (the stream's conversation, not another channel)?"""
    if item.mode == "messages":
        return message_pair(item.chunk) is not None
    return any(is_langchain_message(m) for _, m in item_messages(item))


def _fields(message: Any) -> dict[str, Any]:
    """A message's own fields, in either LangChain serialisation (``{}`` for anything else)."""
    return (langchain_fields(message) or {}) if isinstance(message, dict) else {}


def _own_id(message: Any) -> str | None:
    own_id = _fields(message).get("id")
    return own_id if isinstance(own_id, str) and own_id else None


def _said(message: Any) -> str:
    """What a message says, its id aside: how an id-less message is known again."""
    return canonical_json({k: v for k, v in _fields(message).items() if k in SAID_KEYS})


@dataclass
class Said:
    """One message of the conversation: its latest version, where it was first read, the namespace
    that first streamed it, and every namespace that did (the first, and those that repeated it)."""

    message: Any
    where: str
    namespace: tuple[str, ...]
    namespaces: set[tuple[str, ...]]


@dataclass
class Conversation:
    """The messages of a run's items, each once, in conversation order (module docstring)."""

    said: list[Said] = field(default_factory=list)

    def _known(self, message: Any, namespace: tuple[str, ...]) -> int | None:
        """The place of ``message`` if streamed before: by its id, or, without one, an id-less
        message another namespace streamed saying exactly the same."""
        own_id = _own_id(message)
        if own_id is not None:
            found = next((i for i, s in enumerate(self.said) if _own_id(s.message) == own_id), None)
            if found is not None:
                return found
        return next(
            (
                i
                for i, s in enumerate(self.said)
                if s.namespace != namespace
                and _own_id(s.message) is None
                and _said(s.message) == _said(message)
            ),
            None,
        )

    def add(self, messages: list[tuple[str, Any]], namespace: tuple[str, ...]) -> None:
        """One item's messages (each with where it was read), from ``namespace``, as ``add_messages``
        merges a list: a message streamed before is replaced where it stands; a new one goes after
        the message before it in the list, or, ahead of every known one, before the first known one
        (a parent's update repeating its subgraph's output holds the run's input first); a list of
        new messages only is appended."""
        cursor: int | None = None
        pending: list[Said] = []
        for where, message in messages:
            index = self._known(message, namespace)
            if index is None:
                entry = Said(message, where, namespace, {namespace})
                if cursor is None:
                    pending.append(entry)
                else:
                    self.said.insert(cursor, entry)
                    cursor += 1
                continue
            self.said[index:index] = pending
            index += len(pending)
            pending = []
            self.said[index].message = message
            self.said[index].namespaces.add(namespace)
            cursor = index + 1
        self.said.extend(pending)

    def apart(self) -> list[tuple[str, ...]]:
        """The subgraphs that kept a conversation of their own: none of their messages is the root
        graph's too, while the root graph streamed messages (any subgraph does when it has none)."""
        if not any(() in s.namespaces for s in self.said):
            return []
        spaces = {space for s in self.said for space in s.namespaces} - {()}
        return sorted(
            space
            for space in spaces
            if not any(space in s.namespaces and () in s.namespaces for s in self.said)
        )

    def split(self) -> list[tuple[tuple[str, ...], list[Said]]]:
        """The run's conversations, in the order each first spoke: the root graph's (``()``: its
        messages, and those of the subgraphs it shares one with) and one per subgraph that kept a
        conversation apart (:meth:`apart`), each with its messages in conversation order. A message
        several such subgraphs streamed (a subgraph repeating its own subgraph's output) is the
        outermost one's. A run that keeps no conversation apart is one, ``()``'s."""
        apart = self.apart()
        groups: dict[tuple[str, ...], list[Said]] = {}
        for entry in self.said:
            owners = [space for space in apart if space in entry.namespaces and () not in entry.namespaces]
            owner = min(owners, key=lambda space: (len(space), space)) if owners else ()
            groups.setdefault(owner, []).append(entry)
        return list(groups.items())


def provenance(said: list[Said]) -> dict[str, list[int]]:
    """The subgraph each message of a conversation was first streamed from (its namespace joined by
    ``|``, as the server names it) -> the indices of those messages; the root graph's are left out."""
    out: dict[str, list[int]] = {}
    for index, entry in enumerate(said):
        if entry.namespace:
            out.setdefault(EVENT_SEPARATOR.join(entry.namespace), []).append(index)
    return out
