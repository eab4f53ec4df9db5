"""Does a checkpoint read the delivered schema? The first call's tool name and first argument key,
teacher-forced, on held-out tasks under familiar tool families and under the reserved renamed one.

The release gate holds the embedded default on renamed-schema PRE (issue 17): on the ``alias``
family (``cat(doc, match)``) the candidate writes names it did not read. Closed-loop runs only
show the end of that story. This probe shows where it starts: for each held-out task it renders
the scripted expert's episode in the training template and asks, given the exact prefix up to
``{"name": "``, whether the model's greedy next tokens are the offered tool's name, and given the
prefix up to ``"arguments": {"``, whether they are the offered first key. It also counts what the
model's first name token is instead, so recall (``read``) and invention (``query``) can be told
apart, and decodes the model's own first key after the true prefix: one the called tool declares
(in any order, as the runtime's validator reads it), a training family's key the tool lacks (what
PRE counts), or neither. One forward pass per task plus a few for the key: seconds per
checkpoint, no sandbox.

Usage: ``.venv/bin/python benchmarks/schema_probe.py CHECKPOINT [CHECKPOINT ...] [--items 12]
[--kinds report_value] [--families path uri alias alias_names alias_moved] [--seed 0]``.
``alias_names`` is familiar ``path`` tasks renamed to ``alias``'s tool names and keys with everything
else kept (:data:`RESERVED_NAMES`); ``alias_moved`` is ``alias`` with the called tool declared at
another place (:data:`MOVED_CALLED`). A ``make run`` checkpoint is
``WORKDIR/checkpoints/sft-*``. Prints one row per checkpoint and family and a final JSON line.
"""

from __future__ import annotations

import argparse
import collections
import copy
import dataclasses
import json
import re
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import torch
from ablation.corpus import HELD_OUT_FAMILY, expert_corpus, task_numbers

from trajectory_platform.evaluation.settings import SuiteSpec
from trajectory_platform.gym.library import learnable_fixture
from trajectory_platform.gym.tools import TOOL_FAMILIES, manifest
from trajectory_platform.traces.record import Episode
from trajectory_platform.training.data.augment import rename_to
from trajectory_platform.training.data.chat_template import CALL_CLOSE, CALL_OPEN
from trajectory_platform.training.data.masked_dataset import EpisodeInput, build_masked_dataset, to_table
from trajectory_platform.training.data.tokenizer import load_tokenizer
from trajectory_platform.training.optim.model import load_model

CALL_TEXT = re.compile(r'\{"name": "(?P<tool_name>[^"]*)", "arguments": \{"(?P<first_key>[^"]*)"')
"""The opening of a call as the chat template renders it: the two identifiers a call must copy."""


def first_call_spans(ids: Sequence[int], tokenizer: Any) -> dict[str, tuple[int, int]]:
    """Token positions ``[begin, end)`` of the first call's tool name and first argument key in a
    rendered example: every token whose characters overlap the identifier (a token that also
    carries a quote still needs the identifier to be predicted)."""
    start = ids.index(tokenizer.convert_tokens_to_ids(CALL_OPEN)) + 1
    stop = ids.index(tokenizer.convert_tokens_to_ids(CALL_CLOSE), start)
    ends = [len(tokenizer.decode(ids[start : position + 1])) for position in range(start, stop)]
    match = CALL_TEXT.match(tokenizer.decode(ids[start:stop]))
    if match is None:
        raise ValueError("the first call has no tool name and argument key")
    spans = {}
    for group in ("tool_name", "first_key"):
        first = next(i for i, end in enumerate(ends) if end > match.start(group))
        last = next(i for i, end in enumerate(ends) if end >= match.end(group))
        spans[group] = (start + first, start + last + 1)
    return spans


FAMILIAR_KEYS: frozenset[str] = frozenset().union(
    *(manifest(family).keys() for family in TOOL_FAMILIES if family not in SuiteSpec.reserved_tool_families)
)
"""The training families' argument keys: a first key among these that the called tool does not
declare is recall (what PRE counts), one the tool declares is read."""

KEY_TOKENS = 8
"""Greedy tokens decoded for the model's own first key (every key here is shorter)."""


