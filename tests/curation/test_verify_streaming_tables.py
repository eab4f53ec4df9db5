"""``verdicts_table`` converts the verdicts a row group at a time and writes the bytes of the table
built at once (every row as a Python dict, sorted by id: how it was built before)."""

from __future__ import annotations

import random
from pathlib import Path

import pyarrow as pa

from trajectory_platform.curation.verify.cascade import CascadeResult
from trajectory_platform.curation.verify.ledger import Ledger
from trajectory_platform.curation.verify.tables import VERDICTS_SCHEMA, verdict_row, verdicts_table
from trajectory_platform.curation.verify.verdicts import SINKS, EpisodeVerdict, Finding, StageVerdict
from trajectory_platform.traces.parquet import ROW_GROUP_ROWS, write_parquet


def verdict(index: int) -> EpisodeVerdict:
    stage = StageVerdict(
        "dynamic", index % 3 == 0, findings=[Finding("f", str(index))], data={"runs": index % 4}
    )
    return EpisodeVerdict(
        episode_id=f"ep-{index:05d}",
        sink=SINKS[index % len(SINKS)],
        reason="r" * (index % 7),
        role="pristine" if index % 2 else None,
        t_div=index % 11 or None,
        target_turns=list(range(index % 5)),
        turn_reasons={i: "why" for i in range(index % 3)},
        stages=[stage],
        advisory_score=index / 7 if index % 5 else None,
    )


def test_verdicts_table_has_the_bytes_of_the_table_built_at_once(tmp_path: Path) -> None:
    verdicts = [verdict(i) for i in range(2 * ROW_GROUP_ROWS + 5)]
    random.Random(0).shuffle(verdicts)
    ledger = Ledger(0, [], [], 0.0, 0, 0, 0, [], (0.0, 1.0))
    result = CascadeResult(verdicts, ledger, pa.table({}))
    rows = sorted(
        ({"episode_id": v.episode_id, **verdict_row(v)} for v in verdicts), key=lambda r: r["episode_id"]
    )
    write_parquet(pa.Table.from_pylist(rows, schema=VERDICTS_SCHEMA), tmp_path / "at-once.parquet")
    table = verdicts_table(result)
    assert table.column("episode_id").num_chunks > 2  # converted a row group at a time
    write_parquet(table, tmp_path / "chunked.parquet")
    assert (tmp_path / "chunked.parquet").read_bytes() == (tmp_path / "at-once.parquet").read_bytes()
    empty = CascadeResult([], ledger, pa.table({}))
    write_parquet(verdicts_table(empty), tmp_path / "empty.parquet")
    write_parquet(VERDICTS_SCHEMA.empty_table(), tmp_path / "empty-at-once.parquet")
    assert (tmp_path / "empty.parquet").read_bytes() == (tmp_path / "empty-at-once.parquet").read_bytes()
