"""The rule every streaming stage's ``batch_rows`` setting is checked by.

Kept apart from :mod:`trajectory_platform.traces.parquet` (which needs pyarrow) so that a settings
dataclass can check its value without loading Arrow: ``ingest --help`` imports no heavy module.
"""

from __future__ import annotations


def check_batch_rows(batch_rows: int) -> None:
    """Refuse a batch size that holds no record (a 0 or a ``true`` from a config would loop on
    nothing)."""
    if isinstance(batch_rows, bool) or not isinstance(batch_rows, int) or batch_rows < 1:
        raise ValueError(f"batch_rows must be a whole number >= 1 (records held at once), got {batch_rows!r}")
