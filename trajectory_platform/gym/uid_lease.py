"""Leases on a block of unprivileged uids: one uid per open sandbox, across threads and processes.

``RLIMIT_NPROC`` counts every process of a uid, so sandboxes sharing one uid share one process
budget: a fork-heavy workspace in one would make an honest workspace's forks fail in another. A
lease gives each open sandbox a uid nothing else runs as.

A lease is an exclusive ``flock`` on ``<lock_dir>/<uid>.lock``. ``flock`` locks belong to an open
file description, so two threads of one process exclude each other as two processes do, and the
kernel drops a lock when its holder dies: a crashed run never leaves a uid leased. The lock files
stay (removing one would race with a process that has it open and is about to lock it).
"""

from __future__ import annotations

import contextlib
import fcntl
import functools
import logging
import os
from collections.abc import Iterator
from pathlib import Path

log = logging.getLogger(__name__)

ACCOUNT_FILES = (("/etc/passwd", "uid"), ("/etc/group", "gid"))
"""The local account databases a sandbox uid (and gid, the same number) must not appear in, and
what the third field of their lines holds."""
ID_MAPS = (("/proc/self/uid_map", "uid"), ("/proc/self/gid_map", "gid"))
"""Where the kernel says which ids exist in this user namespace (a rootless container maps 65,536)."""
HIGHEST_ID = (1 << 31) - 1
"""Ids at or above 2**31 read as negative in tools that keep them in a signed int."""


class UidsExhausted(RuntimeError):
    """Every uid of the block is leased (more sandboxes are open than the block has uids)."""


def parse_range(text: str) -> range:
    """The uids ``FIRST-LAST`` (inclusive) that ``text`` names. Raises ValueError on anything else."""
    first, sep, last = text.strip().partition("-")
    if not (sep and first.strip().isdigit() and last.strip().isdigit()):
        raise ValueError(f"{text!r} is not a uid range FIRST-LAST (e.g. 60600-60855)")
    block = range(int(first), int(last) + 1)
    if not block or block.start < 1 or block.stop - 1 > HIGHEST_ID:
        raise ValueError(f"{text!r} must satisfy 1 <= FIRST <= LAST <= {HIGHEST_ID}")
    return block


@functools.cache
def check_range(block: range) -> None:
    """Raise ValueError, naming the file and line, when a local account or group holds an id of
    ``block`` (a sandbox would run as, and own the files of, that account), or when this user
    namespace does not map the whole block (dropping to an unmapped id fails)."""
    for path, kind in ACCOUNT_FILES:
        for number, line in enumerate(_lines(path), start=1):
            fields = line.split(":")
            if len(fields) > 2 and fields[2].isdigit() and int(fields[2]) in block:
                raise ValueError(
                    f"{path} line {number}: {fields[0]!r} has {kind} {fields[2]}, inside the "
                    f"sandbox uid range {_label(block)}; choose a range no account or group uses"
                )
    for path, kind in ID_MAPS:
        mapped = [
            range(int(f[0]), int(f[0]) + int(f[2])) for f in map(str.split, _lines(path)) if len(f) == 3
        ]
        if mapped and not any(block.start in m and block.stop - 1 in m for m in mapped):
            raise ValueError(
                f"{path}: the sandbox {kind}s {_label(block)} are not mapped in this user namespace "
                f"(mapped: {', '.join(_label(m) for m in mapped)}); choose a range inside it"
            )


def _lines(path: str) -> list[str]:
    try:
        return Path(path).read_text(encoding="utf-8", errors="replace").splitlines()
    except FileNotFoundError:
        return []


def _label(block: range) -> str:
    return f"{block.start}-{block.stop - 1}"


def processes_of(uid: int) -> int:
    """How many processes (``/proc`` entries) ``uid`` owns now."""
    count = 0
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                count += os.stat(f"/proc/{entry}").st_uid == uid
            except OSError:
                continue
    return count


@contextlib.contextmanager
def lease(block: range, lock_dir: Path) -> Iterator[int]:
    """Hold one uid of ``block`` that no other lease holds and no process runs as, until the block
    exits (normally or by an exception). Raises :class:`UidsExhausted` when there is none."""
    lock_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
    for uid in block:
        fd = os.open(lock_dir / f"{uid}.lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            continue
        try:
            if processes_of(uid):  # left over from a run that died, or an account we cannot see
                log.warning("sandbox uid %d still runs processes; leasing another", uid)
                continue
            yield uid
            return
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)  # a forked child holding a copy of fd must not keep it
            os.close(fd)
    raise UidsExhausted(f"all {len(block)} sandbox uids {_label(block)} are leased")
