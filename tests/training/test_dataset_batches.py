"""The dataset stage masks the mixture ``batch_rows`` episodes at a time and writes the same table
and manifest whatever the batch size: the same rows, in the same order, as masking every episode at
once (:func:`build_masked_dataset` + :func:`to_table`, the whole-corpus path)."""

from __future__ import annotations

import io
import random
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from trajectory_platform.evaluation.run import training_keys
from trajectory_platform.traces.record import Episode, Event, ToolCall, ToolSpec, canonical_json
from trajectory_platform.traces.schema import EPISODE_SCHEMA, episode_row
from trajectory_platform.training.data.dataset_stage import run_dataset_stage
from trajectory_platform.training.data.mask_settings import Augmentation
from trajectory_platform.training.data.masked_dataset import (
    build_masked_dataset,
    episode_order,
    inputs_from_table,
    to_table,
)
from trajectory_platform.training.data.tokenizer import load_tokenizer

SCHEMA = {"properties": {"file_path": {"type": "string"}}, "required": ["file_path"], "type": "object"}


def _episode(episode_id: str, rng: random.Random) -> Episode:
    """A read-then-answer episode whose file, value and length vary with ``rng``; every fifth one
    has no assistant turn (an episode drop) so the counters cross batches too."""
    name, value = f"mod{rng.randrange(100)}.py", str(rng.randrange(10_000))
    events = [Event("user", f"What is WIDTH in {name}?")]
    if rng.random() > 0.2:
        for step in range(rng.randrange(1, 4)):
            call = ToolCall(f"c{step}", "read_file", canonical_json({"file_path": name}))
            events += [
                Event("assistant", f"reading {name}", tool_calls=[call]),
                Event("tool", f"WIDTH = {value}\n" * (step + 1), tool_call_id=call.id, status="ok"),
            ]
        events.append(Event("assistant", value))
    return Episode(
        episode_id=episode_id,
        source_format="native",
        source_file="t.jsonl",
        source_line=1,
        source_path=None,
        partition_date=None,
        tools=[ToolSpec("read_file", "Read a file.", canonical_json(SCHEMA))],
        events=events,
    )


def _mixture(rows: int = 16) -> pa.Table:
    """Rows out of episode-id order (the stage must restore it across batches)."""
    rng = random.Random(5)
    ids = [f"ep-{i:03d}" for i in range(rows)]
    rng.shuffle(ids)
    fields = [*EPISODE_SCHEMA, pa.field("role", pa.string()), pa.field("split", pa.string())]
    return pa.Table.from_pylist(
        [
            {
                **episode_row(_episode(i, rng)),
                "role": "pristine",
                "split": rng.choice(["train", "validation"]),
            }
            for i in ids
        ],
        schema=pa.schema(fields),
    )


def _parquet_bytes(table: pa.Table) -> bytes:
    sink = io.BytesIO()
    pq.write_table(table, sink)
    return sink.getvalue()


@pytest.fixture(scope="module")
def tokenizer_path(default_tokenizer: Path) -> Path:
    return default_tokenizer


def test_small_batches_give_the_whole_corpus_table_and_manifest(tokenizer_path: Path) -> None:
    mixture = _mixture()
    whole = to_table(build_masked_dataset(inputs_from_table(mixture), load_tokenizer(tokenizer_path)))
    stages = {rows: run_dataset_stage(mixture, tokenizer_path, batch_rows=rows) for rows in (1, 10_000)}
    listed = run_dataset_stage(inputs_from_table(mixture), tokenizer_path, batch_rows=3)
    assert whole.num_rows > 8 and whole.column("episode_id").to_pylist() == sorted(
        whole["episode_id"].to_pylist()
    )
    for stage in (*stages.values(), listed):
        assert _parquet_bytes(stage.table) == _parquet_bytes(whole)
        assert stage.manifest == stages[10_000].manifest
        assert stage.audit == stages[10_000].audit
        assert stage.sample == stages[10_000].sample
    assert stages[1].manifest["counts"]["episodes_without_examples"] > 0  # drops crossed batches


def test_augmented_batches_match_the_whole_batch(tokenizer_path: Path) -> None:
    mixture = _mixture(9)
    twice = Augmentation(("rename",), seed=3, copies=2)
    small, large = (
        run_dataset_stage(mixture, tokenizer_path, augmentation=twice, batch_rows=rows)
        for rows in (2, 10_000)
    )
    declared = small.manifest["augmentation"]
    assert declared["copies"] == 2 and declared["derived"] > 0
    assert declared["derived"] + sum(declared["skips"].values()) == 2 * declared["parents"]
    assert _parquet_bytes(small.table) == _parquet_bytes(large.table)
    assert small.manifest == large.manifest
    # PRE's training key set holds the renamed schemas' keys beside the recorded one: a renamed key
    # recalled on a schema that lacks it is recall too
    keys = small.manifest["tool_argument_keys"]
    assert "file_path" in keys and len(keys) > 1 and keys == sorted(keys)
    plain = run_dataset_stage(mixture, tokenizer_path).manifest["tool_argument_keys"]
    assert plain == ["file_path"]
    declared, source = training_keys({"corpus": {"dataset_manifest": small.manifest}}, ("alias",))
    assert declared == set(keys) and source == "dataset manifest tool_argument_keys"


def test_episode_order_sorts_stably_and_never_splits_an_episode_id() -> None:
    ids = ["c", "a", "b", "a", "a", "d"]
    assert episode_order(ids, 2) == [[1, 3, 4], [2, 0], [5]]
    assert [i for batch in episode_order(ids, 1) for i in batch] == [1, 3, 4, 2, 0, 5]
    with pytest.raises(ValueError, match="batch_rows must be at least 1"):
        episode_order(ids, 0)
