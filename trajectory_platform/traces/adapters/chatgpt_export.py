"""ChatGPT's data export (``conversations.json``): a list of conversations, each a tree of messages.

A conversation is ``{"title", "conversation_id", "current_node", "mapping": {id: {"message",
"parent", "children"}}}``: every edit and regenerated answer is a branch of the tree, and the
conversation the user last saw is the path from ``current_node`` up to the root. That path is read,
root first; the other branches are answers the user moved away from, counted in
``extra_json.other_branches`` (never read as turns). Each message has an ``author.role`` (``user``,
``assistant``, ``system``, ``tool``) and a ``content`` by its ``content_type``:

- ``text`` / ``multimodal_text``: its ``parts`` (strings; an image or file part is a marker naming
  its asset);
- an assistant message whose ``recipient`` is not ``all`` is a call to that tool (``python``,
  ``browser``, ``web.run``, ``dalle.text2im``, ...), its text (``code``'s ``text``, or the parts) the
  arguments;
- a ``tool`` message (``execution_output``'s ``text``, ``tether_browsing_display``'s ``result``,
  ``text`` parts, ...) is that tool's result, named by ``author.name``;
- ``thoughts`` (a reasoning model's) and ``reasoning_recap`` are the next assistant turn's reasoning.

A message hidden from the conversation (``metadata.is_visually_hidden_from_conversation``: the
system prompt ChatGPT adds) is kept as what it is; an empty node (the root) is none. A conversation
is one record, one per element of the list.
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
    optional_str,
    timestamp_of,
)
from trajectory_platform.traces.drops import named
from trajectory_platform.traces.record import Episode, Event, ToolCall, canonical_json

ROLES = {"user": "user", "assistant": "assistant", "system": "system", "tool": "tool"}
REASONING = frozenset({"thoughts", "reasoning_recap"})


def is_conversation(value: Any) -> bool:
    """A conversation of the export: its message tree and the node the user last saw."""
    return isinstance(value, dict) and isinstance(value.get("mapping"), dict) and "current_node" in value


def _text(content: dict[str, Any], where: str) -> str | None:
    """A content's text: its ``text`` or ``result``, a reasoning model's thoughts, else its parts (a
    non-text part as a marker naming its asset)."""
    for key in ("text", "result"):  # code and execution output; a browsing tool's display
        if isinstance(content.get(key), str):
            return str(content[key])
    if content.get("content_type") == "thoughts":
        thoughts = expect(content.get("thoughts") or [], list, f"{where}.thoughts")
        return "\n".join(str(t.get("content", "")) for t in thoughts if isinstance(t, dict)) or None
    if isinstance(content.get("content"), str):  # reasoning_recap
        return str(content["content"])
    parts = expect(content.get("parts") or [], list, f"{where}.parts")
    texts = [
        part
        if isinstance(part, str)
        else f"[{part.get('content_type', 'part')} {part.get('asset_pointer', '')}]".replace(" ]", "]")
        for part in parts
        if isinstance(part, str | dict)
    ]
    return "\n".join(texts) or None


class ChatGPTExportAdapter(Adapter):
    """ChatGPT's ``conversations.json`` export: a conversation a record, read along its current path."""

    name = "chatgpt-export"
    task_id_source = None

    def sniff(self, sample: Any, path: Path) -> bool:
        if isinstance(sample, list):
            return bool(sample) and all(is_conversation(c) for c in sample)
        return is_conversation(sample)

    def frame(self, src: SourceFile) -> Iterator[RawRecord]:
        document, error = src.document
        if error is None and isinstance(document, list):
            for index, conversation in enumerate(document):
                yield RawRecord(src.document_line, f"[{index}]", value=conversation)
            return
        yield from super().frame(src)

    def parse(self, record: RawRecord, src: SourceFile) -> Episode:
        value = expect(record.value, dict, "conversation")
        mapping = expect(value.get("mapping"), dict, "mapping")
        own_id = value.get("conversation_id") or value.get("id")
        episode = self.new_episode(record, src, adapter_episode_id(self.name, own_id, value))
        path = _current_path(mapping, value.get("current_node"))
        thoughts: list[str] = []
        for node_id in path:
            message = mapping[node_id].get("message")
            if not isinstance(message, dict):
                continue
            where = f"mapping.{node_id}.message"
            event = self._event(message, where, thoughts)
            if event is not None:
                episode.events.append(event)
        episode.task.prompt = next(
            (e.content for e in episode.events if e.kind == "user" and e.content), None
        )
        extra: dict[str, Any] = {"title": value.get("title")}
        branches = sum(
            1 for node in mapping.values() if isinstance(node, dict) and node.get("message")
        ) - sum(1 for node_id in path if isinstance(mapping[node_id].get("message"), dict))
        extra |= {"other_branches": branches} if branches else {}
        episode.extra_json = canonical_json(extra)
        return episode

    @staticmethod
    def _event(message: dict[str, Any], where: str, thoughts: list[str]) -> Event | None:
        """One message as an event; reasoning is held for the next assistant turn (``None`` then)."""
        author = expect(message.get("author") or {}, dict, f"{where}.author")
        role = ROLES.get(str(author.get("role")))
        if role is None:
            raise RecordError("unknown role", f"{where}.author.role is {named(author.get('role'))}")
        content = expect(message.get("content") or {}, dict, f"{where}.content")
        text = _text(content, f"{where}.content")
        if content.get("content_type") in REASONING:
            thoughts.extend([text] if text else [])
            return None
        event = Event(kind=role, timestamp=timestamp_of(message.get("create_time"), f"{where}.create_time"))
        recipient = message.get("recipient")
        if role == "assistant" and isinstance(recipient, str) and recipient != "all":
            event.tool_calls.append(ToolCall(None, recipient, text))
        else:
            event.content = text
        if role == "tool":
            event.tool_name = optional_str(author.get("name"), f"{where}.author.name")
        if role == "assistant" and thoughts:
            event.reasoning = "\n".join(thoughts)
            thoughts.clear()
        return event


def _current_path(mapping: dict[str, Any], current: Any) -> list[str]:
    """The node ids from the root down to ``current`` (the path the user last saw); a node naming a
    parent the tree lacks, or a cycle, is a reject."""
    if current not in mapping:
        raise RecordError("missing field", f"current_node {named(current)} is not in the mapping")
    path: list[str] = []
    node: Any = current
    while node is not None:
        if node in path or node not in mapping:
            raise RecordError(
                "broken tree", f"mapping.{path[-1]}.parent names {named(node)}: no path to the root"
            )
        path.append(node)
        node = expect(mapping[node], dict, f"mapping.{node}").get("parent")
    return path[::-1]
