"""Benchmark: the verifier cascade on a gym rollout, judged against the rollout's truth sidecar.

Runs a scripted rollout (every behaviour class: pristine and recovering experts, malformed calls,
stale schemas, loops, wrong fixes, lucky passes, five kinds of test tampering, flaky fixtures,
truncated and abandoned sessions, ...), ingests its logs, verifies them, and compares:

- precision / recall of ``admitted`` against the truly good episodes (solved by the sealed oracle
  at rollout time, not tampered, not on a flaky fixture, no fabricated observation), and against
  plain ``solved``;
- tamper recall (tampered episodes in ``tamper_quarantine``) and tampered admissions (must be 0);
- flaky episodes caught (``flaky_quarantine``) and flaky admissions;
- the staged cascade's measured cost per attempt against the naive monolithic order (baseline);
- the cost of isolation: a bubblewrap sandbox's start-up against a bare interpreter's (what each
  oracle process cost before sandboxing), interleaved and repeated, and per episode (times the
  oracle runs an episode took); the workspace reset beside it (the seed's overlay reset: 65 ms).

Usage: ``.venv/bin/python benchmarks/cascade.py [--episodes 200] [--seed 7]``; JSON last line.

``--calibration-cache [--repeat N]`` is a second mode: the same rollout verified with the product
settings twice in a row through one fresh fixture-calibration cache per repeat (the first run
calibrates and fills it, the second reads it back), printing both runs' seconds, their ratio per
repeat, the cache's hits and misses, and whether the two runs' sinks agree.

``--workers-compare [--workers N] [--repeat R]`` is a third mode: the same rollout verified with the
product settings in three arms (``ARMS``): one worker as verification ran before the sandboxed judge
was kept and warm-started (the baseline), one worker as it runs now, and a pool of N (default: the
cores available) as it runs now, in alternating order and repeated (the machine is noisy), through
one calibration cache filled beforehand (so every arm times the per-episode work, not the one-off
calibration). Per arm: seconds per episode and cores busy (CPU seconds / wall seconds), counted
three ways: ``cgroup``, this process and everything it starts, sandboxes included, from a cpuacct
cgroup of its own (made when it runs as root on cgroup v1, else null); ``rusage``, this process and
its reaped children (``getrusage``: bubblewrap's monitor exits without reaping the sandbox's init,
so the sandboxed tests' CPU never reaches it); ``machine``, the whole machine (``/proc/stat``:
whatever else runs too; an idle window before each repeat measures that background). It prints the
ratios per repeat and whether every arm's verdict table is identical.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import TypeVar

from trajectory_platform.curation.verify import verify_episodes
from trajectory_platform.curation.verify.cascade import (
    CascadeResult,
    VerifySettings,
    available_cores,
    fixtures_lookup,
    seal_key,
)
from trajectory_platform.curation.verify.tables import verdicts_table
from trajectory_platform.gym import isolation, oracle
from trajectory_platform.gym.fixtures import Fixture
from trajectory_platform.gym.rollout import read_truth, rollout
from trajectory_platform.gym.sandbox import Workspace
from trajectory_platform.traces.ingest import ingest_paths


def _ratio(num: int, den: int) -> float | None:
    return round(num / den, 4) if den else None


def _isolation_cost(fixture: Fixture, repeats: int, oracle_runs_per_episode: float) -> dict[str, float]:
    """Median start-up of ``python -c pass`` bare vs inside the sandbox, interleaved (a noisy
    machine slows both alike), and a fixture workspace's reset time."""
    bare_cmd = [isolation.interpreter(), "-I", "-S", "-B", "-c", "pass"]
    bare, boxed, resets = [], [], []
    for _ in range(repeats):
        with (
            Workspace(fixture.s0_files) as ws,
            tempfile.TemporaryDirectory(prefix="tp-bench-") as runner,
            isolation.sandbox_user() as user,
        ):
            resets.append(ws.reset_s)
            prefix = list(isolation.sandbox(ws.root, Path(runner), user=user).prefix)
            for cmd, sink in ((bare_cmd, bare), (prefix + bare_cmd, boxed)):
                start = time.perf_counter()
                subprocess.run(cmd, check=True)
                sink.append(time.perf_counter() - start)
    bare_ms, boxed_ms = statistics.median(bare) * 1e3, statistics.median(boxed) * 1e3
    return {
        "bare_interpreter_start_ms": round(bare_ms, 2),
        "sandboxed_interpreter_start_ms": round(boxed_ms, 2),
        "sandbox_vs_bare_start_ratio": round(boxed_ms / bare_ms, 2),
        "isolation_cost_per_episode_ms": round((boxed_ms - bare_ms) * oracle_runs_per_episode, 2),
        "workspace_reset_ms": round(statistics.median(resets) * 1e3, 2),
    }


