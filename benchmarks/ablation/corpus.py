"""What the ablation variants train on: the learnable family's split, the scripted expert's
episodes, the compact tool view and the masked tables.

- :func:`learnable_split`: three learnable repository families train (in the familiar tool
  families ``path``, ``uri``, ``fs``), the fourth is held out and evaluated in every tool family,
  the fully renamed ``alias`` family being the renamed-schema regime.
- :func:`training_fixtures`: as many distinct generated tasks of the training families as a run
  needs (ids past the library's, so never an evaluation task): the learning curve's data, and the
  full ablation's, since the library's few hundred tasks are too few for the default to learn.
- :func:`expert_corpus`, :func:`masked_table`, :func:`expert_table` (cached): a training variant
  is a corpus (pristine, optionally recovery episodes under reachable faults, optionally
  schema-augmented); the all-token variants weight the same table's positions differently
  (:mod:`.run`).
- :func:`compact_tool`: the ablations' tool rendering. The delivered tool schemas were 70% of a
  learnable-family example (438 of ~620 tokens); every variant trains on, and the model policy is
  evaluated with, the same compact view, so the comparisons are unchanged while a step costs less.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import random
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from trajectory_platform.gym.fixtures import Fixture
from trajectory_platform.gym.library import (
    LEARN_KINDS,
    LEARN_TASKS_PER_FAMILY,
    LEARNABLE_FAMILIES,
    build_library,
    learnable_fixture,
)
from trajectory_platform.gym.policies import ScriptedExpert
from trajectory_platform.gym.reachability import reachable_schedule
from trajectory_platform.gym.runtime import run_episode
from trajectory_platform.gym.tools import TOOL_FAMILIES
from trajectory_platform.traces.record import ToolSpec, canonical_json
from trajectory_platform.training.data.augment import augment_inputs
from trajectory_platform.training.data.mask_settings import Augmentation
from trajectory_platform.training.data.masked_dataset import EpisodeInput, build_masked_dataset, to_table
from trajectory_platform.training.data.tokenizer import load_tokenizer, tokenizer_files_digest

HELD_OUT_FAMILY = LEARNABLE_FAMILIES[-1]
TRAIN_FAMILIES = LEARNABLE_FAMILIES[:-1]
TRAIN_TOOL_FAMILIES = ("path", "uri", "fs")
TRAINING_FAULT_KINDS = ("http_429", "http_504", "missing_file", "truncated_output")
"""Fault kinds the recovery-augmented corpus shows; every other kind is absent from training."""


def learnable_split(library_seed: int = 0) -> tuple[list[Fixture], list[tuple[Fixture, str]]]:
    """(training fixtures, held-out evaluation pool with regimes) of the learnable family."""
    learnable = [f for f in build_library(library_seed) if f.learnable]
    train = [
        f for f in learnable if f.repo_family != HELD_OUT_FAMILY and f.tool_family in TRAIN_TOOL_FAMILIES
    ]
    pool = [(f, regime_of(f)) for f in learnable if f.repo_family == HELD_OUT_FAMILY]
    return train, pool


RENAMED_TOOL_FAMILIES = tuple(f for f in TOOL_FAMILIES if f not in TRAIN_TOOL_FAMILIES)
"""Tool families training never shows (the reserved ``alias``): the renamed-schema regime."""


def regime_of(fixture: Fixture) -> str:
    """``familiar`` in a tool family training shows, ``renamed`` otherwise."""
    return "familiar" if fixture.tool_family in TRAIN_TOOL_FAMILIES else "renamed"


KEYS_METADATA = b"tool_argument_keys"
"""Schema metadata of a variant's table: the argument keys its training data declares (JSON list)."""


def declared_keys(table: pa.Table) -> set[str]:
    """The PRE key set of a variant: every argument key its own training examples declare, the
    renamed copies' drawn names included (the same set ``make run``'s dataset manifest declares as
    ``tool_argument_keys``), so a variant that learned invented names is charged for recalling them."""
    metadata = table.schema.metadata or {}
    if KEYS_METADATA not in metadata:
        raise ValueError("the table does not declare its tool argument keys (built by masked_table)")
    return set(json.loads(metadata[KEYS_METADATA]))


def task_numbers(first: int, count: int, kinds: tuple[str, ...]) -> list[int]:
    """The first ``count`` task numbers from ``first`` whose kind (``LEARN_KINDS[task % 14]``) is
    one of ``kinds``: training on the shortest kind alone is one of the curve's levers."""
    numbers: list[int] = []
    task = first
    while len(numbers) < count:
        if LEARN_KINDS[task % len(LEARN_KINDS)] in kinds:
            numbers.append(task)
        task += 1
    return numbers


