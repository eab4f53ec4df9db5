"""Development half: the rt-fmt5 leftovers, logs a reader misread or dropped part of without a word,
each read in full or rejected naming its place now (docs/formats.md, "Read or rejected clearly").
The validation half, other variants of the same classes written after the fix and run once, is the
``_heldout`` file."""

from __future__ import annotations

import json
from pathlib import Path

from fmt_leftover_logs import (
    ai_chunk,
    call_piece,
    claude_code_split_response,
    codex_rollout,
    gateway_call,
    gemini_call,
    gemini_candidate,
    inspect_archive,
    inspect_sample,
    langgraph_pair,
    otel_chat_span,
    otel_trace,
    tool_message,
)
from log_files import one_episode, read_accounted, write_jsonl

from trajectory_platform.cli import main
from trajectory_platform.traces.ingest import ingest_paths

# 1. LangGraph stream_mode="messages": pieces of one message joined by its id


def _weather_stream(**metadata: object) -> list[list[object]]:
    meta = {"thread_id": "th-1", "ls_model_name": "gpt-4o-mini", **metadata}
    return [
        langgraph_pair(
            ai_chunk("run-a", tool_call_chunks=[call_piece(0, '{"city": ', "call_1", "weather")]),
            "agent",
            1,
            **meta,
        ),
        langgraph_pair(ai_chunk("run-a", tool_call_chunks=[call_piece(0, '"Paris"}')]), "agent", 1, **meta),
        langgraph_pair(tool_message("call_1", "weather", "18C, cloudy"), "tools", 2, **meta),
        langgraph_pair(ai_chunk("run-b", "It is 18C"), "agent", 3, **meta),
        langgraph_pair(ai_chunk("run-b", " and cloudy"), "agent", 3, **meta),
        langgraph_pair(
            ai_chunk(
                "run-b",
                " in Paris.",
                response_metadata={"finish_reason": "stop"},
                usage_metadata={"input_tokens": 90, "output_tokens": 9, "total_tokens": 99},
            ),
            "agent",
            3,
            **meta,
        ),
    ]


def test_langgraph_message_pairs_are_one_run_with_each_message_joined(tmp_path: Path):
    episode = one_episode(write_jsonl(tmp_path, "stream.jsonl", _weather_stream()))
    assert [e.kind for e in episode.events] == ["assistant", "tool", "assistant"]
    (call,) = episode.events[0].tool_calls
    assert (call.id, call.name, json.loads(call.arguments or "")) == ("call_1", "weather", {"city": "Paris"})
    answer = episode.events[2]
    assert answer.content == "It is 18C and cloudy in Paris."
    assert (answer.finish_reason, answer.input_tokens, answer.output_tokens) == ("stop", 90, 9)
    assert (episode.episode_id, episode.lineage.model) == ("langgraph:th-1", "gpt-4o-mini")
    assert "request_missing" in episode.extra(), "the stream holds no prompt: the episode says so"


def test_langgraph_server_messages_tuple_events_are_read_the_same(tmp_path: Path):
    lines = [{"event": "metadata", "data": {"run_id": "r1"}}] + [
        {"event": "messages", "data": pair} for pair in _weather_stream()
    ]
    episode = one_episode(write_jsonl(tmp_path, "server.jsonl", lines))
    assert [e.content for e in episode.events][1:] == ["18C, cloudy", "It is 18C and cloudy in Paris."]
    assert episode.extra()["run_metadata_events"] == 1


def test_a_langgraph_chunk_without_an_id_is_rejected_not_read_as_a_fragment(tmp_path: Path):
    pairs = _weather_stream()
    pairs[4][0]["id"] = None
    (reject,) = read_accounted(write_jsonl(tmp_path, "stream.jsonl", pairs)).rejects
    assert (reject.reason, reject.source_line) == ("unjoinable chunk", 1)
    assert "pairs[4]" in (reject.detail or "")


def test_langgraph_pairs_of_two_threads_in_one_file_are_rejected(tmp_path: Path):
    pairs = _weather_stream() + [langgraph_pair(ai_chunk("run-c", "Hi"), "agent", 1, thread_id="th-2")]
    (reject,) = read_accounted(write_jsonl(tmp_path, "stream.jsonl", pairs)).rejects
    assert reject.reason == "several conversations"


