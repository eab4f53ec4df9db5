"""The workspace shown a second time at a recorded repository root (``mount_at``): commands see it
there as their working directory, nothing outside the workspace becomes writable through it, and
a path that would shadow or contain a folder the sandbox mounts for itself is refused."""

from __future__ import annotations

import os

import pytest

from trajectory_platform.gym import isolation
from trajectory_platform.gym.shell import run_commands

S0 = {"pkg/a.txt": "alpha\n"}


@pytest.mark.parametrize(
    ("path", "refusal"),
    [
        ("/testbed", None),
        ("/SWE-agent__test-repo", None),
        ("/home/dev/project", None),
        ("/workspace", None),
        ("/", "system_directory"),
        ("/usr", "system_directory"),
        ("/usr/src/app", "system_directory"),
        ("/lib64", "system_directory"),
        ("/etc/app", "system_directory"),
        ("/proc", "system_directory"),
        ("/dev/shm", "system_directory"),
        ("/sys", "system_directory"),
        ("/tmp/repo", "system_directory"),
        ("/sandbox", "sandbox_directory"),
        ("/sandbox/bin/python", "sandbox_directory"),
        ("/runner", "sandbox_directory"),
        ("/workspace/repo", "sandbox_directory"),
        ("testbed", "malformed"),
        ("/testbed/", "malformed"),
        ("/a/../usr", "malformed"),
        ("//testbed", "malformed"),
        ("/test\nbed", "malformed"),
    ],
)
def test_which_recorded_roots_may_be_mounted(path, refusal):
    assert isolation.mount_refusal(path) == refusal
    assert refusal is None or refusal in isolation.MOUNT_REFUSALS


def test_the_interpreters_installation_and_its_ancestors_are_never_shadowed():
    binary_dir = os.path.dirname(isolation.interpreter())
    for path in (binary_dir, os.path.dirname(binary_dir)):
        assert isolation.mount_refusal(path) is not None, path


def test_a_refused_root_is_never_bound(tmp_path):
    with pytest.raises(ValueError, match="system_directory"):
        isolation.sandbox(tmp_path, tmp_path, user=-1, mount_at="/usr/lib")


@pytest.mark.parametrize("root", ["/testbed", "/home/dev/project"])
def test_the_workspace_at_the_recorded_root_is_the_same_folder_and_the_working_directory(root):
    run = run_commands(
        S0,
        [
            f"pwd && cat {root}/pkg/a.txt",
            f"echo beta > {root}/pkg/b.txt && cat /workspace/pkg/b.txt",
            f"cd {root}/pkg && ls",
        ],
        mount_at=root,
    )
    assert [(r.output, r.exit_code) for r in run.results] == [
        (f"{root}\nalpha\n", 0),
        ("beta\n", 0),
        ("a.txt\nb.txt\n", 0),
    ]
    assert run.final_files == {**S0, "pkg/b.txt": "beta\n"}


def test_a_command_cannot_write_outside_the_workspace_through_the_recorded_root(tmp_path):
    host = tmp_path / "host.txt"
    host.write_text("host only\n", encoding="utf-8")
    run = run_commands(
        S0,
        [
            "echo pwned > /testbed/../escape.txt",
            "echo pwned > /repo/../usr/escape.txt",
            "mkdir /repo/../opt",
            f"echo pwned > /repo/../{tmp_path.relative_to('/')}/escape.txt",
            f"cat /repo/../{host.relative_to('/')}",
            "ln -s /usr /repo/up && touch /repo/up/escape.txt",
            "touch /sandbox/bin/escape /runner/escape",
        ],
        mount_at="/repo",
    )
    assert all(r.exit_code != 0 for r in run.results), [r.output for r in run.results]
    assert "host only" not in "".join(r.output for r in run.results)
    assert not (tmp_path / "escape.txt").exists()
    assert set(run.final_files) == set(S0), "the link is left out, never followed back onto the host"


@pytest.mark.skipif(os.geteuid() != 0, reason="the uid is dropped only when the platform runs as root")
def test_commands_at_the_recorded_root_still_run_as_the_leased_uid():
    run = run_commands(S0, ["id -u", "stat -c %u /repo"], mount_at="/repo")
    uid, owner = (r.output.strip() for r in run.results)
    assert int(uid) in isolation.sandbox_uids() and owner == uid


def test_commands_at_the_recorded_root_still_have_no_network():
    probe = "python3 -I -S -c \"import socket; socket.create_connection(('1.1.1.1', 53), timeout=2)\""
    (result,) = run_commands(S0, [probe], mount_at="/repo").results
    assert result.exit_code != 0 and "Network is unreachable" in result.output
