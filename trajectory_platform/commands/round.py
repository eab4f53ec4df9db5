"""``trajectory-platform round [--workdir DIR] [--key N] [--set ASSET.FIELD=VALUE]``: one
self-improvement round on a workdir ``trajectory-platform run`` made.

The round samples with the newest checkpoint (round 1: the graph's ``checkpoint``; round i: round
i-1's), verifies through the bounded spool, mixes, tokenizes, trains and scores: one run of
``round_job`` for the next partition of ``rounds``, recorded in the workdir's Dagster instance so
the UI shows it. ``--key`` replays an existing round instead. The last stdout line is a JSON summary
(the round, its decision and report, the checks that failed).
"""

from __future__ import annotations

import argparse
import os
import warnings
from pathlib import Path

from trajectory_platform.commands import emit_summary, fail
from trajectory_platform.commands._settings import add_set_option
from trajectory_platform.workdir import WORKDIR_ENV


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "round",
        help="run one self-improvement round (sample, verify, mix, train, score) on a run's workdir",
        description=__doc__.split("\n\n", 1)[1],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--workdir", type=Path, default=None, help=f"the run's workdir (default: ${WORKDIR_ENV} or ./workdir)"
    )
    parser.add_argument("--key", default=None, help="replay this existing round (default: the next round)")
    add_set_option(
        parser,
        "ASSET.FIELD=VALUE",
        "run config of one round asset, e.g. --set policy_rollouts.attempts=4 (repeatable)",
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from dagster import BetaWarning, DagsterInstance, PreviewWarning

    from trajectory_platform.commands._profile import asset_settings, checked_asset_config
    from trajectory_platform.commands._rounds import next_round_key, run_round
    from trajectory_platform.commands._settings import SettingError
    from trajectory_platform.definitions import bound_to, defs
    from trajectory_platform.resources import build_resources, default_workdir, prepare_dagster_home
    from trajectory_platform.resources.partitions import round_index

    for category in (BetaWarning, PreviewWarning):
        warnings.filterwarnings("ignore", category=category)
    try:
        config = checked_asset_config(list(defs.assets or ()), asset_settings(args.settings))
        if args.key is not None:
            round_index(args.key)
    except (SettingError, ValueError) as err:
        return fail(str(err))
    workdir = (args.workdir or default_workdir()).resolve()
    if not (workdir / "parquet" / "checkpoint").is_dir():
        return fail(f"{workdir} holds no checkpoint: run `trajectory-platform run --workdir {workdir}` first")
    os.environ[WORKDIR_ENV] = str(workdir)
    home = prepare_dagster_home(workdir)
    os.environ["DAGSTER_HOME"] = str(home)
    failed: list[str] = []

    def record(evaluation) -> None:
        if not evaluation.passed:
            failed.append(f"{evaluation.asset_key.to_user_string()}:{evaluation.check_name}")

    with DagsterInstance.from_config(str(home)) as instance:
        key = args.key or next_round_key(instance)
        outcome = run_round(bound_to(build_resources(workdir)), instance, key, config, record)
    emit_summary({**outcome, "failed_checks": failed, "dagster_home": str(home)})
    if not outcome["ok"]:
        return fail(
            f"round {key} failed ({', '.join(failed) or 'a step failed'}); see run {outcome['run_id']}", 1
        )
    return 0
