"""The ``trajectory-platform`` console script.

Each subcommand lives in its own module under :mod:`trajectory_platform.commands`, named after
the command, and exposes ``register(subparsers)``; this file only discovers and dispatches them,
so stages can add commands without touching a shared file. Every command prints a JSON summary
as its last stdout line (see :func:`trajectory_platform.commands.emit_summary`).

Only the chosen command's module is imported: several pull in torch, transformers or dagster,
and importing all of them made every invocation pay tens of seconds of start-up.
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys

from trajectory_platform import commands
from trajectory_platform.commands import fail
from trajectory_platform.gym.isolation import IsolationUnavailable


def command_names() -> list[str]:
    """Every available subcommand, i.e. every module in the commands package."""
    return sorted(m.name for m in pkgutil.iter_modules(commands.__path__) if not m.name.startswith("_"))


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The CLI parser; with ``only``, just that command's module is imported and registered."""
    parser = argparse.ArgumentParser(
        prog="trajectory-platform",
        description="Agent logs -> verified, redacted, token-masked data -> policy -> scorecard.",
    )
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in [only] if only else command_names():
        module = importlib.import_module(f"{commands.__name__}.{name}")
        register = getattr(module, "register", None)
        if register is not None:
            register(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Parse ``argv`` and run the chosen command; returns the process exit code."""
    argv = sys.argv[1:] if argv is None else argv
    chosen = next((a for a in argv if not a.startswith("-")), None)
    only = chosen if chosen in command_names() else None
    args = build_parser(only).parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except IsolationUnavailable as exc:  # any command that would run untrusted code unconfined
        return fail(str(exc))


if __name__ == "__main__":
    sys.exit(main())
