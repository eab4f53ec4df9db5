"""``trajectory-platform run [--workdir DIR]``: the whole asset graph on the embedded default.

1. Prepare inputs: the bundled sample logs (``trajectory_platform/samples/traces/<day>/``),
   a scripted gym rollout and the real-project example's logs, synced into the trace
   source ``<workdir>/trace_source/<day>/`` (only changed files are copied, so a second run
   leaves the trace source - and the new-logs sensor - untouched); the example's environments
   are imported into the registry ``<workdir>/environments/``.
2. Materialize every asset found in ``trajectory_platform.definitions`` in dependency order, one
   in-process run per asset (per contiguous day range for day-partitioned assets with a
   single-run backfill policy, else per day), with its checks, recorded in the workdir's Dagster
   instance so the runs show up in the UI. A failed run or blocking check stops the pipeline.
3. Print progress per asset on stderr and a JSON summary last: tables and rows, the release decision
   with its reasons and report, and the checks (failures apart from warnings, each with a rerun
   command). A failed check of error severity makes the exit status 1.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shlex
import shutil
import sys
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from trajectory_platform.commands import emit_summary, fail
from trajectory_platform.commands._profile import QUIET_LOGS, asset_settings, checked_asset_config
from trajectory_platform.commands._settings import SettingError, add_set_option
from trajectory_platform.workdir import WORKDIR_ENV

if TYPE_CHECKING:  # the run's modules load when it runs, so `run --help` answers at once
    from dagster import AssetsDefinition

    from trajectory_platform.curation.split_mixture_stage import SplitSettings

SAMPLES_DIR = Path(__file__).resolve().parents[1] / "samples" / "traces"


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "run",
        help="materialize the whole asset graph on the embedded default (samples + gym rollout)",
        description=__doc__.split("\n\n", 1)[1],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--workdir",
        type=Path,
        default=None,
        help=f"where outputs land (default: ${WORKDIR_ENV} or ./workdir)",
    )
    parser.add_argument(
        "--gym-episodes",
        type=int,
        default=160,
        help="episodes of the gym rollout (default 160: enough for every split to hold pristine and "
        "recovery targets inside the mixture bounds)",
    )
    parser.add_argument(
        "--gym-learnable-tasks",
        type=int,
        default=400,
        help="expert episodes on generated learnable tasks (on the train side of the split plan) added "
        "to the rollout: the training data the default model needs to learn the held-out learnable "
        "family, and what the held-out coverage audit asks for (default 400)",
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of the gym rollout (default 0)")
    parser.add_argument(
        "--rounds",
        type=int,
        default=0,
        help="self-improvement rounds to run after the graph (default 0: a round samples, verifies, "
        "trains and scores again, minutes more; `trajectory-platform round` runs one later)",
    )
    add_set_option(
        parser,
        "ASSET.FIELD=VALUE",
        "run config of one asset, e.g. --set checkpoint.max_steps=4 (JSON values; repeatable)",
    )
    parser.set_defaults(func=run)


def sync_tree(source: Path, target: Path) -> int:
    """Copy files of ``source`` into ``target`` (same relative paths) whose bytes differ.

    Identical files are left alone so their mtimes - and the sensor's fingerprints - stay put.
    """
    copied = 0
    for path in sorted(p for p in source.rglob("*") if p.is_file()):
        destination = target / path.relative_to(source)
        if destination.is_file() and destination.read_bytes() == path.read_bytes():
            continue
        destination.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, destination)
        copied += 1
    return copied


def write_gym_rollout(
    workdir: Path,
    trace_source: Path,
    episodes: int,
    seed: int,
    learnable_tasks: int = 0,
    split: SplitSettings | None = None,
) -> int:
    """Run the gym rollout (what ``trajectory-platform gym rollout`` runs) into
    ``<workdir>/gym_rollout`` and sync its day folders into the trace source (the truth sidecar
    stays out). The ``learnable_tasks`` are drawn on the train side of the run's split plan."""
    from trajectory_platform.curation.split_mixture_stage import SplitSettings, trained_by_plan
    from trajectory_platform.gym.library import build_library
    from trajectory_platform.gym.rollout import rollout
    from trajectory_platform.resources.secrets import workdir_salt
    from trajectory_platform.resources.trace_source import is_day

    split = split or SplitSettings()
    keep = trained_by_plan(split, build_library(split.fixture_seed)) if learnable_tasks else None
    out = workdir / "gym_rollout"
    with contextlib.redirect_stdout(sys.stderr):  # keep our stdout's last line the summary
        rollout(
            episodes,
            seed,
            out,
            learnable_tasks=learnable_tasks,
            learnable_filter=keep,
            seal_key=workdir_salt(workdir).seal_key(),
        )
    return sum(sync_tree(day, trace_source / day.name) for day in sorted(out.iterdir()) if is_day(day.name))


