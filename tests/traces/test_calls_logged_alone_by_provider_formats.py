"""One agent run logged a model call a line, naming no run, in a provider's own format (Bedrock
invocation logs and Converse request/response, Gemini ``contents`` / ``response``, stateless
Responses ``input`` / ``output``) is one episode, as ``chat-log`` groups such calls
(adapters.framed); read a line each, the run was stored once per call, each a prefix of the next."""

from __future__ import annotations

from pathlib import Path

from log_files import write_jsonl

from trajectory_platform.traces.ingest import ingest_paths

ASK = {"role": "user", "content": [{"text": "Count users"}]}
CALL = {
    "role": "assistant",
    "content": [{"toolUse": {"toolUseId": "t1", "name": "sql", "input": {"q": "1"}}}],
}
RESULT = {"role": "user", "content": [{"toolResult": {"toolUseId": "t1", "content": [{"text": "42"}]}}]}
DONE = {"role": "assistant", "content": [{"text": "42 users."}]}


def _kinds(path: Path) -> list[list[str]]:
    result = ingest_paths([path])
    assert result.rejects == [], [(r.reason, r.detail) for r in result.rejects]
    return [[e.kind for e in episode.events] for episode in result.episodes]


def _converse(messages: list, answer: dict, stop: str) -> dict:
    return {
        "modelId": "m",
        "messages": messages,
        "response": {"output": {"message": answer}, "stopReason": stop},
    }


def test_a_converse_run_logged_a_call_a_line_is_one_episode(tmp_path: Path):
    lines = [_converse([ASK], CALL, "tool_use"), _converse([ASK, CALL, RESULT], DONE, "end_turn")]
    assert _kinds(write_jsonl(tmp_path, "converse.jsonl", lines)) == [
        ["user", "assistant", "tool", "assistant"]
    ]


def test_a_gemini_run_logged_a_call_a_line_is_one_episode(tmp_path: Path):
    ask = {"role": "user", "parts": [{"text": "Weather in Oslo?"}]}
    call = {"role": "model", "parts": [{"functionCall": {"name": "weather", "args": {"city": "Oslo"}}}]}
    result = {"role": "user", "parts": [{"functionResponse": {"name": "weather", "response": {"t": "4C"}}}]}
    answer = {"role": "model", "parts": [{"text": "4C."}]}
    lines = [
        {"contents": [ask], "response": {"candidates": [{"content": call, "finishReason": "STOP"}]}},
        {
            "contents": [ask, call, result],
            "response": {"candidates": [{"content": answer, "finishReason": "STOP"}]},
        },
    ]
    assert _kinds(write_jsonl(tmp_path, "gemini.jsonl", lines)) == [
        ["user", "assistant", "tool", "assistant"]
    ]


def test_two_runs_and_a_lone_call_stay_apart_in_file_order(tmp_path: Path):
    other = {"role": "user", "content": [{"text": "Say hi"}]}
    hi = {"role": "assistant", "content": [{"text": "hi"}]}
    lines = [
        _converse([ASK], CALL, "tool_use"),
        _converse([other], hi, "end_turn"),
        _converse([ASK, CALL, RESULT], DONE, "end_turn"),
    ]
    assert _kinds(write_jsonl(tmp_path, "day.jsonl", lines)) == [
        ["user", "assistant", "tool", "assistant"],
        ["user", "assistant"],
    ]
