"""Episodes (with curation's labels) -> verified, token-masked examples: the dataset stage's one call.

Input rows are native episodes, optionally carrying curation's ``target_turns`` (event indices
selected as targets), ``split`` and ``role``. Every input is accounted for: each episode yields
examples or a counted reason (``no_invocation``; ``embedded_json_unreadable`` when a tool schema
or a delivered-input manifest is not valid JSON), and each example is kept or dropped with a
counted reason (see :mod:`trajectory_platform.training.data.masking`). Derived examples keep their
episode's split.
"""

from __future__ import annotations

import hashlib
import json
import sys
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
from tqdm import tqdm
from transformers import PreTrainedTokenizerBase

from trajectory_platform.traces.drops import Drop, Tally
from trajectory_platform.traces.record import Episode, canonical_json
from trajectory_platform.traces.schema import EPISODE_SCHEMA
from trajectory_platform.training.data.dataset import TEST_SPLITS
from trajectory_platform.training.data.mask_settings import MaskConfig
from trajectory_platform.training.data.masking import MaskedExample, MaskResult, mask_plans
from trajectory_platform.training.data.serialize import (
    argument_keys,
    plan_examples,
    select_targets,
    transcript_tokens,
)
from trajectory_platform.training.data.tokenizer import load_tokenizer, token_counter
from trajectory_platform.workdir import default_workdir

MASKED_SCHEMA = pa.schema(
    [
        pa.field("example_id", pa.string(), nullable=False),
        pa.field("episode_id", pa.string(), nullable=False),
        ("split", pa.string()),
        ("role", pa.string()),
        ("target_policy", pa.string()),
        ("per_invocation", pa.bool_()),
        ("input_ids", pa.list_(pa.int32())),
        ("labels", pa.list_(pa.int32())),
        ("n_tokens", pa.int64()),
        ("n_targets", pa.int64()),
        ("observation_tokens", pa.int64()),
        ("invocations", pa.list_(pa.int32())),
        ("spans_json", pa.string()),
    ]
)
"""One row per example. ``labels`` follow the HF convention (aligned, -100 = no loss)."""


@dataclass
class EpisodeInput:
    """One episode and the labels curation attached (``None`` = not provided)."""

    episode: Episode
    target_turns: list[int] | None = None
    split: str | None = None
    role: str | None = None


@dataclass
class MaskedDataset:
    """The masked examples plus everything the manifest and the checks report."""

    result: MaskResult
    example_labels: dict[str, dict[str, object]] = field(default_factory=dict)
    episodes_in: int = 0
    episode_drops: Counter[str] = field(default_factory=Counter)
    first_episode_drops: dict[str, Drop] = field(default_factory=dict)
    target_policies: Counter = field(default_factory=Counter)
    per_invocation_episodes: int = 0
    transcript_tokens: int = 0
    corpus_digest: str = ""
    tool_argument_keys: set[str] = field(default_factory=set)
    """Every argument key of a tool schema in an episode with a kept example outside the test split
    (derived schemas included): the training key set parametric recall error (PRE) is measured
    against, declared in the manifest."""

    @property
    def expansion_factor(self) -> float:
        """Stored tokens / tokens of one transcript per episode (1.0 without per-invocation splits)."""
        return self.result.stats.stored_tokens / self.transcript_tokens if self.transcript_tokens else 1.0

    def counts(self) -> dict[str, int]:
        return {
            "episodes_in": self.episodes_in,
            "episodes_without_examples": sum(self.episode_drops.values()),
            "examples_out": self.result.stats.examples,
            "examples_dropped": sum(self.result.drops.values()),
            "per_invocation_episodes": self.per_invocation_episodes,
        }

    def tally(self) -> Tally:
        """Examples out (kept), and by reason the examples dropped and the episodes that gave none."""
        dropped = self.result.drops + self.episode_drops
        kept = self.result.stats.examples
        return Tally(kept + sum(dropped.values()), kept, dropped)

    def drop_reasons(self) -> dict[str, int]:
        merged = self.result.drops + self.episode_drops
        return dict(sorted(merged.items(), key=lambda kv: (-kv[1], kv[0])))

    def drop_episode(self, drop: Drop) -> None:
        """An episode that yields no example: counted under its reason; the first one with a detail
        is the reason's example."""
        self.episode_drops[drop.reason] += 1
        if drop.detail:
            self.first_episode_drops.setdefault(drop.reason, drop)

    def drop_examples(self) -> dict[str, str]:
        """Reason -> the first detail (episodes that gave no example, then dropped examples), sorted."""
        details = {reason: drop.detail for reason, drop in self.first_episode_drops.items()}
        return dict(sorted((details | self.result.drop_details).items()))


