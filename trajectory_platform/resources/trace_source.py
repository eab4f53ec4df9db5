"""The trace source: a directory tree where new agent log files land, one folder per day.

Layout: ``<root>/<YYYY-MM-DD>/<any depth of log files>``. The folder name is the date the logs
were written, which is the daily partition of ``raw_traces``. The new-logs sensor fingerprints
each day folder so it can request exactly the partitions whose files changed.
"""

from __future__ import annotations

import datetime as dt
import hashlib
from pathlib import Path

from dagster import ConfigurableResource


def is_day(name: str) -> bool:
    """True for a `YYYY-MM-DD` folder name."""
    try:
        dt.date.fromisoformat(name)
    except ValueError:
        return False
    return len(name) == 10


class TraceSourceResource(ConfigurableResource):
    """A local directory tree of dated log folders (see the module docstring)."""

    root: str

    @property
    def root_path(self) -> Path:
        return Path(self.root).resolve()

    def partition_dir(self, partition_key: str) -> Path:
        """The folder of one day; it may not exist (a day without logs)."""
        return self.root_path / partition_key

    def partition_keys(self) -> list[str]:
        """Day folders present, sorted; other names are ignored."""
        if not self.root_path.is_dir():
            return []
        return sorted(p.name for p in self.root_path.iterdir() if p.is_dir() and is_day(p.name))

    def files(self, partition_key: str) -> list[Path]:
        """Every regular, non-hidden file under the day folder, sorted for determinism."""
        folder = self.partition_dir(partition_key)
        if not folder.is_dir():
            return []
        return sorted(
            p
            for p in folder.rglob("*")
            if p.is_file() and not any(part.startswith(".") for part in p.relative_to(folder).parts)
        )

    def fingerprint(self, partition_key: str) -> str:
        """A digest of (relative path, size, mtime) of the day's files: changes when files land.

        Size and mtime are cheap to read for large trees; a rewritten file changes its mtime.
        """
        folder = self.partition_dir(partition_key)
        digest = hashlib.sha256()
        for path in self.files(partition_key):
            stat = path.stat()
            digest.update(
                f"{path.relative_to(folder).as_posix()}\0{stat.st_size}\0{stat.st_mtime_ns}\n".encode()
            )
        return digest.hexdigest()[:16]

    def fingerprints(self) -> dict[str, str]:
        """``{partition_key: fingerprint}`` for every non-empty day folder."""
        return {key: self.fingerprint(key) for key in self.partition_keys() if self.files(key)}
