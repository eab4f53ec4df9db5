"""Benchmark: how each curation stage grows with the corpus, and what one more day costs.

Issue 20, item 4. Two measurements, side by side in one run, and a third on request:

1. **Growth per stage.** Corpora of several sizes (default 500, 2000 and 8000 episodes: a 16x
   range), then ingest -> verify -> redact -> split/mixture -> mask, each stage in its own fresh
   subprocess over the previous stage's Parquet, so one stage's memory never hides another's. Each
   stage is the product's own code: the steps of ``trajectory-platform curate``
   (:class:`trajectory_platform.commands.curate.Curation`), which call the same domain functions as
   the ``ingest``, ``verify``, ``redact``, ``split`` and ``mask`` commands. Per stage and size: the
   stage's seconds (measured in the child, interpreter start-up excluded) and its peak RSS (the
   child's own ``VmHWM``, interpreter and imports included; see :func:`peak_rss_mb`). Per stage: the
   fitted growth exponent (log-log least squares of seconds and of peak RSS against episodes), an
   affine fit (fixed + per episode), the extrapolation to 100k and 1M episodes on this machine (the
   larger of the power-law and the affine figure: the cautious one), and a 100-node cluster on paper
   with its assumptions written out (JSON ``cluster_on_paper``). Beside the batched mask, the
   baseline ``mask_whole`` masks the whole mixture as one batch (the stage before ``batch_rows``),
   and likewise ``ingest_whole``, ``verify_whole``, ``redact_whole`` and ``split_whole`` beside the
   streamed stages; each pair must write the same bytes (``batched_equals_whole``), and
   ``memory_side_by_side`` gives the batched / one-batch peak RSS ratio per size. ``--stages`` runs
   a prefix of the chain.
2. **Cost of one more day.** A small day (default 40 episodes) added to a history of 1, 4 and 16
   days through Dagster: ``raw_traces`` then the per-day curation assets (``verified_traces``,
   ``triage_report``, ``redacted_corpus``) of :mod:`trajectory_platform.definitions`, one day per
   run as ``trajectory-platform run`` plans it, in a temporary workdir. Every day is timed; the
   figures at history 1, 4 and 16, the ratio 16 vs 1 and the slope against history say whether it
   stays flat.

The corpora are cut from one real scripted gym rollout (``--base-episodes``, default 500, every
behaviour class; cached in the bench workdir): a size above it repeats the rollout's lines with
renamed episode ids, so every size has the same mix of behaviours, fixtures and lengths and only
the count changes. A rollout runs every episode's sealed oracle in the sandbox (about 1 s an
episode on this shared 2-core machine), which would otherwise cost more than the stages measured.
The fixture-calibration cache and the tokenizer live in that workdir too, shared by every size (as
in a deployment, where the cache persists).

3. **What verification keeps per episode** (``--verify-heap N``): inside one verification of N
   episodes, its traced Python heap and RSS at every batch its judging pass reads
   (:func:`verify_heap`); flat when no verdict outlives its batch. One run reads the growth a
   whole-stage peak only shows past several thousand episodes.

Usage: ``.venv/bin/python benchmarks/scale.py [--sizes 500 2000 8000] [--repeat 1] [--day-episodes 40]
[--workdir DIR] [--no-per-day] [--no-growth] [--verify-heap N [--heap-batch-rows 100]]
[--out results.json]``; the last stdout line is JSON.

The issue names 1k / 4k / 16k episodes: ``--sizes 1000 4000 16000`` runs them. On this 2-core
machine verification alone costs 92 ms an episode when it is quiet and 250 ms at load 6-11
(measured 2026-12-02), so 16k is 25-70 minutes of verification plus some 10 more for the other
stages; the default keeps the same 16x range at half the top size.
"""

from __future__ import annotations

import argparse
import datetime as dt
import hashlib
import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

