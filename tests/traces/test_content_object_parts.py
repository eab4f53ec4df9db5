"""A message whose content is an object holding its parts: Mastra's stored messages (``{"format": 2,
"parts": [...]}`` beside legacy copies of the turn), a Gemini-style ``{"role", "parts"}``. The reader
took only a string or a list as content and rejected the record (``wrong type``); the parts are now
the turn (``openai._content_object_parts``)."""

from __future__ import annotations

from pathlib import Path

from log_files import one_episode, write_json

from trajectory_platform.traces.ingest import ingest_paths

ARGS = {"city": "Paris"}
INVOCATION = {
    "state": "result",
    "toolCallId": "call_1",
    "toolName": "get_weather",
    "args": ARGS,
    "result": "18C",
}


def test_mastra_stored_messages_read_their_parts_once(tmp_path: Path):
    parts = [
        {"type": "step-start"},
        {"type": "tool-invocation", "toolInvocation": INVOCATION},
        {"type": "step-start"},
        {"type": "text", "text": "It is 18C."},
    ]
    asked = {"format": 2, "parts": [{"type": "text", "text": "Paris?"}]}
    answered = {"format": 2, "parts": parts, "toolInvocations": [INVOCATION], "content": "It is 18C."}
    messages = [
        {"id": "m1", "role": "user", "threadId": "t", "content": asked},
        {"id": "m2", "role": "assistant", "threadId": "t", "type": "v2", "content": answered},
    ]
    episode = one_episode(write_json(tmp_path, "mastra.json", {"messages": messages}))
    assert [(e.kind, e.content) for e in episode.events] == [
        ("user", "Paris?"),
        ("assistant", None),
        ("tool", "18C"),
        ("assistant", "It is 18C."),
    ]
    (call,) = episode.events[1].tool_calls
    assert (call.id, call.name, call.arguments) == ("call_1", "get_weather", '{"city":"Paris"}')
    assert episode.events[2].tool_call_id == "call_1"


def test_a_content_object_of_parts_and_one_without_them(tmp_path: Path):
    """A ``{"role", "parts"}`` content is its parts; empty parts leave its ``content`` text; a content
    object that holds no parts is still rejected, never read as nothing."""
    messages = [
        {"role": "user", "content": {"role": "user", "parts": [{"text": "Hi"}]}},
        {"role": "assistant", "content": {"format": 2, "parts": [], "content": "Hello."}},
    ]
    episode = one_episode(write_json(tmp_path, "parts.json", {"messages": messages}))
    assert [(e.kind, e.content) for e in episode.events] == [("user", "Hi"), ("assistant", "Hello.")]
    odd = write_json(tmp_path, "odd.json", {"messages": [{"role": "user", "content": {"body": "Hi"}}]})
    assert [r.reason for r in ingest_paths([odd]).rejects] == ["wrong type"]