def training_fixtures(tasks: int, seed: int, kinds: tuple[str, ...]) -> list[Fixture]:
    """``tasks`` distinct generated tasks of ``kinds``, dealt round-robin over the training families
    and the familiar tool families (each task drawn once, in one tool family: no repeated content)."""
    numbers = task_numbers(LEARN_TASKS_PER_FAMILY, -(-tasks // len(TRAIN_FAMILIES)), kinds)
    fixtures = []
    for k in range(tasks):
        family = TRAIN_FAMILIES[k % len(TRAIN_FAMILIES)]
        index = k // len(TRAIN_FAMILIES)
        tool_family = TRAIN_TOOL_FAMILIES[index % len(TRAIN_TOOL_FAMILIES)]
        fixtures.append(learnable_fixture(family, numbers[index], tool_family, seed))
    return fixtures


def expert_corpus(
    fixtures: Sequence[Fixture],
    *,
    seed: int = 0,
    recovery_share: float = 0.0,
    fault_kinds: Sequence[str] = TRAINING_FAULT_KINDS,
) -> list[EpisodeInput]:
    """Scripted-expert episodes on ``fixtures``; a ``recovery_share`` of them under a reachable fault.

    The fault-injected ones carry the expert's recovery (diagnose / retry / re-read) as targets;
    refused proposals stay context through the default target rule.
    """
    rng = random.Random(f"corpus:{seed}")
    inputs = []
    for index, fixture in enumerate(fixtures):
        schedule = None
        if rng.random() < recovery_share:
            schedule = reachable_schedule(fixture, rng, kinds=list(fault_kinds))
        result = run_episode(
            fixture,
            ScriptedExpert(),
            seed=seed,
            faults=schedule or [],
            episode_id=f"train-{seed}-{index:04d}",
            verify=False,
        )
        inputs.append(
            EpisodeInput(result.episode, split="train", role="recovery" if schedule else "pristine")
        )
    return inputs


def compact_tool(spec: ToolSpec) -> ToolSpec:
    """``spec`` as the ablation models see it: tool name and description, each argument's key,
    type and bounds, and the required keys; argument descriptions and the constant
    ``"type": "object"`` / ``"additionalProperties": false`` wrapper are dropped.

    The runtime still validates every call against the full delivered schema: only the text the
    model reads is shorter (276 instead of 434 tokens for the ``path`` family).
    """
    schema = json.loads(spec.parameters_json) if spec.parameters_json else {}
    properties = {
        key: {field: value for field, value in prop.items() if field != "description"}
        for key, prop in schema.get("properties", {}).items()
    }
    compact = {"properties": properties, "required": schema.get("required", [])}
    return dataclasses.replace(spec, parameters_json=canonical_json(compact))


def _with_compact_tools(item: EpisodeInput) -> EpisodeInput:
    episode = dataclasses.replace(item.episode, tools=[compact_tool(t) for t in item.episode.tools])
    return dataclasses.replace(item, episode=episode)


def masked_table(
    inputs: Sequence[EpisodeInput], tokenizer: Any, *, augment: bool = False, seed: int = 0
) -> pa.Table:
    """Serialize and mask ``inputs`` (plus renamed-schema copies when ``augment``), tools rendered
    through :func:`compact_tool` (after augmentation, so renamed copies are compacted alike); the
    table declares its argument keys (:func:`declared_keys`)."""
    if augment:
        inputs, _ = augment_inputs(list(inputs), Augmentation(("rename",), seed))
    dataset = build_masked_dataset([_with_compact_tools(i) for i in inputs], tokenizer)
    keys = json.dumps(sorted(dataset.tool_argument_keys)).encode()
    return to_table(dataset).replace_schema_metadata({KEYS_METADATA: keys})


def mean_tokens(table: pa.Table) -> float:
    """Mean stored tokens per example (what a step's cost scales with)."""
    lengths = [len(ids) for ids in table.column("input_ids").to_pylist()]
    return sum(lengths) / len(lengths)


TABLE_FORMAT = 2
"""Version of a cached table's layout (2: it declares its argument keys); part of the cache key."""


def expert_table(
    workdir: Path,
    base: Path,
    fixtures: Sequence[Fixture],
    seed: int,
    *,
    recovery_share: float = 0.0,
    augment: bool = False,
) -> pa.Table:
    """:func:`masked_table` of :func:`expert_corpus` on ``fixtures``, cached as Parquet in ``workdir``
    per tokenizer, fixtures and options: generating thousands of tasks runs every ``fix_constant``
    task's tests in the sandbox (minutes), and every variant and seed reads the same table."""
    key = json.dumps(
        [
            TABLE_FORMAT,
            tokenizer_files_digest(base),
            [f.fixture_id for f in fixtures],
            seed,
            recovery_share,
            augment,
        ]
    )
    cache = workdir / f"expert-corpus-{len(fixtures)}-{hashlib.sha256(key.encode()).hexdigest()[:16]}.parquet"
    if cache.exists():
        return pq.read_table(cache)
    corpus = expert_corpus(fixtures, seed=seed, recovery_share=recovery_share)
    table = masked_table(corpus, load_tokenizer(base), augment=augment, seed=seed)
    pq.write_table(table, cache)
    return table
