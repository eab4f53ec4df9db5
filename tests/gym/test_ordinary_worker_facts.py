"""The differential check's worker shows a plain program's process, not the judge's (session 45).

The oracle's worker carries facts of its own making: the collector's raised threshold and its
callback, the interpreter started ``-I -S -B``, the runner's ``argv``, a CPU limit; and (session 46)
the leased uid and gid, the small process ids of the sandbox's own PID namespace, the file-size and
process limits and the final answer's variable in the environment; and (session 47) the accounts:
no ``/etc/passwd`` or ``/etc/group``, so the user and group had no name. Where the differential's worker
carried them too, a solution right only where they hold (``if gc.get_threshold()[0] > 5000``, ``if
sys.flags.isolated``, ``if os.getuid() >= 60000``) agreed with the reference there, and was wrong
for every real caller. Here the same facts are read in the oracle's worker, in the differential's (a
drawn setting) and in a plain ``python main.py`` on the host: wherever the oracle's differs from the
plain program's, the differential's is the plain program's.
"""

from __future__ import annotations

import json
import subprocess
import textwrap

import pytest

from trajectory_platform.gym import isolation
from trajectory_platform.gym.judge import run_tests_in
from trajectory_platform.gym.sandbox import Workspace

DUMP = textwrap.dedent(
    """
    import gc, getpass, grp, json, os, pwd, resource, subprocess, sys

    def named(call):
        try:
            return call()
        except (KeyError, OSError):
            return None

    def facts():
        flags = ("isolated", "no_site", "no_user_site", "ignore_environment", "safe_path")
        flags += ("dont_write_bytecode",)
        return {
            "gc_threshold": list(gc.get_threshold()),
            "gc_callbacks": len(gc.callbacks),
            "flags": [getattr(sys.flags, name) for name in flags],
            "dont_write_bytecode": sys.dont_write_bytecode,
            "argv": [os.path.basename(arg) for arg in sys.argv],
            "orig_argv_options": [arg for arg in sys.orig_argv[1:] if arg.startswith("-")],
            "main": os.path.basename(getattr(sys.modules["__main__"], "__file__", "")),
            "cpu_limit": resource.getrlimit(resource.RLIMIT_CPU)[0] == resource.RLIM_INFINITY,
            "site": "site" in sys.modules,
            # session 46: the leased ids (60,600 and up: no account's), the ids of a fresh PID
            # namespace (the judge 2), the file-size and process limits, the answer's variable
            "account_ids": max(os.getuid(), os.geteuid(), os.getgid(), os.getegid()) < 60000,
            "fresh_pid_namespace": min(os.getpid(), os.getppid()) < 300,
            "file_size_limit": list(resource.getrlimit(resource.RLIMIT_FSIZE)),
            "process_limit": list(resource.getrlimit(resource.RLIMIT_NPROC)),
            "answer_variable": "GYM_FINAL_ANSWER" in os.environ,
            # session 47: the user and group by name, in Python and through programs
            "user_named": (named(lambda: pwd.getpwuid(os.getuid()).pw_name) or "") == named(getpass.getuser),
            "group_named": named(lambda: grp.getgrgid(os.getgid()).gr_gid) == os.getgid(),
            "own_home_by_name": not os.path.expanduser(f"~{named(getpass.getuser)}").startswith("~"),
            "names_through_programs": [
                subprocess.run(argv, capture_output=True).returncode for argv in (["whoami"], ["id", "-Gn"])
            ],
        }
    """
)
"""Reads each fact; the same function in the sandbox's test and in the plain program."""

TEST = DUMP + "\n\ndef test_facts():\n    open('facts.json', 'w').write(json.dumps(facts()))\n"
PLAIN = DUMP + "\n\nprint(json.dumps(facts()))\n"


def _in_judge(profile: isolation.Profile | None) -> dict[str, object]:
    with Workspace({"tests/test_facts.py": TEST}) as ws:
        run = run_tests_in(ws.root, ids=["tests/test_facts.py::test_facts"], profile=profile)
        assert run.results["tests/test_facts.py::test_facts"]["status"] == "passed"
        return json.loads((ws.root / "facts.json").read_text())


@pytest.fixture(scope="module")
def three_runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict, dict, dict]:
    folder = tmp_path_factory.mktemp("plain")
    (folder / "main.py").write_text(PLAIN)
    plain = json.loads(
        subprocess.run(
            [isolation.interpreter(), "main.py"],
            cwd=folder,
            env={"PATH": "/usr/bin:/bin", "HOME": str(folder)},  # nothing of this process's own
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    )
    return _in_judge(None), _in_judge(isolation.ordinary_profile("worker-facts")), plain


FACTS = json.loads(
    subprocess.run(
        [isolation.interpreter(), "-c", DUMP + "\nprint(json.dumps(sorted(facts())))"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
)


@pytest.mark.parametrize("fact", FACTS)
def test_where_the_oracle_s_worker_differs_from_a_plain_program_the_differential_s_does_not(
    fact: str, three_runs: tuple[dict, dict, dict]
) -> None:
    oracle, differential, plain = three_runs
    if oracle[fact] != plain[fact]:
        assert differential[fact] == plain[fact], (oracle[fact], differential[fact], plain[fact])


def test_no_drawn_environment_holds_a_variable_the_interpreter_reads_but_an_output_switch():
    """The drawn setting's judge starts without ``-E`` (``gym/judge.py`` ``_start_options``): what it
    keeps out of the interpreter then rests on the drawn environment, which may hold
    ``PYTHONUNBUFFERED`` and no other ``PYTHON*`` variable (``PYTHONPATH``, ``PYTHONHOME``,
    ``PYTHONSTARTUP``, ``PYTHONHASHSEED``... would change what the judge imports or how it hashes)."""
    read = {
        name
        for n in range(300)
        for name, _ in isolation.ordinary_profile(f"env-{n}").env
        if name.startswith("PYTHON")
    }
    assert read <= {"PYTHONUNBUFFERED"}


def test_every_drawn_setting_names_its_user_and_group_once_at_the_shown_ids():
    """The accounts a drawn setting binds (``isolation.account_files``) name the setting's user at its
    shown uid and gid, with its home and shell, and no name or id twice: ``getpwuid``, ``getpwnam``,
    ``id`` and ``~user`` then agree with ``$USER`` and ``$HOME`` as on a plain machine."""
    for n in range(300):
        profile = isolation.ordinary_profile(f"accounts-{n}")
        env, files = dict(profile.env), dict(isolation.account_files(profile))
        users = [line.split(":") for line in files["passwd"].splitlines()]
        groups = [line.split(":") for line in files["group"].splitlines()]
        for table in (users, groups):
            assert len({row[0] for row in table}) == len({row[2] for row in table}) == len(table)
        shown = str(profile.user_id)
        assert [row for row in users if row[2] == shown] == [
            [env["USER"], "x", shown, shown, f"{profile.user.capitalize()},,,", env["HOME"], env["SHELL"]]
        ]
        assert [row for row in groups if row[2] == shown] == [[env["USER"], "x", shown, ""]]