STAGES = ("ingest", "verify", "redact", "split", "mask")
"""The global chain, in order; each reads the previous stage's Parquet."""
STREAMED = ("ingest", "verify", "redact", "split")
"""Stages that hold ``batch_rows`` episodes at a time (``--set STAGE.batch_rows``); beside each, the
baseline ``STAGE_whole`` runs it as one batch (how it held the corpus before batches)."""
TARGETS = {"exponent": 1.1, "peak_rss_gb_at_100k": 4.0}
"""Issue 20's bars: growth exponent per stage, peak RSS extrapolated to 100k episodes."""
EXTRAPOLATE_TO = (100_000, 1_000_000)
RESULT_LINE = "SCALE_STAGE_RESULT "
BASELINES = ("mask_whole", *(f"{stage}_whole" for stage in STREAMED))
"""Side-by-side baselines: ``mask_whole`` masks the whole mixture as one batch, ``ingest_whole``,
``verify_whole``, ``redact_whole`` and ``split_whole`` hold their whole input as one batch (how each
stage ran before ``batch_rows``); each must write the same bytes as its batched run."""
CHAIN = (
    "ingest",
    "ingest_whole",
    "verify",
    "verify_whole",
    "redact",
    "redact_whole",
    "split",
    "split_whole",
    "mask",
    "mask_whole",
)
"""The order stages run in for one size: each batched stage beside its baseline, before the next
stage reads their (identical) output."""
OUTPUTS = {
    "ingest": ("ingest/traces.parquet",),
    "verify": ("verify/verified.parquet",),
    "redact": ("redacted/corpus.parquet",),
    "split": (
        "split/split_assignments.parquet",
        "split/training_mixture.parquet",
        "split/preference_pairs.parquet",
    ),
    "mask": ("dataset.jsonl",),
}
"""The files whose bytes (in this order, one digest) a stage and its baseline must share."""
WHOLE = 10**9
DAYS = 3


# ---- fitting (pure) ---------------------------------------------------------------------------


def growth_exponent(sizes: list[float], values: list[float]) -> float:
    """The slope of log(value) against log(size) by least squares: 1.0 is linear growth, 0 flat.
    A fixed cost (start-up, a cache filled once) pulls it below 1, so read it with the affine fit."""
    if len(sizes) != len(values) or len(sizes) < 2:
        raise ValueError(f"need at least two (size, value) points, got {len(sizes)} and {len(values)}")
    if min(sizes) <= 0 or min(values) <= 0:
        raise ValueError("sizes and values must be positive to fit in log space")
    xs = [math.log(s) for s in sizes]
    ys = [math.log(v) for v in values]
    return _slope(xs, ys)[0]


def affine_fit(sizes: list[float], values: list[float]) -> tuple[float, float]:
    """``(fixed, per_unit)`` of ``value = fixed + per_unit * size`` by least squares."""
    if len(sizes) != len(values) or len(sizes) < 2:
        raise ValueError(f"need at least two (size, value) points, got {len(sizes)} and {len(values)}")
    slope, intercept = _slope([float(s) for s in sizes], [float(v) for v in values])
    return intercept, slope


def _slope(xs: list[float], ys: list[float]) -> tuple[float, float]:
    """Least-squares ``(slope, intercept)``; refuses points that all share one x."""
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    sxx = sum((x - mx) ** 2 for x in xs)
    if sxx == 0:
        raise ValueError("all sizes are equal: nothing to fit")
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sxx
    return slope, my - slope * mx


def extrapolate(sizes: list[float], values: list[float], target: float) -> dict[str, float]:
    """``value`` at ``target`` by the power law and by the affine fit, and the larger of the two
    (a memory figure with a big fixed base fits a low exponent that would understate the growth)."""
    exponent = growth_exponent(sizes, values)
    xs, ys = [math.log(s) for s in sizes], [math.log(v) for v in values]
    _, log_scale = _slope(xs, ys)
    power = math.exp(log_scale) * target**exponent
    fixed, per_unit = affine_fit(sizes, values)
    affine = fixed + per_unit * target
    return {"power": power, "affine": affine, "cautious": max(power, affine)}


# ---- one stage in a child process ---------------------------------------------------------------


def _curation(run: Path, workdir: Path, whole: str | None = None) -> Any:
    """The curate command's stage runner, built as the CLI builds it, over the corpus's dated logs;
    ``whole``: the settings stage that runs as one batch (the baseline)."""
    from trajectory_platform.cli import build_parser
    from trajectory_platform.commands.curate import Curation, stage_settings

    logs = sorted(str(p) for p in (run / "logs").iterdir() if p.is_dir())
    extra = [] if whole is None else ["--set", f"{whole}.batch_rows={WHOLE}"]
    args = build_parser("curate").parse_args(
        ["curate", *logs, "--out", str(run / "out"), "--workdir", str(workdir), "--no-progress", *extra]
    )
    return Curation(args, workdir, stage_settings(args), None)


