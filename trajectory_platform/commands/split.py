"""``trajectory-platform split CORPUS --out DIR``: splits, decontamination, mixture and preference pairs.

CORPUS is a Parquet table with the episode columns and the verification columns (``sink``, ``role``,
``t_div``, ``t_rec``, ``target_turns``): a ``verified_traces`` / ``redacted_corpus`` export, or a
``traces.parquet`` joined here with ``--verdicts DIR/verdicts.parquet`` from ``trajectory-platform verify``.
Writes ``DIR/split_assignments.parquet``, ``DIR/training_mixture.parquet`` and
``DIR/preference_pairs.parquet``; the last stdout line is a JSON summary (split counts, leakage,
declared and realized shares, pairs).
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from trajectory_platform.commands import emit_summary, fail
from trajectory_platform.commands._files import PARQUET, binary_kind
from trajectory_platform.commands._settings import add_settings_arguments, settings_from_args

if TYPE_CHECKING:
    import pyarrow as pa


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``split`` subcommand."""
    from trajectory_platform.curation.split_mixture_stage import MixtureSettings, SplitSettings

    parser = subparsers.add_parser(
        "split",
        help="repository-family splits, decontamination, token mixture and preference pairs",
        description="Assign every episode to train / validation / test / excluded by dependency closure "
        "of its repository family (test reserves whole tool families and domains), decontaminate the "
        "train split against every evaluation fixture, compose the SFT mixture in selected target "
        "tokens (pristine 0.60-0.70, recovery 0.20-0.30, hard negatives to preference data) and admit "
        "preference pairs that share a conditioning prefix.",
    )
    parser.add_argument("corpus", type=Path, metavar="CORPUS", help="Parquet with episode + verdict columns")
    parser.add_argument("--out", required=True, type=Path, metavar="DIR", help="output folder")
    parser.add_argument("--verdicts", type=Path, help="verdicts.parquet to join when CORPUS is bare traces")
    parser.add_argument(
        "--envs",
        type=Path,
        metavar="REGISTRY",
        help="task environment registry (`trajectory-platform env import`) whose environments the plan "
        "places beside the gym's fixtures (default: the gym library only)",
    )
    add_settings_arguments(
        parser,
        SplitSettings,
        {"reserved_tool_families": ("--reserve-tool-family",), "reserved_domains": ("--reserve-domain",)},
    )
    add_settings_arguments(
        parser,
        MixtureSettings,
        {"tokenizer_path": ("--tokenizer",), "anchor_sources": ("--anchor-source",)},
        skip=("seed",),
    )
    parser.add_argument(
        "--mixture-seed", type=int, default=None, help="mixture selection seed (default: the split seed)"
    )
    parser.add_argument(
        "--workdir",
        type=Path,
        default=None,
        help="where the default tokenizer is cached (default: the workdir)",
    )
    parser.set_defaults(func=run)


def _corpus(path: Path, verdicts: Path | None) -> pa.Table:
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    table = pq.read_table(path)
    if verdicts is None:
        return table
    extra = pq.read_table(verdicts)
    # Arrow's join cannot carry the nested episode columns, so align the verdict rows by id instead.
    rows = extra.take(pc.index_in(table["episode_id"], value_set=extra["episode_id"]))
    for name in extra.column_names:
        if name not in table.column_names:
            table = table.append_column(extra.schema.field(name), rows[name])
    return table


def run(args: argparse.Namespace) -> int:
    """Split, mix, pair; write the three tables; print the summary."""
    import pyarrow as pa

    from trajectory_platform.curation.split_mixture_stage import (
        MixtureSettings,
        SplitSettings,
        curation_stage,
    )
    from trajectory_platform.environments.format import EnvironmentFormatError
    from trajectory_platform.environments.registry import INDEX_FILE
    from trajectory_platform.environments.table import registered_fixtures
    from trajectory_platform.gym.library import build_library
    from trajectory_platform.traces.parquet import write_parquet

    if args.envs is not None and not (args.envs / INDEX_FILE).is_file():
        return fail(f"--envs {args.envs}: not an environment registry (no {INDEX_FILE})")
    try:
        environments = registered_fixtures(args.envs) if args.envs is not None else []
    except EnvironmentFormatError as exc:
        return fail(f"--envs {args.envs}: {exc}")
    for path in (args.corpus, args.verdicts):
        if path is not None and not path.exists():
            return fail(f"{path}: no such file")
        if path is not None and path.is_file() and (kind := binary_kind(path) or "text") != PARQUET:
            return fail(f"{path}: this file is {kind}, not a Parquet table")
    try:
        corpus = _corpus(args.corpus, args.verdicts)
    except (OSError, ValueError, KeyError, pa.ArrowInvalid) as exc:
        return fail(f"{args.corpus}: cannot read the corpus: {exc}")
    missing = [c for c in ("episode_id", "events", "task", "sink", "role") if c not in corpus.column_names]
    if missing:
        return fail(f"{args.corpus}: missing columns {missing} (pass --verdicts verdicts.parquet?)")
    split_settings = settings_from_args(SplitSettings, args)
    mixture_settings = dataclasses.replace(
        settings_from_args(MixtureSettings, args),
        seed=split_settings.seed if args.mixture_seed is None else args.mixture_seed,
    )

    from trajectory_platform.training.data.masked_dataset import load_target_counter
    from trajectory_platform.training.data.tokenizer import load_token_counter

    counters = mixture_settings.counters(
        functools.partial(load_token_counter, workdir=args.workdir),
        functools.partial(load_target_counter, workdir=args.workdir),
    )
    measure = counters[2]
    print(f"split: {corpus.num_rows} episodes", file=sys.stderr)
    library = build_library(split_settings.fixture_seed)
    stage = curation_stage(corpus, library, split_settings, mixture_settings, counters, environments)
    split, mixture, pairs = stage.split, stage.mixture, stage.pairs
    args.out.mkdir(parents=True, exist_ok=True)
    write_parquet(split.table, args.out / "split_assignments.parquet")
    write_parquet(mixture.table, args.out / "training_mixture.parquet")
    write_parquet(pairs.table, args.out / "preference_pairs.parquet")
    emit_summary(
        {
            "episodes": corpus.num_rows,
            "split_counts": split.summary["split_counts"],
            "reserved_tool_families": split.summary["reserved_tool_families"],
            "reserved_domains": split.summary["reserved_domains"],
            "straddling_closures": len(split.summary["straddling"]),
            "environments_by_split": split.summary["environments"]["by_split"],
            "leakage_rate": split.summary["decontamination"]["leakage_rate"],
            "leaked": split.summary["decontamination"]["leaked"],
            "token_measure": measure,
            "declared_shares": mixture.summary["declared"],
            "realized_token_shares": mixture.summary["realized_token_shares"],
            "realized_trajectory_shares": mixture.summary["realized_trajectory_shares"],
            "within_bounds": mixture.summary["within_bounds"],
            "sft_rows": mixture.summary["sft_rows"],
            "anchors": mixture.summary["anchors"],
            "pairs_admitted": pairs.summary["pairs_admitted"],
            "pairs_refused": pairs.summary["pairs_refused"],
        }
    )
    return 0
