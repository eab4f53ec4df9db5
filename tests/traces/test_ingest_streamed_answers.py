"""Streamed answers (traces/adapters/answer_stream.py): the chunks or events of one answer, one a
line, joined back into the response they add up to; a stream cut short is a reject, never a shorter
answer. Each used to be a whole-file `unrecognized format` reject."""

from __future__ import annotations

import json
from pathlib import Path

from handwritten_records import ANTHROPIC_STREAM, CHAT_STREAM, chat_chunk
from log_files import write_jsonl

from trajectory_platform.traces.ingest import ingest_paths
from trajectory_platform.traces.record import Episode


def _calls(event_episode: Episode) -> list[tuple[str | None, str, str]]:
    return [(c.id, c.name, c.arguments) for c in event_episode.events[-1].tool_calls]


def test_a_streamed_answer_is_joined_back_into_one_turn(tmp_path: Path) -> None:
    result = ingest_paths([write_jsonl(tmp_path, "stream.jsonl", CHAT_STREAM)])
    (episode,) = result.episodes
    assert result.records_in == 1 and (episode.source_line, episode.source_path) == (1, "lines 1-8")
    (answer,) = episode.events
    assert answer.content == "Reading both."
    assert _calls(episode) == [
        ("call_a", "read_file", '{"path": "p.py"}'),
        ("call_b", "read_file", '{"path": "t.py"}'),
    ]
    assert (answer.finish_reason, answer.input_tokens, answer.output_tokens) == ("tool_calls", 30, 20)
    assert "request" in json.loads(episode.extra_json or "{}")["request_missing"]


def test_anthropic_stream_events_give_the_message_they_add_up_to(tmp_path: Path) -> None:
    (episode,) = ingest_paths([write_jsonl(tmp_path, "events.jsonl", ANTHROPIC_STREAM)]).episodes
    (answer,) = episode.events
    assert answer.content == "Reading the file."
    assert _calls(episode) == [("toolu_1", "read_file", '{"path":"p.py"}')]
    assert (answer.finish_reason, answer.input_tokens, answer.output_tokens) == ("tool_use", 25, 15)
    assert episode.lineage.model == "claude-sonnet-4-5"


def test_a_stream_cut_before_its_end_is_rejected_not_read_short(tmp_path: Path) -> None:
    for name, pieces in (("chat.jsonl", CHAT_STREAM[:5]), ("anthropic.jsonl", ANTHROPIC_STREAM[:8])):
        result = ingest_paths([write_jsonl(tmp_path, name, pieces)])
        assert result.episodes == []
        ((line, reason, detail),) = [(r.source_line, r.reason, r.detail or "") for r in result.rejects]
        assert (line, reason) == (1, "truncated stream") and f"lines 1-{len(pieces)}" in detail


def test_ollama_chunks_and_a_second_answer_in_the_same_file(tmp_path: Path) -> None:
    def ollama(text: str, done: bool, **end: object) -> dict:
        return {"model": "llama3.2", "message": {"role": "assistant", "content": text}, "done": done, **end}

    lines = [
        ollama("The", False),
        ollama(" sky is blue.", False),
        ollama("", True, done_reason="stop", prompt_eval_count=26, eval_count=9),
        ollama("Yes.", True, done_reason="stop"),
    ]
    result = ingest_paths([write_jsonl(tmp_path, "ollama.jsonl", lines)])
    assert [(e.source_line, e.events[0].content) for e in result.episodes] == [
        (1, "The sky is blue."),
        (4, "Yes."),
    ]
    assert result.episodes[0].events[0].output_tokens == 9 and result.rejects == []


def test_a_line_that_is_no_stream_piece_is_its_own_reject_and_the_stream_is_read(tmp_path: Path) -> None:
    lines = [*CHAT_STREAM[:2], {"note": "proxy restarted"}, *CHAT_STREAM[2:]]
    result = ingest_paths([write_jsonl(tmp_path, "stream.jsonl", lines)])
    assert [(r.source_line, r.reason) for r in result.rejects] == [(3, "wrong type")]
    (episode,) = result.episodes
    assert episode.events[0].content == "Reading both." and len(episode.events[0].tool_calls) == 2
    assert result.records_in == 2


def test_a_chunk_stream_without_ids_starts_a_new_answer_after_one_finishes(tmp_path: Path) -> None:
    bare = [
        {k: v for k, v in c.items() if k != "id"}
        for c in (chat_chunk({"role": "assistant", "content": "A"}, "stop"),)
    ]
    lines = [*bare, *bare]
    result = ingest_paths([write_jsonl(tmp_path, "two.jsonl", lines)])
    assert [e.events[0].content for e in result.episodes] == ["A", "A"] and result.rejects == []


def test_a_logged_call_with_answer_fields_beside_its_messages_is_no_lone_answer(tmp_path: Path) -> None:
    call = {
        "messages": [{"role": "user", "content": "Hi."}],
        "object": "chat.completion",
        "choices": [
            {"index": 0, "message": {"role": "assistant", "content": "Hello."}, "finish_reason": "stop"}
        ],
    }
    (episode,) = ingest_paths([write_jsonl(tmp_path, "calls.jsonl", [call, call])]).episodes[:1]
    assert episode.source_format != "stream"
    assert [(e.kind, e.content) for e in episode.events] == [("user", "Hi."), ("assistant", "Hello.")]


def test_a_stream_of_several_choices_goes_on_from_the_lowest_index_and_says_so(tmp_path: Path) -> None:
    lines = [
        chat_chunk({"role": "assistant", "content": "Second."}, "stop", index=1),
        chat_chunk({"role": "assistant", "content": "First."}, "stop", index=0),
    ]
    (episode,) = ingest_paths([write_jsonl(tmp_path, "n2.jsonl", lines)]).episodes
    assert episode.events[0].content == "First."
    assert json.loads(episode.extra_json or "{}")["choices_taken"] == [{"call": 0, "index": 0, "of": 2}]


def test_a_responses_stream_reads_its_terminal_response_or_says_it_failed(tmp_path: Path) -> None:
    item = {
        "id": "fc_1",
        "type": "function_call",
        "name": "read_file",
        "call_id": "call_r",
        "arguments": "{}",
    }
    created = {"type": "response.created", "response": {"id": "resp_1", "object": "response", "output": []}}
    done = {"type": "response.output_item.done", "output_index": 0, "item": item}
    completed = {
        "type": "response.completed",
        "response": {"id": "resp_1", "object": "response", "status": "completed"},
    }
    failed = {
        "type": "response.failed",
        "response": {"id": "resp_2", "object": "response", "error": {"code": "server_error", "message": "x"}},
    }
    result = ingest_paths(
        [write_jsonl(tmp_path, "events.jsonl", [created, done, completed, {**created}, failed])]
    )
    (episode,) = result.episodes
    assert [(c.id, c.name) for c in episode.events[0].tool_calls] == [("call_r", "read_file")]
    assert episode.events[0].finish_reason == "completed"
    assert [(r.source_line, r.reason, r.detail) for r in result.rejects] == [
        (4, "failed model call", "line 5: the response failed with 'server_error'")
    ]