def stage_child(stage: str, run: Path, workdir: Path) -> dict[str, Any]:
    """Run one stage over the previous stage's output and write its own; returns its figures."""
    import pyarrow.parquet as pq

    base = stage.removesuffix("_whole")
    curation = _curation(
        run, workdir, ("dataset" if base == "mask" else base) if stage in BASELINES else None
    )
    out = run / "out"
    provenance_path = out / "redacted" / "provenance.json"
    start = time.perf_counter()
    if base == "ingest":
        traces = curation.ingest()
        if isinstance(traces, str):
            raise RuntimeError(f"ingest: {traces}")
        rows = pq.ParquetFile(traces).metadata.num_rows
    elif base == "verify":
        rows = pq.ParquetFile(curation.verify(out / "ingest" / "traces.parquet")).metadata.num_rows
    elif base == "redact":
        corpus, provenance = curation.redact(out / "verify" / "verified.parquet")
        provenance_path.write_text(json.dumps(provenance, sort_keys=True), encoding="utf-8")
        rows = pq.ParquetFile(corpus).metadata.num_rows
    elif base == "split":
        provenance = json.loads(provenance_path.read_text(encoding="utf-8"))
        rows = curation.split(out / "redacted" / "corpus.parquet", provenance).num_rows
    elif base == "mask":
        provenance = json.loads(provenance_path.read_text(encoding="utf-8"))
        rows = curation.dataset(pq.read_table(out / "split" / "training_mixture.parquet"), provenance)
    else:
        raise ValueError(f"unknown stage {stage!r}; stages: {', '.join(STAGES + BASELINES)}")
    figures: dict[str, Any] = {"seconds": round(time.perf_counter() - start, 3), "rows_out": rows}
    if base in OUTPUTS:
        digest = hashlib.sha256()
        for name in OUTPUTS[base]:
            digest.update((out / name).read_bytes())
        figures["output_sha256"] = digest.hexdigest()
    return figures


def peak_rss_mb() -> float:
    """This process's own resident high-water mark (``VmHWM``, MB). Not ``ru_maxrss``: Linux carries
    the parent's high-water mark across fork and exec into the child's, so a child of a big parent
    would report at least the parent's size."""
    return _proc_status_mb("VmHWM")


def _proc_status_mb(key: str) -> float:
    """A memory line of ``/proc/self/status`` (``VmHWM``, ``VmRSS``), in MB."""
    for line in Path("/proc/self/status").read_text(encoding="ascii").splitlines():
        if line.startswith(f"{key}:"):
            return round(int(line.split()[1]) / 1024, 1)
    raise RuntimeError(f"/proc/self/status has no {key} line (not Linux?)")


def run_stage(stage: str, run: Path, workdir: Path) -> dict[str, Any]:
    """``stage`` in a fresh interpreter: its seconds, rows and peak RSS as the child measured them."""
    command = [sys.executable, __file__, "--stage", stage, "--run", str(run), "--workdir", str(workdir)]
    wall = time.perf_counter()
    log = run / f"{stage}.stderr"
    with log.open("w", encoding="utf-8") as errors:
        done = subprocess.run(command, stdout=subprocess.PIPE, stderr=errors, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"stage {stage} on {run} exited {done.returncode}; see {log}")
    [line] = [x for x in done.stdout.splitlines() if x.startswith(RESULT_LINE)]
    return {**json.loads(line.removeprefix(RESULT_LINE)), "wall_s": round(time.perf_counter() - wall, 3)}


BENCH_SALT = "scale-benchmark-pipeline-key"
"""The pipeline key of every workdir this benchmark makes (unless ``$TRAJECTORY_PLATFORM_SALT`` is
set): its rollout seals fault schedules with the key its verification checks them by, as
``trajectory-platform run`` does within one workdir."""


def seal_key() -> bytes:
    """The seal key of the benchmark's workdirs: ``$TRAJECTORY_PLATFORM_SALT``, which :func:`main`
    sets to :data:`BENCH_SALT` for itself and every stage it starts unless it is set already."""
    from trajectory_platform.resources.secrets import SALT_ENV, workdir_salt

    if not os.environ.get(SALT_ENV):
        raise RuntimeError(f"${SALT_ENV} is unset: the benchmark's workdirs would not share a key")
    return workdir_salt(Path(".")).seal_key()


def base_rollout(episodes: int, seed: int, cache: Path) -> list[str]:
    """The real gym rollout every corpus is cut from, as its native log lines in day order; made
    once per (episodes, seed) under ``cache`` (a rollout runs every episode's oracle: ~1 s each here),
    its fault schedules sealed under :func:`seal_key`."""
    from trajectory_platform.gym.rollout import rollout

    logs = cache / f"rollout-n{episodes}-seed{seed}-sealed"
    if not (logs / "truth.jsonl").is_file():
        shutil.rmtree(logs, ignore_errors=True)
        rollout(episodes, seed, logs, days=3, progress=False, seal_key=seal_key())
    return [line for path in sorted(logs.glob("*/*.jsonl")) for line in path.read_text("utf-8").splitlines()]