@dataclass
class Step:
    """One assets definition to materialize, and the runs it takes."""

    assets_def: AssetsDefinition
    names: list[str]
    runs: list[dict] = field(default_factory=list)


def _contiguous(days: list[str]) -> list[tuple[str, str]]:
    """Group sorted ISO days into inclusive ranges of consecutive days."""
    import datetime as dt

    ranges: list[list[str]] = []
    for day in days:
        if ranges and dt.date.fromisoformat(day) - dt.date.fromisoformat(ranges[-1][1]) == dt.timedelta(
            days=1
        ):
            ranges[-1][1] = day
        else:
            ranges.append([day, day])
    return [(a, b) for a, b in ranges]


def _runs_for(assets_def, days: list[str]) -> list[dict]:
    """Materialize kwargs for one assets definition: unpartitioned, per range, or per day."""
    partitions = assets_def.partitions_def
    if partitions is None:
        return [{}]
    valid = set(partitions.get_partition_keys())
    keys = [d for d in days if d in valid] or [partitions.get_last_partition_key()]
    policy = assets_def.backfill_policy
    if policy is not None and policy.max_partitions_per_run is None:
        tags = ("dagster/asset_partition_range_start", "dagster/asset_partition_range_end")
        return [
            {"partition_key": a} if a == b else {"tags": dict(zip(tags, (a, b), strict=True))}
            for a, b in _contiguous(keys)
        ]
    return [{"partition_key": k} for k in keys]


def plan(defs, days: list[str]) -> list[Step]:
    """Every assets definition in dependency order, with its runs; the round-partitioned ones are
    run by round (``--rounds``, ``trajectory-platform round``), not as part of the graph."""
    from trajectory_platform.commands._rounds import is_round_asset

    graph = defs.resolve_asset_graph()
    steps: dict[int, Step] = {}
    for key in graph.toposorted_asset_keys:
        assets_def = graph.assets_def_for_key(key)
        if not assets_def.is_executable or id(assets_def) in steps or is_round_asset(assets_def):
            continue
        names = sorted(k.to_user_string() for k in assets_def.keys)
        steps[id(assets_def)] = Step(assets_def, names, _runs_for(assets_def, days))
    return list(steps.values())


def _table_rows(db: Path) -> dict[str, int]:
    from trajectory_platform.resources import warehouse_connection

    if not db.exists():
        return {}
    with warehouse_connection(db, read_only=True) as con:
        names = [r[0] for r in con.execute("SELECT table_name FROM information_schema.tables").fetchall()]
        return {n: con.execute(f'SELECT count(*) FROM "{n}"').fetchall()[0][0] for n in sorted(names)}


def unverifiable_reasons(workdir: Path) -> dict[str, int]:
    """Unverifiable episodes by reason, read back from the ``verified_traces`` the run wrote: the
    summary says why logs could not be judged (no task named, an unknown task), not only how many."""
    from trajectory_platform.curation.verify.cascade import unverifiable_by_reason
    from trajectory_platform.resources import read_asset_table

    table = read_asset_table(workdir, "verified_traces", columns=["sink", "sink_reason"])
    if table is None:
        return {}
    return unverifiable_by_reason(
        zip(table["sink"].to_pylist(), table["sink_reason"].to_pylist(), strict=True)
    )


