"""The console script discovers every command module and imports only the one it runs."""

import subprocess
import sys

from trajectory_platform.cli import build_parser, command_names


def test_every_command_module_registers_its_own_name():
    for name in command_names():
        parser = build_parser(name)
        choices = parser._subparsers._group_actions[0].choices  # noqa: SLF001 - argparse has no public view
        assert set(choices) == set(command_names())
        assert choices[name]._actions  # noqa: SLF001 - registered in full by its own module, not listed only
    assert {"ingest", "gym", "verify", "redact", "mask", "train", "evaluate", "run"} <= set(command_names())


def test_running_one_command_does_not_import_the_others():
    code = (
        "import sys; from trajectory_platform.cli import main\n"
        "try:\n    main(['ingest', '--help'])\nexcept SystemExit:\n    pass\n"
        "print(sorted(m for m in sys.modules if m.startswith('trajectory_platform.commands.')"
        " and not m.rsplit('.', 1)[1].startswith('_')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip().splitlines()[-1] == "['trajectory_platform.commands.ingest']"