def test_langgraph_pieces_streamed_by_a_supervisor_and_its_agent_are_an_episode_each(tmp_path: Path):
    pairs = [
        langgraph_pair(
            ai_chunk("run-s", "Handing over."), "supervisor", 1, langgraph_checkpoint_ns="supervisor:1"
        ),
        langgraph_pair(
            ai_chunk("run-r", "Found 3 papers."), "agent", 1, langgraph_checkpoint_ns="research:2|agent:3"
        ),
    ]
    result = read_accounted(write_jsonl(tmp_path, "stream.jsonl", pairs))
    assert result.rejects == []
    supervisor, agent = sorted(result.episodes, key=lambda e: e.episode_id)
    assert [e.content for e in supervisor.events] == ["Handing over."]
    assert [e.content for e in agent.events] == ["Found 3 papers."]
    assert agent.episode_id == f"{supervisor.episode_id}/2"
    link = json.loads(agent.extra_json or "{}")["run_conversation"]
    assert (link["main"], link["graph"], link["of"]) == (False, ["research"], 2)


def test_langgraph_one_agent_run_as_a_subgraph_node_is_read(tmp_path: Path):
    pairs = [
        langgraph_pair(ai_chunk("run-r", t), "agent", 1, langgraph_checkpoint_ns="research:2|agent:3")
        for t in ("Found ", "3 papers.")
    ]
    episode = one_episode(write_jsonl(tmp_path, "stream.jsonl", pairs))
    assert [(e.kind, e.content) for e in episode.events] == [("assistant", "Found 3 papers.")]


# 2. Gemini: the candidate taken, and how many there were


def test_gemini_takes_the_first_candidate_and_counts_the_others(tmp_path: Path):
    call = gemini_call([gemini_candidate("Blue."), gemini_candidate("Green.")])
    episode = one_episode(write_jsonl(tmp_path, "gemini.jsonl", [call]))
    assert episode.events[-1].content == "Blue."
    assert episode.extra()["choices_taken"] == [{"call": 0, "index": 0, "of": 2}]


def test_gemini_takes_the_candidate_with_the_lowest_index_wherever_it_is_listed(tmp_path: Path):
    call = gemini_call([gemini_candidate("Green.", 1), gemini_candidate("Blue.", 0)])
    episode = one_episode(write_jsonl(tmp_path, "gemini.jsonl", [call]))
    assert episode.events[-1].content == "Blue."
    assert episode.extra()["choices_taken"] == [{"call": 0, "index": 1, "of": 2}]


def test_a_gemini_stream_of_two_candidates_is_one_answer_not_fragments(tmp_path: Path):
    def chunk(first: str, second: str, finish: str | None = None) -> dict[str, object]:
        candidates = [gemini_candidate(first, 0), gemini_candidate(second, 1)]
        return {"candidates": [{**c, "finishReason": finish} for c in candidates]}

    result = read_accounted(
        write_jsonl(tmp_path, "stream.jsonl", [chunk("Bl", "Gr"), chunk("ue.", "een.", "STOP")])
    )
    (episode,) = result.episodes
    assert episode.events[-1].content == "Blue."
    assert episode.extra()["choices_taken"] == [{"call": 0, "index": 0, "of": 2}]


# 3. Codex: the exit code Codex wrote into a command's output


def test_codex_command_results_take_the_exit_code_codex_wrote_into_them(tmp_path: Path):
    outputs = [
        "Exit code: 1\nWall time: 0.4 seconds\nOutput:\nFAILED test_a.py::test_x\n",
        json.dumps({"output": "3 passed\n", "metadata": {"exit_code": 0, "duration_seconds": 1.2}}),
        "Exit code: 2\nWall time: 0.1 seconds\nTotal output lines: 900\nOutput:\nExit code: 0\n",
        "plain text a tool returned\nExit code: 5\n",
    ]
    episode = one_episode(codex_rollout(tmp_path, outputs))
    results = [(e.exit_code, e.status) for e in episode.events if e.kind == "tool"]
    assert results == [(1, "error"), (0, "ok"), (2, "error"), (None, None)]


# 4. Claude Code: a response written a block a line takes its last line's usage


def test_claude_code_split_response_takes_the_usage_and_stop_reason_of_its_last_line(tmp_path: Path):
    usages = [{"input_tokens": 12, "output_tokens": n} for n in (1, 1, 57)]
    episode = one_episode(claude_code_split_response(tmp_path, usages, [None, None, "tool_use"]))
    turn = next(e for e in episode.events if e.kind == "assistant")
    assert (turn.input_tokens, turn.output_tokens, turn.finish_reason) == (12, 57, "tool_use")
    assert turn.content == "97 is prime." and [c.id for c in turn.tool_calls] == ["toolu_1"]


# 5. A reject names the field it is about, unless the name is secret-shaped


def test_an_unrecognized_log_names_its_camel_case_fields_but_not_a_key_used_as_one(tmp_path: Path):
    secret_shaped = "AKIAZXCVBNMQWERTYUIO"
    lines = [{"requesterUsername": "ada", "evalId": "e1", "_type": "run", secret_shaped: 1}]
    (reject,) = ingest_paths([write_jsonl(tmp_path, "export.jsonl", lines)]).rejects
    assert "with fields requesterUsername, evalId, _type, <key>:" in (reject.detail or "")
    assert secret_shaped not in (reject.detail or "")


