"""Ingestion throughput on the real public corpus (../shared/data/real), beside a baseline.

The baseline is the least any reader must do: ``json.loads`` of the same bytes (each file as one
document, or line by line when it is JSONL). The ratio says what normalization, validation and
reject accounting cost on top of parsing. Writing Parquet is timed separately.

Run: ``.venv/bin/python benchmarks/ingest.py [--repeat N] [--root DIR]``; the last stdout line is
JSON with ``records_per_s`` and ``mb_per_s``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

from trajectory_platform.traces.ingest import discover_log_files, ingest_paths

DEFAULT_ROOT = Path(__file__).resolve().parents[1] / ".." / "shared" / "data" / "real"


def baseline_parse(files: list[Path]) -> int:
    """Parse every file with json.loads only; returns the number of JSON values read."""
    values = 0
    for path in files:
        data = path.read_bytes()
        try:
            json.loads(data)
            values += 1
        except (json.JSONDecodeError, UnicodeDecodeError):
            for line in data.splitlines():
                if line.strip():
                    try:
                        json.loads(line)
                        values += 1
                    except (json.JSONDecodeError, UnicodeDecodeError):
                        pass
    return values


def timed(function, repeat: int) -> tuple[float, object]:
    """Median wall time of ``repeat`` runs and the last result."""
    times, result = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        result = function()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=DEFAULT_ROOT)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    if not args.root.is_dir():
        print(f"real corpus not found at {args.root}", file=sys.stderr)
        return 2
    files = discover_log_files(args.root)
    megabytes = sum(p.stat().st_size for p in files) / 1e6

    base_s, values = timed(lambda: baseline_parse(files), args.repeat)
    ingest_s, result = timed(lambda: ingest_paths(files), args.repeat)
    with tempfile.TemporaryDirectory() as out:
        write_s, _ = timed(lambda: result.write(out), args.repeat)

    records = result.records_in
    print(
        f"corpus: {len(files)} files, {megabytes:.2f} MB, {records} records "
        f"({len(result.episodes)} normalized, {len(result.rejects)} rejected)"
    )
    print(f"{'':24}{'seconds':>10}{'records/s':>12}{'MB/s':>10}")
    print(f"{'baseline json.loads':24}{base_s:>10.3f}{records / base_s:>12.0f}{megabytes / base_s:>10.2f}")
    print(f"{'ingest_paths':24}{ingest_s:>10.3f}{records / ingest_s:>12.0f}{megabytes / ingest_s:>10.2f}")
    print(f"{'write parquet (x2)':24}{write_s:>10.3f}")
    print(f"ingest / baseline time: {ingest_s / base_s:.2f}x  (baseline parsed {values} JSON values)")
    print(
        json.dumps(
            {
                "records_per_s": round(records / ingest_s, 1),
                "mb_per_s": round(megabytes / ingest_s, 2),
                "baseline_records_per_s": round(records / base_s, 1),
                "baseline_mb_per_s": round(megabytes / base_s, 2),
                "slowdown_vs_baseline": round(ingest_s / base_s, 2),
                "write_parquet_s": round(write_s, 3),
                "records_in": records,
                "normalized": len(result.episodes),
                "rejected": len(result.rejects),
                "files": len(files),
                "megabytes": round(megabytes, 2),
            },
            sort_keys=True,
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
