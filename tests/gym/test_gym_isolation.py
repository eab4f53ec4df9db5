"""Workspace code tries to do harm from inside the sealed oracle: escape, read outside, reach the
network, forge its own verdict. Each attempt must fail, and the honest twin of each workspace
must still pass (so the test would notice a sandbox that simply breaks everything)."""

from __future__ import annotations

import os
import socket
import sys
import time
from pathlib import Path

import pytest
from test_gym_sandbox import make_fixture

from trajectory_platform.gym import isolation
from trajectory_platform.gym.judge import run_tests_in
from trajectory_platform.gym.oracle import run_oracle
from trajectory_platform.gym.sandbox import Workspace

HONEST_HALF = "def half(x):\n    return x / 2\n"
BROKEN_HALF = "def half(x):\n    return x / 3\n"


def core(double_body: str, half: str = BROKEN_HALF, header: str = "") -> dict[str, str]:
    """The fixture's reference workspace with ``pkg/core.py`` rewritten (``half`` still broken)."""
    source = f"{header}\n\ndef double(x):\n{double_body}\n    return x + x\n\n\n{half}"
    return {**make_fixture().reference_files, "pkg/core.py": source}


def messages(files: dict[str, str]) -> dict[str, dict[str, str]]:
    fixture = make_fixture()
    ws_files = {p: c for p, c in files.items() if not p.startswith("tests/")}
    with Workspace({**ws_files, **fixture.sealed_tests}) as ws:
        return run_tests_in(ws.root, ids=["tests/test_core.py::test_double"], timeout_s=5).results


def test_the_sandbox_is_in_force_here():
    assert isolation.probe() is None, "bubblewrap must be installed for the test suite (make setup)"
    assert not isolation.unsafe_opt_out()


def test_honest_twin_passes():
    fixture = make_fixture()
    assert run_oracle(fixture, core("    pass", half=HONEST_HALF)).passed


def test_a_double_forked_setsid_daemon_dies_with_the_sandbox():
    marker = f"{os.getpid()}.{time.time_ns() % 1000}"
    body = (
        "    import os\n"
        "    if os.fork() == 0:\n"
        "        os.setsid()\n"
        "        if os.fork() == 0:\n"
        f"            os.execv('/bin/sleep', ['sleep', '{marker}'])\n"
        "        os._exit(0)\n"
    )
    result = run_oracle(make_fixture(), core(body, half=HONEST_HALF))
    assert result.passed, "forking is allowed; outliving the sandbox is not"
    time.sleep(0.2)
    survivors = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            if marker in Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace"):
                survivors.append(pid)
        except OSError:
            continue
    assert survivors == [], "a double-forked, setsid'd process outlived the oracle run"


def test_files_outside_the_workspace_are_invisible(tmp_path):
    planted = tmp_path / "planted.txt"
    planted.write_text("outside")
    key = tmp_path / "secrets" / "pipeline.key"
    key.parent.mkdir()
    key.write_text("k" * 64)
    repo_file = Path(__file__).resolve()
    for target in (planted, key, repo_file):
        result = messages(core(f"    open({str(target)!r}).read()"))
        row = result["tests/test_core.py::test_double"]
        assert row["status"] == "error" and "FileNotFoundError" in row["message"], (target, row)


def test_writes_outside_the_workspace_do_not_land(tmp_path):
    target = tmp_path / "written.txt"
    messages(core(f"    open({str(target)!r}, 'w').write('x')"))
    assert not target.exists()


def test_no_network():
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    server.settimeout(0.5)
    port = server.getsockname()[1]
    body = f"    import socket\n    socket.create_connection(('127.0.0.1', {port}), timeout=2).sendall(b'hi')"
    try:
        row = messages(core(body))["tests/test_core.py::test_double"]
        assert row["status"] == "error"
        with pytest.raises(TimeoutError):
            server.accept()
    finally:
        server.close()


def test_process_count_is_bounded():
    body = (
        "    import os, time\n"
        "    for _ in range(500):\n"
        "        if os.fork() == 0:\n"
        "            time.sleep(5)\n"
        "            os._exit(0)\n"
    )
    row = messages(core(body))["tests/test_core.py::test_double"]
    assert row["status"] == "error" and "BlockingIOError" in row["message"], row


# ------------------------------------------------------------------- forging the verdict at run time

