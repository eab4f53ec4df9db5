"""A judge kept across runs (gym/judge.py, ``judge_servers``): the same verdicts as a judge per run,
and nothing of one run left for the next."""

from __future__ import annotations

import os
import signal
import textwrap
import threading
import time

import pytest
from test_warm_start import _fixtures_one_per_family

from trajectory_platform.gym import judge
from trajectory_platform.gym.isolation import ordinary_profile
from trajectory_platform.gym.judge import JudgeServer, judge_servers, run_tests_in, under_judge_servers
from trajectory_platform.gym.oracle import run_oracle
from trajectory_platform.gym.sandbox import Workspace

LEAVE_TRACES = textwrap.dedent(
    '''
    import subprocess
    import sys

    LEAVER = """
    import ctypes, os, subprocess, sys
    libc = ctypes.CDLL(None, use_errno=True)
    assert libc.shmget(0, 4096, 0o1600) >= 0 and libc.msgget(0, 0o1600) >= 0
    assert libc.semget(0, 1, 0o1600) >= 0
    assert libc.mq_open(b"/left", os.O_CREAT | os.O_RDWR, 0o600, None) >= 0
    open("/tmp/left.txt", "w").write("run one")
    try:  # tmpfs keeps user attributes from Linux 6.6 on; elsewhere there is no such channel
        os.setxattr("/workspace", "user.left", b"run one")
    except OSError:
        pass
    os.makedirs("/tmp/locked/inner")
    os.chmod("/tmp/locked", 0)
    subprocess.Popen([sys.executable, "-c", "import os, time; os.setsid(); time.sleep(60)"])
    """


    def test_leave_traces():
        subprocess.run([sys.executable, "-c", LEAVER], check=True)
    '''
)

LOOK_FOR_TRACES = textwrap.dedent(
    '''
    import subprocess
    import sys

    LOOKER = """
    import os
    print(sorted(os.listdir("/tmp")), sorted(os.listdir("/dev/mqueue")), os.listxattr("/workspace"))
    for kind in ("shm", "msg", "sem"):
        print(kind, len(open("/proc/sysvipc/" + kind).read().splitlines()) - 1)
    me = {os.getpid(), os.getppid()}
    others = [p for p in os.listdir("/proc") if p.isdigit() and int(p) not in me]
    print("processes", len(others))
    """


    def test_nothing_left():
        seen = subprocess.run([sys.executable, "-c", LOOKER], capture_output=True, text=True).stdout
        assert False, seen
    '''
)


def _kept() -> list[JudgeServer]:
    """The judges the enclosing ``judge_servers`` block keeps."""
    keeper = judge._keeper.get()
    assert keeper is not None, "not inside a judge_servers block"
    return list(keeper._servers.values())


def _run(files: dict[str, str], test_id: str, **options) -> dict[str, str]:
    with Workspace(files) as ws:
        return run_tests_in(ws.root, ids=[test_id], **options).results[test_id]


def test_a_kept_judge_leaves_the_next_run_no_file_process_or_ipc_object():
    with judge_servers():
        baseline = _run({"tests/test_look.py": LOOK_FOR_TRACES}, "tests/test_look.py::test_nothing_left")
        left = _run({"tests/test_leave.py": LEAVE_TRACES}, "tests/test_leave.py::test_leave_traces")
        after = _run({"tests/test_look.py": LOOK_FOR_TRACES}, "tests/test_look.py::test_nothing_left")
        (server,) = _kept()
        assert server.runs == 3, "the same judge served all three runs"
    assert left["status"] == "passed", left
    assert "[] [] []" in baseline["message"] and "shm 0 msg 0 sem 0" in baseline["message"]
    assert after["message"] == baseline["message"]


def test_a_run_s_workspace_comes_back_with_what_its_tests_wrote_and_the_next_run_sees_only_its_own():
    writer = (
        "import os\n\n\ndef test_write():\n    open('made.txt', 'w').write('x')\n"
        "    assert not os.path.exists('first.txt') or not os.path.exists('second.txt')\n"
    )
    with judge_servers():
        for name in ("first", "second"):
            with Workspace({"tests/test_w.py": writer, f"{name}.txt": name}) as ws:
                result = run_tests_in(ws.root, ids=["tests/test_w.py::test_write"]).results
                assert result["tests/test_w.py::test_write"]["status"] == "passed"
                expected = sorted(["made.txt", f"{name}.txt", "tests"])
                assert sorted(p.name for p in ws.root.iterdir()) == expected
        (server,) = _kept()
        assert not list(server._folders[1].iterdir()), "the judge's workspace folder is empty between runs"


