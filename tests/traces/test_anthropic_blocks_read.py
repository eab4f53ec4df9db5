"""Every content block the Anthropic Messages API documents is read (``anthropic_results.py``,
``base._attached_text``): a server or MCP tool's result is the tool event answering its call, failed
when its content says so; what the model writes after such a result is a turn of its own; Claude.ai's
export (tools called and answered inside the assistant message, without ids) reads; a text
document and a search result are their text, and an upload is a marker, never a reject."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from log_files import one_episode, write_json, write_jsonl

ASK = {"role": "user", "content": "Weather in Paris?"}


def _conversation(*content: dict[str, Any]) -> dict[str, Any]:
    return {"system": "Be brief.", "messages": [ASK, {"role": "assistant", "content": list(content)}]}


def _kinds(episode: Any) -> list[tuple[str, str | None, str | None]]:
    return [(e.kind, e.content, e.status) for e in episode.events if e.kind != "system"]


def test_a_server_tools_error_is_a_failed_result_and_the_answer_after_it_a_turn_of_its_own(tmp_path: Path):
    record = _conversation(
        {"type": "text", "text": "Searching."},
        {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {"query": "paris"}},
        {
            "type": "web_search_tool_result",
            "tool_use_id": "srvtoolu_1",
            "content": {"type": "web_search_tool_result_error", "error_code": "max_uses_exceeded"},
        },
        {"type": "text", "text": "I could not search."},
    )
    record["messages"][1]["stop_reason"] = "end_turn"
    episode = one_episode(write_jsonl(tmp_path, "a.jsonl", [record]))
    assert _kinds(episode) == [
        ("user", "Weather in Paris?", None),
        ("assistant", "Searching.", None),
        ("tool", "web_search_tool_result_error: max_uses_exceeded", "error"),
        ("assistant", "I could not search.", None),
    ]
    assert episode.events[-1].finish_reason == "end_turn" and episode.events[2].finish_reason is None
    assert episode.events[3].tool_call_id == "srvtoolu_1"


def test_a_code_run_is_its_output_and_exit_code(tmp_path: Path):
    record = _conversation(
        {
            "type": "server_tool_use",
            "id": "srvtoolu_2",
            "name": "bash_code_execution",
            "input": {"command": "x"},
        },
        {
            "type": "bash_code_execution_tool_result",
            "tool_use_id": "srvtoolu_2",
            "content": {
                "type": "bash_code_execution_result",
                "stdout": "",
                "stderr": "x: not found\n",
                "return_code": 127,
                "content": [],
            },
        },
        {"type": "text", "text": "No such command."},
    )
    (result,) = [
        e for e in one_episode(write_jsonl(tmp_path, "a.jsonl", [record])).events if e.kind == "tool"
    ]
    assert (result.content, result.status, result.exit_code) == ("x: not found\n", "error", 127)


def test_search_hits_show_title_and_address_never_their_encrypted_page(tmp_path: Path):
    hit = {
        "type": "web_search_result",
        "url": "https://w.example/p",
        "title": "Forecast",
        "encrypted_content": "Eq8x",
    }
    record = _conversation(
        {"type": "server_tool_use", "id": "srvtoolu_3", "name": "web_search", "input": {"query": "paris"}},
        {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_3", "content": [hit]},
        {"type": "text", "text": "Sunny."},
    )
    (result,) = [
        e for e in one_episode(write_jsonl(tmp_path, "a.jsonl", [record])).events if e.kind == "tool"
    ]
    assert (
        result.content == "Forecast\nhttps://w.example/p\n[encrypted page content]"
        and "Eq8x" not in result.content
    )


def test_a_claude_ai_export_reads_tools_answered_inside_the_assistant_message(tmp_path: Path):
    use = {
        "type": "tool_use",
        "name": "web_fetch",
        "input": {"url": "https://x.example"},
        "message": "Fetching",
    }
    result = {
        "type": "tool_result",
        "name": "web_fetch",
        "is_error": True,
        "content": [{"type": "text", "text": "Failed to fetch"}],
    }
    chat = {
        "uuid": "c1",
        "name": "Fetch",
        "chat_messages": [
            {
                "uuid": "m1",
                "sender": "human",
                "text": "Fetch x",
                "content": [{"type": "text", "text": "Fetch x"}],
            },
            {
                "uuid": "m2",
                "sender": "assistant",
                "text": "",
                "content": [
                    {"type": "thinking", "thinking": "Fetch it.", "summaries": [], "cut_off": False},
                    use,
                    result,
                    {"type": "text", "text": "It failed."},
                ],
            },
        ],
    }
    episode = one_episode(write_json(tmp_path, "conversations.json", [chat]))
    turn, answer = episode.events[1], episode.events[2]
    assert (turn.reasoning, [(c.name, c.arguments) for c in turn.tool_calls]) == (
        "Fetch it.",
        [("web_fetch", '{"url":"https://x.example"}')],
    )
    assert (answer.kind, answer.tool_name, answer.content, answer.status) == (
        "tool",
        "web_fetch",
        "Failed to fetch",
        "error",
    )
    assert (episode.events[3].kind, episode.events[3].content) == ("assistant", "It failed.")


def test_documents_search_results_and_uploads_are_read(tmp_path: Path):
    record = {
        "messages": [
            {
                "role": "user",
                "content": [
                    {
                        "type": "document",
                        "source": {"type": "text", "media_type": "text/plain", "data": "Notes."},
                    },
                    {"type": "container_upload", "file_id": "file_1"},
                    {"type": "text", "text": "Summarise."},
                ],
            },
            {
                "role": "assistant",
                "content": [{"type": "tool_use", "id": "t1", "name": "kb", "input": {"q": "x"}}],
            },
            {
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": "t1",
                        "content": [
                            {
                                "type": "search_result",
                                "source": "https://kb/x",
                                "title": "X",
                                "content": [{"type": "text", "text": "X is y."}],
                            }
                        ],
                    }
                ],
            },
        ],
        "system": "Be brief.",
    }
    episode = one_episode(write_jsonl(tmp_path, "a.jsonl", [record]))
    assert episode.events[1].content == "Notes.\n[container_upload]\nSummarise."
    assert episode.events[3].content == "X\nhttps://kb/x\nX is y."
