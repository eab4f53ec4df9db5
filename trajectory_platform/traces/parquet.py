"""The one way the platform writes Parquet: pinned writer options, atomic replace.

Every stage's output (the warehouse's asset files, the CLI's outputs, ingest's tables) goes
through :func:`write_parquet`, so the same rows always give the same bytes (with the same
pyarrow) whoever writes them, and a reader never sees half a file.
"""

from __future__ import annotations

import os
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

PARQUET_OPTIONS = {
    "compression": "zstd",
    "compression_level": 3,
    "use_dictionary": True,
    "write_statistics": True,
    "version": "2.6",
    "data_page_version": "1.0",
    "row_group_size": 64 * 1024,
}
"""Pinned writer options: the bytes depend only on the table (and the pyarrow version)."""


def write_parquet(table: pa.Table, path: Path) -> None:
    """Write ``table`` deterministically and atomically (parent folders are created)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    pq.write_table(table, tmp, **PARQUET_OPTIONS)
    os.replace(tmp, path)