def test_each_run_reads_its_own_final_answer_and_schedule_seed():
    reader = (
        "import os\n\n\ndef test_read():\n"
        "    answer = open(os.environ['GYM_FINAL_ANSWER']).read()\n"
        "    assert False, answer + '/' + os.environ['GYM_SCHEDULE_SEED']\n"
    )
    with judge_servers():
        files, test_id = {"tests/test_r.py": reader}, "tests/test_r.py::test_read"
        runs = (("one", "s1"), ("two", "s2"))
        messages = [_run(files, test_id, final_answer=a, schedule_seed=s)["message"] for a, s in runs]
    assert messages == ["AssertionError: one/s1", "AssertionError: two/s2"]


def test_a_run_in_an_interpreter_of_its_own_draws_its_own_string_hash_seed():
    """A kept judge's workers are forks of one interpreter, so they share its string-hash seed;
    a run that asks for an interpreter of its own (a verification rerun) gets a new one."""
    files, test_id = (
        {"tests/test_h.py": "def test_h():\n    assert False, hash('probe')\n"},
        "tests/test_h.py::test_h",
    )
    with judge_servers():
        kept = {_run(files, test_id)["message"] for _ in range(3)}
        own = {_run(files, test_id, own_interpreter=True)["message"] for _ in range(3)}
        (server,) = _kept()
        assert server.runs == 3, "runs in an interpreter of their own leave the kept judge alone"
    assert len(kept) == 1
    assert len(own) == 3  # three 64-bit draws: a collision is a 2**-63 event


def test_a_test_past_its_time_limit_is_killed_and_the_same_judge_serves_the_next_run():
    hang = "import time\n\n\ndef test_hang():\n    time.sleep(30)\n"
    quick = "def test_quick():\n    assert True\n"
    with judge_servers():
        with Workspace({"tests/test_h.py": hang}) as ws:
            run = run_tests_in(ws.root, ids=["tests/test_h.py::test_hang"], timeout_s=1)
            assert run.timed_out and run.results["tests/test_h.py::test_hang"]["status"] == "error"
        assert _run({"tests/test_q.py": quick}, "tests/test_q.py::test_quick")["status"] == "passed"
        (server,) = _kept()
        assert server.runs == 2 and server._proc is not None


def _descendants(pid: int) -> list[int]:
    children = []
    for task in os.listdir(f"/proc/{pid}/task"):
        with open(f"/proc/{pid}/task/{task}/children") as fh:
            children += [int(c) for c in fh.read().split()]
    return children + [d for c in children for d in _descendants(c)]


def test_a_judge_that_stops_answering_is_stopped_before_its_workspace_comes_back(monkeypatch):
    """The host's own deadline (the judge's, plus slack) ends a run whose judge hangs: everything
    in the sandbox is killed, then the workspace moves back untouched, and the next run gets a
    fresh judge."""
    monkeypatch.setattr(judge, "STARTUP_ALLOWANCE_S", 0.5)
    quick = "def test_quick():\n    assert True\n"
    with judge_servers():
        assert _run({"tests/test_q.py": quick}, "tests/test_q.py::test_quick")["status"] == "passed"
        (server,) = _kept()
        for pid in _descendants(server._proc.pid):
            os.kill(pid, signal.SIGSTOP)
        with Workspace({"tests/test_q.py": quick, "kept.txt": "k"}) as ws:
            run = run_tests_in(ws.root, ids=["tests/test_q.py::test_quick"], timeout_s=1)
            assert run.timed_out and run.exit_code == -signal.SIGKILL and run.results == {}
            assert sorted(p.name for p in ws.root.iterdir()) == ["kept.txt", "tests"]
        assert server._proc is None, "the hung judge is retired"
        assert _run({"tests/test_q.py": quick}, "tests/test_q.py::test_quick")["status"] == "passed"
        assert server.runs == 3


