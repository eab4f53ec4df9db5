"""Measurement: the harness table of shells that keep their state (``KEPT_BY_FORMAT``) against the
logs' own evidence, on a folder of real logs.

For every ingested episode with shell calls, by format: whether a line changes the shell's state
(the logs replay would run in a kept shell), whether one moves it (``cd`` / ``pushd`` / ``popd``),
what the log's own evidence says (a ``pwd`` shown after a ``cd``; the folders its harness shows
after each call: OpenHands' ``working_dir``, SWE-agent's state footer) and whether that agrees with
the table. Nothing is replayed: this reads the logs only.

Usage: ``.venv/bin/python benchmarks/kept_shell_evidence.py [FOLDER]`` (default: the real logs in
``../shared/data/real`` beside the clone, as ``benchmarks/ingest.py`` finds them); the last line is JSON.
"""

from __future__ import annotations

import json
import sys
from collections import Counter, defaultdict
from pathlib import Path

from trajectory_platform.curation.verify.calls import call_records
from trajectory_platform.curation.verify.shell_session import (
    KEPT_BY_FORMAT,
    moves,
    sets_state,
    shown_evidence,
    shown_folders,
)
from trajectory_platform.traces.ingest import ingest_paths

DEFAULT_ROOT = Path(__file__).resolve().parents[1] / ".." / "shared" / "data" / "real"


def measure(folder: Path) -> dict[str, dict[str, int]]:
    """Counts per source format (see the module's docstring)."""
    counts: dict[str, Counter[str]] = defaultdict(Counter)
    for episode in ingest_paths([folder]).episodes:
        records = call_records(episode)
        lines = [r.shell_command for r in records if r.shell_command is not None]
        if not lines:
            continue
        tally = counts[episode.source_format]
        tally["with shell calls"] += 1
        tally["sets state"] += any(sets_state(line) for line in lines)
        tally["moves"] += any(moves(line) for line in lines)
        folders = shown_folders(episode, records)
        tally["shows folders"] += any(f is not None for f in folders)
        evidence = shown_evidence(records, folders)
        if evidence is None:
            continue
        table = episode.source_format in KEPT_BY_FORMAT
        tally[f"evidence: {'kept' if evidence else 'afresh'}"] += 1
        tally["evidence agrees with the table" if evidence == table else "evidence against the table"] += 1
    return {name: dict(sorted(tally.items())) for name, tally in sorted(counts.items())}


def main() -> None:
    folder = Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT_ROOT
    result = measure(folder)
    for name, tally in result.items():
        kept = "kept" if name in KEPT_BY_FORMAT else "afresh"
        print(f"{name} (table: {kept}): " + ", ".join(f"{k} {v}" for k, v in tally.items()))
    print(json.dumps(result, sort_keys=True))


if __name__ == "__main__":
    main()
