"""A run a gateway or tracer logged (its calls under one session) may hold several conversations,
each its own episode. Ingest copied the citations of every answer of the run onto each of them, so
an episode cited sources it never used; each now carries the citation fields of the answers it
holds (``citations.citations_of_episodes``), whatever provider's spelling cites them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from log_files import write_jsonl

from trajectory_platform.traces.ingest import ingest_paths


def _openai(question: str, answer: str, url: str) -> dict[str, Any]:
    cited = {
        "type": "url_citation",
        "url_citation": {"url": url, "title": "t", "start_index": 0, "end_index": 3},
    }
    message = {"role": "assistant", "content": answer, "annotations": [cited]}
    return {
        "request": {"body": {"model": "gpt-4o", "messages": [{"role": "user", "content": question}]}},
        "response": {"body": {"object": "chat.completion", "choices": [{"index": 0, "message": message}]}},
    }


def _anthropic(question: str, answer: str, url: str) -> dict[str, Any]:
    cited = {"type": "web_search_result_location", "url": url, "title": "t", "cited_text": "source words"}
    content = [
        {"type": "text", "text": "Per the page, "},
        {"type": "text", "text": answer, "citations": [cited]},
    ]
    asked = {"model": "claude-x", "max_tokens": 100, "messages": [{"role": "user", "content": question}]}
    answered = {"type": "message", "role": "assistant", "content": content, "stop_reason": "end_turn"}
    return {"request": {"body": asked}, "response": {"body": answered}}


def _cited_urls(path: Path) -> dict[str, list[str]]:
    result = ingest_paths([path])
    assert result.rejects == [], [(r.reason, r.detail) for r in result.rejects]
    return {
        next(e.content for e in ep.events if e.kind == "user") or "": sorted(
            str(c.get("url") or c.get("url_citation", {}).get("url"))
            for field in ep.extra().get("citations", [])
            for c in field["cited"]
        )
        for ep in result.episodes
    }


def test_each_conversation_of_a_run_keeps_only_its_own_citations(tmp_path: Path):
    for name, call in (("openai", _openai), ("anthropic", _anthropic)):
        calls = [
            call("Weather in Paris?", "Paris is sunny.", "https://a.example/paris"),
            call("Name Norway's capital.", "Oslo it is.", "https://b.example/oslo"),
            call("Largest ocean?", "The Pacific.", "https://c.example/pacific"),
        ]
        session = [{**c, "metadata": {"session_id": "s1"}} for c in calls]
        assert _cited_urls(write_jsonl(tmp_path, f"{name}.jsonl", session)) == {
            "Weather in Paris?": ["https://a.example/paris"],
            "Name Norway's capital.": ["https://b.example/oslo"],
            "Largest ocean?": ["https://c.example/pacific"],
        }


def test_one_conversation_keeps_every_citation_of_its_record(tmp_path: Path):
    """Control: a record read as one episode keeps all its citation fields, as before."""
    call = _openai("Weather in Paris?", "Paris is sunny.", "https://a.example/paris")
    second = _openai("And Lyon?", "Lyon is sunny too.", "https://d.example/lyon")
    history = call["request"]["body"]["messages"] + [{"role": "assistant", "content": "Paris is sunny."}]
    second["request"]["body"]["messages"] = history + second["request"]["body"]["messages"]
    path = write_jsonl(
        tmp_path, "one.jsonl", [{**c, "metadata": {"session_id": "s1"}} for c in (call, second)]
    )
    assert _cited_urls(path) == {"Weather in Paris?": ["https://a.example/paris", "https://d.example/lyon"]}