def declared_keys(text: str, tool_name: str) -> set[str]:
    """The properties ``tool_name`` declares in a rendered example's tool block (one tool per
    line: ``name: description {schema}``)."""
    block = text.split("<|tools|>", 1)[1].split("<|end_tools|>", 1)[0]
    line = next(line for line in block.splitlines() if line.startswith(f"{tool_name}: "))
    schema, _ = json.JSONDecoder().raw_decode(line, line.index(" {") + 1)
    return set(schema.get("properties", {}))


def own_first_key(model: torch.nn.Module, prefix: Sequence[int], lead: str, tokenizer: Any) -> str:
    """The first key the model writes itself, greedy from ``prefix`` (which ends just before the
    token carrying the key's first character, ``lead`` being that token's text before the key),
    up to its closing quote. The exact count asks for the expert's key; this asks whether the
    model's own key is one the called tool declares, in any order: what SFA and PRE read."""
    ids = list(prefix)
    for _ in range(KEY_TOKENS):
        ids.append(int(model(input_ids=torch.tensor([ids])).logits[0, -1].argmax()))
        text = tokenizer.decode(ids[len(prefix) :]).removeprefix(lead)
        if '"' in text:
            break
    return text.split('"', 1)[0]


@torch.no_grad()
def probe(model: torch.nn.Module, rows: Sequence[Sequence[int]], tokenizer: Any) -> dict[str, Any]:
    """Over ``rows`` (rendered expert examples): how many first calls' tool names and first keys
    the model predicts exactly, each token given the true prefix; the mean probability it gives
    each one's first token (``p_*``: movement long before an exact hit); its own first name token
    (the ten most frequent); and its own first key, decoded greedily after the true prefix:
    declared by the called tool (``key_declared``, any of its properties), a training family's
    key the tool lacks (``key_recalled``), or neither (the ten most frequent in ``own_keys``)."""
    model.eval()
    exact: collections.Counter[str] = collections.Counter()
    first_token_probability: collections.Counter[str] = collections.Counter()
    first_name_token: collections.Counter[str] = collections.Counter()
    own_keys: collections.Counter[str] = collections.Counter()
    kinds: collections.Counter[str] = collections.Counter()
    for ids in rows:
        spans = first_call_spans(ids, tokenizer)
        logits = model(input_ids=torch.tensor([list(ids)])).logits[0]
        predicted = logits.argmax(-1).tolist()  # predicted[p] is the guess for ids[p + 1]
        for group, (begin, end) in spans.items():
            exact[group] += all(predicted[p - 1] == ids[p] for p in range(begin, end))
            first_token_probability[group] += logits[begin - 1].softmax(-1)[ids[begin]].item()
        first_name_token[tokenizer.decode([predicted[spans["tool_name"][0] - 1]])] += 1
        text = tokenizer.decode(ids)
        match = CALL_TEXT.search(text)
        assert match is not None  # first_call_spans found it
        begin = spans["first_key"][0]
        lead = tokenizer.decode([ids[begin]]).split(match["first_key"][:1], 1)[0]
        key = own_first_key(model, ids[:begin], lead, tokenizer)
        own_keys[key] += 1
        declared = declared_keys(text, match["tool_name"])
        kinds[
            "key_declared" if key in declared else "key_recalled" if key in FAMILIAR_KEYS else "key_other"
        ] += 1
    return {
        "items": len(rows),
        **{group: exact[group] for group in ("tool_name", "first_key")},
        **{
            f"p_{group}": round(first_token_probability[group] / len(rows), 4)
            for group in ("tool_name", "first_key")
        },
        "first_name_token": dict(first_name_token.most_common(10)),
        **{kind: kinds[kind] for kind in ("key_declared", "key_recalled", "key_other")},
        "own_keys": dict(own_keys.most_common(10)),
    }


RESERVED_NAMES = "alias_names"
"""A probe set, not a tool family: the familiar ``path`` family's held-out episodes renamed to the
reserved family's tool names and keys (``read_file(file_path)`` to ``cat(doc)``), descriptions,
declaration order and everything else kept. Against ``alias`` (which also rewrites every
description) it tells apart failing on the reserved names from failing on its descriptions."""


