"""Replay driver: runs recorded actions of an episode inside the sandbox (see ``shell.py``).

Executed as ``python -I -S -B _replay_driver.py SPEC`` inside the bubblewrap sandbox, copied next to
(never into) the workspace like the test runner. ``SPEC`` is a JSON object with the ``setrlimit``
bounds, ``drop_uid`` and ``workspace``, and one of two modes:

- ``shell``: apply the limits, drop to the unprivileged uid, then ``exec /bin/bash -c COMMAND`` in
  the workspace. The host reads bash's own stdout and stderr (merged) and its exit status, so
  nothing of this driver stands between the command and what it printed.
- ``tools``: import the environment's own tools module (``tools_dir``, ``entry_point``
  ``module:function``) and call ``function(name, arguments, workspace)`` for each recorded call in
  order, each under a wall-clock alarm. One JSON line per call goes to a private duplicate of the
  original stdout; the calls themselves see ``/dev/null`` as stdout and stderr.

It imports only the standard library.
"""

import json
import os
import resource
import signal
import sys


def _limit(spec: dict) -> None:
    for name, key in (
        ("RLIMIT_CPU", "cpu_s"),
        ("RLIMIT_AS", "memory_bytes"),
        ("RLIMIT_FSIZE", "file_bytes"),
        ("RLIMIT_NOFILE", "max_files"),
        ("RLIMIT_NPROC", "max_processes"),
    ):
        if spec.get(key):
            limit = int(spec[key])
            resource.setrlimit(getattr(resource, name), (limit, limit))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    uid = int(spec.get("drop_uid", -1))
    if uid >= 0 and os.geteuid() == 0:
        os.setgroups([])
        os.setresgid(uid, uid, uid)
        os.setresuid(uid, uid, uid)


def run_shell(spec: dict) -> None:
    os.chdir(spec["workspace"])
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.closerange(3, 1 << 16)
    os.execve("/bin/bash", ["bash", "-c", spec["command"]], dict(os.environ))


class _CallTimeout(BaseException):
    """Raised by the alarm inside a tool call that outlived its time."""


def _on_alarm(signum: int, frame: object) -> None:
    raise _CallTimeout()


def run_tools(spec: dict) -> None:
    channel = os.dup(1)
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)

    def emit(record: dict) -> None:
        os.write(channel, (json.dumps(record) + "\n").encode("utf-8"))

    limit = int(spec["output_limit"])
    workspace = spec["workspace"]
    os.chdir(workspace)
    sys.path.insert(0, spec["tools_dir"])
    module_name, _, function_name = spec["entry_point"].partition(":")
    try:
        import importlib

        function = getattr(importlib.import_module(module_name), function_name)
    except BaseException as exc:  # noqa: BLE001 - a broken tools module is reported, not raised
        emit({"fatal": f"{spec['entry_point']}: {type(exc).__name__}: {exc}"[:500]})
        return
    signal.signal(signal.SIGALRM, _on_alarm)
    for name, arguments in spec["calls"]:
        text, error, timed_out = "", False, False
        signal.setitimer(signal.ITIMER_REAL, float(spec["call_timeout_s"]))
        try:
            output = function(name, arguments, workspace)
            text, error = (output, False) if isinstance(output, str) else (_not_text(output), True)
        except _CallTimeout:
            error = timed_out = True
        except BaseException as exc:  # noqa: BLE001 - every outcome is an observation
            text, error = f"{type(exc).__name__}: {exc}", True
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
        if len(text) > limit:
            text = text[:limit] + f"\n[output truncated: {len(text) - limit} more characters]"
        emit({"output": text, "error": error, "timed_out": timed_out})


def _not_text(output: object) -> str:
    return f"tool returned {type(output).__name__}, not str"


def main(spec_path: str) -> None:
    with open(spec_path, encoding="utf-8") as fh:
        spec = json.load(fh)
    _limit(spec)
    if spec["mode"] == "shell":
        run_shell(spec)
    else:
        run_tools(spec)


if __name__ == "__main__":
    main(sys.argv[1])
