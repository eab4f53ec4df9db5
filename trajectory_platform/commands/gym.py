"""``trajectory-platform gym validate | rollout``: the fixture library and scripted rollouts."""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from tqdm import tqdm

from trajectory_platform.commands import emit_summary, fail


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("gym", help="task fixtures, sandbox and scripted rollouts")
    sub = parser.add_subparsers(dest="gym_command", required=True, metavar="GYM_COMMAND")

    validate = sub.add_parser(
        "validate",
        help="check that every fixture's oracle rejects S0 and accepts its reference solution",
    )
    validate.add_argument("--seed", type=int, default=0, help="library seed (default 0)")
    validate.add_argument("--sample", type=int, default=0, help="validate only every N-th fixture (0 = all)")
    validate.add_argument("--workers", type=int, default=2, help="parallel oracle runs (default 2)")
    validate.set_defaults(func=_validate)

    roll = sub.add_parser(
        "rollout", help="run scripted policies and write dated native JSONL logs + truth.jsonl"
    )
    roll.add_argument("--episodes", type=int, required=True, help="number of episodes")
    roll.add_argument("--seed", type=int, default=0, help="rollout seed (same seed, same logs)")
    roll.add_argument(
        "--out", type=Path, required=True, help="output directory (dated folders + truth.jsonl)"
    )
    roll.add_argument("--library-seed", type=int, default=0, help="fixture library seed (default 0)")
    roll.add_argument("--days", type=int, default=3, help="spread episodes over this many dated folders")
    roll.add_argument("--learnable-only", action="store_true", help="only the learnable family's fixtures")
    roll.add_argument("--workers", type=int, default=None, help="parallel episodes (default: CPUs, max 4)")
    roll.add_argument(
        "--learnable-tasks",
        type=int,
        default=0,
        help="also this many expert episodes on generated learnable training tasks (default 0)",
    )
    roll.set_defaults(func=_rollout)


def _validate(args: argparse.Namespace) -> int:
    from trajectory_platform.gym.library import build_library
    from trajectory_platform.gym.oracle import validate_fixture

    library = build_library(args.seed)
    chosen = library[:: args.sample] if args.sample > 0 else library
    with ThreadPoolExecutor(max_workers=max(1, args.workers)) as pool:
        results = list(
            tqdm(pool.map(validate_fixture, chosen), total=len(chosen), desc="validate", file=sys.stderr)
        )
    refused = [r for r in results if not r.ok]
    for r in refused:
        print(f"refused {r.fixture_id}: {r.reason}", file=sys.stderr)
    summary = {
        "fixtures": len(results),
        "library_size": len(library),
        "rejects_s0": sum(r.rejects_s0 for r in results),
        "accepts_reference": sum(r.accepts_reference for r in results),
        "refused": len(refused),
        "repo_families": len({f.repo_family for f in chosen}),
        "tool_families": len({f.tool_family for f in chosen}),
        "domains": len({f.domain for f in chosen}),
        "licenses": dict(sorted(Counter(f.license for f in chosen).items())),
        "horizon_min": min(f.min_tool_calls for f in chosen),
        "horizon_max": max(f.min_tool_calls for f in chosen),
        "flaky_fixtures": sum(f.flaky for f in chosen),
        "learnable_fixtures": sum(f.learnable for f in chosen),
        "mean_oracle_s": round(sum(r.wall_s for r in results) / max(1, len(results)) / 2, 4),
    }
    emit_summary(summary)
    return 1 if refused else 0


def _rollout(args: argparse.Namespace) -> int:
    from trajectory_platform.gym.rollout import rollout
    from trajectory_platform.resources.secrets import workdir_salt
    from trajectory_platform.workdir import default_workdir

    if args.episodes <= 0:
        return fail("--episodes must be positive")
    summary = rollout(
        args.episodes,
        args.seed,
        args.out,
        library_seed=args.library_seed,
        days=args.days,
        fixture_filter=(lambda f: f.learnable) if args.learnable_only else None,
        workers=args.workers,
        learnable_tasks=args.learnable_tasks,
        seal_key=workdir_salt(default_workdir()).seal_key(),  # the key the workdir's verifier checks
    )
    emit_summary(summary.to_dict())
    return 0