def inputs_from_table(table: pa.Table) -> list[EpisodeInput]:
    """Rows of an episode table (``EPISODE_SCHEMA`` columns plus optional label columns)."""
    inputs = []
    for row in table.to_pylist():
        episode = Episode.from_dict({name: row.get(name) for name in EPISODE_SCHEMA.names})
        turns = row.get("target_turns")
        inputs.append(
            EpisodeInput(
                episode, None if turns is None else [int(t) for t in turns], row.get("split"), row.get("role")
            )
        )
    return inputs


def read_inputs(path: str | Path) -> tuple[list[EpisodeInput], dict[str, int]]:
    """Read native/OpenAI JSONL (through the trace adapters) or a Parquet episode table.

    Returns the inputs and the reader's reject counts by reason (records that could not be read).
    """
    path = Path(path)
    if path.suffix == ".parquet":
        return inputs_from_table(pq.read_table(path)), {}
    from trajectory_platform.traces.ingest import ingest_paths

    result = ingest_paths([path])
    for reject in result.rejects:
        print(f"{reject.source_file}:{reject.source_line}: {reject.reason}: {reject.detail}", file=sys.stderr)
    return [EpisodeInput(e) for e in result.episodes], result.reject_reasons()


def corpus_digest(inputs: Iterable[EpisodeInput]) -> str:
    """sha256 over the inputs (episode content and labels): the corpus version a manifest names.
    Read once, in order, so a stream of batches digests the same as the whole list."""
    digest = hashlib.sha256()
    for item in inputs:
        payload = {
            "episode": item.episode.to_dict(),
            "target_turns": item.target_turns,
            "split": item.split,
            "role": item.role,
        }
        digest.update(canonical_json(payload).encode("utf-8") + b"\n")
    return digest.hexdigest()


def build_masked_dataset(
    inputs: Sequence[EpisodeInput],
    tokenizer: PreTrainedTokenizerBase,
    config: MaskConfig | None = None,
    *,
    progress: bool = False,
) -> MaskedDataset:
    """Serialize, mask and verify every input episode (see the module docstring)."""
    config = config or MaskConfig()
    dataset = MaskedDataset(result=MaskResult(), episodes_in=len(inputs), corpus_digest=corpus_digest(inputs))
    for item in tqdm(inputs, desc="mask", unit="episode", disable=not progress, file=sys.stderr):
        mask_input(dataset, item, tokenizer, config)
    return dataset


def mask_input(
    dataset: MaskedDataset, item: EpisodeInput, tokenizer: PreTrainedTokenizerBase, config: MaskConfig
) -> None:
    """One input's examples into ``dataset`` (kept, with their labels) or its counted drop."""
    episode = item.episode
    if not any(e.kind == "assistant" for e in episode.events):
        dataset.drop_episode(Drop("no_invocation"))
        return
    selection = select_targets(episode, item.target_turns)
    dataset.target_policies[selection.policy] += 1
    try:
        plans = plan_examples(episode, selection, config.rationale)
    except json.JSONDecodeError as exc:  # a tool schema or delivered manifest that is not JSON
        dataset.drop_episode(Drop("embedded_json_unreadable", f"{episode.episode_id}: {exc}"))
        return
    before = len(dataset.result.examples)
    mask_plans(plans, tokenizer, config, dataset.result)
    kept = dataset.result.examples[before:]
    if len(plans) > 1:
        dataset.per_invocation_episodes += 1
        dataset.transcript_tokens += transcript_tokens(episode, tokenizer, config.rationale)
    else:
        dataset.transcript_tokens += sum(e.n_tokens for e in kept)
    if kept and (item.split or "").lower() not in TEST_SPLITS:
        dataset.tool_argument_keys.update(argument_keys(episode))
    for example in kept:
        dataset.example_labels[example.example_id] = {
            "split": item.split,
            "role": item.role,
            "target_policy": selection.policy,
            "per_invocation": len(plans) > 1,
        }


