"""Verification in bounded batches stores what one batch stores, for any batch size.

The episodes reach every sink, including an episode whose own runs agree on a fixture calibration
found flaky: it moves to flaky quarantine after the last batch and is judged again (triaged) in
the last pass; and the advisory ranking spans batches. The ``verified_traces`` asset's path
(``verify_files``: a day's Parquet files in, the verified file written batch by batch) writes the
bytes of the whole run held in memory, whatever the input's row order and files.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest
from _verify_factory import fixed_files, make_episode, pristine_turns
from test_verify_cascade import scheduled_flake
from test_verify_pool import QUIET, every_sink

from trajectory_platform.curation.verify.cascade import (
    CascadeResult,
    VerifySettings,
    parquet_batches,
    verify_batches,
    verify_episodes,
)
from trajectory_platform.curation.verify.tables import (
    VERIFIED_SCHEMA,
    VerdictsFile,
    episodes_by_id,
    verdicts_table,
    verified_batch,
    verified_table,
    verify_files,
    verify_table,
)
from trajectory_platform.curation.verify.verdicts import EpisodeVerdict
from trajectory_platform.traces.parquet import ParquetAppender, write_parquet
from trajectory_platform.traces.record import Episode
from trajectory_platform.traces.schema import EPISODE_SCHEMA, episodes_to_table


def corpus() -> tuple[list[Episode], dict]:
    """Every sink, a fixture calibration finds flaky under an episode its own runs admit, and three
    admitted episodes ranked across batches; sorted by id."""
    episodes, lookup = every_sink()
    timed = scheduled_flake("calc-timed", byte=0, modulus=6, timing_sensitive=True)  # calibration: flaky
    lookup["calc-timed"] = timed
    episodes[5] = make_episode(
        "steady", pristine_turns(), fixed_files(), fixture=timed, fixture_id="calc-timed"
    )
    episodes += [dataclasses.replace(episodes[0], episode_id="admitted-3")]  # ranked across batches
    episodes.sort(key=lambda e: e.episode_id)
    return episodes, lookup


@dataclasses.dataclass(frozen=True)
class Whole:
    """:func:`corpus` as a table before verification (which adopts each episode's task identity
    in place), then verified at once (one batch), and the calibration cache that run filled."""

    traces: pa.Table
    episodes: list[Episode]
    lookup: dict
    result: CascadeResult
    calibration: Path


@pytest.fixture(scope="module")
def whole_run(tmp_path_factory: pytest.TempPathFactory) -> Whole:
    """The reference both byte-for-byte tests compare against, verified once for the module (every
    run of the corpus is deterministic, so each test rebuilding it judged the same episodes on the
    sandbox twice); each batched run then reads the calibration cache it filled, as before."""
    episodes, lookup = corpus()
    traces = episodes_to_table(episodes)
    calibration = tmp_path_factory.mktemp("verify_batches") / "calibration"
    whole = verify_episodes(episodes, lookup, config(10_000, calibration))
    return Whole(traces, episodes, lookup, whole, calibration)


def test_verdicts_and_the_verified_table_are_the_same_for_batch_1_and_a_large_batch(
    tmp_path: Path, whole_run: Whole
) -> None:
    episodes, lookup, whole = whole_run.episodes, whole_run.lookup, whole_run.result
    write_parquet(whole_run.traces, tmp_path / "traces.parquet")
    write_parquet(verdicts_table(whole), tmp_path / "whole.parquet")
    write_parquet(verified_table(episodes, whole), tmp_path / "whole-verified.parquet")
    assert {"flaky_quarantine", "admitted"} <= set(whole.counts("sink")) and whole.ledger.monolithic
    steady = whole.by_id()["steady"]  # admitted by its own runs, moved after the last batch, triaged
    assert steady.reason == "fixture_oracle_flaky" and steady.triage_class == "runtime_defect"
    assert {v.advisory_rank for v in whole.verdicts if v.sink == "admitted"} == {1, 2, 3}

    def emit(batch: list[Episode], verdicts: list[EpisodeVerdict]) -> None:
        out.write(verified_batch(batch, verdicts))
        verdicts_out.write(verdicts)

    with (
        ParquetAppender(tmp_path / "verified-1.parquet", VERIFIED_SCHEMA) as out,
        VerdictsFile(tmp_path / "b1.parquet") as verdicts_out,
    ):
        batched = verify_batches(
            parquet_batches(tmp_path / "traces.parquet", 1), lookup, config(1, whole_run.calibration), emit
        )
    assert batched.verdicts == []  # a streaming run keeps no verdict: they were written as they came
    for attribute in ("sink", "role", "triage_class"):
        assert batched.counts(attribute) == whole.counts(attribute)
    assert batched.unverifiable_by_reason() == whole.unverifiable_by_reason()
    assert batched.tally() == whole.tally() and batched.funnel == whole.funnel
    assert (tmp_path / "b1.parquet").read_bytes() == (tmp_path / "whole.parquet").read_bytes()
    assert (tmp_path / "verified-1.parquet").read_bytes() == (
        tmp_path / "whole-verified.parquet"
    ).read_bytes()
    assert batched.triage.equals(whole.triage)
    for order in ("stages", "monolithic"):
        counts = [[(s.entered, s.passed) for s in getattr(r.ledger, order)] for r in (batched, whole)]
        assert counts[0] == counts[1]
    assert batched.ledger.oracle_runs == whole.ledger.oracle_runs
    assert pq.read_table(tmp_path / "b1.parquet").num_rows == len(episodes)

    # the verified_traces asset's path: a day's table (any row order), two episodes at a time
    day = episodes_to_table(episodes[::-1])
    table, by_table = verify_table(day, lookup, config(2, whole_run.calibration))
    write_parquet(table, tmp_path / "day.parquet")
    assert (tmp_path / "day.parquet").read_bytes() == (tmp_path / "whole-verified.parquet").read_bytes()
    assert by_table.verdicts == [] and by_table.tally() == whole.tally()


def test_verify_files_writes_the_whole_runs_bytes_from_a_days_files_in_any_order(
    tmp_path: Path, whole_run: Whole
) -> None:
    """The asset's path: a day's Parquet files, verified two episodes at a time into a file, equal
    byte for byte to the whole input verified at once and written as one table; an input already
    sorted is read as it is, one out of order (here reversed and cut in two files) sorted on disk."""
    episodes, lookup, whole = whole_run.episodes, whole_run.lookup, whole_run.result
    write_parquet(verified_table(episodes, whole), tmp_path / "whole.parquet")
    assert len(episodes) > 3 * 2  # several batches of two
    days = tmp_path / "days"
    write_parquet(episodes_to_table(episodes), days / "sorted.parquet")
    reversed_ = episodes[::-1]
    write_parquet(episodes_to_table(reversed_[:4]), days / "part-1.parquet")
    write_parquet(episodes_to_table(reversed_[4:]), days / "part-2.parquet")
    inputs = {
        "sorted": [days / "sorted.parquet"],
        "unsorted": [days / "part-1.parquet", days / "part-2.parquet"],
    }
    for name, files in inputs.items():
        out = tmp_path / "out" / f"{name}.parquet"
        result = verify_files(files, out, lookup, config(2, whole_run.calibration))
        assert out.read_bytes() == (tmp_path / "whole.parquet").read_bytes(), name
        assert result.verdicts == [] and result.tally() == whole.tally()
        assert result.counts("sink") == whole.counts("sink") and result.triage.equals(whole.triage)
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["sorted.parquet", "unsorted.parquet"]


def test_episodes_by_id_sorts_only_an_unsorted_input_and_keeps_ties_in_file_order(tmp_path: Path) -> None:
    episodes, _ = every_sink()
    episodes.sort(key=lambda e: e.episode_id)
    write_parquet(episodes_to_table(episodes), tmp_path / "sorted.parquet")
    assert episodes_by_id([tmp_path / "sorted.parquet"], tmp_path) == tmp_path / "sorted.parquet"
    twin = dataclasses.replace(episodes[1], episode_id=episodes[0].episode_id)  # same id, other rows
    files = [tmp_path / "b.parquet", tmp_path / "a.parquet"]
    write_parquet(episodes_to_table([episodes[2], twin, episodes[0]]), files[0])
    write_parquet(episodes_to_table([episodes[0], episodes[3]]), files[1])
    ordered = episodes_by_id(files, tmp_path / "scratch")
    assert ordered.parent == tmp_path / "scratch"
    concatenated = pa.concat_tables([pq.read_table(f) for f in files]).cast(EPISODE_SCHEMA)
    stable = concatenated.take(pc.sort_indices(concatenated, [("episode_id", "ascending")]))
    assert pq.read_table(ordered).cast(EPISODE_SCHEMA).equals(stable)  # the in-memory sort's order
    with pytest.raises(ValueError, match="no trace files"):
        episodes_by_id([], tmp_path)


def config(batch_rows: int, cache: Path):
    """Two workers, the monolithic costing on, one calibration cache (the fixture calibrates once)."""
    return dataclasses.replace(
        QUIET, workers=2, cost_monolithic=True, batch_rows=batch_rows, calibration_cache=cache
    )


def test_batch_rows_is_a_setting_with_a_check() -> None:
    assert VerifySettings(batch_rows=7).cascade(progress=False, master_key=b"k").batch_rows == 7
    for bad in (0, -1, True):
        try:
            VerifySettings(batch_rows=bad)
        except ValueError as exc:
            assert "batch_rows" in str(exc)
        else:
            raise AssertionError(f"batch_rows={bad!r} was accepted")
