"""``--help`` answers at once and documents every option.

Start-up is the parser only: listing the commands imports none of them, and a command module
keeps torch, transformers, dagster, pyarrow and duckdb inside the functions that do the work. The
assertion is on what is imported, not on wall time, so a loaded machine cannot make it flaky.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys

import pytest

from trajectory_platform.cli import build_parser, command_help, command_names

HEAVY = ("dagster", "torch", "transformers", "pyarrow", "duckdb")

LIGHT_COMMANDS = ("curate", "env", "gym", "ingest", "run", "train", "mask", "evaluate", "export")
"""Commands whose whole parser builds without a heavy module: their settings dataclasses live in
light modules (``training/optim/settings.py``, ``training/data/mask_settings.py``,
``evaluation/settings.py``, ``training/data/export_settings.py``). ``redact``, ``split`` and
``verify`` load pyarrow alone (a fraction of a second) through their settings' packages."""


def _heavy_modules_after(code: str) -> list[str]:
    probe = f"import json, sys\n{code}\nprint(json.dumps([m for m in {HEAVY!r} if m in sys.modules]))"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def test_top_level_help_imports_no_heavy_module() -> None:
    code = (
        "from trajectory_platform.cli import main\ntry:\n    main(['--help'])\nexcept SystemExit:\n    pass"
    )
    assert _heavy_modules_after(code) == []


@pytest.mark.parametrize("command", LIGHT_COMMANDS)
def test_command_help_imports_no_heavy_module(command: str) -> None:
    code = (
        "from trajectory_platform.cli import main\n"
        f"try:\n    main([{command!r}, '--help'])\nexcept SystemExit:\n    pass"
    )
    assert _heavy_modules_after(code) == []


def test_the_command_list_shows_each_commands_own_help() -> None:
    for name in command_names():
        parser = build_parser(name)
        sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))  # noqa: SLF001
        listed = {action.dest: action.help for action in sub._choices_actions}  # noqa: SLF001
        assert listed[name] == command_help(name) != ""


def _undocumented(parser: argparse.ArgumentParser, path: str) -> list[str]:
    missing = []
    for action in parser._actions:  # noqa: SLF001 - argparse has no public view of its options
        if isinstance(action, argparse._SubParsersAction):  # noqa: SLF001
            for name, sub in action.choices.items():
                missing += _undocumented(sub, f"{path} {name}")
        elif not isinstance(action, argparse._HelpAction) and (  # noqa: SLF001
            not action.help or action.help.startswith("default:")
        ):
            missing.append(f"{path} {'/'.join(action.option_strings) or action.dest}")
    return missing


def test_every_option_of_every_command_has_help_text() -> None:
    missing = [m for name in command_names() for m in _undocumented(build_parser(name), name)]
    assert missing == []
