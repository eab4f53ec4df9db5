"""One leased unprivileged uid per open sandbox: distinct while open, released when closed (however),
never handed out twice across threads and processes; and a sandbox that exhausts its process
budget leaves a concurrent sandbox's forks alone."""

from __future__ import annotations

import fcntl
import multiprocessing
import os
import subprocess
import threading
import time
from pathlib import Path

import pytest

from trajectory_platform.gym import isolation, uid_lease
from trajectory_platform.gym.sandbox import Workspace
from trajectory_platform.gym.shell import LiveShell

FREE_BLOCK = range(2_000_000_000, 2_000_000_003)
"""Uids no process runs as (and no account has), for the allocator's own tests."""

needs_root_bwrap = pytest.mark.skipif(
    os.geteuid() != 0 or isolation.probe() is not None,
    reason="uids are leased only when the platform runs as root with bubblewrap (CI does)",
)


def is_free(lock_dir: Path, uid: int) -> bool:
    """Whether no lease holds ``uid`` (taking and dropping its lock, as another lease would)."""
    fd = os.open(lock_dir / f"{uid}.lock", os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    finally:
        os.close(fd)
    return True


def test_leases_open_at_once_differ_and_are_released_after_close_and_after_an_exception(tmp_path):
    with uid_lease.lease(FREE_BLOCK, tmp_path) as first, uid_lease.lease(FREE_BLOCK, tmp_path) as second:
        assert first != second and {first, second} <= set(FREE_BLOCK)
        assert not is_free(tmp_path, first) and not is_free(tmp_path, second)
    assert is_free(tmp_path, first) and is_free(tmp_path, second)
    with pytest.raises(KeyError), uid_lease.lease(FREE_BLOCK, tmp_path) as held:
        raise KeyError("the sandbox failed")
    assert is_free(tmp_path, held)


def test_an_exhausted_block_is_refused(tmp_path):
    with (
        uid_lease.lease(FREE_BLOCK[:1], tmp_path),
        pytest.raises(uid_lease.UidsExhausted, match="leased"),
        uid_lease.lease(FREE_BLOCK[:1], tmp_path),
    ):
        pass


def _hammer(lock_dir: Path, held_dir: Path, rounds: int, results: multiprocessing.Queue) -> None:
    """Lease and mark ``held-<uid>`` exclusively, from two threads, ``rounds`` leases each; report
    (leases, collisions). A block found exhausted is tried again, not counted as a round: on a busy
    machine the other process's threads can hold both uids through every attempt of a fixed count,
    and this process then reported no lease at all (CI, 2026-12-06)."""
    counts = [0, 0]
    deadline = time.monotonic() + 20

    def loop() -> None:
        leased = 0
        while leased < rounds and time.monotonic() < deadline:
            try:
                with uid_lease.lease(FREE_BLOCK[:2], lock_dir) as uid:
                    marker = held_dir / f"held-{uid}"
                    try:
                        fd = os.open(marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
                    except FileExistsError:
                        counts[1] += 1
                        continue
                    os.close(fd)
                    time.sleep(0.0005)
                    marker.unlink()
                    counts[0] += 1
                    leased += 1
            except uid_lease.UidsExhausted:
                time.sleep(0.0002)

    threads = [threading.Thread(target=loop) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    results.put((counts[0], counts[1]))


def test_two_processes_of_two_threads_never_hold_one_uid_at_once(tmp_path):
    """Four holders contend for two uids: a uid handed out twice shows as a marker that exists."""
    context = multiprocessing.get_context("fork")
    results: multiprocessing.Queue = context.Queue()
    workers = [context.Process(target=_hammer, args=(tmp_path, tmp_path, 150, results)) for _ in range(2)]
    for worker in workers:
        worker.start()
    reports = [results.get(timeout=40) for _ in workers]
    for worker in workers:
        worker.join(timeout=5)
    assert [collisions for _, collisions in reports] == [0, 0]
    assert all(leases > 0 for leases, _ in reports), reports


def test_a_range_that_holds_an_account_or_is_unmapped_is_refused(monkeypatch, tmp_path):
    monkeypatch.delenv(isolation.SANDBOX_UIDS_ENV, raising=False)
    assert isolation.sandbox_uids() == range(60600, 60856), "the default block is free here"
    lines = Path("/etc/passwd").read_text(encoding="utf-8").splitlines()
    accounts = enumerate((line.split(":") for line in lines), start=1)
    number, uid = next((n, int(f[2])) for n, f in accounts if len(f) > 2 and f[2].isdigit() and f[2] != "0")
    monkeypatch.setenv(isolation.SANDBOX_UIDS_ENV, f"{uid}-{uid + 3}")
    with pytest.raises(isolation.IsolationUnavailable, match=f"/etc/passwd line {number}: .* has uid {uid}"):
        isolation.sandbox_uids()
    monkeypatch.setenv(isolation.SANDBOX_UIDS_ENV, "60600")
    with pytest.raises(isolation.IsolationUnavailable, match="not a uid range FIRST-LAST"):
        isolation.sandbox_uids()
    uid_map = tmp_path / "uid_map"
    uid_map.write_text("         0          0      65536\n")
    monkeypatch.setattr(uid_lease, "ID_MAPS", ((str(uid_map), "uid"),))
    with pytest.raises(ValueError, match="uid_map: the sandbox uids 70000-70009 are not mapped"):
        uid_lease.check_range(range(70000, 70010))


@needs_root_bwrap
def test_two_open_sessions_run_as_different_leased_uids_released_on_close(monkeypatch, tmp_path):
    # Leases in a folder of its own (to see them released), of uids of its own: the sandboxes of
    # another process (a parallel test worker) lease the shared block from the shared folder, and
    # must never be handed a uid this folder hands out too.
    shared = isolation.sandbox_uids()
    monkeypatch.setattr(isolation, "LEASE_DIR", tmp_path)
    monkeypatch.setenv(isolation.SANDBOX_UIDS_ENV, f"{shared.stop}-{shared.stop + 3}")
    with Workspace({}) as a, Workspace({}) as b:
        with LiveShell(a.root) as first, LiveShell(b.root) as second:
            ids = [shell.run("id -u; id -g", 10.0).output.split() for shell in (first, second)]
            uids = [int(uid) for uid, _ in ids]
            assert uids[0] != uids[1] and set(uids) <= set(isolation.sandbox_uids())
            assert [int(gid) for _, gid in ids] == uids
            assert [a.root.stat().st_uid, b.root.stat().st_uid] == uids, "handed over to its uid"
        assert all(is_free(tmp_path, uid) for uid in uids)
        with pytest.raises(RuntimeError), LiveShell(a.root):
            assert not all(is_free(tmp_path, int(lock.stem)) for lock in tmp_path.glob("*.lock"))
            raise RuntimeError("the episode failed")
        assert all(is_free(tmp_path, int(lock.stem)) for lock in tmp_path.glob("*.lock"))


FILL_BUDGET = (
    'python3 -c "\nimport os, time\nn = 0\ntry:\n    while n < 1000:\n        if os.fork() == 0:\n'
    "            time.sleep(30)\n            os._exit(0)\n        n += 1\nexcept OSError as exc:\n"
    "    print('capped', n, exc.errno, os.getuid(), flush=True)\nopen('ready', 'w').close()\n"
    "end = time.time() + 8\nwhile not os.path.exists('release') and time.time() < end:\n"
    '    time.sleep(0.02)\n"'
)
"""Fork until the process budget refuses, say so, and hold every process until the host releases."""
HONEST_FORKS = (
    'python3 -c "\nimport os\nfor _ in range(20):\n    pid = os.fork()\n    if pid == 0:\n'
    "        os._exit(0)\n    os.waitpid(pid, 0)\nprint('forked 20', os.getuid())\n\""
)


@needs_root_bwrap
def test_a_sandbox_at_its_process_budget_does_not_starve_a_concurrent_sandbox():
    with (
        Workspace({}) as greedy_ws,
        Workspace({}) as honest_ws,
        LiveShell(greedy_ws.root) as greedy,
        LiveShell(honest_ws.root) as honest,
    ):
        outcome: list = []
        filler = threading.Thread(target=lambda: outcome.append(greedy.run(FILL_BUDGET, 15.0)))
        filler.start()
        deadline = time.monotonic() + 10
        while not (greedy_ws.root / "ready").exists() and time.monotonic() < deadline:
            time.sleep(0.02)
        try:
            assert (greedy_ws.root / "ready").exists(), "the greedy sandbox never filled its budget"
            forks = honest.run(HONEST_FORKS, 10.0)
        finally:
            (greedy_ws.root / "release").write_text("")
            filler.join(timeout=20)
    capped, count, errno, greedy_uid = outcome[0].output.split()
    assert (capped, errno) == ("capped", "11") and int(count) <= isolation.PROCESS_BUDGET
    assert forks.exit_code == 0 and forks.output.split()[:2] == ["forked", "20"], forks.output
    assert int(forks.output.split()[2]) != int(greedy_uid)


@needs_root_bwrap
def test_a_uid_that_still_runs_a_process_is_not_leased(tmp_path):
    # A uid of its own, just past the shared block, leased from a folder of its own: from the shared
    # block, a parallel test worker's sandbox could hold the lock at the moment this lease is tried,
    # and the refusal would then prove nothing about the process.
    shared = isolation.sandbox_uids()
    own = range(shared.stop + 8, shared.stop + 12)
    squatted = next(uid for uid in own if not uid_lease.processes_of(uid))
    squatter = subprocess.Popen(["sleep", "30"], user=squatted, group=squatted)
    try:
        assert is_free(tmp_path, squatted), "no lease holds it: only the process can refuse it"
        with pytest.raises(uid_lease.UidsExhausted):
            uid_lease.lease(range(squatted, squatted + 1), tmp_path).__enter__()
    finally:
        squatter.kill()
        squatter.wait()
    with uid_lease.lease(range(squatted, squatted + 1), tmp_path) as leased:
        assert leased == squatted, "once its process is gone the same uid is leased"
