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

``--batches TREE`` measures instead what a SWE-agent pre-1.0 log's batches cost (each ``open``,
``goto``, ``scroll_*``, ``search_*`` ends one): the same synthetic log (six actions, five batches)
replayed on a 1,000-file (1.2 MB) workspace and on a one-file one, by this checkout and by the code
in ``TREE`` (a checkout of the code before, e.g. ``git worktree add --detach /tmp/before HEAD``),
interleaved, each run in a fresh interpreter with that tree first on ``sys.path``. Prints the
median seconds per log and per batch, the ratio this checkout / TREE, and whether both trees
reached the same replay result; the last line is JSON.
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from trajectory_platform.curation.verify import CascadeConfig, verify_episodes
from trajectory_platform.environments.real_projects import build_example
from trajectory_platform.environments.registry import EnvironmentCatalog, import_environments
from trajectory_platform.gym.fixtures import Fixture, ReplaySpec
from trajectory_platform.traces.ingest import ingest_paths
from trajectory_platform.traces.record import Episode, Event, Outcome, TaskIdentity, ToolCall

HERE = Path(__file__).resolve().parents[1]
BATCH_ACTIONS = (
    "open pkg/mod0000.py",
    "goto 20",
    "scroll_down",
    "search_file value",
    "ls pkg | head -3",
    "scroll_up",
)
"""A pre-1.0 log's actions: five of SWE-agent's commands, each ending a batch, and a shell line."""
WORKSPACES = {"one_file": 1, "1000_files": 1000}


def _verify_one(episode: Episode, fixture: Fixture) -> tuple[float, str]:
    """Seconds to verify one episode against ``fixture`` (cascade, no monolithic costing), and its sink."""
    start = time.perf_counter()
    result = verify_episodes(
        [episode], {fixture.fixture_id: fixture}, CascadeConfig(cost_monolithic=False, progress=False)
    )
    return time.perf_counter() - start, result.verdicts[0].sink


def _batches_case(files: int) -> tuple[Episode, Fixture]:
    """The synthetic pre-1.0 log and an environment whose S0 holds ``files`` modules of ~1.2 KB."""
    module = "".join(f"value_{i} = {i}  # a line of a module the log opens and scrolls\n" for i in range(20))
    s0 = {f"pkg/mod{i:04d}.py": module for i in range(files)}
    footer = "\n(Open file: /repo/pkg/mod0000.py)\n(Current directory: /repo)\nbash-$"
    events = [Event("user", content="look around")]
    for action in BATCH_ACTIONS:
        call = ToolCall(None, action.split()[0], action + "\n")
        events += [Event("assistant", content="", tool_calls=[call]), Event("tool", content="..." + footer)]
    episode = Episode(
        episode_id=f"batches-{files}",
        source_format="swe_agent",
        source_file="bench.traj",
        source_line=1,
        source_path=None,
        partition_date=None,
        task=TaskIdentity(fixture_id="bench", repo_family="bench", domain="bug_repair"),
        events=events,
        outcome=Outcome(terminal_status="completed", final_answer="", workspace_diff=None),
    )
    fixture = Fixture(
        fixture_id="bench",
        repo_family="bench",
        tool_family="shell",
        domain="bug_repair",
        license="MIT",
        prompt="look around",
        s0_files=s0,
        sealed_tests={},
        fail_to_pass=[],
        pass_to_pass=[],
        reference_files=s0,
        plan=[],
        source="environment",
        replay=ReplaySpec(shell=True),
    )
    return episode, fixture


def _batches_once() -> dict[str, dict[str, object]]:
    """One replay of the synthetic log per workspace size, with the code first on ``sys.path``."""
    from trajectory_platform.curation.verify.replay import replay_episode

    measured: dict[str, dict[str, object]] = {}
    for name, files in WORKSPACES.items():
        episode, fixture = _batches_case(files)
        start = time.perf_counter()
        result = replay_episode(episode, fixture)
        seconds = time.perf_counter() - start
        outcome = [
            result.observations,
            result.drift_turns,
            result.error,
            sorted((result.final_files or {}).items()),
        ]
        digest = hashlib.sha256(json.dumps(outcome).encode("utf-8")).hexdigest()[:16]
        measured[name] = {"s": seconds, "result": digest}
    return measured


def _batches(tree: Path, repeats: int) -> int:
    """Interleave this checkout and ``tree``, each run in a fresh interpreter, and print the medians."""
    trees = {"held": HERE, "before": tree.resolve()}
    runs: dict[str, list[dict[str, dict[str, object]]]] = {label: [] for label in trees}
    for _ in range(repeats):
        for label, root in trees.items():
            env = {**os.environ, "PYTHONPATH": str(root)}
            argv = [sys.executable, str(Path(__file__).resolve()), "--batches-child"]
            out = subprocess.run(argv, env=env, cwd=root, capture_output=True, text=True, check=True).stdout
            runs[label].append(json.loads(out.strip().splitlines()[-1]))
    batches = sum(1 for a in BATCH_ACTIONS if a.split()[0] != "ls")
    rows = []
    for name in WORKSPACES:
        medians = {
            label: statistics.median(float(str(r[name]["s"])) for r in measured)
            for label, measured in runs.items()
        }
        same = len({str(r[name]["result"]) for measured in runs.values() for r in measured}) == 1
        rows.append(
            {
                "workspace": name,
                "before_s": round(medians["before"], 3),
                "held_s": round(medians["held"], 3),
                "before_per_batch_s": round(medians["before"] / batches, 3),
                "held_per_batch_s": round(medians["held"] / batches, 3),
                "ratio_held_before": round(medians["held"] / medians["before"], 2),
                "same_result": same,
            }
        )
    print(f"{'workspace':11} {'before s':>9} {'held s':>8} {'per batch':>19} {'ratio':>6}  same result")
    for row in rows:
        print(
            f"{row['workspace']:11} {row['before_s']:9.3f} {row['held_s']:8.3f} "
            f"{row['before_per_batch_s']:9.3f} -> {row['held_per_batch_s']:6.3f} "
            f"{row['ratio_held_before']:6.2f}  {row['same_result']}"
        )
    print(json.dumps({"repeats": repeats, "batches": batches, "rows": rows}))
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=3, help="interleaved repetitions per episode and mode")
    parser.add_argument(
        "--batches", type=Path, metavar="TREE", help="pre-1.0 batches: this checkout against TREE"
    )
    parser.add_argument("--batches-child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.batches_child:
        print(json.dumps(_batches_once()))
        return 0
    if args.batches is not None:
        return _batches(args.batches, args.repeats)
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
