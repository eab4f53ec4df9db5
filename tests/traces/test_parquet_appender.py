"""``ParquetAppender``: a table appended in batches is byte-identical to ``write_parquet`` of the
whole table, across row-group boundaries, for any batch size; empty and failed writes."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pytest

from trajectory_platform.traces.parquet import ROW_GROUP_ROWS, ParquetAppender, read_batches, write_parquet

ROWS = 2 * ROW_GROUP_ROWS + 1234  # two full row groups and a short one


@pytest.fixture(scope="module")
def table() -> pa.Table:
    numbers = pa.array(range(ROWS), pa.int64())
    ids = pc.binary_join_element_wise("ep-", pc.cast(numbers, pa.string()), "")
    pattern = pa.array(["x" * (i % 97) if i % 5 else None for i in range(1000)])
    texts = pa.concat_arrays([pattern] * (ROWS // 1000) + [pattern.slice(0, ROWS % 1000)])
    return pa.table({"episode_id": ids, "text": texts, "number": numbers})


def test_appended_batches_give_the_bytes_of_the_whole_table(table: pa.Table, tmp_path: Path) -> None:
    write_parquet(table, tmp_path / "whole.parquet")
    expected = (tmp_path / "whole.parquet").read_bytes()
    for rows in (777, ROW_GROUP_ROWS - 1, ROW_GROUP_ROWS + 1, ROWS):
        path = tmp_path / f"b{rows}.parquet"
        with ParquetAppender(path, table.schema) as out:
            for batch in read_batches(tmp_path / "whole.parquet", rows):
                out.write(batch)
        assert path.read_bytes() == expected, rows
        assert out.rows_written == ROWS


def test_an_empty_table_and_a_failed_write(table: pa.Table, tmp_path: Path) -> None:
    write_parquet(table.slice(0, 0), tmp_path / "empty.parquet")
    with ParquetAppender(tmp_path / "appended.parquet", table.schema):
        pass
    assert (tmp_path / "appended.parquet").read_bytes() == (tmp_path / "empty.parquet").read_bytes()
    with pytest.raises(RuntimeError), ParquetAppender(tmp_path / "failed.parquet", table.schema) as out:
        out.write(table.slice(0, 10))
        raise RuntimeError("the stage failed")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["appended.parquet", "empty.parquet"]
    with pytest.raises(ValueError, match="batch_rows"):
        next(read_batches(tmp_path / "empty.parquet", 0))


def test_the_appender_holds_less_than_one_row_group(tmp_path: Path) -> None:
    """However long the output, what waits in the appender stays under ``ROW_GROUP_ROWS`` rows: its
    Arrow memory is bounded by one row group (plus the batch being appended), not by the file."""
    row_bytes, batch_rows, batches = 1024, 300, 20 * ROW_GROUP_ROWS // 300
    baseline, held = pa.total_allocated_bytes(), 0
    with ParquetAppender(tmp_path / "long.parquet", pa.schema([("text", pa.string())])) as out:
        for index in range(batches):
            out.write(pa.table({"text": [f"{index:08d}".ljust(row_bytes, "x")] * batch_rows}))
            assert out.pending_rows < ROW_GROUP_ROWS
            held = max(held, pa.total_allocated_bytes() - baseline)
    written = batches * batch_rows * row_bytes
    assert out.rows_written == batches * batch_rows
    assert held < 2 * (ROW_GROUP_ROWS + batch_rows) * row_bytes < written / 5, (held, written)
