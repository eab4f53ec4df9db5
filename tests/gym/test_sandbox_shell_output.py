"""A replayed command's output is read whole even when the host is busy: the reader used to stop
as soon as it found the command ended, and lost what the command wrote after the reader's last
look at the pipe (an honest log then drifted once, stored as a ``replay_retried`` note, so a
verified row's bytes depended on the machine's load)."""

from __future__ import annotations

import subprocess
import sys
import threading
import time

from trajectory_platform.gym.shell import _read_capped


def test_sandbox_shell_output_written_just_before_exit_is_kept_on_a_busy_host() -> None:
    # Another thread doing Python work (the verify pool's other episodes) holds the GIL for up to
    # the switch interval each time the reader's select returns: a long interval makes the command
    # write and exit inside that window on every run, which an idle host only does by chance.
    stop = threading.Event()

    def busy() -> None:
        while not stop.is_set():
            sum(range(10_000))

    interval = sys.getswitchinterval()
    sys.setswitchinterval(0.3)
    worker = threading.Thread(target=busy, daemon=True)
    worker.start()
    outputs = []
    try:
        for _ in range(6):
            proc = subprocess.Popen(
                ["sh", "-c", "sleep 0.1; echo 'a%2Fb a b'"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT
            )
            outputs.append(_read_capped(proc, time.monotonic() + 30))
            proc.wait()
    finally:
        stop.set()
        worker.join()
        sys.setswitchinterval(interval)
    assert outputs == [("a%2Fb a b\n", False)] * 6
