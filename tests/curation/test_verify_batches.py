"""Verification in bounded batches stores what one batch stores, for any batch size.

The episodes reach every sink, including an episode whose own runs agree on a fixture calibration
found flaky: it moves to flaky quarantine after the last batch and is judged again (triaged) in
the last pass; and the advisory ranking spans batches.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pyarrow.parquet as pq
from _verify_factory import fixed_files, make_episode, pristine_turns
from test_verify_cascade import scheduled_flake
from test_verify_pool import QUIET, every_sink

from trajectory_platform.curation.verify.cascade import (
    VerifySettings,
    parquet_batches,
    verify_batches,
    verify_episodes,
)
from trajectory_platform.curation.verify.tables import (
    VERIFIED_SCHEMA,
    VerdictsFile,
    verdicts_table,
    verified_batch,
    verified_table,
    verify_table,
)
from trajectory_platform.curation.verify.verdicts import EpisodeVerdict
from trajectory_platform.traces.parquet import ParquetAppender, write_parquet
from trajectory_platform.traces.record import Episode
from trajectory_platform.traces.schema import episodes_to_table


def test_verdicts_and_the_verified_table_are_the_same_for_batch_1_and_a_large_batch(tmp_path: Path) -> None:
    episodes, lookup = every_sink()
    timed = scheduled_flake("calc-timed", byte=0, modulus=6, timing_sensitive=True)  # calibration: flaky
    lookup["calc-timed"] = timed
    episodes[5] = make_episode(
        "steady", pristine_turns(), fixed_files(), fixture=timed, fixture_id="calc-timed"
    )
    episodes += [dataclasses.replace(episodes[0], episode_id="admitted-3")]  # ranked across batches
    episodes.sort(key=lambda e: e.episode_id)
    write_parquet(episodes_to_table(episodes), tmp_path / "traces.parquet")
    whole = verify_episodes(episodes, lookup, config(10_000, tmp_path / "calibration"))
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
            parquet_batches(tmp_path / "traces.parquet", 1), lookup, config(1, tmp_path / "calibration"), emit
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
    table, by_table = verify_table(day, lookup, config(2, tmp_path / "calibration"))
    write_parquet(table, tmp_path / "day.parquet")
    assert (tmp_path / "day.parquet").read_bytes() == (tmp_path / "whole-verified.parquet").read_bytes()
    assert by_table.verdicts == [] and by_table.tally() == whole.tally()


def config(batch_rows: int, cache: Path):
    """Two workers, the monolithic costing on, one calibration cache (the fixture calibrates once)."""
    return dataclasses.replace(
        QUIET, workers=2, cost_monolithic=True, batch_rows=batch_rows, calibration_cache=cache
    )


def test_batch_rows_is_a_setting_with_a_check() -> None:
    assert VerifySettings(batch_rows=7).cascade(progress=False).batch_rows == 7
    for bad in (0, -1, True):
        try:
            VerifySettings(batch_rows=bad)
        except ValueError as exc:
            assert "batch_rows" in str(exc)
        else:
            raise AssertionError(f"batch_rows={bad!r} was accepted")
