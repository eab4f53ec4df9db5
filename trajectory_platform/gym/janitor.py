"""The janitor: sweep what crashed runs left behind (curation §Hypervisor hygiene).

A run killed mid-verification (SIGKILL, OOM, a pulled plug) never reaches its ``finally`` blocks:
its sandbox directories stay in ``/dev/shm`` (holding a fixture's sealed tests, among others), and
without a sandbox (the unsafe opt-out) its runner processes may outlive it. Every directory the
gym makes is named ``tp-gym-<pid>-...`` after the process that made it, so a leftover is
recognizable as ours and as orphaned: its owner is gone, or the pid now belongs to a process that
started after the directory was made. Live runs, this process's own directories and anything
not named by us are never touched.
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
import shutil
import signal
import tempfile
from dataclasses import dataclass
from pathlib import Path

from trajectory_platform.gym.sandbox import TEMP_PREFIX, temp_root

log = logging.getLogger(__name__)
_OWNED = re.compile(re.escape(TEMP_PREFIX) + r"(\d+)-")
_CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


@dataclass(frozen=True)
class Sweep:
    """What one sweep removed: directories and processes, counted for the caller's metadata."""

    directories: int
    processes: int

    def to_dict(self) -> dict[str, int]:
        return {"janitor_directories_removed": self.directories, "janitor_processes_killed": self.processes}


def _boot_time() -> float:
    with open("/proc/stat", encoding="ascii") as fh:
        for line in fh:
            if line.startswith("btime "):
                return float(line.split()[1])
    return 0.0


def _started_at(pid: int) -> float | None:
    """Wall-clock start time of ``pid``, or None when no such process is running."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as fh:
            fields = fh.read().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return _boot_time() + int(fields[19]) / _CLOCK_TICKS


def _orphaned(pid: int, made_at: float) -> bool:
    if pid == os.getpid():
        return False
    started = _started_at(pid)
    return started is None or started > made_at + 1.0


def _roots() -> list[Path]:
    roots = {Path(tempfile.gettempdir())}
    configured = temp_root()
    if configured:
        roots.add(Path(configured))
    return sorted(roots)


def _sweep_directories() -> int:
    removed = 0
    for root in _roots():
        with contextlib.suppress(OSError):
            for entry in root.iterdir():
                match = _OWNED.match(entry.name)
                if not match or not entry.is_dir() or entry.is_symlink():
                    continue
                with contextlib.suppress(OSError):
                    if _orphaned(int(match.group(1)), entry.stat().st_mtime):
                        shutil.rmtree(entry)
                        log.info("janitor: removed %s (its run is gone)", entry)
                        removed += 1
    return removed


def _sweep_processes() -> int:
    """Runner processes (sandboxed or not) whose command line names an orphaned ``tp-gym-<pid>-`` dir."""
    killed = 0
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as fh:
                cmdline = fh.read().decode("utf-8", "replace")
        except OSError:
            continue
        owners = {int(m.group(1)) for m in _OWNED.finditer(cmdline)}
        started = _started_at(int(entry))
        if owners and started is not None and all(_orphaned(pid, started) for pid in owners):
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(int(entry), signal.SIGKILL)
                log.info("janitor: killed process %s left by a crashed run", entry)
                killed += 1
    return killed


def sweep() -> Sweep:
    """Remove orphaned sandbox directories and kill orphaned runner processes; log and count them."""
    # Processes first: a runner whose directory vanished under it may exit on its own a moment
    # later (and then is neither killed nor counted), and its directory is only safe to remove once
    # nothing writes into it.
    killed = _sweep_processes()
    result = Sweep(directories=_sweep_directories(), processes=killed)
    if result.directories or result.processes:
        log.warning(
            "janitor: swept %d sandbox directories and %d processes left by crashed runs",
            result.directories,
            result.processes,
        )
    return result
