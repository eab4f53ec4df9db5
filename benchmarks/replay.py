"""Benchmark: what replay verification of a user's logs costs, per episode, against judging the
recorded final state alone.

Builds the shipped real-project example (three environments from installed libraries, four logs in
SWE-agent and OpenAI format), imports the environments into a scratch registry, and verifies the
logs twice, interleaved and repeated: once as shipped (every recorded shell command re-executed in
the sandbox, observations compared, then the sealed oracle), once with the same environments'
replay turned off (the baseline: the oracle judges S0 plus the recorded diff, observations
unverified). Prints per episode and mode the median seconds, the sink each mode reached, and the
ratio replay / baseline; the last line is JSON.

Usage: ``.venv/bin/python benchmarks/replay.py [--repeats 3]``.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import statistics
import tempfile
import time
from pathlib import Path

from trajectory_platform.curation.verify import CascadeConfig, verify_episodes
from trajectory_platform.environments.real_projects import build_example
from trajectory_platform.environments.registry import EnvironmentCatalog, import_environments
from trajectory_platform.gym.fixtures import Fixture, ReplaySpec
from trajectory_platform.traces.ingest import ingest_paths
from trajectory_platform.traces.record import Episode


def _verify_one(episode: Episode, fixture: Fixture) -> tuple[float, str]:
    """Seconds to verify one episode against ``fixture`` (cascade, no monolithic costing), and its sink."""
    start = time.perf_counter()
    result = verify_episodes(
        [episode], {fixture.fixture_id: fixture}, CascadeConfig(cost_monolithic=False, progress=False)
    )
    return time.perf_counter() - start, result.verdicts[0].sink


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=3, help="interleaved repetitions per episode and mode")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        example = build_example(out / "example")
        import_environments(example.environments, out / "registry")
        catalog = EnvironmentCatalog(out / "registry")
        episodes = ingest_paths(example.logs).episodes
        rows = []
        for episode in sorted(episodes, key=lambda e: e.episode_id):
            replayed = catalog.fixture(episode.task.fixture_id or "")
            if replayed is None:
                raise SystemExit(f"{episode.episode_id}: its environment did not import")
            baseline = dataclasses.replace(replayed, replay=ReplaySpec())
            times: dict[str, list[float]] = {"replay": [], "final_state": []}
            sinks: dict[str, str] = {}
            for _ in range(args.repeats):
                for mode, fixture in (("replay", replayed), ("final_state", baseline)):
                    seconds, sink = _verify_one(episode, fixture)
                    times[mode].append(seconds)
                    sinks[mode] = sink
            medians = {mode: statistics.median(values) for mode, values in times.items()}
            rows.append(
                {
                    "episode": episode.episode_id,
                    "format": episode.source_format,
                    "replay_s": round(medians["replay"], 3),
                    "final_state_s": round(medians["final_state"], 3),
                    "ratio": round(medians["replay"] / medians["final_state"], 2),
                    "sink_replay": sinks["replay"],
                    "sink_final_state": sinks["final_state"],
                }
            )
    print(f"{'episode':45} {'format':10} {'replay s':>9} {'final-state s':>14} {'ratio':>6}  sinks")
    for row in rows:
        print(
            f"{row['episode']:45} {row['format']:10} {row['replay_s']:9.3f} {row['final_state_s']:14.3f} "
            f"{row['ratio']:6.2f}  {row['sink_replay']} / {row['sink_final_state']}"
        )
    ratios = [r["ratio"] for r in rows]
    print(json.dumps({"repeats": args.repeats, "episodes": rows, "median_ratio": statistics.median(ratios)}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