FAKE = "b'tests/test_core.py::test_half\\tpassed\\t\\t'"
FORGERIES = {
    "atexit_fake_verdict": (
        f"import atexit, os\natexit.register(lambda: os.write(4, {FAKE} + b'0' * 32 + b'\\n'))"
    ),
    "import_time_exit": (
        "import os\nos.write(4, b'tests/test_core.py::test_half\\tpassed\\t\\tx\\n')\nos._exit(0)"
    ),
    "judge_stdout": (
        "import os\nfor fd in (1, 2):\n"
        "    os.write(fd, b'tests/test_core.py::test_half\\tpassed\\t\\t' + b'f' * 64 + b'\\n')"
    ),
    "excepthook": (
        f"import sys, os\nsys.excepthook = lambda *a: (os.write(4, {FAKE} + b'-\\n'), os._exit(0))"
    ),
    "signal_frame_walk": (
        "import signal, os\n"
        "def _h(sig, frame):\n"
        "    while frame is not None:\n"
        "        if 'outcome' in frame.f_locals:\n"
        "            frame.f_locals['outcome'] = ('passed', '')\n"
        "        frame = frame.f_back\n"
        "signal.signal(signal.SIGALRM, _h)\n"
        "signal.setitimer(signal.ITIMER_REAL, 0.001, 0.001)"
    ),
    "gc_token_hunt": (
        "import gc, os\n"
        "for o in gc.get_objects():\n"
        "    if isinstance(o, bytearray) and len(o) == 32:\n"
        "        os.write(4, b'tests/test_core.py::test_half\\tpassed\\t\\t' + bytes(o) + b'\\n')\n"
        "        os._exit(0)"
    ),
    "current_frames": (
        "import sys, os\n"
        "for f in sys._current_frames().values():\n"
        "    while f is not None:\n"
        "        t = f.f_locals.get('token')\n"
        "        if t:\n"
        "            os.write(4, b'tests/test_core.py::test_half\\tpassed\\t\\t' + bytes(t) + b'\\n')\n"
        "            os._exit(0)\n"
        "        f = f.f_back"
    ),
    "trace_rewrites_locals": (
        "import sys\n"
        "def _t(frame, event, arg):\n"
        "    if 'outcome' in frame.f_locals and frame.f_locals['outcome'] is not None:\n"
        "        frame.f_locals['outcome'] = ('passed', '')\n"
        "    return _t\n"
        "sys.settrace(_t)\nsys._getframe(1).f_trace = _t"
    ),
    "replace_test_function": (
        "import sys, threading, time\n"
        "def _swap():\n"
        "    for _ in range(200):\n"
        "        for name, mod in list(sys.modules.items()):\n"
        "            if name.startswith('_test_') and 'test_half' in vars(mod):\n"
        "                mod.test_half = lambda: None\n"
        "                return\n"
        "        time.sleep(0.001)\n"
        "threading.Thread(target=_swap, daemon=True).start()\ntime.sleep(0.05)"
    ),
    "builtins_patch": "import builtins\nbuiltins.AssertionError = type('Nope', (Exception,), {})",
    "proc_self_mem": "import os\nos.open('/proc/self/mem', os.O_RDONLY)",
    "ctypes_prctl": "import ctypes\nctypes.CDLL(None).prctl(4, 1, 0, 0, 0)",
}


@pytest.mark.parametrize("kind", sorted(FORGERIES))
def test_workspace_code_cannot_forge_a_pass_at_run_time(kind):
    """Runtime channel only (no static audit here): a broken ``half`` must never read as passed."""
    fixture = make_fixture()
    files = core("    pass", header=FORGERIES[kind])
    result = run_oracle(fixture, files)
    assert result.fail_to_pass["tests/test_core.py::test_half"] != "passed", kind
    assert not result.passed


def test_without_isolation_untrusted_code_is_refused_with_a_clear_message(monkeypatch):
    monkeypatch.setattr(isolation, "probe", lambda: "bubblewrap (bwrap) is not installed")
    monkeypatch.delenv(isolation.OPT_OUT_ENV, raising=False)
    fixture = make_fixture()
    with pytest.raises(isolation.IsolationUnavailable, match="apt-get install bubblewrap"):
        run_oracle(fixture, fixture.reference_files)


def test_a_python_whose_frame_locals_write_through_is_refused(monkeypatch):
    """On Python 3.13+ workspace code holding the worker's frame could rewrite the outcome the
    holder reads; the judge refuses to run there rather than give verdicts it cannot stand by."""
    monkeypatch.setattr(isolation, "FRAME_LOCALS_WRITE_THROUGH", sys.version_info[:2])
    fixture = make_fixture()
    with pytest.raises(isolation.IsolationUnavailable, match="PEP 667"):
        run_oracle(fixture, fixture.reference_files)


def test_the_loud_opt_out_runs_unconfined_and_still_judges(monkeypatch, caplog):
    monkeypatch.setattr(isolation, "probe", lambda: "bubblewrap (bwrap) is not installed")
    monkeypatch.setenv(isolation.OPT_OUT_ENV, "1")
    fixture = make_fixture()
    assert run_oracle(fixture, fixture.reference_files).passed
    assert not run_oracle(fixture, fixture.s0_files).passed
    assert "UNCONFINED" in caplog.text