def test_a_judge_killed_between_runs_is_replaced_without_failing_the_next_run():
    quick = "def test_quick():\n    assert True\n"
    with judge_servers():
        assert _run({"tests/test_q.py": quick}, "tests/test_q.py::test_quick")["status"] == "passed"
        (server,) = _kept()
        os.killpg(server._proc.pid, signal.SIGKILL)
        server._proc.wait()
        assert _run({"tests/test_q.py": quick}, "tests/test_q.py::test_quick")["status"] == "passed"


def test_the_judge_of_a_thread_that_ended_goes_with_it_and_a_new_thread_gets_its_own():
    """A judge dies with the thread that started it (``--die-with-parent``); a later thread, which
    may get the same ident, must not inherit it, and the ended thread's uid and folders are freed."""
    quick = "def test_quick():\n    assert True\n"
    seen = []

    def one_run() -> None:
        seen.append(_run({"tests/test_q.py": quick}, "tests/test_q.py::test_quick")["status"])

    with judge_servers():
        for _ in range(2):
            thread = threading.Thread(target=under_judge_servers(one_run))
            thread.start()
            thread.join()
        assert len(_kept()) == 1, "the first thread's judge was let go"
    assert seen == ["passed", "passed"]


def test_a_judge_is_not_stopped_under_a_run_another_thread_has_in_flight():
    """A worker thread of the block may be mid-run on its kept judge when the block ends (its pool
    left running): the judge stops after that run has moved its workspace back, never under it (its
    folder was removed with the files in it)."""
    slow = "import time\n\n\ndef test_slow():\n    time.sleep(1.5)\n"
    files = {"tests/test_s.py": slow, "README.md": "readme\n", "pkg/data/values.json": "{}\n"}
    seen = {}

    def slow_run() -> None:
        with Workspace(files) as ws:
            seen["status"] = run_tests_in(ws.root, ids=["tests/test_s.py::test_slow"]).results
            seen["files"] = sorted(str(p.relative_to(ws.root)) for p in ws.root.rglob("*") if p.is_file())

    with judge_servers():
        thread = threading.Thread(target=under_judge_servers(slow_run))
        thread.start()
        time.sleep(0.7)
    thread.join()
    assert seen["status"]["tests/test_s.py::test_slow"]["status"] == "passed"
    assert seen["files"] == sorted(files)


def test_only_the_blocks_own_threads_keep_judges_and_an_inner_block_leaves_them_to_the_outer():
    """A thread the block was not handed (a spool's producer started beside it) runs with a judge
    per run, as outside any block, and never holds one of the block's; a nested block (the
    evaluation harness inside a round) reuses the outer block's judges instead of closing them."""
    quick = "def test_quick():\n    assert True\n"
    seen = []

    def outsider() -> None:
        seen.append(_run({"tests/test_q.py": quick}, "tests/test_q.py::test_quick")["status"])
        seen.append(judge._keeper.get())

    with judge_servers():
        thread = threading.Thread(target=outsider)
        thread.start()
        thread.join()
        assert seen == ["passed", None] and _kept() == []
        assert _run({"tests/test_q.py": quick}, "tests/test_q.py::test_quick")["status"] == "passed"
        with judge_servers():
            assert _run({"tests/test_q.py": quick}, "tests/test_q.py::test_quick")["status"] == "passed"
        (server,) = _kept()
        assert server.runs == 2 and server._proc is not None, "the inner block left the judge running"
    assert server._proc is None and judge._keeper.get() is None


def test_a_workspace_shadowing_a_module_an_earlier_run_warmed_gets_its_own_module():
    uses_json = "import json\n\n\ndef test_std():\n    assert json.dumps(1) == '1'\n"
    shadows = "import json\n\n\ndef test_own():\n    assert json.dumps(1) == 'workspace json'\n"
    with judge_servers():
        assert _run({"tests/test_s.py": uses_json}, "tests/test_s.py::test_std")["status"] == "passed"
        files = {"tests/test_o.py": shadows, "json.py": "def dumps(obj):\n    return 'workspace json'\n"}
        assert _run(files, "tests/test_o.py::test_own") == {"status": "passed", "message": ""}


