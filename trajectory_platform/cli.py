"""The ``trajectory-platform`` console script.

Each subcommand lives in its own module under :mod:`trajectory_platform.commands` and exposes
``register(subparsers)``; this file only discovers and dispatches them, so stages can add
commands without touching a shared file. Every command prints a JSON summary as its last
stdout line (see :func:`trajectory_platform.commands.emit_summary`).
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys

from trajectory_platform import commands


def build_parser() -> argparse.ArgumentParser:
    """Collect every command module's subparser into one parser."""
    parser = argparse.ArgumentParser(
        prog="trajectory-platform",
        description="Agent logs -> verified, redacted, token-masked data -> policy -> scorecard.",
    )
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for info in sorted(pkgutil.iter_modules(commands.__path__), key=lambda m: m.name):
        module = importlib.import_module(f"{commands.__name__}.{info.name}")
        register = getattr(module, "register", None)
        if register is not None:
            register(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Parse ``argv`` and run the chosen command; returns the process exit code."""
    args = build_parser().parse_args(argv)
    return int(args.func(args) or 0)


if __name__ == "__main__":
    sys.exit(main())