def tiled(base: list[str], start: int, count: int) -> list[str]:
    """Lines ``start .. start+count`` of the base rollout repeated end to end; every repeat after the
    first renames its episodes (``<id>~r<k>``), so each one is a distinct episode to the pipeline (a
    faulted one sealed again for its new id, as the runtime would have sealed it)."""
    from trajectory_platform.gym.faults import FAULTS_SEAL, FaultSpec, seal_faults
    from trajectory_platform.traces.record import canonical_json

    lines = []
    for index in range(start, start + count):
        line, repeat = base[index % len(base)], index // len(base)
        if repeat:
            record = json.loads(line)
            record["episode_id"] = f"{record['episode_id']}~r{repeat}"
            extra = json.loads(record.get("extra_json") or "{}")
            if extra.get("faults"):
                faults = [FaultSpec(**fault) for fault in extra["faults"]]
                fixture_id = record["task"]["fixture_id"]
                extra[FAULTS_SEAL] = seal_faults(seal_key(), record["episode_id"], fixture_id, faults)
                record["extra_json"] = canonical_json(extra)
            line = canonical_json(record)
        lines.append(line)
    return lines


def day_name(index: int) -> str:
    """The ``index``-th dated folder from the rollout's first day (the trace source's layout)."""
    from trajectory_platform.gym.rollout import START_DATE

    return (START_DATE + dt.timedelta(days=index)).isoformat()


FILE_LINES = 250
"""Records per log file: a day's logs arrive rotated into files of at most this many records, as a
production agent fleet writes them. Ingest reads one file whole (its bytes and parsed records, a
term that follows the file, not the corpus), so one ever-growing file would hide its batch bound."""


def write_day(folder: Path, lines: list[str]) -> None:
    """One dated folder of native logs, the layout the trace source and ``ingest`` read, rotated
    every :data:`FILE_LINES` records."""
    folder.mkdir(parents=True, exist_ok=True)
    for part, start in enumerate(range(0, max(len(lines), 1), FILE_LINES)):
        name = "gym-rollout.jsonl" if part == 0 else f"gym-rollout.{part}.jsonl"
        chunk = lines[start : start + FILE_LINES]
        (folder / name).write_text("".join(line + "\n" for line in chunk), encoding="utf-8")


def measure_size(
    episodes: int, base: list[str], tmp: Path, workdir: Path, stages: tuple[str, ...] = CHAIN
) -> dict[str, Any]:
    """A corpus of ``episodes`` cut from the base rollout over three days, and the chain over it,
    one child per stage (each batched stage beside its one-batch baseline); ``stages``: those of
    :data:`CHAIN` to run (a stage needs the one before it)."""
    run = tmp / f"n{episodes}"
    shutil.rmtree(run, ignore_errors=True)
    lines = tiled(base, 0, episodes)
    for day in range(DAYS):
        write_day(run / "logs" / day_name(day), lines[day::DAYS])
    figures: dict[str, Any] = {}
    for stage in (s for s in CHAIN if s in stages):
        figures[stage] = run_stage(stage, run, workdir)
        print(f"scale: {episodes} episodes, {stage}: {figures[stage]}", file=sys.stderr, flush=True)
    shutil.rmtree(run, ignore_errors=True)
    return {"episodes": episodes, "stages": figures}