def _calibration_cache_mode(episodes: list, repeat: int) -> int:
    """``verified_traces``' cascade run twice through one fresh calibration cache, per repeat."""
    first_s, second_s, ratios, caches = [], [], [], []
    same = True
    for _ in range(repeat):
        with tempfile.TemporaryDirectory(prefix="tp-bench-calibration-") as cache:
            config = VerifySettings().cascade(
                progress=False, master_key=BENCHMARK_KEY, calibration_cache=Path(cache)
            )
            timings, results = [], []
            for _run in range(2):
                start = time.perf_counter()
                results.append(verify_episodes(episodes, fixtures_lookup(0), config))
                timings.append(time.perf_counter() - start)
        first_s.append(timings[0])
        second_s.append(timings[1])
        ratios.append(timings[0] / timings[1])
        caches.append([r.calibration_cache.to_dict() for r in results])
        same = same and [v.sink for v in results[0].verdicts] == [v.sink for v in results[1].verdicts]
        print(
            f"first {timings[0]:.2f}s (cache {caches[-1][0]}) -> second {timings[1]:.2f}s "
            f"(cache {caches[-1][1]}): {ratios[-1]:.2f}x; same sinks: {same}",
            file=sys.stderr,
        )
    report = {
        "episodes": len(episodes),
        "first_run_s": [round(t, 2) for t in first_s],
        "second_run_s": [round(t, 2) for t in second_s],
        "ratios": [round(r, 3) for r in ratios],
        "median_ratio": round(statistics.median(ratios), 3),
        "cache": caches,
        "same_sinks": same,
    }
    print(json.dumps(report, sort_keys=True))
    return 0 if same else 1


T = TypeVar("T")
BENCHMARK_KEY = b"benchmarks/cascade.py"
"""The pipeline key here, fixed so repeats draw the same differential cases (the pipeline keys them
with a secret): the rollout seals its fault schedules with its :func:`seal_key` and every verify
derives both keys from it (:meth:`VerifySettings.cascade`), so faulted episodes are sealed and
checked as on the product path (the asset, ``curate``) and the figures count that check."""
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
CPUACCT = Path("/sys/fs/cgroup/cpuacct")


@contextlib.contextmanager
def _own_cpu_group() -> Iterator[Path | None]:
    """A cgroup-v1 cpuacct group holding this process, so every process it starts is counted,
    sandboxes included (``None`` where none can be made); this process leaves it and it is removed
    afterwards."""
    group = CPUACCT / f"tp-bench-{os.getpid()}"
    try:
        group.mkdir()
        (group / "cgroup.procs").write_text(str(os.getpid()))
    except OSError:
        with contextlib.suppress(OSError):
            group.rmdir()
        yield None
        return
    try:
        yield group
    finally:
        (CPUACCT / "cgroup.procs").write_text(str(os.getpid()))
        for _ in range(50):  # a sandbox's init may outlive its monitor by a moment
            with contextlib.suppress(OSError):
                group.rmdir()
                break
            time.sleep(0.1)


def _cpu_seconds(group: Path | None) -> tuple[float | None, float, float]:
    """CPU seconds so far: the cgroup's (``None`` without one), this process and its reaped
    children's, and the whole machine's busy seconds."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    with open("/proc/stat", encoding="ascii") as fh:
        ticks = [int(v) for v in fh.readline().split()[1:]]
    idle = ticks[3] + ticks[4]  # idle and iowait
    grouped = int((group / "cpuacct.usage").read_text()) / 1e9 if group is not None else None
    rusage = own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime
    return grouped, rusage, (sum(ticks) - idle) / CLOCK_TICKS


def _busy(run: Callable[[], T], group: Path | None) -> tuple[T, float, dict[str, float | None]]:
    """``run()``'s result, its wall seconds, and the cores busy over it, counted three ways."""
    before = _cpu_seconds(group)
    start = time.perf_counter()
    result = run()
    wall = time.perf_counter() - start
    after = _cpu_seconds(group)
    cores = {
        name: None if a is None or b is None else round((a - b) / wall, 3)
        for name, a, b in zip(("cgroup", "rusage", "machine"), after, before, strict=True)
    }
    return result, wall, cores


ARMS = ("1 before", "1 now", "N now")
"""The arms of ``--workers-compare``: one worker as verification ran before the judge was kept and
warmed (a sandboxed judge started per oracle run, every test importing and compiling for itself),
one worker as it runs now (the judge kept between runs, warm-started), and the pool of N workers
as it runs now (the product's default)."""


