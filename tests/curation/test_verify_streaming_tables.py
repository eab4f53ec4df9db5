"""``verdicts_table`` converts the verdicts a row group at a time, and ``VerdictsFile`` writes them a
batch at a time (in id order or not): both write the bytes of the table built at once (every row as
a Python dict, sorted by id: how it was built before)."""

from __future__ import annotations

import random
from pathlib import Path

import pyarrow as pa

from trajectory_platform.curation.verify.cascade import CascadeResult, VerdictTally
from trajectory_platform.curation.verify.ledger import Ledger
from trajectory_platform.curation.verify.tables import (
    VERDICTS_SCHEMA,
    VerdictsFile,
    verdict_row,
    verdicts_table,
)
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


LEDGER = Ledger(0, [], [], 0.0, 0, 0, 0, [], (0.0, 1.0))


def test_verdicts_table_has_the_bytes_of_the_table_built_at_once(tmp_path: Path) -> None:
    verdicts = [verdict(i) for i in range(2 * ROW_GROUP_ROWS + 5)]
    random.Random(0).shuffle(verdicts)
    ledger = LEDGER
    result = CascadeResult(verdicts, ledger, pa.table({}), VerdictTally())
    rows = sorted(
        ({"episode_id": v.episode_id, **verdict_row(v)} for v in verdicts), key=lambda r: r["episode_id"]
    )
    write_parquet(pa.Table.from_pylist(rows, schema=VERDICTS_SCHEMA), tmp_path / "at-once.parquet")
    table = verdicts_table(result)
    assert table.column("episode_id").num_chunks > 2  # converted a row group at a time
    write_parquet(table, tmp_path / "chunked.parquet")
    assert (tmp_path / "chunked.parquet").read_bytes() == (tmp_path / "at-once.parquet").read_bytes()
    empty = CascadeResult([], ledger, pa.table({}), VerdictTally())
    write_parquet(verdicts_table(empty), tmp_path / "empty.parquet")
    write_parquet(VERDICTS_SCHEMA.empty_table(), tmp_path / "empty-at-once.parquet")
    assert (tmp_path / "empty.parquet").read_bytes() == (tmp_path / "empty-at-once.parquet").read_bytes()


def test_verdicts_file_writes_batches_in_or_out_of_id_order_as_the_whole_table(tmp_path: Path) -> None:
    verdicts = [verdict(i) for i in range(ROW_GROUP_ROWS + 300)]
    verdicts.append(verdict(7))  # a repeated id: both rows kept
    write_parquet(
        verdicts_table(CascadeResult(verdicts, LEDGER, pa.table({}), VerdictTally())),
        tmp_path / "at-once.parquet",
    )
    shuffled = random.Random(1).sample(verdicts, len(verdicts))
    in_order = sorted(verdicts, key=lambda v: v.episode_id)
    for name, order in (("in-order", in_order), ("shuffled", shuffled)):
        with VerdictsFile(tmp_path / f"{name}.parquet") as out:
            for start in range(0, len(order), 97):
                out.write(order[start : start + 97])
        assert out.in_order == (name == "in-order")
        assert (tmp_path / f"{name}.parquet").read_bytes() == (tmp_path / "at-once.parquet").read_bytes(), (
            name
        )
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "at-once.parquet",
        "in-order.parquet",
        "shuffled.parquet",
    ]


def test_a_failed_run_leaves_no_verdicts_file(tmp_path: Path) -> None:
    try:
        with VerdictsFile(tmp_path / "verdicts.parquet") as out:
            out.write([verdict(1)])
            raise RuntimeError("verification failed")
    except RuntimeError:
        pass
    assert list(tmp_path.iterdir()) == []
