"""The embedded default tokenizer: deterministic build, HF-loadable, tool-calling chat template."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from transformers import AutoTokenizer

from trajectory_platform.training.data import chat_template as ct
from trajectory_platform.training.data.corpus import IDENTIFIER_NOUNS, IDENTIFIER_VERBS, IDENTIFIER_WORDS
from trajectory_platform.training.data.tokenizer import (
    build_default_tokenizer,
    load_tokenizer,
    token_counter,
    tokenizer_files_digest,
)


@pytest.fixture(scope="module")
def tokenizer_dir(default_tokenizer: Path) -> Path:
    """The session's build (tests/conftest.py); the first test trains another and compares."""
    return default_tokenizer


def test_build_is_deterministic_and_cached(tokenizer_dir, tmp_path):
    assert tokenizer_dir.name == "default_tokenizer" and tokenizer_dir.parent.name == "models"
    again = build_default_tokenizer(tmp_path)
    assert tokenizer_files_digest(again) == tokenizer_files_digest(tokenizer_dir)
    mtime = (again / "tokenizer.json").stat().st_mtime_ns
    assert build_default_tokenizer(tmp_path) == again
    assert (again / "tokenizer.json").stat().st_mtime_ns == mtime
    # The token measure tables record names the tokenizer by content, not by where it was built.
    count, measure = token_counter(load_tokenizer(again))
    assert measure == token_counter(load_tokenizer(tokenizer_dir))[1]
    assert measure == f"tokenizer:sha256:{tokenizer_files_digest(again)}" and str(tmp_path) not in measure
    assert count("") == 0 and count("read_file") == 2


def test_autotokenizer_loads_with_special_tokens_and_template(tokenizer_dir):
    tok = AutoTokenizer.from_pretrained(str(tokenizer_dir))
    assert tok.chat_template == ct.CHAT_TEMPLATE
    assert tok.eos_token == ct.END_TURN and tok.bos_token == ct.BOS and tok.pad_token == ct.PAD
    for special in ct.SPECIAL_TOKENS + ct.GENERATED_MARKERS:
        assert len(tok(special, add_special_tokens=False).input_ids) == 1, special
    # Markers the model generates survive skip_special_tokens (the gym parser reads them).
    ids = tok(ct.CALL_OPEN + "x" + ct.CALL_CLOSE + ct.END_TURN, add_special_tokens=False).input_ids
    assert tok.decode(ids, skip_special_tokens=True) == ct.CALL_OPEN + "x" + ct.CALL_CLOSE


def test_identifiers_are_two_tokens_and_values_single_tokens(tokenizer_dir):
    tok = load_tokenizer(tokenizer_dir)
    for name in ("read_file", "run_tests", "search_code", "get_weather", "MAX_DEPTH", "net_conf"):
        assert len(tok(name, add_special_tokens=False).input_ids) == 2, name
    for value in ("7", "WIDTH", "MAX", "_DEPTH", "net", "_conf"):  # learnable values and name pieces
        ids = tok(value, add_special_tokens=False).input_ids
        assert tok.convert_ids_to_tokens(ids) == [value]


def test_every_one_piece_name_a_rename_draws_is_one_token(tokenizer_dir):
    tok = load_tokenizer(tokenizer_dir)
    for word in (*IDENTIFIER_VERBS, *IDENTIFIER_NOUNS, *IDENTIFIER_WORDS):
        assert tok.convert_ids_to_tokens(tok(word, add_special_tokens=False).input_ids) == [word]


def test_an_identifier_is_the_same_tokens_in_a_prompt_a_call_and_an_observation(tokenizer_dir):
    tok = load_tokenizer(tokenizer_dir)
    name = tok.convert_ids_to_tokens(tok("net_conf.py", add_special_tokens=False).input_ids)
    assert name == ["net", "_conf", ".", "py"]
    for context in (
        "What is MAX_DEPTH in net_conf.py? Answer.",
        '{"path":"net_conf.py"}',
        "edited net_conf.py\n",
    ):
        tokens = tok.convert_ids_to_tokens(tok(context, add_special_tokens=False).input_ids)
        starts = [i for i in range(len(tokens)) if tokens[i : i + len(name)] == name]
        assert starts, (context, tokens)
    assert tok.convert_ids_to_tokens(tok("17", add_special_tokens=False).input_ids) == ["1", "7"]


def test_template_renders_tools_calls_and_authentic_terminators(tokenizer_dir):
    tok = load_tokenizer(tokenizer_dir)
    tools = [
        {
            "type": "function",
            "function": {
                "name": "read_file",
                "description": "Read a file.",
                "parameters": {"type": "object"},
            },
        }
    ]
    messages = [
        {"role": "user", "content": "Fix it."},
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [
                {
                    "id": "c1",
                    "type": "function",
                    "function": {"name": "read_file", "arguments": '{"path": "a.py"}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "x = 1"},
        {"role": "assistant", "content": "Done."},
    ]
    text = tok.apply_chat_template(messages, tools=tools, tokenize=False)
    assert text == (
        '<|bos|><|tools|>read_file: Read a file. {"type":"object"}\n<|end_tools|>'
        "<|user|>Fix it.<|end|>"
        '<|assistant|><|call|>{"name": "read_file", "arguments": {"path": "a.py"}}<|end_call|><|end_turn|>'
        "<|tool|>x = 1<|end|><|assistant|>Done.<|end_turn|>"
    )
    assert tok.apply_chat_template(messages[:1], tokenize=False, add_generation_prompt=True).endswith(
        "<|end|><|assistant|>"
    )


def test_template_calls_are_the_gym_wire_format_and_parse(tokenizer_dir):
    from trajectory_platform.gym.protocol import parse_turn, render_tool_call

    tok = load_tokenizer(tokenizer_dir)
    arguments = {"file_path": "conf.py", "limit": 3}
    for recorded in (arguments, '{"file_path":"conf.py","limit":3}'):
        call = {"type": "function", "function": {"name": "read_file", "arguments": recorded}}
        messages = [
            {"role": "user", "content": "Read it."},
            {"role": "assistant", "content": "Reading.", "tool_calls": [call]},
        ]
        text = tok.apply_chat_template(messages, tokenize=False)
        turn = text.split(ct.ROLE_TOKENS["assistant"], 1)[1]
        assert turn == "Reading." + render_tool_call("read_file", arguments) + ct.END_TURN
        ids = tok(turn, add_special_tokens=False).input_ids
        parsed = parse_turn(tok.decode(ids, skip_special_tokens=True))
        assert parsed.content == "Reading." and parsed.fabricated_observation is None
        assert [(c.name, json.loads(c.arguments)) for c in parsed.calls] == [("read_file", arguments)]