@pytest.mark.parametrize("fixture", _fixtures_one_per_family()[:6], ids=lambda f: f.fixture_id.split("/")[0])
def test_a_kept_judge_gives_the_verdicts_of_a_judge_per_run(fixture):
    alone = [run_oracle(fixture, files) for files in (fixture.s0_files, fixture.reference_files)]
    with judge_servers():
        kept = [run_oracle(fixture, files) for files in (fixture.s0_files, fixture.reference_files)]
    assert [(r.fail_to_pass, r.pass_to_pass, r.passed, r.exit_codes) for r in kept] == [
        (r.fail_to_pass, r.pass_to_pass, r.passed, r.exit_codes) for r in alone
    ]


LEAVE_IN_HOME = textwrap.dedent(
    """
    import os


    def test_leave_in_home():
        home, here = os.environ["HOME"], os.getcwd()
        open(os.path.join(home, ".calcrc"), "w").write("scale = 3")
        open(os.path.join(home, ".bashrc"), "a").write("export LEFT=1")
        os.remove(os.path.join(home, ".profile"))
        os.remove(os.path.join(home, ".local/bin/python"))
        open(os.path.join(home, ".local/bin/python"), "w").write("#!/bin/sh")
        os.makedirs(os.path.join(home, ".cache/locked/inner"))
        os.chmod(os.path.join(home, ".cache/locked"), 0)
        os.symlink("/etc", os.path.join(home, "etc-link"))
        os.chmod(home, 0o755)
        for path in (home, os.path.join(home, ".bashrc")):
            try:  # where the file system keeps user attributes
                os.setxattr(path, "user.left", b"run one")
            except OSError:
                pass
        parent = os.path.dirname(here)
        if parent != home:  # a folder the workspace's mount made, when the run may write it
            try:
                open(os.path.join(parent, "beside.txt"), "w").write("x")
            except OSError:
                pass
    """
)

LOOK_AT_HOME = textwrap.dedent(
    """
    import hashlib
    import os


    def _attributes(path):
        try:
            return sorted(os.listxattr(path, follow_symlinks=False))
        except OSError:
            return []


    def test_look_at_home():
        home, here = os.environ["HOME"], os.getcwd()
        seen = [("", oct(os.lstat(home).st_mode), os.lstat(home).st_uid, _attributes(home))]
        for folder, folders, files in os.walk(home):
            folders[:] = [f for f in folders if os.path.join(folder, f) != here]
            for name in sorted(folders + files):
                path = os.path.join(folder, name)
                status = os.lstat(path)
                if os.path.islink(path):
                    body = os.readlink(path)
                elif os.path.isfile(path):
                    body = hashlib.sha256(open(path, "rb").read()).hexdigest()[:12]
                else:
                    body = ""
                shown = (oct(status.st_mode), status.st_uid, body, _attributes(path))
                seen.append((os.path.relpath(path, home), *shown))
        names = sorted(entry[0] for entry in seen)
        digest = hashlib.sha256(repr(sorted(seen)).encode()).hexdigest()[:16]
        assert False, f"{len(seen)} {digest} " + " ".join(names)[:300]
    """
)


def test_a_judge_of_a_drawn_setting_puts_its_home_back_between_runs():
    """The differential check's second judge runs the reference after the candidate: a file the
    candidate's run left in the home (a config the reference reads), changed or removed there,
    would have the reference answer as the candidate made it (``gym/differential.py``)."""
    look, leave = "tests/test_look.py::test_look_at_home", "tests/test_leave.py::test_leave_in_home"
    options = {
        "tests_dir": "tests",
        "load_conftest": False,
        "guard": True,
        "final_answer": None,
        "timeout_s": 10.0,
        "schedule_seed": "",
        "warm": True,
    }
    with JudgeServer(profile=ordinary_profile("home-reset")) as server:
        seen = []
        for files, test_id in (
            ({"tests/test_look.py": LOOK_AT_HOME}, look),
            ({"tests/test_leave.py": LEAVE_IN_HOME}, leave),
            ({"tests/test_look.py": LOOK_AT_HOME}, look),
        ):
            with Workspace(files) as ws:
                seen.append(server.run(ws.root, ids=[test_id], **options).results[test_id])
                if test_id == look:
                    interpreter = server.interpreter
        assert server.runs == 3 and server.interpreter == interpreter, "one judge served all three runs"
    before, left, after = seen
    assert left["status"] == "passed", left
    assert ".bashrc" in before["message"] and ".local/bin/python" in before["message"], before
    assert after["message"] == before["message"]  # every entry's name, mode, owner, body, attributes