def reserved_names(episode: Episode) -> Episode:
    """``episode`` (a ``path``-family one) with the reserved family's names: each tool renamed to the
    reserved tool of the same operation, each key to the key carrying the same role there."""
    familiar, reserved = manifest("path"), manifest("alias")
    twins = {tool.op: tool for tool in reserved.tools}
    tools: dict[str, str] = {}
    keys: dict[str, str] = {}
    for tool in familiar.tools:
        twin = twins[tool.op]
        tools[tool.name] = twin.name
        keys |= {key: twin.keys[role] for role, key in tool.keys.items() if role in twin.keys}
    renamed = copy.deepcopy(episode)
    rename_to(renamed, tools, keys)
    return renamed


MOVED_CALLED = "alias_moved"
"""A probe set: the reserved ``alias`` family's held-out episodes with the called tool declared at
each place but the second in turn (:data:`MOVED_PLACES`). Every trained family declares its read
tool second, and so did every renamed training copy before ``--reorder``: a model could pick "the
second name" without reading a description. (The reserved family itself now declares ``cat``
third; these places are absolute, so results from before that change compare.)"""

MOVED_PLACES = (2, 3, 4, 0)
"""Where :func:`moved_called_tool` declares the called tool, item by item: every place but the
second."""


def moved_called_tool(episode: Episode, item: int) -> Episode:
    """``episode`` with its first call's tool declared at place ``MOVED_PLACES[item % 4]``, the
    others keeping their order."""
    called = next(call.name for event in episode.events for call in event.tool_calls)
    moved = copy.deepcopy(episode)
    tool = next(tool for tool in moved.tools if tool.name == called)
    moved.tools.remove(tool)
    moved.tools.insert(MOVED_PLACES[item % len(MOVED_PLACES)], tool)
    return moved


PROBE_SETS: dict[str, tuple[str, Callable[[Episode, int], Episode]]] = {
    RESERVED_NAMES: ("path", lambda episode, _: reserved_names(episode)),
    MOVED_CALLED: ("alias", moved_called_tool),
}
"""Probe sets beyond the tool families: the family whose episodes they transform, and how."""


def held_out_inputs(tool_family: str, items: int, kinds: tuple[str, ...], seed: int) -> list[EpisodeInput]:
    """The scripted expert's episodes on ``items`` held-out tasks in ``tool_family`` (or a
    :data:`PROBE_SETS` set)."""
    family, transform = PROBE_SETS.get(tool_family, (tool_family, None))
    fixtures = [
        learnable_fixture(HELD_OUT_FAMILY, task, family, seed) for task in task_numbers(0, items, kinds)
    ]
    inputs = expert_corpus(fixtures, seed=seed)
    if transform is None:
        return inputs
    return [
        dataclasses.replace(item, episode=transform(item.episode, index)) for index, item in enumerate(inputs)
    ]


def held_out_rows(
    tool_family: str, items: int, kinds: tuple[str, ...], seed: int, tokenizer: Any
) -> list[list[int]]:
    """:func:`held_out_inputs` rendered and tokenized as the dataset stage renders training data
    (full tool schemas)."""
    table = to_table(build_masked_dataset(held_out_inputs(tool_family, items, kinds, seed), tokenizer))
    return table.column("input_ids").to_pylist()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("checkpoints", type=Path, nargs="+", help="local causal-LM directories")
    parser.add_argument("--items", type=int, default=12, help="held-out tasks per tool family")
    parser.add_argument("--kinds", nargs="+", default=["report_value"])
    parser.add_argument(
        "--families",
        nargs="+",
        default=["path", "uri", "alias"],
        help=f"tool families, or {RESERVED_NAMES} (path tasks renamed to alias's names) or "
        f"{MOVED_CALLED} (alias with the called tool declared elsewhere)",
    )
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    results = []
    for checkpoint in args.checkpoints:
        tokenizer = load_tokenizer(checkpoint)
        model = load_model(checkpoint)
        for family in args.families:
            rows = held_out_rows(family, args.items, tuple(args.kinds), args.seed, tokenizer)
            row = {"checkpoint": str(checkpoint), "tool_family": family, **probe(model, rows, tokenizer)}
            print(
                f"{checkpoint.name} {family}: tool name {row['tool_name']}/{row['items']}, "
                f"first key {row['first_key']}/{row['items']}, "
                f"first-token probability {row['p_tool_name']} / {row['p_first_key']}, "
                f"first name token {row['first_name_token']}; own first key declared "
                f"{row['key_declared']}/{row['items']}, recalled {row['key_recalled']}/{row['items']} "
                f"({row['own_keys']})"
            )
            results.append(row)
    print(json.dumps({"probe": results}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