# 6. Inspect's .eval zip log


def test_a_folder_of_inspect_eval_logs_is_read(tmp_path: Path, capsys):
    logs = tmp_path / "logs"
    inspect_archive(
        logs / "2025-09-01T10-00-00+00-00_arith_t1.eval",
        {
            "samples/2_epoch_1.json": inspect_sample(2, 1, "2+2", "4"),
            "samples/1_epoch_1.json": inspect_sample(1, 1, "1+1", "2"),
        },
    )
    result = read_accounted(logs)
    assert result.rejects == [] and result.counts_by_format == {"inspect": 2}
    assert [e.task.fixture_id for e in result.episodes] == ["arith/1", "arith/2"]
    assert main(["ingest", str(logs), "--out", str(tmp_path / "out"), "--no-progress"]) == 0
    assert json.loads(capsys.readouterr().out.strip().splitlines()[-1])["normalized"] == 2


def test_an_eval_file_that_is_no_inspect_archive_is_an_unreadable_file_reject(tmp_path: Path):
    (tmp_path / "run.eval").write_bytes(b"PK\x03\x04 cut short")
    (reject,) = read_accounted(tmp_path).rejects
    assert (reject.source_file.endswith("run.eval"), reject.reason) == (True, "unreadable file")


# 7. A history replaced by a summary alone: one rule for every trace reader

SYSTEM = {"role": "system", "content": "You are a coding agent."}
SUMMARY = "The user asked to fix the failing parser test; the agent found an off-by-one in tokenize()."
HISTORY = [
    SYSTEM,
    {"role": "user", "content": "Fix the failing parser test"},
    {"role": "assistant", "content": "Looking at tokenize()."},
    {"role": "user", "content": "Go on"},
]
SUMMARIZE = [
    *HISTORY,
    {"role": "assistant", "content": "Found it."},
    {"role": "user", "content": "Summarize the conversation so far."},
]
COMPACTED = [SYSTEM, {"role": "user", "content": f"Summary of the earlier conversation:\n{SUMMARY}"}]


def test_an_otel_trace_whose_history_became_its_summary_is_one_conversation(tmp_path: Path):
    spans = [
        otel_chat_span("t1", "s1", 1, HISTORY[:2], "Looking at tokenize()."),
        otel_chat_span("t1", "s2", 2, HISTORY, "Found it."),
        otel_chat_span("t1", "s3", 3, SUMMARIZE, SUMMARY),
        otel_chat_span("t1", "s4", 4, COMPACTED, "Patched tokenize(); the test passes."),
    ]
    episode = one_episode(otel_trace(tmp_path / "trace.json", spans))
    assert "run_conversation" not in episode.extra()
    assert len(episode.delivered_inputs) == 4 and episode.delivered_inputs[-1].compacted


def test_gateway_calls_whose_history_became_its_summary_are_one_conversation(tmp_path: Path):
    calls = [
        gateway_call("s", HISTORY[:2], "Looking at tokenize()."),
        gateway_call("s", HISTORY, "Found it."),
        gateway_call("s", SUMMARIZE, SUMMARY),
        gateway_call("s", COMPACTED, "Patched tokenize(); the test passes."),
    ]
    result = read_accounted(write_jsonl(tmp_path, "gateway.jsonl", calls))
    assert result.rejects == [] and len(result.episodes) == 1


def test_a_summary_after_the_kept_task_continues_the_conversation(tmp_path: Path):
    kept = [*HISTORY[:2], {"role": "user", "content": f"Earlier work, summarized: {SUMMARY}"}]
    calls = [
        gateway_call("s", HISTORY[:2], "Looking at tokenize()."),
        gateway_call("s", SUMMARIZE, SUMMARY),
        gateway_call("s", kept, "Patched."),
    ]
    result = read_accounted(write_jsonl(tmp_path, "gateway.jsonl", calls))
    assert result.rejects == [] and len(result.episodes) == 1


def test_an_agent_without_instructions_handed_a_long_answer_stays_its_own_conversation(tmp_path: Path):
    plan = "Research sparse attention: read the three key papers and compare their memory costs."
    calls = [
        gateway_call("s", [{"role": "user", "content": "Plan the survey"}], plan),
        gateway_call(
            "s", [{"role": "user", "content": plan}], "Read them; Longformer uses the least memory."
        ),
    ]
    result = read_accounted(write_jsonl(tmp_path, "gateway.jsonl", calls))
    assert len(result.episodes) == 2, "no instructions: nothing tells a summary from a handed task"