@contextlib.contextmanager
def _judges_started_cold(cold: bool) -> Iterator[None]:
    """Within the block, oracle runs start their judge without the warm start when ``cold``."""
    if not cold:
        yield
        return
    with contextlib.ExitStack() as stack:
        stack.callback(setattr, oracle, "run_tests_in", oracle.run_tests_in)
        oracle.run_tests_in = partial(oracle.run_tests_in, warm=False)
        yield


def _workers_compare_mode(episodes: list, workers: int, repeat: int, idle_s: float = 2.0) -> int:
    """The three :data:`ARMS` on the same episodes, in alternating order, ``repeat`` times."""
    lookup = fixtures_lookup(0)
    figures = ("per_episode_s", "cgroup_cores", "rusage_cores", "machine_cores")
    arms: dict[str, dict[str, list]] = {arm: {figure: [] for figure in figures} for arm in ARMS}
    background: list[float | None] = []
    same = True
    with tempfile.TemporaryDirectory(prefix="tp-bench-workers-") as cache, _own_cpu_group() as group:
        settings = VerifySettings()

        def verify(arm: str) -> CascadeResult:
            n, before = (workers if arm.startswith("N") else 1), arm.endswith("before")
            chosen = replace(settings, workers=n, keep_judges=not before)
            with _judges_started_cold(before):
                return verify_episodes(
                    episodes,
                    lookup,
                    chosen.cascade(False, master_key=BENCHMARK_KEY, calibration_cache=Path(cache)),
                )

        verify("N now")  # fills the calibration cache: every arm then reads it
        for attempt in range(repeat):
            background.append(_busy(lambda: time.sleep(idle_s), group)[2]["machine"])
            tables = {}
            for arm in ARMS if attempt % 2 == 0 else ARMS[::-1]:
                result, wall, cores = _busy(partial(verify, arm), group)
                tables[arm] = verdicts_table(result)
                arms[arm]["per_episode_s"].append(round(wall / len(episodes), 4))
                for name, value in cores.items():
                    arms[arm][f"{name}_cores"].append(value)
            same = same and all(tables[arm].equals(tables[ARMS[0]]) for arm in ARMS)
            print(
                f"repeat {attempt}: "
                + "; ".join(
                    f"{arm} {arms[arm]['per_episode_s'][-1] * 1e3:.1f} ms/episode, cores busy "
                    f"{arms[arm]['cgroup_cores'][-1]} (this run's processes), "
                    f"{arms[arm]['machine_cores'][-1]} (machine)"
                    for arm in ARMS
                )
                + f"; idle background {background[-1]} cores; same verdicts: {same}",
                file=sys.stderr,
            )
    ratios = {
        f"{slow} / {fast}": [
            round(a / b, 3)
            for a, b in zip(arms[slow]["per_episode_s"], arms[fast]["per_episode_s"], strict=True)
        ]
        for slow, fast in (("1 before", "N now"), ("1 now", "N now"), ("1 before", "1 now"))
    }
    report = {
        "episodes": len(episodes),
        "workers": workers,
        "arms": arms,
        "ratios": ratios,
        "median_ratios": {name: round(statistics.median(values), 3) for name, values in ratios.items()},
        "idle_background_cores": background,
        "same_verdicts": same,
    }
    print(json.dumps(report, sort_keys=True))
    return 0 if same else 1


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=200)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--out", type=Path, default=None, help="rollout folder (default: a temp dir)")
    parser.add_argument("--isolation-repeats", type=int, default=30, help="start-up timings per arm")
    parser.add_argument("--calibration-cache", action="store_true", help="time verify: cold vs warm cache")
    parser.add_argument("--workers-compare", action="store_true", help="time verify: 1 before, 1 now, N now")
    parser.add_argument("--workers", type=int, default=available_cores(), help="N of --workers-compare")
    parser.add_argument("--repeat", type=int, default=3, help="repeats of either comparison")
    args = parser.parse_args()
    out = args.out or Path(tempfile.mkdtemp(prefix="tp-bench-cascade-"))
    start = time.perf_counter()
    summary = rollout(args.episodes, args.seed, out, progress=False, seal_key=seal_key(BENCHMARK_KEY))
    rollout_s = time.perf_counter() - start
    ingested = ingest_paths([out / day for day in summary.days])
    episodes = sorted(ingested.episodes, key=lambda e: e.episode_id)
    if args.calibration_cache:
        return _calibration_cache_mode(episodes, args.repeat)
    if args.workers_compare:
        return _workers_compare_mode(episodes, args.workers, args.repeat)
    truth = {row["episode_id"]: row for row in read_truth(out)}
    start = time.perf_counter()
    result = verify_episodes(
        episodes, fixtures_lookup(0), VerifySettings().cascade(progress=False, master_key=BENCHMARK_KEY)
    )
    verify_s = time.perf_counter() - start
    sinks = {v.episode_id: v.sink for v in result.verdicts}

    # A fabricated tool result is a defect whatever the final workspace: never "truly good".
    good = {
        e
        for e, t in truth.items()
        if t["solved"] and not t["tampered"] and not t["flaky"] and t["behaviour"] != "fabricated_observation"
    }
    solved = {e for e, t in truth.items() if t["solved"]}
    tampered = {e for e, t in truth.items() if t["tampered"]}
    flaky = {e for e, t in truth.items() if t["flaky"]}
    admitted = {e for e, s in sinks.items() if s == "admitted"}
    by_behaviour: dict[str, Counter[str]] = defaultdict(Counter)
    for episode_id, sink in sinks.items():
        by_behaviour[truth[episode_id]["behaviour"]][sink] += 1

    print(
        f"rollout: {args.episodes} episodes in {rollout_s:.1f}s; ingested {len(episodes)} "
        f"(rejects {len(ingested.rejects)}); verified in {verify_s:.1f}s",
        file=sys.stderr,
    )
    print(f"{'behaviour':<26} sinks", file=sys.stderr)
    for behaviour in sorted(by_behaviour):
        print(f"{behaviour:<26} {dict(sorted(by_behaviour[behaviour].items()))}", file=sys.stderr)
    ledger = result.ledger.summary()
    print(f"{'stage':<10} {'entered':>7} {'passed':>7} {'c_i (s)':>10} {'p_i':>7}", file=sys.stderr)
    for stage in ledger["stages"]:
        print(
            f"{stage['stage']:<10} {stage['entered']:>7} {stage['passed']:>7} "
            f"{stage['c']:>10.5f} {stage['p']:>7.3f}",
            file=sys.stderr,
        )
    print(
        f"C_attempt staged {ledger['c_attempt']:.5f}s vs monolithic (baseline) "
        f"{ledger['monolithic_c_attempt']:.5f}s -> {ledger['cost_ratio']}x",
        file=sys.stderr,
    )
    runs_per_episode = result.ledger.oracle_runs / max(len(episodes), 1)
    lookup = fixtures_lookup(0)
    fixture = next(f for f in map(lookup, (e.task.fixture_id for e in episodes)) if f is not None)
    isolation_cost = _isolation_cost(fixture, args.isolation_repeats, runs_per_episode)
    print(
        f"sandbox start-up {isolation_cost['sandboxed_interpreter_start_ms']} ms vs bare interpreter "
        f"{isolation_cost['bare_interpreter_start_ms']} ms "
        f"({isolation_cost['sandbox_vs_bare_start_ratio']}x); "
        f"{runs_per_episode:.2f} oracle runs/episode -> isolation costs "
        f"{isolation_cost['isolation_cost_per_episode_ms']} ms/episode; workspace reset "
        f"{isolation_cost['workspace_reset_ms']} ms (seed's overlay: 65 ms)",
        file=sys.stderr,
    )
    report = {
        **isolation_cost,
        "oracle_runs_per_episode": round(runs_per_episode, 3),
        "janitor": result.janitor.to_dict(),
        "episodes": len(episodes),
        "sinks": result.counts("sink"),
        "roles": result.counts("role"),
        "admitted_precision": _ratio(len(admitted & good), len(admitted)),
        "admitted_recall": _ratio(len(admitted & good), len(good)),
        "admitted_precision_vs_solved": _ratio(len(admitted & solved), len(admitted)),
        "admitted_recall_vs_solved": _ratio(len(admitted & solved), len(solved)),
        "tamper_recall": _ratio(sum(sinks[e] == "tamper_quarantine" for e in tampered), len(tampered)),
        "tampered_admitted": len(admitted & tampered),
        "flaky_caught": _ratio(sum(sinks[e] == "flaky_quarantine" for e in flaky), len(flaky)),
        "flaky_admitted": len(admitted & flaky),
        "c_attempt": ledger["c_attempt"],
        "monolithic_c_attempt": ledger["monolithic_c_attempt"],
        "staged_vs_monolithic_cost_ratio": ledger["cost_ratio"],
        "yield": ledger["yield"],
        "c_accepted": ledger["c_accepted"],
        "r_flake": ledger["r_flake"],
        "triage": result.counts("triage_class"),
        "verify_wall_s": round(verify_s, 2),
    }
    print(json.dumps(report, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
