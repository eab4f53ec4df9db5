"""Citations on Messages API text blocks, and every provider's annotations, were dropped without a
word, and the cited pieces of one sentence were joined with line breaks no model wrote
(``adapters/citations.py``); Claude.ai's ``knowledge`` search hits lost their title and address
(``anthropic_results._hit_text``)."""

from __future__ import annotations

import json
from pathlib import Path

from log_files import one_episode, write_json, write_jsonl

WEB = {
    "type": "web_search_result_location",
    "url": "https://example.org/paris",
    "title": "Paris forecast",
    "encrypted_index": "EqoBCioIAhgBIiQ3",
    "cited_text": "Sunny all week.",
}
PAGE = {
    "type": "page_location",
    "cited_text": "Rule 4 applies.",
    "document_index": 0,
    "document_title": "Handbook",
    "start_page_number": 3,
    "end_page_number": 4,
}
BLOCKS = [
    {"type": "text", "text": "According to the forecast, "},
    {"type": "text", "text": "it is sunny", "citations": [WEB]},
    {"type": "text", "text": " and "},
    {"type": "text", "text": "rule 4 applies", "citations": [PAGE]},
    {"type": "text", "text": "."},
]
SENTENCE = "According to the forecast, it is sunny and rule 4 applies."


def _cited(extra_json: str | None) -> list[dict]:
    return json.loads(extra_json or "{}")["citations"]


def test_a_messages_record_keeps_its_citations_and_the_sentence_whole(tmp_path: Path):
    record = {"system": "Cite sources.", "messages": [{"role": "user", "content": "Weather?"}]}
    record["messages"].append({"role": "assistant", "content": BLOCKS})
    episode = one_episode(write_jsonl(tmp_path, "m.jsonl", [record]))
    assert episode.events[-1].content == SENTENCE
    cited = _cited(episode.extra_json)
    assert [c["at"] for c in cited] == [
        "messages[1].content[1].citations",
        "messages[1].content[3].citations",
    ]
    assert cited[1]["cited"] == [PAGE]
    assert cited[0]["cited"] == [{k: v for k, v in WEB.items() if k != "encrypted_index"}]
    assert "EqoBCioIAhgBIiQ3" not in (episode.extra_json or "")


def test_a_logged_call_keeps_the_citations_of_its_response(tmp_path: Path):
    call = {
        "request": {"model": "claude-sonnet-4-5", "messages": [{"role": "user", "content": "Weather?"}]},
        "response": {"type": "message", "role": "assistant", "content": BLOCKS, "stop_reason": "end_turn"},
    }
    episode = one_episode(write_jsonl(tmp_path, "calls.jsonl", [call]))
    assert episode.events[-1].content == SENTENCE
    assert [len(c["cited"]) for c in _cited(episode.extra_json)] == [1, 1]


def test_claude_ai_knowledge_hits_keep_title_and_address_and_text_citations_are_kept(tmp_path: Path):
    hit = {
        "type": "knowledge",
        "title": "Paris forecast",
        "url": "https://weather.example/paris",
        "metadata": {"type": "webpage_metadata", "site_domain": "weather.example"},
        "is_missing": False,
        "text": "Sunny 20C",
    }
    citation = {"uuid": "u-1", "start_index": 0, "end_index": 12, "details": {"url": hit["url"]}}
    answer = [
        {"type": "tool_use", "name": "web_search", "input": {"query": "paris weather"}},
        {"type": "tool_result", "name": "web_search", "is_error": False, "content": [hit]},
        {"type": "text", "text": "It is sunny.", "citations": [citation]},
    ]
    messages = [
        {
            "uuid": "m1",
            "sender": "human",
            "text": "Weather?",
            "content": [{"type": "text", "text": "Weather?"}],
        },
        {"uuid": "m2", "sender": "assistant", "text": "", "content": answer},
    ]
    episode = one_episode(
        write_json(tmp_path, "conversations.json", [{"uuid": "c1", "chat_messages": messages}])
    )
    (result,) = [e for e in episode.events if e.kind == "tool"]
    assert result.content == "Paris forecast\nhttps://weather.example/paris\nSunny 20C"
    assert _cited(episode.extra_json)[0]["cited"] == [citation]


def test_plain_text_blocks_without_citations_read_as_before(tmp_path: Path):
    plain = [{"type": "text", "text": "One."}, {"type": "text", "text": "Two."}]
    record = {
        "system": "s",
        "messages": [{"role": "user", "content": "Go"}, {"role": "assistant", "content": plain}],
    }
    episode = one_episode(write_jsonl(tmp_path, "m.jsonl", [record]))
    assert episode.events[-1].content == "One.\nTwo."
    assert "citations" not in json.loads(episode.extra_json or "{}")


def test_every_providers_annotations_are_kept(tmp_path: Path):
    url = {"type": "url_citation", "url_citation": {"url": "https://n.example/a", "title": "A"}}
    chat = {
        "messages": [
            {"role": "user", "content": "News?"},
            {"role": "assistant", "content": "Rates fell.", "annotations": [url]},
        ]
    }
    part = {
        "type": "output_text",
        "text": "See a.pdf.",
        "annotations": [{"type": "file_citation", "file_id": "f1"}],
    }
    responses = {
        "object": "response",
        "id": "r1",
        "input": "Q?",
        "output": [{"type": "message", "role": "assistant", "content": [part]}],
    }
    grounding = {"groundingChunks": [{"web": {"uri": "https://g.example", "title": "G"}}]}
    gemini = {
        "contents": [{"role": "user", "parts": [{"text": "Q?"}]}],
        "response": {
            "candidates": [
                {"content": {"role": "model", "parts": [{"text": "A."}]}, "groundingMetadata": grounding}
            ]
        },
    }
    cohere = {
        "messages": [
            {"role": "user", "content": "Q?"},
            {"role": "assistant", "content": "Sunny.", "citations": [{"start": 0, "end": 5, "sources": []}]},
        ]
    }
    found = {}
    for name, record in {"chat": chat, "responses": responses, "gemini": gemini, "cohere": cohere}.items():
        episode = one_episode(write_jsonl(tmp_path, f"{name}.jsonl", [record]))
        found[name] = [c["at"] for c in _cited(episode.extra_json)]
    assert found == {
        "chat": ["messages[1].annotations"],
        "responses": ["output[0].content[0].annotations"],
        "gemini": ["response.candidates[0].groundingMetadata"],
        "cohere": ["messages[1].citations"],
    }