@dataclass
class CheckOutcomes:
    """What the run's asset checks found: failures that block or have error severity apart from
    warnings, each with the command that reruns its asset and the asset's checks."""

    workdir: Path
    home: Path
    """The run's Dagster home: a rerun command acts on the same workdir and instance."""
    passed: int = 0
    failed: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    rerun: dict[str, str] = field(default_factory=dict)

    def add(self, evaluation: Any) -> None:
        """Count one ``AssetCheckEvaluation``."""
        if evaluation.passed:
            self.passed += 1
            return
        asset = evaluation.asset_key.to_user_string()
        name = f"{asset}:{evaluation.check_name}"
        if evaluation.partition:  # a per-day check: each day's verdict is its own entry
            name = f"{name}[{evaluation.partition}]"
        warning = str(evaluation.severity.value) == "WARN" and not evaluation.blocking
        (self.warnings if warning else self.failed).append(name)
        self.rerun[name] = self.rerun_command(asset, evaluation.partition)

    def rerun_command(self, asset: str, partition: str | None) -> str:
        """``dagster asset materialize`` of ``asset`` (and so its checks) in this run's environment."""
        from trajectory_platform.evaluation.report_next_steps import rerun_command

        env = f"{WORKDIR_ENV}={shlex.quote(str(self.workdir))} DAGSTER_HOME={shlex.quote(str(self.home))}"
        dagster = shlex.quote(str(Path(sys.executable).with_name("dagster")))
        return f"{env} {rerun_command(asset, partition, dagster)}"

    def to_dict(self) -> dict[str, Any]:
        return {"passed": self.passed, "failed": self.failed, "warnings": self.warnings, "rerun": self.rerun}


def release_decision(workdir: Path) -> dict[str, Any]:
    """The decision, its reasons and the report, read from the ``scorecard`` row the run wrote
    (the warehouse's reading, not a search for the newest report file)."""
    from trajectory_platform.resources import read_asset_table

    table = read_asset_table(workdir, "scorecard", columns=["decision", "reasons", "report_path"])
    if table is None or not table.num_rows:
        return {"decision": None, "reasons": [], "report": None}
    row = table.to_pylist()[-1]
    return {
        "decision": row["decision"],
        "reasons": row["reasons"],
        "report": str(workdir / row["report_path"]),
    }


