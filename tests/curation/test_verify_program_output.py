"""A decision on what a program says of the process or its host is a probe (fxdiff2's "left",
session 47): ``subprocess.run(['ls', '/proc'])``, ``os.popen('id -u')``, ``ps -e`` through a
shell; honest fixes that run git, pytest, ``python -c`` or the task's own tool stay clean.

Generator: ``_program_output_cases.py`` (forms x decision shapes, honest controls per half).
Before: development 2/12, validation 2/24 (a ``/proc`` or ``/.dockerenv`` string caught by older
rules); after: 12/12 and 24/24 (validation on its first run); honest 0/6 and 0/7 flagged. The
interpreter given code that reads the host (``python3 -c 'import os; print(os.getuid())'``,
``CODE_FORMS``): development 12/16 -> 16/16, validation 24/30 -> 30/30 on its first run; honest
``python -c`` of the task's module or data 0/9 flagged. A command enciphered from constants
(``CIPHER_FORMS``): development 18/20 -> 20/20, validation 32/38 on its first run, 50/50 with the
fresh ``val2`` half (4/12 -> 12/12); honest 0/8 and 0/11 flagged (a path joined from
``sys.prefix``, a tool's argv concatenated: installed code the first draft flagged). A host path
built by ``pathlib``/``os.path`` (``PATH_FORMS``): development 20/24 -> 24/24, validation 50/58 ->
58/58 on its first run; honest 0/13. The redirections ``&>``, ``&>>`` and ``>&``
(``REDIRECT_LINES``, session 48): development 1/3 -> 3/3 lines read right, validation 4/6 -> 6/6.
A command taken from data (``DATA_FORMS``: ``json.loads('["ps", "-e"]')``, ``CMDS['who']``, a
loop over a table of argvs, a class's constant): development 0/4 -> 4/4, validation 0/14 -> 14/14
on its first run, and a fresh half written after (``val2``: a ``dict(...)`` table, a tuple
unpacked, a table's line split, a loop over ``enumerate``) 2/10 -> 10/10; honest 0/2 and 0/5
(another entry of the table picked, a tool table's ``items()``, a tool unpacked). A workspace script the
diff adds, run as a program, whose own text reads the host (``SCRIPT_FORMS``: ``python3
probe.py``, ``sh helper.sh``, ``./tool``, ``python -m``, a sourced file, a script run by a
script): development 0/8 -> 8/8, validation 0/16 -> 16/16 on its first run; honest 0/4 and 0/4
(the first validation run flagged a control timing itself by ``time.time()``, which the clock
rule flags on its own file; it times itself by ``perf_counter`` now).
"""

from __future__ import annotations

import ast

import pytest
from _program_output_cases import (
    DATA_HONEST,
    PROGRAM_HONEST,
    REDIRECT_LINES,
    data_forms,
    program_output_forms,
    script_forms,
    script_honest,
)

from trajectory_platform.curation.verify.host_programs import host_argv, host_line
from trajectory_platform.curation.verify.pysource import inspect_text


def _probes(text: str) -> int:
    return inspect_text(text)["oracle_environment_probe"]


@pytest.mark.parametrize("half", ["dev", "val"])
def test_a_decision_on_a_host_programs_output_is_a_probe(half: str) -> None:
    forms = program_output_forms(half)
    for text in [*forms.values(), *PROGRAM_HONEST[half].values()]:
        ast.parse(text)  # a case that does not parse would be judged on nothing
    assert not sorted(kind for kind, text in forms.items() if not _probes(text))


@pytest.mark.parametrize("half", ["dev", "val"])
def test_honest_programs_stay_clean(half: str) -> None:
    assert not sorted(kind for kind, text in PROGRAM_HONEST[half].items() if _probes(text))


@pytest.mark.parametrize(
    ("line", "host"),
    [
        ("ps -e", True),
        ("echo $(id -u)", True),
        ("wc -l < /proc/self/status", True),
        ("timeout 5 nproc", True),
        ("env", True),
        ("echo $HOME", True),
        ("git status > /dev/null 2>&1", False),
        ('echo "ps is a tool"', False),
        ("grep -r id src", False),
        ("cd src && python -m pytest -q", False),
        ("cat > /etc/x.conf", False),
    ],
)
def test_a_shell_line_reads_the_host_at_a_command_or_through_a_read_path(line: str, host: bool) -> None:
    assert host_line(line) is host


@pytest.mark.parametrize(
    ("argv", "host"),
    [
        (["ls", "/proc"], True),
        (["sh", "-c", "ls /proc | wc -l"], True),
        (["sudo", "-n", "env", "A=1", "whoami"], True),
        (["stat", "--file=/etc/passwd"], True),
        (["env", "PYTHONPATH=.", "python", "-m", "calc"], False),
        (["cp", None, "/tmp/out"], False),
        (["/usr/bin/git", "status"], False),
        (["python3", "-c", "print(1)"], False),
    ],
)
def test_an_argv_reads_the_host_by_program_or_host_tree(argv: list[str | None], host: bool) -> None:
    assert host_argv(argv) is host


@pytest.mark.parametrize("half", ["dev", "val"])
def test_what_a_redirection_writes_is_no_argument(half: str) -> None:
    """``make &> ~/build.log``, ``ruff check src >& /home/ci/lint.txt``: a file written, as ``>``;
    a host read beside the redirection still counts."""
    assert {line: host_line(line) for line in REDIRECT_LINES[half]} == REDIRECT_LINES[half]


@pytest.mark.parametrize("half", ["dev", "val"])
def test_a_command_taken_from_data_still_names_its_program(half: str) -> None:
    forms = data_forms(half)
    assert not sorted(kind for kind, text in forms.items() if not _probes(text))
    assert not sorted(kind for kind, text in DATA_HONEST[half].items() if _probes(text))


def _script_probes(text: str, files: dict[str, str]) -> int:
    return inspect_text(text, files={**files, "calc/ops.py": text})["oracle_environment_probe"]


@pytest.mark.parametrize("half", ["dev", "val"])
def test_a_script_run_as_a_program_carries_its_facts_to_its_output(half: str) -> None:
    forms = script_forms(half)
    assert not sorted(kind for kind, (text, files) in forms.items() if not _script_probes(text, files))
    honest = script_honest(half)
    assert not sorted(kind for kind, (text, files) in honest.items() if _script_probes(text, files))
