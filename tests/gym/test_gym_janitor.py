"""The janitor: a SIGKILLed verification leaves sandbox directories behind; the next verification
sweeps them (and counts them), and never touches a live run's."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time

from trajectory_platform.curation.verify import verify_episodes
from trajectory_platform.gym.janitor import sweep
from trajectory_platform.gym.sandbox import Workspace

CRASHING_RUN = textwrap.dedent(
    """
    import sys
    sys.path.insert(0, sys.argv[1])
    from test_gym_sandbox import make_fixture
    from trajectory_platform.gym.oracle import run_oracle
    fixture = make_fixture()
    endless = "def double(x):\\n    while True:\\n        pass\\n\\n\\ndef half(x):\\n    return x\\n"
    slow = {**fixture.reference_files, "pkg/core.py": endless}
    print("started", flush=True)
    run_oracle(fixture, slow, timeout_s=60)
    """
)


def test_a_sigkilled_runs_leftovers_are_swept_by_the_next_verification(tmp_path, monkeypatch):
    monkeypatch.setenv("TP_GYM_TMPDIR", str(tmp_path))
    tests_dir = os.path.dirname(__file__)
    proc = subprocess.Popen(
        [sys.executable, "-c", CRASHING_RUN, tests_dir],
        stdout=subprocess.PIPE,
        text=True,
        env=dict(os.environ),
    )
    assert proc.stdout is not None and proc.stdout.readline().strip() == "started"
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and len(list(tmp_path.iterdir())) < 2:
        time.sleep(0.05)
    time.sleep(0.3)  # the sandbox is running the endless test now
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    assert _gone(proc.pid), "bwrap --die-with-parent takes the sandbox along"
    leftovers = sorted(p.name for p in tmp_path.iterdir())
    assert len(leftovers) == 2 and all(name.startswith(f"tp-gym-{proc.pid}-") for name in leftovers)

    with Workspace({"a.txt": "live"}) as live:  # this process's own sandbox is in use: kept
        result = verify_episodes([], None)
        assert live.root.exists()
    assert result.janitor.directories == 2
    assert sorted(p.name for p in tmp_path.iterdir()) == []
    assert sweep().directories == 0, "a second sweep finds nothing left"


def test_an_unconfined_runs_orphaned_runner_process_is_killed(tmp_path, monkeypatch):
    """Without a sandbox (the opt-out) nothing takes a killed run's runner along: the janitor does."""
    monkeypatch.setenv("TP_GYM_TMPDIR", str(tmp_path))
    env = {**os.environ, "TRAJECTORY_PLATFORM_UNSAFE_NO_SANDBOX": "1"}
    unconfined = CRASHING_RUN.replace(
        "from trajectory_platform.gym.oracle import run_oracle",
        "from trajectory_platform.gym import isolation\n"
        "isolation.probe = lambda: 'simulated: no bwrap'\n"
        "from trajectory_platform.gym.oracle import run_oracle",
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", unconfined, os.path.dirname(__file__)],
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    )
    assert proc.stdout is not None and proc.stdout.readline().strip() == "started"
    deadline = time.monotonic() + 20
    # the runner and its forked worker: the runner now waits on the endless test, not on its stdin
    # (killed before it forked, a loaded machine saw it read the closed pipe and exit on its own)
    while time.monotonic() < deadline and len(_runner_processes(proc.pid)) < 2:
        time.sleep(0.05)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    assert _runner_processes(proc.pid), "the orphaned runner is still running before the sweep"
    swept = sweep()
    assert swept.processes >= 1 and swept.directories == 2
    assert _gone(proc.pid)


def _gone(owner: int) -> bool:
    """Within 5 s, no live process names a ``tp-gym-<owner>-`` directory any more."""
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and _runner_processes(owner):
        time.sleep(0.05)
    return not _runner_processes(owner)


def _runner_processes(owner: int) -> list[str]:
    marker, found = f"tp-gym-{owner}-", []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as fh:
                text = fh.read().decode(errors="replace")
            with open(f"/proc/{pid}/stat", encoding="ascii") as fh:
                zombie = fh.read().rsplit(")", 1)[1].split()[0] == "Z"
        except OSError:
            continue
        if marker in text and not zombie:
            found.append(pid)
    return found
