"""``trajectory-platform env validate|import|list|example``: task environments users bring.

``validate DIR...`` checks each environment directory (format, runtime, the oracle over K runs)
and prints one line per environment; ``import DIR...`` validates and registers the valid ones
(default registry ``<workdir>/environments``, where ``verify`` looks); ``list`` shows a registry;
``example --out DIR`` writes the shipped real-project example (environments and logs) to try the
README's hand-driven session on.
Every subcommand prints a JSON summary as its last stdout line; validate and import exit 1 when
any environment was refused. ``docs/environments.md`` describes the format.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from trajectory_platform.commands import emit_summary, fail
from trajectory_platform.environments.format import EnvironmentFormatError
from trajectory_platform.environments.real_projects import RealProjectError, build_example
from trajectory_platform.environments.registry import (
    REGISTRY_DIR,
    EnvironmentCatalog,
    import_environments,
)
from trajectory_platform.environments.validate import DEFAULT_RUNS, validate_path
from trajectory_platform.workdir import default_workdir


def _runs(value: str) -> int:
    runs = int(value)
    if runs < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return runs


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``env`` subcommand and its three actions."""
    parser = subparsers.add_parser(
        "env",
        help="validate, import and list task environments users bring",
        description="Task environments a user brings (docs/environments.md): validate them (the "
        "oracle rejects S0, accepts every reference, agrees with itself over K runs, the sandbox "
        "has the runtime), import the valid ones into a registry, list a registry. Logs link to "
        "an environment by their task id (task.fixture_id).",
    )
    actions = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
    registry_help = f"environment registry (default: <workdir>/{REGISTRY_DIR})"
    runs_help = f"oracle runs per environment for the determinism check (default {DEFAULT_RUNS})"

    validate = actions.add_parser("validate", help="check environment directories; register nothing")
    validate.add_argument("dirs", type=Path, nargs="+", metavar="DIR", help="environment directories")
    validate.add_argument("--runs", type=_runs, default=DEFAULT_RUNS, metavar="K", help=runs_help)
    validate.set_defaults(func=run_validate)

    imported = actions.add_parser(
        "import", help="validate environment directories and register the valid ones"
    )
    imported.add_argument("dirs", type=Path, nargs="+", metavar="DIR", help="environment directories")
    imported.add_argument("--registry", type=Path, metavar="DIR", help=registry_help)
    imported.add_argument("--runs", type=_runs, default=DEFAULT_RUNS, metavar="K", help=runs_help)
    imported.set_defaults(func=run_import)

    listing = actions.add_parser("list", help="show the environments of a registry")
    listing.add_argument("--registry", type=Path, metavar="DIR", help=registry_help)
    listing.set_defaults(func=run_list)

    example = actions.add_parser(
        "example",
        help="write the shipped real-project example: OUT/environments/<task>/ and OUT/traces/<day>/",
        description="Build the three real-project environments (installed, pinned libraries with a "
        "reintroduced bug and sealed tests) and record four agent logs against them in the sandbox "
        "(SWE-agent .traj and OpenAI chat), to try env validate / env import / curate on "
        "(docs/environments.md, 'The shipped real-project example').",
    )
    example.add_argument("--out", required=True, type=Path, metavar="DIR", help="where to write it")
    example.set_defaults(func=run_example)


def _registry(args: argparse.Namespace) -> Path:
    return args.registry if args.registry is not None else default_workdir() / REGISTRY_DIR


def _progress(path: str) -> None:
    print(f"validating {path} ...", file=sys.stderr, flush=True)


def run_validate(args: argparse.Namespace) -> int:
    """One line per environment (ok / refused: reasons), then the summary."""
    results = []
    for path in args.dirs:
        _progress(str(path))
        _, validation = validate_path(path, args.runs)
        results.append(validation)
        verdict = "ok" if validation.ok else "refused: " + "; ".join(validation.reasons)
        print(f"{path}\t{validation.task_id}\t{verdict}")
    refused = [v.task_id for v in results if not v.ok]
    emit_summary(
        {
            "environments": len(results),
            "ok": len(results) - len(refused),
            "refused": len(refused),
            "runs": args.runs,
            "results": [v.to_dict() for v in results],
        }
    )
    return 1 if refused else 0


def run_import(args: argparse.Namespace) -> int:
    """Validate and register; one line per directory (imported / unchanged / refused)."""
    registry = _registry(args)
    try:
        results = import_environments(args.dirs, registry, args.runs, progress=_progress)
    except EnvironmentFormatError as exc:  # the registry's own index is unreadable
        return fail(str(exc))
    for result in results:
        detail = ": " + "; ".join(result.reasons) if result.reasons else ""
        print(f"{result.path}\t{result.task_id}\t{result.status}{detail}")
    statuses = [r.status for r in results]
    emit_summary(
        {
            "registry": str(registry),
            "imported": statuses.count("imported"),
            "unchanged": statuses.count("unchanged"),
            "refused": statuses.count("refused"),
            "results": [r.to_dict() for r in results],
        }
    )
    return 1 if "refused" in statuses else 0


def run_list(args: argparse.Namespace) -> int:
    """Every registered environment: task id, digest, domain, references, tests."""
    registry = _registry(args)
    catalog = EnvironmentCatalog(registry)
    try:
        environments = catalog.environments()
    except EnvironmentFormatError as exc:
        return fail(str(exc))
    rows = []
    for env in environments:
        rows.append(
            {
                "task_id": env.task_id,
                "digest": env.digest,
                "domain": env.domain,
                "references": len(env.references),
                "tests": len(env.fail_to_pass) + len(env.pass_to_pass),
            }
        )
        print(f"{env.task_id}\t{env.digest}\t{env.domain}\t{len(env.references)} reference(s)")
    emit_summary({"registry": str(registry), "environments": len(rows), "entries": rows})
    return 0


def run_example(args: argparse.Namespace) -> int:
    """Write the example's environment directories and logs under ``--out``."""
    print("building the real-project example (sandboxed recordings) ...", file=sys.stderr, flush=True)
    try:
        built = build_example(args.out)
    except RealProjectError as exc:
        return fail(str(exc))
    for path in [*built.environments, *built.logs]:
        print(path)
    emit_summary(
        {
            "environments": [str(p) for p in built.environments],
            "logs": [str(p) for p in built.logs],
        }
    )
    return 0
