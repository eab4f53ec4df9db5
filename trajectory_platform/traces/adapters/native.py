"""The native format: one ``Episode.to_dict()`` per JSONL line (what the gym writes).

The record's own ``source_format`` (e.g. the gym policy that produced it) and ``partition_date``
are kept; ``source_file`` / ``source_line`` / ``source_path`` are set to where it was read, so a
reject or a downstream finding always points at a file a person can open.
"""

from __future__ import annotations

from typing import Any

from trajectory_platform.traces.adapters.base import (
    Adapter,
    RawRecord,
    RecordError,
    SourceFile,
    expect,
)
from trajectory_platform.traces.drops import without_record_text
from trajectory_platform.traces.record import Episode

REQUIRED = ("episode_id", "source_format", "events")


class NativeAdapter(Adapter):
    """Lines written by :meth:`Episode.to_dict`."""

    name = "native"
    task_id_source = "`task.fixture_id`"

    def claims_record(self, record: dict[str, Any]) -> bool:
        return all(key in record for key in REQUIRED)

    def parse(self, record: RawRecord, src: SourceFile) -> Episode:
        value = expect(record.value, dict, "record")
        missing = [key for key in REQUIRED if key not in value]
        if missing:
            raise RecordError("missing field", f"native record lacks {', '.join(missing)}")
        expect(value["episode_id"], str, "episode_id")
        expect(value["events"], list, "events")
        try:
            episode = Episode.from_dict(
                {
                    **value,
                    "source_file": src.display,
                    "source_line": record.line,
                    "source_path": record.json_path,
                }
            )
        except (TypeError, ValueError, AttributeError) as exc:
            what = "does not match the trace record" if isinstance(exc, TypeError) else "has a bad value"
            raise RecordError("wrong type", f"native record {what}: {without_record_text(str(exc))}") from exc
        episode.source_format = episode.source_format or self.name
        return episode
