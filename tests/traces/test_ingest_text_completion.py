"""Text completion calls whose prompt is a chat template's text (traces/adapters/text_completion.py):
the prompt is split back into messages by the one template that reads it whole, the completion is
the answer; a prompt no template reads whole is a reject, never turns put in the wrong mouth. Such a
call used to be a whole-file ``unrecognized format`` reject."""

from __future__ import annotations

import json
from pathlib import Path

from log_files import write_jsonl

from trajectory_platform.traces.ingest import ingest_paths

CHATML = (
    "<|im_start|>system\nYou are helpful.<|im_end|>\n"
    "<|im_start|>user\nWeather in Oslo?<|im_end|>\n"
    "<|im_start|>assistant\n<tool_call>\n"
    '{"name": "get_weather", "arguments": {"city": "Oslo"}}\n</tool_call><|im_end|>\n'
    "<|im_start|>user\n<tool_response>\n3C\n</tool_response><|im_end|>\n"
    "<|im_start|>assistant\n"
)
LLAMA_CPP_CALL = {
    "prompt": CHATML,
    "content": "It is 3C in Oslo.",
    "model": "qwen2.5-7b-instruct-q4_k_m.gguf",
    "stop_type": "eos",
    "tokens_evaluated": 80,
    "tokens_predicted": 9,
}


def test_a_templated_prompt_is_split_back_into_the_conversation_it_writes(tmp_path: Path) -> None:
    (episode,) = ingest_paths(
        [write_jsonl(tmp_path, "completions.jsonl", [LLAMA_CPP_CALL, LLAMA_CPP_CALL])]
    ).episodes[:1]
    assert episode.source_format == "text-completion"
    assert [(e.kind, e.content) for e in episode.events] == [
        ("system", "You are helpful."),
        ("user", "Weather in Oslo?"),
        ("assistant", None),
        ("tool", "3C"),
        ("assistant", "It is 3C in Oslo."),
    ]
    assert [(c.name, c.arguments) for c in episode.events[2].tool_calls] == [
        ("get_weather", '{"city":"Oslo"}')
    ]
    answer = episode.events[-1]
    assert (answer.finish_reason, answer.input_tokens, answer.output_tokens) == ("eos", 80, 9)
    assert episode.delivered_inputs[0].response_event_index == 4
    assert json.loads(episode.extra_json or "{}")["chat_template"] == "ChatML"


def test_a_prompt_no_template_reads_whole_is_rejected(tmp_path: Path) -> None:
    prefixed = {**LLAMA_CPP_CALL, "prompt": "Summarize the chat below.\n" + CHATML}
    unknown_role = {**LLAMA_CPP_CALL, "prompt": CHATML.replace("<|im_start|>system", "<|im_start|>ipython")}
    result = ingest_paths([write_jsonl(tmp_path, "completions.jsonl", [prefixed, unknown_role])])
    assert result.episodes == []
    assert [(r.source_line, r.reason) for r in result.rejects] == [
        (1, "unknown chat template"),
        (2, "unknown chat template"),
    ]


def test_a_plain_text_prompt_is_no_conversation(tmp_path: Path) -> None:
    plain = {"prompt": "Once upon a time", "content": " there was a parser."}
    (reject,) = ingest_paths([write_jsonl(tmp_path, "base_model.jsonl", [plain])]).rejects
    assert reject.reason == "unrecognized format"


def test_an_ollama_raw_call_with_its_prompt_is_a_completion_not_a_lone_answer(tmp_path: Path) -> None:
    call = {
        "model": "qwen2.5",
        "prompt": CHATML,
        "raw": True,
        "response": "It is 3C.",
        "done": True,
        "done_reason": "stop",
    }
    (episode,) = ingest_paths([write_jsonl(tmp_path, "generate.jsonl", [call, call])]).episodes[:1]
    assert episode.source_format == "text-completion" and episode.events[-1].finish_reason == "stop"
