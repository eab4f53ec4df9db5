"""The split / mixture / pairs stage in bounded batches: the same bytes for any batch size.

The stage reads the corpus ``batch_rows`` rows at a time and keeps compact keys per episode
(:class:`~trajectory_platform.curation.candidates.EpisodeKeys`, pair profiles), reading back only
the rows its outputs carry whole. Batch 1 from the Parquet file, a few rows, and the whole table as
one batch must give byte-identical tables, and the combined stage (one conversion per row) must
equal the three stages run one by one.
"""

from __future__ import annotations

import dataclasses
import json

import pyarrow as pa
import pytest
from splits_mixture_factory import gym_corpus

from trajectory_platform.curation.candidates import EpisodeKeys
from trajectory_platform.curation.mixture import TOKEN_MEASURE, count_tokens
from trajectory_platform.curation.split_mixture_stage import (
    CurationResult,
    MixtureSettings,
    SplitSettings,
    curation_stage,
    mixture_stage,
    preference_stage,
    scan_corpus,
    split_stage,
)
from trajectory_platform.gym.library import build_library
from trajectory_platform.traces.parquet import write_parquet

WHOLE = 10**9
SPLIT = SplitSettings(pinned=())
MIXTURE = MixtureSettings(token_measure="word_pieces")
COUNTERS = (count_tokens, None, TOKEN_MEASURE)


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    """A gym corpus with a derived record (inherits its parent's split), written as Parquet."""
    library = build_library(0)
    table, _ = gym_corpus(library[::4])
    rows = table.to_pylist()
    derived = {
        **rows[0],
        "episode_id": "zz-derived",
        "extra_json": json.dumps({"parent_episode_id": rows[0]["episode_id"]}),
    }
    table = pa.concat_tables([table, pa.Table.from_pylist([derived], schema=table.schema)])
    path = tmp_path_factory.mktemp("corpus") / "corpus.parquet"
    write_parquet(table, path)
    return library, table, path


def _stage(library, corpus, batch_rows: int) -> CurationResult:
    split = dataclasses.replace(SPLIT, batch_rows=batch_rows)
    return curation_stage(corpus, library, split, MIXTURE, COUNTERS)


def _bytes(result: CurationResult, folder) -> list[bytes]:
    tables = {"split": result.split.table, "mixture": result.mixture.table, "pairs": result.pairs.table}
    for name, table in tables.items():
        write_parquet(table, folder / f"{name}.parquet")
    return [(folder / f"{name}.parquet").read_bytes() for name in tables]


def test_any_batch_size_writes_the_same_bytes_as_one_batch(corpus, tmp_path):
    library, table, path = corpus
    whole = _stage(library, table, WHOLE)
    assert whole.mixture.table.num_rows and whole.pairs.table.num_rows  # the outputs carry rows
    expected = _bytes(whole, tmp_path / "whole")
    for batch_rows in (1, 7):
        batched = _stage(library, path, batch_rows)
        assert _bytes(batched, tmp_path / f"b{batch_rows}") == expected, batch_rows
        assert batched.split.summary == whole.split.summary
        assert batched.mixture.summary == whole.mixture.summary
        assert batched.pairs.summary == whole.pairs.summary


def test_one_conversion_gives_the_three_stages_tables(corpus):
    library, table, path = corpus
    combined = _stage(library, path, 5)
    split = split_stage(table, library, SPLIT.policy(), SPLIT.decontamination(), batch_rows=3)
    mixture = mixture_stage(
        path, split.table, MIXTURE.policy(), anchor_sources=frozenset(MIXTURE.anchor_sources)
    )
    pairs = preference_stage(
        table, split.table, MIXTURE.policy(), anchor_sources=frozenset(MIXTURE.anchor_sources)
    )
    assert combined.split.table.equals(split.table)
    assert combined.mixture.table.equals(mixture.table)
    assert combined.pairs.table.equals(pairs.table)
    derived = next(r for r in split.table.to_pylist() if r["episode_id"] == "zz-derived")
    assert derived["reason"].startswith("derived from ")


def test_the_scan_keeps_keys_not_episodes(corpus):
    _, table, path = corpus
    scan = scan_corpus(path, 4, counter=count_tokens, pairs=True)
    assert len(scan.keys) == table.num_rows
    assert all(type(k) is EpisodeKeys and not hasattr(k, "episode") for k in scan.keys)
    measured = [k for k in scan.keys if k.tokens is not None]
    assert measured and all(k.trainable_license for k in measured)
    assert set(scan.profiles) <= {k.episode_id for k in scan.keys if k.passed is not None}


def test_batch_rows_is_a_whole_number_of_at_least_one():
    for bad in (0, -1, True, 2.5):
        with pytest.raises(ValueError, match="batch_rows"):
            SplitSettings(batch_rows=bad)


def test_the_days_files_in_order_give_the_bytes_of_their_concatenated_table(corpus, tmp_path):
    """What the split assets read: ``redacted_corpus``'s daily files (the warehouse's layout), one
    of them without the optional ``license_action`` column, read a batch at a time in day order."""
    library, table, _ = corpus
    table = table.append_column("license_action", pa.array(["keep"] * table.num_rows, pa.string()))
    cut = table.num_rows // 3
    days = [table.slice(0, cut).drop_columns(["license_action"]), table.slice(cut)]
    files = [tmp_path / "2026-11-01.parquet", tmp_path / "2026-11-02.parquet"]
    for day, path in zip(days, files, strict=True):
        write_parquet(day, path)
    whole = pa.concat_tables(days, promote_options="permissive")  # how the IO manager loaded them
    assert _bytes(_stage(library, files, 4), tmp_path / "files") == _bytes(
        _stage(library, whole, WHOLE), tmp_path / "whole"
    )
