"""Redaction CPU time of this checkout against a baseline checkout, side by side on the same inputs,
with a digest of everything each produced, so a speed-up is shown to change no output byte.

Workloads (``--workloads``, comma-separated):

- ``gym``: one gym rollout day (``--episodes``) through the stage (:func:`redact_corpus`, default
  settings: the declared leak sample) and the blocking audit (:func:`.audit.leak_and_residue`) over
  what it stored. Digest: the redacted Parquet table, the audit rows, findings by kind, Λ_leak's
  counts and the audit's residue.
- ``canary``: the canary test's ``measure_text_leak`` over ``--seeds`` seeds (a JSON record and a log
  line each, every canary kind and text form). Digest: every report.
- ``real``: every episode of ``--real`` (the real agent logs) through :func:`redact_episode`.
  Digest: the canonical JSON of every redacted episode and its findings.

The inputs are built once by this process and written to a temporary folder; each arm then runs in
a fresh process with its checkout first on ``PYTHONPATH`` (cold caches alike), baseline and branch
alternating ``--pairs`` times. CPU is the worker's process time over the workload alone.

Usage: ``.venv/bin/python benchmarks/redact_speed.py --baseline ../base [--workloads gym,canary,real]
[--pairs 2] [--episodes 40] [--seeds 4]``; the last stdout line is a JSON object with each
workload's CPU seconds per arm, the baseline / branch ratio per pair and whether every digest agreed.
Exits 1 when any digest differs.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]
SALT = b"x" * 32
DEFAULT_REAL = HERE / ".." / "shared" / "data" / "real"


def _digest(value: object) -> str:
    return hashlib.sha256(json.dumps(value, sort_keys=True, default=str).encode()).hexdigest()


def build_inputs(folder: Path, episodes: int, real: Path) -> None:
    """The gym day's verified-shape table and the real corpus's episodes, as Parquet in ``folder``."""
    import pyarrow.parquet as pq

    from trajectory_platform.gym.rollout import rollout
    from trajectory_platform.traces.ingest import ingest_paths
    from trajectory_platform.traces.schema import episodes_to_table

    summary = rollout(episodes, 7, folder / "rollout", progress=False, days=1)
    day = ingest_paths([folder / "rollout" / summary.days[0]])
    ordered = sorted(day.episodes, key=lambda e: e.episode_id)
    pq.write_table(episodes_to_table(ordered), folder / "gym.parquet")
    ingested = ingest_paths([real])
    pq.write_table(episodes_to_table(ingested.episodes), folder / "real.parquet")


def _gym(folder: Path, seeds: int) -> object:
    import pyarrow.parquet as pq

    from trajectory_platform.curation.redact.audit import leak_and_residue
    from trajectory_platform.curation.redact.corpus import redact_corpus

    table = pq.read_table(folder / "gym.parquet")
    result = redact_corpus(table, SALT)
    leak, residue = leak_and_residue(lambda: [result.table], SALT)
    return [
        result.table.to_pylist(),
        result.audit.to_pylist(),
        result.findings_by_kind,
        result.leak.as_dict(),
        leak.as_dict(),
        residue,
    ]


def _canary(folder: Path, seeds: int) -> object:
    from trajectory_platform.curation.redact.leak import measure_text_leak

    record = json.dumps({"messages": [{"role": "user", "content": "key AKIAIOSFODNN7EXAMPLE"}]})
    reports = [measure_text_leak(record, f"seed-{i}", SALT, json_record=True) for i in range(seeds)]
    reports += [measure_text_leak("a log line\n", f"text-{i}", SALT) for i in range(seeds)]
    return [report.as_dict() for report in reports]


def _real(folder: Path, seeds: int) -> object:
    import pyarrow.parquet as pq

    from trajectory_platform.curation.redact.episode import redact_episode
    from trajectory_platform.curation.redact.fields import OutOfClass
    from trajectory_platform.traces.record import canonical_json
    from trajectory_platform.traces.schema import table_to_episodes

    out: list[object] = []
    for episode in table_to_episodes(pq.read_table(folder / "real.parquet")):
        try:
            redacted, findings = redact_episode(episode, SALT)
        except OutOfClass as refused:
            out.append(["refused", str(refused)])
            continue
        out.append([canonical_json(redacted.to_dict()), [vars(f) for f in findings]])
    return out


WORKLOADS = {"gym": _gym, "canary": _canary, "real": _real}


def worker(name: str, folder: Path, seeds: int) -> None:
    """Run one workload in this process and print its CPU seconds and output digest."""
    started = time.process_time()
    output = WORKLOADS[name](folder, seeds)
    cpu = time.process_time() - started
    print(json.dumps({"cpu": round(cpu, 3), "digest": _digest(output)}))


def run_arm(tree: Path, name: str, folder: Path, seeds: int) -> dict:
    env = {**os.environ, "PYTHONPATH": str(tree)}
    command = [sys.executable, __file__, "--worker", name, "--inputs", str(folder), "--seeds", str(seeds)]
    done = subprocess.run(command, env=env, cwd=tree, capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", type=Path, help="checkout to compare with (e.g. main's worktree)")
    parser.add_argument("--workloads", default="gym,canary,real")
    parser.add_argument("--pairs", type=int, default=2)
    parser.add_argument("--episodes", type=int, default=40, help="gym rollout day size")
    parser.add_argument("--seeds", type=int, default=4, help="canary seeds")
    parser.add_argument("--real", type=Path, default=DEFAULT_REAL)
    parser.add_argument("--worker", choices=sorted(WORKLOADS), help=argparse.SUPPRESS)
    parser.add_argument("--inputs", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        worker(args.worker, args.inputs, args.seeds)
        return 0
    if args.baseline is None:
        parser.error("--baseline is required")
    arms = {"baseline": args.baseline.resolve(), "branch": HERE}
    report: dict[str, dict] = {}
    with tempfile.TemporaryDirectory(prefix="tp-bench-redact-speed-") as tmp:
        build_inputs(Path(tmp), args.episodes, args.real)
        for name in args.workloads.split(","):
            runs: dict[str, list[dict]] = {arm: [] for arm in arms}
            for _ in range(args.pairs):  # alternating: load from other processes hits both arms alike
                for arm, tree in arms.items():
                    runs[arm].append(run_arm(tree, name, Path(tmp), args.seeds))
            cpu = {arm: [run["cpu"] for run in runs[arm]] for arm in arms}
            ratios = [round(b / n, 3) for b, n in zip(cpu["baseline"], cpu["branch"], strict=True)]
            same = len({run["digest"] for arm in arms for run in runs[arm]}) == 1
            report[name] = {**{f"{arm}_cpu": cpu[arm] for arm in arms}, "ratios": ratios, "same_output": same}
            print(
                f"{name:>7}: baseline {cpu['baseline']} s, branch {cpu['branch']} s, "
                f"ratio {ratios}, same {same}"
            )
    print(json.dumps(report, sort_keys=True))
    return 0 if all(entry["same_output"] for entry in report.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