def verify_heap(episodes: int, batch_rows: int, base: list[str], tmp: Path, workdir: Path) -> dict[str, Any]:
    """What verification keeps per episode it has judged, inside one run: as its judging pass (pass
    2 of ``verify_batches``) reads each batch, the traced Python heap (``tracemalloc``) and VmRSS are
    sampled; the slope from the second sample (the first batch fills one-time caches) to the last
    is what each judged episode leaves behind. One size suffices (the growth is read along the
    run), and the stage's peak RSS, a few MB of verdicts against ~200 MB of interpreter and bounds
    filling up, needs sizes past several thousand episodes to show the same."""
    import tracemalloc

    from trajectory_platform.curation.verify.calibration import CALIBRATION_CACHE_DIR
    from trajectory_platform.curation.verify.cascade import (
        CascadeConfig,
        fixtures_lookup,
        parquet_batches,
        verify_batches,
    )
    from trajectory_platform.traces.ingest import ingest_to

    run = tmp / f"heap-n{episodes}"
    write_day(run / "logs" / day_name(0), tiled(base, 0, episodes))
    ingest_to([run / "logs"], run / "ingest", progress=False)
    source, passes, samples = parquet_batches(run / "ingest" / "traces.parquet", batch_rows), [0], []

    def batches() -> Any:
        passes[0] += 1
        judged = 0
        for batch in source():
            if passes[0] == 2:  # pass 1 surveys, pass 2 judges, pass 3 finishes and emits
                traced = round(tracemalloc.get_traced_memory()[0] / 2**20, 3)
                samples.append({"judged": judged, "traced_mb": traced, "rss_mb": _proc_status_mb("VmRSS")})
            judged += len(batch)
            yield batch

    config = CascadeConfig(
        progress=False, batch_rows=batch_rows, calibration_cache=workdir / CALIBRATION_CACHE_DIR
    )
    tracemalloc.start()
    try:
        result = verify_batches(batches, fixtures_lookup(0), config, lambda *_: None)
    finally:
        tracemalloc.stop()
    shutil.rmtree(run, ignore_errors=True)
    first, last = samples[min(1, len(samples) - 1)], samples[-1]
    judged = max(last["judged"] - first["judged"], 1)
    return {
        "episodes": episodes,
        "batch_rows": batch_rows,
        "traced_bytes_per_judged_episode": round((last["traced_mb"] - first["traced_mb"]) * 2**20 / judged),
        "rss_kb_per_judged_episode": round((last["rss_mb"] - first["rss_mb"]) * 1024 / judged, 2),
        "samples": samples,
        "sinks": result.counts("sink"),
    }


def _best(runs: list[dict[str, Any]], stage: str, key: str) -> float:
    """The smallest of the repeats (the machine is shared: noise only ever adds)."""
    return min(r["stages"][stage][key] for r in runs)


def measured(by_size: dict[int, list[dict[str, Any]]]) -> list[str]:
    """The stages every run measured, in :data:`CHAIN` order."""
    return [s for s in CHAIN if all(s in r["stages"] for runs in by_size.values() for r in runs)]


def growth(by_size: dict[int, list[dict[str, Any]]]) -> dict[str, Any]:
    """Per stage: exponents of seconds and peak RSS, affine fits, extrapolations, target verdicts."""
    sizes = sorted(by_size)
    report: dict[str, Any] = {}
    for stage in measured(by_size):
        seconds = [max(_best(by_size[n], stage, "seconds"), 1e-3) for n in sizes]
        rss = [_best(by_size[n], stage, "peak_rss_mb") for n in sizes]
        fixed_s, per_episode_s = affine_fit(sizes, seconds)
        base_mb, per_episode_mb = affine_fit(sizes, rss)
        at = {
            str(n): {
                "seconds": round(extrapolate(sizes, seconds, n)["cautious"], 1),
                "peak_rss_gb": round(extrapolate(sizes, rss, n)["cautious"] / 1024, 2),
            }
            for n in EXTRAPOLATE_TO
        }
        exponents = {"seconds": growth_exponent(sizes, seconds), "peak_rss": growth_exponent(sizes, rss)}
        report[stage] = {
            "seconds": seconds,
            "peak_rss_mb": rss,
            "exponent_seconds": round(exponents["seconds"], 3),
            "exponent_peak_rss": round(exponents["peak_rss"], 3),
            "fixed_s": round(fixed_s, 2),
            "ms_per_episode": round(1000 * per_episode_s, 3),
            "base_rss_mb": round(base_mb, 1),
            "kb_rss_per_episode": round(1024 * per_episode_mb, 2),
            "extrapolated": at,
            "meets": {
                "exponent_le_1_1": max(exponents.values()) <= TARGETS["exponent"],
                "under_4_gb_at_100k": at["100000"]["peak_rss_gb"] < TARGETS["peak_rss_gb_at_100k"],
            },
        }
    return report


