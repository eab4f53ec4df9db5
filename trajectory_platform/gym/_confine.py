"""The limits and the uid drop every in-sandbox script applies before any workspace code runs.

Shipped beside the scripts that run inside the sandbox (``_runner.py``, ``_replay_driver.py``):
:func:`trajectory_platform.gym.isolation.sandbox` writes it into the runner directory, and each
script imports it from there by path (``python -I`` puts no script directory on ``sys.path``). It
imports only the standard library, like them.

``spec`` is the script's spec, values as text (the runner's ``key=value`` file) or JSON numbers
(the replay driver's): the ``setrlimit`` bounds ``cpu_s``, ``memory_bytes``, ``file_bytes``,
``max_files`` and ``max_processes`` (each applied only when set), and ``drop_uid``, the sandbox's
leased uid (``-1``: none, the sandbox's user namespace already made the process unprivileged).
"""

import os
import resource

LIMITS = (
    ("RLIMIT_CPU", "cpu_s"),
    ("RLIMIT_AS", "memory_bytes"),
    ("RLIMIT_FSIZE", "file_bytes"),
    ("RLIMIT_NOFILE", "max_files"),
    ("RLIMIT_NPROC", "max_processes"),
)


def confine(spec: dict) -> None:
    """Apply the limits, no core dumps, then (started as root) become ``drop_uid`` for good: real,
    effective and saved ids, the same number as gid, no supplementary groups (the kernel does not
    apply ``RLIMIT_NPROC`` to root, and root could read root-only files)."""
    for name, key in LIMITS:
        if spec.get(key):
            limit = int(spec[key])
            resource.setrlimit(getattr(resource, name), (limit, limit))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    uid = int(spec.get("drop_uid") or -1)
    if uid >= 0 and os.geteuid() == 0:
        os.setgroups([])
        os.setresgid(uid, uid, uid)
        os.setresuid(uid, uid, uid)
