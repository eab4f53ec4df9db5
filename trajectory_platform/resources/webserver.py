"""Start and stop a local Dagster webserver the way a person does, for the UI test and scripts.

The server runs on a free loopback port, with default signal handlers (a background job
inherits an ignored SIGINT, which would make a polite stop impossible) and in its own session.
It is stopped by its PID with SIGINT (a graceful shutdown that also stops its code server),
escalating to SIGKILL of the session it leads if it does not exit; nothing else is touched.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

DEFINITIONS_MODULE = "trajectory_platform.definitions"


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(f"{url}/server_info", timeout=5) as response:
            return response.status == 200
    except OSError:
        return False


def stop_process(process: subprocess.Popen, grace_s: float = 30) -> None:
    """SIGINT by PID, then SIGKILL to the session it leads (only what we started).

    ``process`` must have been started with ``start_new_session=True``: its process group is
    then exactly it and its children (the webserver's code server), which are ended too.
    """
    if process.poll() is None:
        process.send_signal(signal.SIGINT)
        try:
            process.wait(timeout=grace_s)
        except subprocess.TimeoutExpired:
            _signal_group(process.pid, signal.SIGKILL)
            process.wait(timeout=grace_s)
    _signal_group(process.pid, signal.SIGTERM)  # children still in our session, if any


def _signal_group(pgid: int, sig: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)


@contextlib.contextmanager
def running_webserver(
    dagster_home: Path,
    workdir: Path,
    log_path: Path,
    module: str = DEFINITIONS_MODULE,
    timeout_s: float = 180,
) -> Iterator[str]:
    """Run ``dagster-webserver -m module`` until the block ends; yields its base URL."""
    port = free_port()
    env = {**os.environ, "DAGSTER_HOME": str(dagster_home), "TRAJECTORY_PLATFORM_WORKDIR": str(workdir)}
    command = [str(Path(sys.executable).parent / "dagster-webserver"), "-h", "127.0.0.1", "-p", str(port)]
    with open(log_path, "wb") as log:
        process = subprocess.Popen(
            [*command, "-m", module],
            env=env,
            cwd=workdir,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
        )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + timeout_s
        while not _answers(url):
            if process.poll() is not None:
                raise RuntimeError(f"dagster-webserver exited: {Path(log_path).read_text()[-3000:]}")
            if time.monotonic() > deadline:
                raise TimeoutError(f"dagster-webserver did not answer within {timeout_s}s ({log_path})")
            time.sleep(1)
        yield url
    finally:
        stop_process(process)