def cluster_on_paper(report: dict[str, Any], nodes: int = 100, cores: int = 8) -> dict[str, Any]:
    """1M episodes on ``nodes`` nodes, from this machine's per-episode costs; assumptions spelled out."""
    episodes = EXTRAPOLATE_TO[-1]
    efficiency = 0.7
    per_day = {"verify", "redact", "ingest"}
    hours: dict[str, float] = {}
    for stage, figures in report.items():
        work = max(figures["ms_per_episode"], 0.0) / 1000 * episodes
        lanes = nodes * cores * efficiency if stage in per_day else cores * efficiency
        hours[stage] = round((work / lanes + max(figures["fixed_s"], 0.0)) / 3600, 2)
    assumptions = [
        f"{nodes} nodes of {cores} cores each, every core as fast as one of this machine's 2 cores "
        "(the per-episode figures above are single-core on this machine).",
        f"Parallel efficiency {efficiency}: scheduling, Parquet transfers to object storage and "
        "stragglers cost 30% of ideal speed-up.",
        "Ingest, verify and redact are per-day partitions: one Dagster step (a pod under "
        "k8s_job_executor) per day or per bounded batch of days, so they spread over every core of "
        "every node; verification's worker pool fills a node's cores.",
        "Split/mixture and mask are global stages on one node (its cores only). Split/mixture holds "
        "compact keys per episode (ids, task keys, labels, action digests, pair profiles: "
        "kb_rss_per_episode of split above) and one batch_rows batch of rows; mask holds one "
        "batch_rows batch of episodes.",
        "Mask's work follows the mixture's rows, not the corpus: the mixture caps episodes per "
        "fixture, so over a fixed fixture library it saturates (about 70 rows here); on diverse "
        "real logs it grows with the number of distinct tasks.",
        "Fixed costs (calibration, imports, tokenizer load) are paid once per stage, not per node "
        "(the calibration cache is shared through object storage).",
        "The gym rollout (data generation) is not counted: real logs arrive from production agents.",
        "Warehouse writes go per partition to object storage; one DuckDB writer only serves the "
        "global tables.",
    ]
    return {
        "nodes": nodes,
        "cores_per_node": cores,
        "episodes": episodes,
        "hours_by_stage": hours,
        "hours_total": round(sum(hours.values()), 2),
        "assumptions": assumptions,
    }


CURATION = ("verified_traces", "triage_report", "redacted_corpus")
"""The per-day curation assets, one day per run."""
HISTORY_MARKS = (1, 4, 16)


def per_day(base: list[str], day_episodes: int, calibration: Path | None) -> dict[str, Any]:
    """Days arrive one by one in a fresh Dagster workdir; each is ingested, then curated, timed.
    Each day is the next ``day_episodes`` episodes cut from the base rollout. ``calibration`` (a
    warm fixture-calibration cache) is copied in so no day pays a cold start another does not."""
    from dagster import DagsterInstance, materialize

    from trajectory_platform.assets.raw import raw_traces
    from trajectory_platform.commands.run import plan
    from trajectory_platform.curation.verify.calibration import CALIBRATION_CACHE_DIR
    from trajectory_platform.definitions import bound_to, defs, stage_job
    from trajectory_platform.resources import build_resources

    timings: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="tp-scale-days-") as tmp, DagsterInstance.ephemeral() as instance:
        workdir = Path(tmp) / "workdir"
        if calibration is not None and calibration.is_dir():
            shutil.copytree(calibration, workdir / CALIBRATION_CACHE_DIR)
        resources = build_resources(workdir)
        located = bound_to(resources)
        for history in range(max(HISTORY_MARKS) + 1):
            day = day_name(history)
            write_day(workdir / "trace_source" / day, tiled(base, history * day_episodes, day_episodes))
            steps = plan(defs, [day])
            [ingest_run] = next(step.runs for step in steps if "raw_traces" in step.names)
            start = time.perf_counter()
            if not materialize([raw_traces], instance=instance, resources=resources, **ingest_run).success:
                raise RuntimeError(f"raw_traces failed for {day}")
            ingest_s = time.perf_counter() - start
            start = time.perf_counter()
            failed_checks: list[str] = []
            for step in steps:
                if not set(step.names) & set(CURATION):
                    continue
                for kwargs in step.runs:
                    result = stage_job(located, step.assets_def.keys).execute_in_process(
                        asset_selection=list(step.assets_def.keys),
                        instance=instance,
                        raise_on_error=False,
                        **kwargs,
                    )
                    made = {e.asset_key.to_user_string() for e in result.get_asset_materialization_events()}
                    if not set(step.names) <= made:  # a failed blocking check is a verdict, not a failure
                        raise RuntimeError(f"{step.names} failed for {day}")
                    failed_checks += [
                        e.check_name for e in result.get_asset_check_evaluations() if not e.passed
                    ]
            timings.append(
                {
                    "day": day,
                    "history_days": history,
                    "raw_s": round(ingest_s, 2),
                    "curation_s": round(time.perf_counter() - start, 2),
                    "failed_checks": sorted(failed_checks),
                }
            )
            print(f"scale: per-day {timings[-1]}", file=sys.stderr, flush=True)
    return day_cost_summary(timings, day_episodes)


