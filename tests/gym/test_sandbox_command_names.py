"""The commands agents' logs run work inside the sandbox (``python``, ``awk`` and the tools Debian
links through ``/etc/alternatives``), and making them work opened nothing else: of ``/etc`` only
the two entries the system needs are there, read-only, and the sandbox's own ``bin`` folder
cannot be changed by the code it runs."""

from __future__ import annotations

import os

import pytest

from trajectory_platform.gym import isolation
from trajectory_platform.gym.shell import run_commands

WORKS = {
    "python -c 'import sys; print(sys.version_info[0])'": "3",
    "python3 -c 'print(6 * 7)'": "42",
    "printf 'a 1\\nb 2\\n' | awk '{s += $2} END {print s}'": "3",
    "echo x | nawk '{print NR}'": "1",
    "which awk": "/usr/bin/awk",
    "echo abc | sed s/b/X/ | grep -c X": "1",
    "find . -name '*.txt' | xargs cat | sort | head -n 1": "a",
    "printf 'a\\n' > /tmp/x; printf 'b\\n' > /tmp/y; diff /tmp/x /tmp/y > /tmp/d; echo $?": "1",
    "printf 'a\\n' > x; printf '1c1\\n< a\\n---\\n> b\\n' | patch -s x; cat x; rm x": "b",
    "yes | head -n 2 | tr '\\n' ,": "y,y,",
}


def test_the_commands_agents_run_work_in_the_sandbox():
    run = run_commands({"notes.txt": "b\na\n"}, list(WORKS), timeout_s=20)
    outputs = {r.command: (r.exit_code, r.output.strip()) for r in run.results}
    assert outputs == {command: (0, expected) for command, expected in WORKS.items()}


def test_python_is_the_sandboxs_own_interpreter_first_on_path():
    run = run_commands(
        {},
        ["python -c 'import sys, os; print(os.path.realpath(sys.executable))'", "echo $PATH"],
        timeout_s=20,
    )
    assert [r.output.strip() for r in run.results] == [isolation.interpreter(), isolation.SANDBOX_PATH]


@pytest.mark.skipif(os.geteuid() != 0, reason="the sandbox drops to nobody only when started as root")
def test_what_the_tools_needed_opened_nothing_else():
    probes = [
        "ls -A /etc",
        "cat /etc/passwd",
        "touch /etc/alternatives/x",
        f"ln -sf /bin/sh {isolation.BIN_MOUNT}/python",
        f"touch {isolation.BIN_MOUNT}/evil",
    ]
    run = run_commands({}, probes, timeout_s=20)
    listing, *denied = run.results
    assert listing.output.split() == ["alternatives", "ld.so.cache"], "no other /etc entry"
    assert all(r.exit_code != 0 for r in denied), [(r.command, r.output) for r in denied]
    check = run_commands({}, ["python -c 'print(1)'"], timeout_s=20).results[0]
    assert (check.exit_code, check.output.strip()) == (0, "1")
