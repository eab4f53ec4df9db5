"""Validation half of test_read_or_rejected_clearly.py: other variants of the same seven classes,
written after the fix without looking at the development cases' results, and run once to measure
(docs/formats.md, "Read or rejected clearly", gives the figure)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from fmt_leftover_logs import (
    ai_chunk,
    call_piece,
    claude_code_split_response,
    codex_rollout,
    gateway_call,
    gemini_candidate,
    inspect_archive,
    inspect_sample,
    langgraph_pair,
    tool_message,
)
from log_files import langsmith_llm_run, one_episode, read_accounted, write_json, write_jsonl

from trajectory_platform.cli import main
from trajectory_platform.traces.ingest import ingest_paths

# 1. LangGraph stream_mode="messages"


def test_langgraph_pairs_under_several_stream_modes_with_parallel_call_pieces(tmp_path: Path):
    meta = {"thread_id": "th-9"}
    pieces = [
        [call_piece(0, '{"path": ', "c_a", "read"), call_piece(1, '{"path": ', "c_b", "read")],
        [call_piece(1, '"b.py"}'), call_piece(0, '"a.py"}')],
    ]
    # another mode's line: an item of its mode, counted (a reject before the stream's items were
    # read by their mode: langgraph_subgraphs.py)
    lines: list[Any] = [["updates", {"agent": {"messages": []}}]]
    lines += [
        ["messages", langgraph_pair(ai_chunk("run-1", tool_call_chunks=p), "agent", 1, **meta)]
        for p in pieces
    ]
    lines += [
        ["messages", langgraph_pair(tool_message(c, "read", f"text of {c}"), "tools", 2, **meta)]
        for c in ("c_a", "c_b")
    ]
    result = read_accounted(write_jsonl(tmp_path, "modes.jsonl", lines))
    (episode,) = result.episodes
    calls = [(c.id, json.loads(c.arguments or "")) for c in episode.events[0].tool_calls]
    assert calls == [("c_a", {"path": "a.py"}), ("c_b", {"path": "b.py"})]
    assert result.rejects == []
    assert episode.extra()["items_by_mode"] == {"messages": 4, "updates": 1}


def test_langgraph_anthropic_chunks_with_content_parts_and_a_streamed_prompt(tmp_path: Path):
    human = {"content": "Summarise a.py", "type": "human", "id": "h-1"}
    parts = [
        [{"type": "text", "text": "It defines ", "index": 0}],
        [{"type": "text", "text": "two functions.", "index": 0}],
    ]
    pairs = [langgraph_pair(human, "intake", 1)]
    pairs += [
        langgraph_pair(ai_chunk("run-x", p), "agent", 2, ls_model_name="claude-sonnet-4-5") for p in parts
    ]
    pairs.append(
        langgraph_pair(ai_chunk("run-x", [], response_metadata={"stop_reason": "end_turn"}), "agent", 2)
    )
    episode = one_episode(write_json(tmp_path, "pairs.json", pairs))
    assert [(e.kind, e.content) for e in episode.events] == [
        ("user", "Summarise a.py"),
        ("assistant", "It defines two functions."),
    ]
    assert episode.events[1].finish_reason == "end_turn" and "request_missing" not in episode.extra()
    assert episode.lineage.model == "claude-sonnet-4-5"


def test_langgraph_dumpd_serialised_chunks_are_joined(tmp_path: Path):
    def lc(text: str) -> dict[str, Any]:
        return {
            "lc": 1,
            "type": "constructor",
            "id": ["langchain", "schema", "messages", "AIMessageChunk"],
            "kwargs": {"content": text, "id": "run-z", "tool_call_chunks": []},
        }

    pairs = [langgraph_pair(lc(t), "agent", 1) for t in ("Hel", "lo")]
    episode = one_episode(write_jsonl(tmp_path, "lc.jsonl", pairs))
    assert [(e.kind, e.content) for e in episode.events] == [("assistant", "Hello")]


# 2. Gemini candidates


def test_a_lone_gemini_response_with_three_candidates_counts_them(tmp_path: Path):
    response = {"candidates": [gemini_candidate(t, i) for i, t in enumerate(("Red.", "Blue.", "Green."))]}
    result = read_accounted(write_jsonl(tmp_path, "answers.jsonl", [response]))
    (episode,) = result.episodes
    assert episode.events[-1].content == "Red."
    assert episode.extra()["choices_taken"] == [{"call": 0, "index": 0, "of": 3}]


def test_gemini_candidates_in_a_snake_case_vertex_log(tmp_path: Path):
    call = {
        "contents": [{"role": "user", "parts": [{"text": "Pick"}]}],
        "response": {
            "candidates": [gemini_candidate("B", 1), gemini_candidate("A", 0)],
            "model_version": "gemini-2.0-flash",
        },
    }
    episode = one_episode(write_jsonl(tmp_path, "vertex.jsonl", [call]))
    assert episode.events[-1].content == "A"
    assert episode.extra()["choices_taken"] == [{"call": 0, "index": 1, "of": 2}]


# 3. Codex exit codes


def test_codex_exec_command_results_state_the_exit_code_in_their_header(tmp_path: Path):
    outputs = [
        "Chunk ID: 7f3a\nWall time: 0.5012 seconds\nProcess exited with code 1\n"
        "Original token count: 12\nOutput:\nE   assert 1 == 2\n",
        "Chunk ID: 7f3b\nWall time: 10.0000 seconds\nProcess running with session ID 4\n"
        "Original token count: 3\nOutput:\nwaiting\n",
        "Output:\nno header at all\n",
        '{"output": "x", "metadata": {"exit_code": "1"}}',
    ]
    episode = one_episode(codex_rollout(tmp_path, outputs))
    assert [(e.exit_code, e.status) for e in episode.events if e.kind == "tool"] == [
        (1, "error"),
        (None, None),
        (None, None),
        (None, None),
    ]


def test_codex_custom_tool_output_states_its_exit_code_as_json(tmp_path: Path):
    outputs = [json.dumps({"output": "patch failed", "metadata": {"exit_code": 1, "duration_seconds": 0}})]
    episode = one_episode(codex_rollout(tmp_path, outputs, call_type="custom_tool_call"))
    assert [(e.exit_code, e.status) for e in episode.events if e.kind == "tool"] == [(1, "error")]


# 4. Claude Code split responses


def test_claude_code_split_response_whose_usage_is_on_its_last_line_only(tmp_path: Path):
    usage = {"input_tokens": 4, "cache_read_input_tokens": 900, "output_tokens": 210}
    episode = one_episode(claude_code_split_response(tmp_path, [None, None, usage], [None, None, "tool_use"]))
    turn = next(e for e in episode.events if e.kind == "assistant")
    assert (turn.input_tokens, turn.output_tokens, turn.finish_reason) == (4, 210, "tool_use")


def test_claude_code_split_response_whose_later_lines_state_no_usage_keeps_the_first(tmp_path: Path):
    usage = {"input_tokens": 8, "output_tokens": 30}
    episode = one_episode(claude_code_split_response(tmp_path, [usage, None], ["end_turn", None]))
    turn = next(e for e in episode.events if e.kind == "assistant")
    assert (turn.input_tokens, turn.output_tokens, turn.finish_reason) == (8, 30, "end_turn")


# 5. Field names in rejects


def test_an_unread_field_of_a_message_is_named_when_it_is_camel_case(tmp_path: Path):
    messages = [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": "", "messageText": "Hello!"},
    ]
    result = ingest_paths([write_json(tmp_path, "chat.json", {"messages": messages})])
    details = " ".join(r.detail or "" for r in result.rejects)
    assert result.episodes == [] and "message_text" in details  # named as the reader reads it


def test_a_secret_used_as_a_field_name_stays_masked_in_every_reject(tmp_path: Path):
    token = "ghpAbCdEfGhIjKlMnOpQrStUvWxYz0123456789"
    lines = [{"sessionName": "x", token: "v"}]
    (reject,) = ingest_paths([write_jsonl(tmp_path, "x.jsonl", lines)]).rejects
    assert token not in (reject.detail or "") and "sessionName" in (reject.detail or "")


# 6. Inspect .eval logs


def test_an_eval_log_with_named_samples_and_epochs_given_as_a_file(tmp_path: Path, capsys):
    samples = {
        f"samples/q-{s}_epoch_{e}.json": inspect_sample(f"q-{s}", e, f"{s}?", s) for s in "ab" for e in (1, 2)
    }
    path = inspect_archive(tmp_path / "run.eval", samples)
    assert main(["ingest", str(path), "--out", str(tmp_path / "out"), "--no-progress"]) == 0
    assert json.loads(capsys.readouterr().out.strip().splitlines()[-1])["normalized"] == 4


def test_an_eval_log_with_a_sample_that_is_not_json_rejects_that_sample_only(tmp_path: Path):
    samples = {"samples/1_epoch_1.json": inspect_sample(1, 1, "1+1", "2"), "samples/2_epoch_1.json": "{cut"}
    result = read_accounted(inspect_archive(tmp_path / "logs" / "run.eval", samples).parent)
    assert len(result.episodes) == 1 and [r.source_path for r in result.rejects] == ["samples[1]"]


# 7. A history replaced by a summary alone

SYSTEM = {"role": "system", "content": "You are a research agent."}
SUMMARY = "So far: three papers on sparse attention were read; the user wants a comparison table next."
START = [SYSTEM, {"role": "user", "content": "Survey sparse attention"}]
SUMMARIZE = [
    *START,
    {"role": "assistant", "content": "Reading papers."},
    {"role": "user", "content": "Summarize."},
]


def _langsmith(messages_and_answers: list[tuple[list[dict[str, Any]], str]]) -> list[dict[str, Any]]:
    root = {
        "id": "tr",
        "trace_id": "tr",
        "parent_run_id": None,
        "run_type": "chain",
        "name": "agent",
        "inputs": {},
        "outputs": {},
        "start_time": "2025-01-01T00:00:00",
    }
    runs = [root]
    for number, (seen, answer) in enumerate(messages_and_answers):
        runs.append(
            langsmith_llm_run(
                f"r{number}",
                f"2025-01-01T00:00:0{number + 1}",
                seen,
                {"role": "assistant", "content": answer},
            )
        )
    return runs


def test_langsmith_runs_whose_history_became_a_summary_in_a_system_message(tmp_path: Path):
    compacted = [
        SYSTEM,
        {"role": "system", "content": f"Conversation summary: {SUMMARY}"},
        {"role": "user", "content": "Continue"},
    ]
    runs = _langsmith([(START, "Reading papers."), (SUMMARIZE, SUMMARY), (compacted, "Here is the table.")])
    result = read_accounted(write_jsonl(tmp_path, "runs.jsonl", runs))
    assert result.rejects == [] and len(result.episodes) == 1


def test_langfuse_generations_whose_history_became_a_summary(tmp_path: Path):
    def generation(number: int, seen: list[dict[str, Any]], answer: str) -> dict[str, Any]:
        return {
            "id": f"o{number}",
            "traceId": "lf-9",
            "type": "GENERATION",
            "startTime": f"2025-08-01T12:00:0{number}.000Z",
            "model": "gpt-4o",
            "input": seen,
            "output": {"role": "assistant", "content": answer},
        }

    compacted = [SYSTEM, {"role": "user", "content": f"<summary>{SUMMARY}</summary>"}]
    observations = [
        generation(1, START, "Reading papers."),
        generation(2, SUMMARIZE, SUMMARY),
        generation(3, compacted, "Table:"),
    ]
    trace = {"id": "lf-9", "timestamp": "2025-08-01T12:00:00.000Z", "observations": observations}
    result = read_accounted(write_json(tmp_path, "lf.json", trace))
    assert result.rejects == [] and len(result.episodes) == 1


def test_a_second_chat_that_quotes_no_summary_stays_its_own_conversation(tmp_path: Path):
    calls = [
        gateway_call("s", START, "Reading papers."),
        gateway_call(
            "s", [SYSTEM, {"role": "user", "content": "Unrelated: what is 2+2? Reading papers."}], "4"
        ),
    ]
    result = read_accounted(write_jsonl(tmp_path, "gateway.jsonl", calls))
    assert len(result.episodes) == 2, "a short answer quoted is no summary"


# written after the refinements of the LangGraph and summary rules, run once


def test_langgraph_two_agents_of_a_supervisor_by_checkpoint_ns_are_an_episode_each(tmp_path: Path):
    pairs = [
        langgraph_pair(ai_chunk("r1", "Math: 4."), "agent", 1, checkpoint_ns="team:1|math:2|agent:3"),
        langgraph_pair(ai_chunk("r2", "Search: done."), "agent", 1, checkpoint_ns="team:1|search:4|agent:5"),
    ]
    result = read_accounted(write_jsonl(tmp_path, "stream.jsonl", pairs))
    assert result.rejects == []
    assert [[e.content for e in episode.events] for episode in result.episodes] == [
        ["Math: 4."],
        ["Search: done."],
    ]


def test_langgraph_one_agent_nested_two_deep_with_its_tools_is_read(tmp_path: Path):
    ns = "outer:1|inner:2|"
    pairs = [
        langgraph_pair(
            ai_chunk("r1", tool_call_chunks=[call_piece(0, "{}", "c1", "now")]),
            "agent",
            1,
            langgraph_checkpoint_ns=ns + "agent:3",
        ),
        langgraph_pair(
            tool_message("c1", "now", "12:00"), "tools", 2, langgraph_checkpoint_ns=ns + "tools:4"
        ),
        langgraph_pair(ai_chunk("r2", "It is noon."), "agent", 3, langgraph_checkpoint_ns=ns + "agent:5"),
    ]
    episode = one_episode(write_jsonl(tmp_path, "stream.jsonl", pairs))
    assert [e.kind for e in episode.events] == ["assistant", "tool", "assistant"]


def test_langfuse_sub_agent_without_instructions_quoting_a_long_answer_is_its_own(tmp_path: Path):
    brief = "Compare the three sparse attention papers on memory use and accuracy, in a table."

    def generation(number: int, seen: list[dict[str, Any]], answer: str) -> dict[str, Any]:
        return {
            "id": f"o{number}",
            "traceId": "lf-7",
            "type": "GENERATION",
            "startTime": f"2025-08-01T12:00:0{number}.000Z",
            "model": "gpt-4o",
            "input": seen,
            "output": {"role": "assistant", "content": answer},
        }

    observations = [
        generation(1, [{"role": "user", "content": "What should the researcher do?"}], brief),
        generation(2, [{"role": "user", "content": f"Task: {brief}"}], "Table ready."),
    ]
    trace = {"id": "lf-7", "timestamp": "2025-08-01T12:00:00.000Z", "observations": observations}
    assert len(read_accounted(write_json(tmp_path, "lf.json", trace)).episodes) == 2


# written after the Gemini stream fix, run once


def test_a_gemini_stream_whose_candidates_come_in_separate_chunks(tmp_path: Path):
    lines = [
        {"candidates": [gemini_candidate("Gree", 1) | {"finishReason": None}], "responseId": "r"},
        {"candidates": [gemini_candidate("Blu", 0) | {"finishReason": None}], "responseId": "r"},
        {"candidates": [gemini_candidate("n.", 1), gemini_candidate("e.", 0)], "responseId": "r"},
    ]
    (episode,) = read_accounted(write_jsonl(tmp_path, "stream.jsonl", lines)).episodes
    assert episode.events[-1].content == "Blue."
    assert episode.extra()["choices_taken"][0]["of"] == 2