def day_cost_summary(timings: list[dict[str, Any]], day_episodes: int) -> dict[str, Any]:
    """The new day's curation seconds at each history mark, its ratio to history 1, and the slope
    over every day after the first (seconds per day of history: 0 when flat)."""
    by_history = {t["history_days"]: t["curation_s"] for t in timings}
    later = [t for t in timings if t["history_days"] >= 1]
    _, slope = affine_fit([t["history_days"] for t in later], [t["curation_s"] for t in later])
    marks = {str(h): by_history[h] for h in HISTORY_MARKS}
    return {
        "day_episodes": day_episodes,
        "curation_s_at_history": marks,
        "ratio_16_vs_1": round(by_history[16] / by_history[1], 3),
        "slope_s_per_history_day": round(slope, 4),
        "days": timings,
    }


# ---- main -----------------------------------------------------------------------------------------


def _normalized_growth(by_size: dict[int, list[dict[str, Any]]]) -> dict[str, dict[str, float]]:
    """Side by side against the smallest size: (seconds ratio) / (episodes ratio), per stage and
    size; 1.0 is linear, above 1 grows faster than the corpus."""
    sizes = sorted(by_size)
    smallest = sizes[0]
    return {
        stage: {
            str(n): round(
                (_best(by_size[n], stage, "seconds") / max(_best(by_size[smallest], stage, "seconds"), 1e-3))
                / (n / smallest),
                3,
            )
            for n in sizes
        }
        for stage in measured(by_size)
    }


def same_output(by_size: dict[int, list[dict[str, Any]]]) -> dict[str, bool]:
    """Per baseline measured: did it write the same bytes as its batched stage, at every size?"""
    same = {}
    for baseline in (b for b in measured(by_size) if b in BASELINES):
        stage = baseline.removesuffix("_whole")
        same[stage] = all(
            r["stages"][baseline]["output_sha256"] == r["stages"][stage]["output_sha256"]
            for runs in by_size.values()
            for r in runs
        )
    return same


def memory_side_by_side(by_size: dict[int, list[dict[str, Any]]]) -> dict[str, dict[str, float]]:
    """Per streamed stage and size: peak RSS batched / peak RSS as one batch (below 1: the batches
    saved memory), and the batched run's peak RSS growth from the smallest size (MB)."""
    sizes = sorted(by_size)
    report = {}
    for stage in STREAMED:
        if {stage, f"{stage}_whole"} <= set(measured(by_size)):
            batched = {n: _best(by_size[n], stage, "peak_rss_mb") for n in sizes}
            whole = {n: _best(by_size[n], f"{stage}_whole", "peak_rss_mb") for n in sizes}
            report[stage] = {
                **{f"ratio_at_{n}": round(batched[n] / whole[n], 3) for n in sizes},
                "batched_growth_mb": round(batched[sizes[-1]] - batched[sizes[0]], 1),
                "whole_growth_mb": round(whole[sizes[-1]] - whole[sizes[0]], 1),
            }
    return report


