"""Replay holds one workspace across a pre-1.0 log's batches, handed to the sandbox user once.

A batch used to start from a fresh copy of the files the last one read back, which lost what a
file map does not hold (an executable bit, an empty folder) between batches, and the sandbox
chowned the whole workspace before every command. These tests fail if either comes back, or if
the host's single-file reads and restores follow a link a sandboxed command planted."""

from __future__ import annotations

import os

import pytest
from _verify_factory import CALC_S0
from test_replay_sweagent import OPS_WINDOW, ROOT, replayed, step

from trajectory_platform.gym import isolation
from trajectory_platform.gym.sandbox import Workspace
from trajectory_platform.gym.shell import LiveShell, ReplayRunError

OPS = f"{ROOT}/calc/ops.py"


def test_what_a_file_map_cannot_hold_survives_a_batch_boundary():
    """``open`` ends a batch: the executable bit and the empty folder made before it must still be
    there for the command after it, as they were in the agent's shell."""
    turns = [
        step("chmod +x run.sh\n", ""),
        step("mkdir build\n", ""),
        step("open calc/ops.py\n", OPS_WINDOW, OPS),
        step("./run.sh && ls -d build\n", "built\nbuild", OPS),
    ]
    result = replayed(turns, s0={**CALC_S0, "run.sh": "#!/bin/sh\necho built\n"})
    assert (result.observations, result.drift_turns) == ("verified", [])


@pytest.mark.skipif(
    os.geteuid() != 0 or isolation.probe() is not None,
    reason="the hand-over is a chown, done only as root in bwrap",
)
@pytest.mark.parametrize(("exclusive", "second_exit"), [(True, 1), (False, 0)])
def test_an_exclusive_session_hands_the_workspace_over_once(exclusive, second_exit):
    """A file the host writes after the first action stays the host's in an exclusive session
    (nothing chowns it, so the sandbox user cannot write it); a shared session hands it over again."""
    with Workspace({"a.txt": "x\n"}) as ws, LiveShell(ws.root, exclusive=exclusive) as shell:
        first = shell.run("echo one >> a.txt", 10.0)
        (ws.root / "host.txt").write_text("host\n", encoding="utf-8")
        second = shell.run("echo two >> host.txt", 10.0)
        assert first.exit_code == 0
        assert (second.exit_code, (ws.root / "host.txt").stat().st_uid == 0) == (second_exit, exclusive)


def test_reads_and_restores_never_follow_a_link_the_sandbox_planted(tmp_path):
    outside = tmp_path / "host.py"
    outside.write_text("secret = 1\n", encoding="utf-8")
    with Workspace({"calc/ops.py": "a = 1\n"}) as ws, LiveShell(ws.root, exclusive=True) as shell:
        (ws.root / "link.py").symlink_to(outside)
        (ws.root / "linked").symlink_to(tmp_path)
        assert shell.read("calc/ops.py") == "a = 1\n"
        assert [shell.read(p) for p in ("link.py", "linked/host.py", "calc", "../x.py", "/etc/hostname")] == [
            None
        ] * 5
        for planted in ("link.py", "linked/host.py"):
            with pytest.raises(ReplayRunError, match="cannot be restored"):
                shell.restore(planted, "secret = 2\n")
        shell.restore("calc/ops.py", "a = 2\n")
        assert (ws.root / "calc/ops.py").read_text(encoding="utf-8") == "a = 2\n"
        os.mkfifo(ws.root / "pipe.py")  # no reader: a blocking open for writing would hang here
        with pytest.raises(ReplayRunError, match="cannot be restored"):
            shell.restore("pipe.py", "a = 3\n")
    assert outside.read_text(encoding="utf-8") == "secret = 1\n"