def run(args: argparse.Namespace) -> int:
    from dagster import BetaWarning, DagsterInstance, PreviewWarning

    from trajectory_platform.commands._rounds import run_rounds
    from trajectory_platform.curation.split_mixture_stage import SplitSettings
    from trajectory_platform.environments.real_projects import RealProjectError, lay_example
    from trajectory_platform.gym import isolation
    from trajectory_platform.gym.janitor import sweep
    from trajectory_platform.resources import build_resources, default_workdir, prepare_dagster_home
    from trajectory_platform.resources.stage_config import settings_from

    for category in (BetaWarning, PreviewWarning):  # API maturity notes, not news for a user
        warnings.filterwarnings("ignore", category=category)
    started = time.monotonic()
    try:
        asset_config = asset_settings(args.settings)
    except ValueError as err:
        return fail(str(err))
    from trajectory_platform.definitions import bound_to, defs, stage_job

    try:
        asset_config = checked_asset_config(list(defs.assets or ()), asset_config)
    except SettingError as err:
        return fail(f"--set: {err}")
    workdir = (args.workdir or default_workdir()).resolve()
    os.environ[WORKDIR_ENV] = str(workdir)  # anything reading default_workdir() agrees with us
    home = prepare_dagster_home(workdir)
    os.environ["DAGSTER_HOME"] = str(home)
    try:
        isolation.require()
    except isolation.IsolationUnavailable as exc:
        return fail(str(exc))
    swept = sweep()
    print(
        f"janitor: {swept.directories} sandbox dir(s), {swept.processes} process(es) swept", file=sys.stderr
    )
    resources = build_resources(workdir)
    source = resources["trace_source"]
    copied = sync_tree(SAMPLES_DIR, source.root_path) if SAMPLES_DIR.is_dir() else 0
    print(f"trace source {source.root_path}: {copied} sample file(s) updated", file=sys.stderr)
    split = settings_from(asset_config.get("split_assignments", {}), SplitSettings)
    gym_files = write_gym_rollout(
        workdir, source.root_path, args.gym_episodes, args.seed, args.gym_learnable_tasks, split
    )
    print(f"gym rollout: {gym_files} file(s) updated", file=sys.stderr)
    try:
        laid = lay_example(resources["workdir"].environments_dir, source.root_path)
    except RealProjectError as exc:
        return fail(str(exc))
    print(f"real-project example: {laid.logs_updated} log file(s) updated", file=sys.stderr)
    days = [d for d in source.partition_keys() if source.files(d)]
    if not days:
        return fail(f"no logs in the trace source {source.root_path}")

    steps = plan(defs, days)
    checks = CheckOutcomes(workdir, home)
    located = bound_to(resources)
    with DagsterInstance.from_config(str(home)) as instance:
        for index, step in enumerate(steps, 1):
            label = f"[{index}/{len(steps)}] {', '.join(step.names)}"
            print(f"{label}: {len(step.runs)} run(s) ...", file=sys.stderr, flush=True)
            step_started = time.monotonic()
            ops = {
                op: {"config": asset_config[op]}
                for op in [step.assets_def.node_def.name]
                if op in asset_config
            }
            for kwargs in step.runs:
                result = stage_job(located, step.assets_def.keys).execute_in_process(  # named in the UI
                    asset_selection=list(step.assets_def.keys),
                    instance=instance,
                    run_config={**QUIET_LOGS, **({"ops": ops} if ops else {})},
                    raise_on_error=False,
                    **kwargs,
                )
                for evaluation in result.get_asset_check_evaluations():
                    checks.add(evaluation)
                if not result.success:
                    where = kwargs.get("partition_key") or kwargs.get("tags") or "unpartitioned"
                    emit_summary(
                        {
                            "ok": False,
                            "failed_asset": step.names,
                            "partitions": where,
                            "run_id": result.run_id,
                            "checks": checks.to_dict(),
                            "dagster_home": str(home),
                        }
                    )
                    return fail(
                        f"{', '.join(step.names)} failed ({where}); see run {result.run_id} in the UI", 1
                    )
            print(f"{label}: ok in {time.monotonic() - step_started:.1f}s", file=sys.stderr, flush=True)
        rounds = run_rounds(located, instance, args.rounds, asset_config, checks.add)
    if rounds and not rounds[-1]["ok"]:
        emit_summary({"ok": False, "rounds": rounds, "checks": checks.to_dict(), "dagster_home": str(home)})
        return fail(f"round {rounds[-1]['round']} failed; see run {rounds[-1]['run_id']} in the UI", 1)

    db = workdir / "warehouse.duckdb"
    release = release_decision(workdir)
    summary = {
        "ok": not checks.failed,
        "workdir": str(workdir),
        "warehouse": str(db),
        "dagster_home": str(home),
        "partitions": days,
        "tables": _table_rows(db),
        "unverifiable": unverifiable_reasons(workdir),
        "checks": checks.to_dict(),
        **release,
        **({"rounds": rounds} if rounds else {}),
        "seconds": round(time.monotonic() - started, 1),
    }
    print(
        f"done: {len(steps)} asset step(s), {len(summary['tables'])} warehouse table(s) in {db}",
        file=sys.stderr,
    )
    for name in checks.warnings:
        print(f"warning: check {name} failed; rerun: {checks.rerun[name]}", file=sys.stderr)
    if release["decision"]:
        print(f"decision: {release['decision']} ({'; '.join(release['reasons'])})", file=sys.stderr)
        print(f"report: {release['report']}", file=sys.stderr)
    emit_summary(summary)
    if checks.failed:
        return fail(
            f"check(s) failed: {', '.join(checks.failed)}; rerun with the commands under checks.rerun", 1
        )
    return 0