def shortfalls(report: dict[str, Any], days: dict[str, Any] | None) -> list[str]:
    """Plain sentences naming every target a stage misses."""
    missed = []
    for stage, figures in report.items():
        worst = max(figures["exponent_seconds"], figures["exponent_peak_rss"])
        if worst > TARGETS["exponent"]:
            missed.append(f"{stage}: growth exponent {worst} > {TARGETS['exponent']}")
        gb = figures["extrapolated"]["100000"]["peak_rss_gb"]
        if gb >= TARGETS["peak_rss_gb_at_100k"]:
            missed.append(f"{stage}: {gb} GB peak RSS extrapolated to 100k episodes (target < 4 GB)")
    if days is not None and days["ratio_16_vs_1"] > 1.3:
        missed.append(f"per-day cost not flat: a day after 16 costs {days['ratio_16_vs_1']}x a day after 1")
    return missed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[500, 2000, 8000], help="corpus sizes")
    parser.add_argument("--base-episodes", type=int, default=500, help="episodes of the real rollout")
    parser.add_argument("--seed", type=int, default=11, help="rollout seed")
    parser.add_argument("--repeat", type=int, default=1, help="repeats per size (the best is kept)")
    parser.add_argument("--day-episodes", type=int, default=40, help="episodes in each added day")
    parser.add_argument("--no-per-day", action="store_true", help="skip the Dagster per-day measurement")
    parser.add_argument("--no-growth", action="store_true", help="skip the per-stage growth measurement")
    parser.add_argument("--out", type=Path, help="also write the JSON result here")
    parser.add_argument(
        "--workdir", type=Path, help="bench workdir: tokenizer, calibration cache, the base rollout (kept)"
    )
    parser.add_argument(
        "--stages", nargs="+", choices=CHAIN, default=list(CHAIN), help="stages to run (default: all)"
    )
    parser.add_argument(
        "--verify-heap",
        type=int,
        metavar="N",
        help="also sample verification's heap and RSS batch by batch over N episodes (verify_heap)",
    )
    parser.add_argument("--heap-batch-rows", type=int, default=100, help="batch_rows for --verify-heap")
    parser.add_argument("--stage", choices=STAGES + BASELINES, help=argparse.SUPPRESS)  # child mode
    parser.add_argument("--run", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.stage:
        figures = stage_child(args.stage, args.run, args.workdir)
        print(RESULT_LINE + json.dumps({**figures, "peak_rss_mb": peak_rss_mb()}), flush=True)
        return 0
    if len(set(args.sizes)) < 2 and not args.no_growth:
        parser.error("--sizes needs at least two different sizes to fit a growth exponent")
    from trajectory_platform.resources.secrets import SALT_ENV

    os.environ.setdefault(SALT_ENV, BENCH_SALT)  # one key for every workdir and stage below (seal_key)
    with tempfile.TemporaryDirectory(prefix="tp-scale-") as tmp:
        workdir = (args.workdir or Path(tmp) / "workdir").resolve()
        start = time.perf_counter()
        base = base_rollout(args.base_episodes, args.seed, workdir / "rollouts")
        result: dict[str, Any] = {
            "benchmark": "scale",
            "cpus": os.cpu_count(),
            "targets": TARGETS,
            "base_rollout": {
                "episodes": len(base),
                "seed": args.seed,
                "seconds": round(time.perf_counter() - start, 1),
            },
        }
        if args.verify_heap:
            result["verify_heap"] = verify_heap(
                args.verify_heap, args.heap_batch_rows, base, Path(tmp), workdir
            )
            _save(result, args.out)
        # Per-day first (minutes), then the sizes smallest first; the JSON is rewritten after each
        # step, so a run cut short still leaves every figure it measured.
        days = None
        if not args.no_per_day:
            from trajectory_platform.curation.verify.calibration import CALIBRATION_CACHE_DIR

            days = per_day(base, args.day_episodes, workdir / CALIBRATION_CACHE_DIR)
            result["per_day"] = days
        result["shortfalls"] = shortfalls({}, days)
        _save(result, args.out)
        by_size: dict[int, list[dict[str, Any]]] = {}
        for _ in range(0 if args.no_growth else args.repeat):  # interleaved: noise hits every size
            for n in sorted(set(args.sizes)):
                by_size.setdefault(n, []).append(
                    measure_size(n, base, Path(tmp), workdir, tuple(args.stages))
                )
                result |= growth_result(by_size, args.repeat)
                growth_of = result.get("growth", {})
                result["shortfalls"] = shortfalls({k: growth_of[k] for k in STAGES if k in growth_of}, days)
                _save(result, args.out)
    print(json.dumps(result, sort_keys=True))
    return 0


def _save(result: dict[str, Any], out: Path | None) -> None:
    if out is not None:
        out.write_text(json.dumps(result, indent=1, sort_keys=True) + "\n", encoding="utf-8")


def growth_result(by_size: dict[int, list[dict[str, Any]]], repeat: int) -> dict[str, Any]:
    """The runs so far, and once two sizes are in, the fits, ratios and the cluster on paper."""
    done = {"sizes": sorted(by_size), "repeat": repeat, "runs": by_size}
    if len(by_size) < 2:
        return done
    report = growth(by_size)
    chain = {k: report[k] for k in STAGES if k in report}
    return done | {
        "growth": report,
        "normalized_growth_vs_smallest": _normalized_growth(by_size),
        "batched_equals_whole": same_output(by_size),
        "memory_side_by_side": memory_side_by_side(by_size),
        **({"cluster_on_paper": cluster_on_paper(chain)} if set(chain) == set(STAGES) else {}),
    }


if __name__ == "__main__":
    sys.exit(main())
