"""The schema probe (benchmarks/schema_probe.py): it finds the first call's tool name and first key
in a rendered example, and scores a model's teacher-forced prediction of exactly those tokens."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest
import torch
from schema_probe import FAMILIAR_KEYS, declared_keys, first_call_spans, held_out_rows, probe

from trajectory_platform.training.data.tokenizer import load_tokenizer


@pytest.fixture(scope="module")
def tokenizer(eval_workdir: Path):
    return load_tokenizer(eval_workdir / "models" / "default_base")


class Oracle(torch.nn.Module):
    """Predicts each next token of the row its input begins (or, spoiled, one token everywhere):
    a model whose probe result is known exactly."""

    def __init__(self, rows: list[list[int]], vocab: int, spoil: int | None = None) -> None:
        super().__init__()
        self.rows, self.vocab, self.spoil = rows, vocab, spoil

    def forward(self, input_ids: torch.Tensor) -> SimpleNamespace:
        ids = input_ids[0].tolist()
        if self.spoil is None:
            row = next(row for row in self.rows if row[: len(ids)] == ids)
            following = torch.tensor([*row[1 : len(ids) + 1], row[-1]][: len(ids)])
        else:
            following = torch.full((len(ids),), self.spoil)
        return SimpleNamespace(logits=50 * torch.nn.functional.one_hot(following, self.vocab).float()[None])


def test_spans_are_the_offered_names_in_every_family(tokenizer):
    offered = (
        ("alias", "cat", "doc"),
        ("path", "read_file", "file_path"),
        ("alias_names", "cat", "doc"),
        ("alias_moved", "cat", "doc"),
    )
    for family, name, key in offered:
        rows = held_out_rows(family, 2, ("report_value",), 0, tokenizer)
        assert len(rows) == 2
        for ids in rows:
            spans = first_call_spans(ids, tokenizer)
            decoded = {group: tokenizer.decode(ids[b:e]).strip('"') for group, (b, e) in spans.items()}
            assert decoded == {"tool_name": name, "first_key": key}


def test_alias_names_keeps_the_familiar_block_but_its_names(tokenizer):
    """``alias_names`` is the path family's block with the reserved names: the descriptions and
    the order stay, no familiar name or key is left, and the reserved family's own wording is absent."""
    (familiar,) = held_out_rows("path", 1, ("report_value",), 0, tokenizer)
    (renamed,) = held_out_rows("alias_names", 1, ("report_value",), 0, tokenizer)
    text, before = tokenizer.decode(renamed), tokenizer.decode(familiar)
    assert "read a text file" in text and "show a document" not in text
    for old in ("read_file", "list_files", "edit_file", "write_file", "run_tests", "file_path"):
        assert old in before and old not in text
    block = text.split("<|tools|>")[1].split("<|end_tools|>")[0]
    assert [line.split(":")[0] for line in block.strip().splitlines()] == [
        "ls",
        "cat",
        "patch",
        "save",
        "check",
    ]


def test_alias_moved_declares_the_called_tool_everywhere_but_second(tokenizer):
    """``alias_moved``: the reserved family's block with ``cat`` declared, item by item, at each
    place but the second (where every trained family declares its read tool), the rest in order."""
    blocks = []
    for ids in held_out_rows("alias_moved", 8, ("report_value",), 0, tokenizer):
        block = tokenizer.decode(ids).split("<|tools|>")[1].split("<|end_tools|>")[0]
        names = [line.split(":")[0] for line in block.strip().splitlines()]
        assert [name for name in names if name != "cat"] == ["check", "save", "patch", "ls"]
        blocks.append(names.index("cat"))
    assert blocks == [2, 3, 4, 0, 2, 3, 4, 0]


def test_probe_scores_exactly_the_copied_tokens(tokenizer):
    rows = held_out_rows("alias", 3, ("report_value",), 0, tokenizer)
    vocab = len(tokenizer)
    right = probe(Oracle(rows, vocab), rows, tokenizer)
    assert (right["items"], right["tool_name"], right["first_key"]) == (3, 3, 3)
    assert right["first_name_token"] == {"cat": 3} and right["p_tool_name"] == right["p_first_key"] == 1.0
    assert (right["key_declared"], right["key_recalled"], right["own_keys"]) == (3, 0, {"doc": 3})
    wrong = probe(Oracle(rows, vocab, spoil=tokenizer.convert_tokens_to_ids("read")), rows, tokenizer)
    assert (wrong["tool_name"], wrong["first_key"], wrong["first_name_token"]) == (0, 0, {"read": 3})
    assert wrong["p_tool_name"] == wrong["p_first_key"] == 0.0
    assert (wrong["key_declared"], wrong["key_other"]) == (0, 3)


def test_own_first_key_tells_a_read_key_from_a_recalled_one(tokenizer):
    """The model's own first key counts as read when the called tool declares it (in any order:
    ``match`` is as valid as the expert's ``doc``) and as recalled when only a training family
    does (``file_path`` on ``cat``): what SFA and PRE would say of the call."""
    (row,) = held_out_rows("alias", 1, ("report_value",), 0, tokenizer)
    text = tokenizer.decode(row)
    assert declared_keys(text, "cat") == {"doc", "match"}
    for key, kind in (("match", "key_declared"), ("file_path", "key_recalled"), ("target", "key_other")):
        other = tokenizer(
            text.replace('"arguments": {"doc"', f'"arguments": {{"{key}"', 1), add_special_tokens=False
        )
        result = probe(Oracle([row, other["input_ids"]], len(tokenizer)), [row], tokenizer)
        assert result["own_keys"] == {"doc": 1} and result["key_declared"] == 1  # the row it was given
        result = probe(Oracle([other["input_ids"]], len(tokenizer)), [other["input_ids"]], tokenizer)
        assert (result["own_keys"], result[kind]) == ({key: 1}, 1)
    assert "file_path" in FAMILIAR_KEYS and "doc" not in FAMILIAR_KEYS