def target_token_counter(
    tokenizer: PreTrainedTokenizerBase, config: MaskConfig | None = None
) -> Callable[[Episode, Sequence[int]], int]:
    """Selected target tokens of an episode's given turns, counted exactly as
    :func:`build_masked_dataset` labels them (rendered, masked, verified): the measure the
    mixture composes in, so ``training_mixture`` and ``token_masked_dataset`` agree. An episode
    that would yield no example counts 0."""
    config = config or MaskConfig()

    def count(episode: Episode, turns: Sequence[int]) -> int:
        if not any(e.kind == "assistant" for e in episode.events):
            return 0
        try:
            plans = plan_examples(episode, select_targets(episode, turns), config.rationale)
        except json.JSONDecodeError:
            return 0
        return sum(e.n_targets for e in mask_plans(plans, tokenizer, config).examples)

    return count


def load_target_counter(
    path: str | None = None, *, workdir: str | Path | None = None
) -> tuple[Callable[[Episode, Sequence[int]], int], str]:
    """:func:`target_token_counter` under a tokenizer directory (``None``: the embedded default,
    under ``workdir`` or the default workdir) and its measure name: what the mixture stages
    compose in."""
    tokenizer = load_tokenizer(path, workdir=workdir or default_workdir())
    return target_token_counter(tokenizer), f"dataset_targets:{token_counter(tokenizer)[1]}"


def to_table(dataset: MaskedDataset) -> pa.Table:
    """The ``MASKED_SCHEMA`` table, ordered by episode then example index (deterministic)."""

    def order(example: MaskedExample) -> tuple[str, int]:
        return (example.episode_id, int(example.example_id.rsplit("#", 1)[1]))

    rows = []
    for example in sorted(dataset.result.examples, key=order):
        labels = dataset.example_labels[example.example_id]
        rows.append(
            {
                "example_id": example.example_id,
                "episode_id": example.episode_id,
                "split": labels["split"],
                "role": labels["role"],
                "target_policy": labels["target_policy"],
                "per_invocation": labels["per_invocation"],
                "input_ids": example.input_ids,
                "labels": example.labels,
                "n_tokens": example.n_tokens,
                "n_targets": example.n_targets,
                "observation_tokens": example.observation_tokens,
                "invocations": example.invocations,
                "spans_json": json.dumps(example.spans_as_dicts(), separators=(",", ":")),
            }
        )
    return pa.Table.from_pylist(rows, schema=MASKED_SCHEMA)


def table_input_batches(table: pa.Table, batches: Iterable[Sequence[int]]) -> Iterator[list[EpisodeInput]]:
    """``table``'s rows as inputs, one batch of row indices at a time: only one batch of rows is
    ever Python objects."""
    for batch in batches:
        yield inputs_from_table(table.take(pa.array(list(batch), pa.int64())))


def row_batches(rows: int, batch_rows: int) -> list[range]:
    """Row indices ``0..rows`` in order, cut every ``batch_rows``."""
    if batch_rows < 1:
        raise ValueError(f"batch_rows must be at least 1, got {batch_rows}")
    return [range(start, min(rows, start + batch_rows)) for start in range(0, rows, batch_rows)]


def episode_order(episode_ids: Sequence[str], batch_rows: int) -> list[list[int]]:
    """Row indices grouped into batches of about ``batch_rows``, in (stable) episode-id order, a
    batch never splitting one episode id: masking batch after batch then yields rows in
    :func:`to_table`'s global order (episode, then example index)."""
    if batch_rows < 1:
        raise ValueError(f"batch_rows must be at least 1, got {batch_rows}")
    order = sorted(range(len(episode_ids)), key=episode_ids.__getitem__)
    batches: list[list[int]] = []
    for index in order:
        if batches and (len(batches[-1]) < batch_rows or episode_ids[batches[-1][-1]] == episode_ids[index]):
            batches[-1].append(index)
        else:
            batches.append([index])
    return batches


def mask_batches(
    batches: Iterable[Sequence[EpisodeInput]],
    dataset: MaskedDataset,
    tokenizer: PreTrainedTokenizerBase,
    config: MaskConfig,
    *,
    progress: bool = False,
) -> Iterator[pa.Table]:
    """Mask each batch into ``dataset``'s counters and yield its ``MASKED_SCHEMA`` rows; the batch's
    examples are then released, so memory holds one batch of rendered examples, not the corpus.
    Batches in :func:`episode_order` give, concatenated, the rows :func:`to_table` would."""
    with tqdm(
        total=dataset.episodes_in, desc="mask", unit="episode", disable=not progress, file=sys.stderr
    ) as bar:
        for batch in batches:
            for item in batch:
                mask_input(dataset, item, tokenizer, config)
            yield to_table(dataset)
            dataset.result.examples.clear()
            dataset.example_labels.clear()
            bar.update(len(batch))
