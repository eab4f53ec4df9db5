"""The ``trajectory-platform`` console script.

Each subcommand lives in its own module under :mod:`trajectory_platform.commands`, named after
the command, and exposes ``register(subparsers)``; this file only discovers and dispatches them,
so stages can add commands without touching a shared file. Every command prints a JSON summary
as its last stdout line (see :func:`trajectory_platform.commands.emit_summary`).

Start-up is kept to the argument parser (``--help`` answers in well under two seconds): only the
chosen command's module is imported and registered, and a command module imports torch,
transformers, dagster, pyarrow or duckdb inside the functions that run the work, never at its
top. The other commands are listed by the ``help=`` their ``register`` passes to ``add_parser``,
read from the module's source without importing it.
"""

from __future__ import annotations

import argparse
import ast
import importlib
import importlib.util
import pkgutil
import sys

from trajectory_platform import commands
from trajectory_platform.commands import fail
from trajectory_platform.commands._settings import unknown_key
from trajectory_platform.gym.isolation import IsolationUnavailable


def command_names() -> list[str]:
    """Every available subcommand, i.e. every module in the commands package."""
    return sorted(m.name for m in pkgutil.iter_modules(commands.__path__) if not m.name.startswith("_"))


def command_help(name: str) -> str:
    """The one-line help of command ``name``, as its ``register`` declares it (the ``help=`` string
    of its ``add_parser(name, ...)`` call, else its module docstring's first line), read from the
    source so listing the commands imports none of them."""
    spec = importlib.util.find_spec(f"{commands.__name__}.{name}")
    if spec is None or spec.origin is None:
        return ""
    with open(spec.origin, encoding="utf-8") as handle:
        tree = ast.parse(handle.read(), spec.origin)
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "add_parser"
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and node.args[0].value == name
        ):
            for keyword in node.keywords:
                if keyword.arg == "help" and isinstance(keyword.value, ast.Constant):
                    return str(keyword.value.value)
    return (ast.get_docstring(tree) or "").split("\n", 1)[0]


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The CLI parser; with ``only``, that command's module is imported and registered in full,
    and every other command is listed by name and help only."""
    parser = argparse.ArgumentParser(
        prog="trajectory-platform",
        description="Agent logs -> verified, redacted, token-masked data -> policy -> scorecard.",
    )
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in command_names():
        if name == only:
            module = importlib.import_module(f"{commands.__name__}.{name}")
            module.register(subparsers)
        else:
            subparsers.add_parser(name, help=command_help(name), add_help=False)
    return parser


def _options(parser: argparse.ArgumentParser) -> list[str]:
    """Every ``--option`` of ``parser`` and of its nested subcommands (``env import``, ...)."""
    found = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            found += [option for sub in action.choices.values() for option in _options(sub)]
        found += [option for option in action.option_strings if option.startswith("--")]
    return found


def refuse_unknown_options(parser: argparse.ArgumentParser, command: str, argv: list[str]) -> None:
    """Exit (code 2, argparse's) on the first ``--option`` no option of ``command`` takes (nor
    abbreviates), naming the closest one it does take; checked before parsing, so a typo is named
    instead of the required option it hid."""
    sub = next(a.choices[command] for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    options = _options(sub)
    for token in argv[: argv.index("--")] if "--" in argv else argv:
        flag = token.split("=", 1)[0]
        if flag.startswith("--") and not any(option.startswith(flag) for option in options):
            sub.error(unknown_key("option", flag, options))


def main(argv: list[str] | None = None) -> int:
    """Parse ``argv`` and run the chosen command; returns the process exit code."""
    argv = sys.argv[1:] if argv is None else argv
    chosen = next((a for a in argv if not a.startswith("-")), None)
    names = command_names()
    only = chosen if chosen in names else None
    parser = build_parser(only)
    if chosen is not None and only is None:
        parser.error(unknown_key("command", chosen, names))
    if only is not None:
        refuse_unknown_options(parser, only, argv)
    args = parser.parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except IsolationUnavailable as exc:  # any command that would run untrusted code unconfined
        return fail(str(exc))


if __name__ == "__main__":
    sys.exit(main())
