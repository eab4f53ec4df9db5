"""What a user sets for a streaming ingest: the one source of ``ingest --batch-rows`` and
``curate --set ingest.batch_rows`` (kept apart from ``ingest.py`` so a command's ``--help`` does not
load pyarrow)."""

from __future__ import annotations

from dataclasses import dataclass, field

from trajectory_platform.traces.batching import check_batch_rows

DEFAULT_BATCH_ROWS = 256
"""Episodes :func:`~trajectory_platform.traces.ingest.ingest_to` holds as Python objects at once by
default (about 12 MB at ~48 KB an episode; the same default as verify and redact)."""


@dataclass(frozen=True)
class IngestSettings:
    """How many episodes a streaming ingest holds at once."""

    batch_rows: int = field(
        default=DEFAULT_BATCH_ROWS,
        metadata={
            "help": "episodes held at once: the stage's peak memory follows this, not the input's size "
            "(traces.parquet is the same for any value)"
        },
    )

    def __post_init__(self) -> None:
        check_batch_rows(self.batch_rows)
