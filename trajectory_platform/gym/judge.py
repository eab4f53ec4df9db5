"""Sealed test runs: a sandboxed judge (``_runner.py``) that forks one worker per test, started
once per run, or kept warm and reused across runs inside :func:`judge_servers`.

Starting a judge costs a bubblewrap sandbox (new PID, network, IPC and UTS namespaces and its
mounts) and a clean interpreter: about 17 ms, a quarter to a third of a typical fixture's oracle
run, paid again for every run. A verification pool makes thousands of runs, so inside
:func:`judge_servers` each thread keeps one judge and hands it run after run: the host moves the
run's workspace into the folder the sandbox has bound at ``/workspace``, sends the run (its tests,
limits and nonce) over the judge's stdin, reads the signed verdicts, and moves the workspace back.

A reused judge leaves a run nothing of the one before. Per test, it kills every other process in the
sandbox's PID namespace (as a one-run judge does); after the run, it empties the sandbox's own
scratch folders (:data:`~trajectory_platform.gym.isolation.SCRATCH_FOLDERS`) and removes the System
V IPC objects left in its IPC namespace, and says in its signed end line whether all of that worked;
the host retires a judge that did not clear, that timed out, or whose output did not authenticate,
and starts a fresh one for the next run. The workspace folder is emptied by the host moving the
run's files out. A run whose workspace shadows a standard-library name (``json.py`` at its root)
also gets a fresh judge: modules an earlier run had the judge import (its warm start) would
otherwise stand in for the workspace's own. What the runs still share is the judge's own process,
which never runs workspace code (each worker is a fresh fork of it), the sandbox uid's kernel
keyrings (shared today by consecutive sandboxes that lease the same uid) and the network namespace's
loopback (no process is left to listen on it). ``tests/gym/test_judge_server.py`` checks each of
these between runs. A judge that shows a drawn setting (``profile``) keeps that setting's own
``/tmp`` entries, emptied, so its next run sees the same setting, and puts the setting's home back
as it was first written (:func:`~trajectory_platform.gym.isolation.reset_home`): a run that read a
file an earlier run left in the home, or missed one it removed, would answer as that run made it
answer. The differential check relies on it: its second judge runs the reference after the
candidate (``gym/differential.py``).
"""

from __future__ import annotations

import contextlib
import contextvars
import hashlib
import hmac
import itertools
import os
import secrets
import select
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from trajectory_platform.gym import isolation
from trajectory_platform.gym.sandbox import (
    FILE_SIZE_LIMIT_BYTES,
    MEMORY_LIMIT_BYTES,
    STARTUP_ALLOWANCE_S,
    _reap,
    owned_prefix,
    runner_bytecode,
    temp_root,
)
from trajectory_platform.gym.warm_start import WarmStart, imports_of_tests, plan, shadowed

T = TypeVar("T")

ANSWER_VARIABLE = "GYM_FINAL_ANSWER"
"""The environment variable naming the file that holds the run's final answer (the agent's, or the
fixture's reference answer), which a fixture's sealed tests read (``gym/library.py``)."""
ANSWER_FILE = "final_answer.txt"
"""That file, in the runner folder (:data:`~trajectory_platform.gym.isolation.RUNNER_MOUNT` inside
the sandbox). The oracle's judge names it in every worker's environment; a judge that shows a drawn
setting does not (a plain program's environment holds no such variable, and a solution right only
where it did passed the oracle and a differential run that had it: session 46): there the cases
that read the answer name it themselves (``gym/differential.py``)."""


@dataclass
class TestRun:
    """Per-test statuses of one runner invocation plus how the process ended."""

    results: dict[str, dict[str, str]]
    exit_code: int
    wall_s: float
    timed_out: bool
    cpu_s: float = 0.0
    """CPU seconds the test workers used, summed over the tests, as the judge measured each worker
    when it reaped it (``wait4``; authenticated with the verdicts). It does not grow with the
    machine's load the way ``wall_s`` does; 0.0 when the channel was voided or nothing reported."""


class JudgeServer:
    """One sandboxed judge, started on the first run and kept for the next until it is closed or
    retired. Runs go one at a time (the thread that owns it)."""

    def __init__(self, workspace: Path | None = None, profile: isolation.Profile | None = None) -> None:
        """``workspace``: bind that folder itself (a one-run judge); else an empty folder of the
        judge's own, into which each run's workspace is moved. ``profile``: the setting the judge
        shows its runs (:class:`~trajectory_platform.gym.isolation.Profile`; the oracle's when
        ``None``)."""
        self._profile = profile
        self._stack = contextlib.ExitStack()
        self._bound = workspace
        self._proc: subprocess.Popen[bytes] | None = None
        self._served = False
        """Whether the running judge has served a run (and so holds modules a fresh one would not)."""
        self.runs = 0
        self._lock = threading.Lock()
        """Held for a run, and by :meth:`retire`: a judge is never stopped under a run in flight."""
        self._retired = False
        self._home: tuple[isolation.Profile, Path] | None = None
        """The setting and the host folder of its home, while a judge of a drawn setting runs."""
        self.interpreter = 0
        """Which interpreter served this judge's last run (a number no other interpreter of this
        process gets): two runs went to one interpreter, and so one string-hash seed, exactly when
        it is the same after both."""

    def __enter__(self) -> JudgeServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Stop the judge (if it runs) and remove its folders, releasing its uid."""
        self._halt(patient=True)
        self._stack.close()
        self._stack = contextlib.ExitStack()

    def _halt(self, patient: bool) -> int:
        """Stop the judge and everything it started; its exit status. Closing its stdin ends an idle
        judge, and its output closing says it has exited (so its uid is free to lease again at
        once); the process group is killed regardless, at once when not ``patient`` (a judge still
        busy with a run: SIGKILL is then its status)."""
        proc, self._proc = self._proc, None
        if proc is None:
            return -signal.SIGKILL
        assert proc.stdin is not None and proc.stdout is not None
        with contextlib.suppress(OSError):
            proc.stdin.close()
        fd, deadline = proc.stdout.fileno(), time.monotonic() + (STARTUP_ALLOWANCE_S if patient else 0)
        with contextlib.suppress(OSError):
            while select.select([fd], [], [], max(deadline - time.monotonic(), 0))[0]:
                if not os.read(fd, 65536):
                    break
        _reap(proc)
        proc.stdout.close()
        return proc.returncode if patient and proc.returncode is not None else -signal.SIGKILL

    def retire(self) -> None:
        """Stop the judge for good, once the run in flight (if any) has moved its workspace back;
        a later :meth:`run` on it starts a judge of its own for that run alone."""
        with self._lock:
            self._retired = True
            self.close()

    def run(self, workspace_dir: Path, **options: Any) -> TestRun:
        """One run of ``workspace_dir``'s tests (see :func:`run_tests_in` for ``options``)."""
        with self._lock:
            if not self._retired:
                return self._run(workspace_dir, **options)
        with JudgeServer(workspace_dir, self._profile) as one_run:
            result = one_run.run(workspace_dir, **options)
        self.interpreter = one_run.interpreter
        return result

    def _run(
        self,
        workspace_dir: Path,
        *,
        ids: list[str],
        tests_dir: str,
        load_conftest: bool,
        guard: bool,
        final_answer: str | None,
        timeout_s: float,
        schedule_seed: str,
        warm: bool,
    ) -> TestRun:
        start = time.perf_counter()
        prepared = plan(workspace_dir, tests_dir) if warm else WarmStart()
        if self._served and shadowed(workspace_dir):
            self.close()  # modules earlier runs loaded could stand in for the ones it shadows
        if self._proc is not None and self._proc.poll() is not None:
            self.close()  # it ended between runs (killed from outside): not this run's failure
        if self._proc is None:
            self._start(self._bound)
        nonce = secrets.token_bytes(32)
        request = [
            f"nonce={nonce.hex()}",
            f"tests_dir={tests_dir}",
            f"load_conftest={int(load_conftest)}",
            f"guard={int(guard)}",
            f"timeout_s={timeout_s}",
            f"cpu_s={int(timeout_s) + 1}",
            f"schedule_seed={schedule_seed}",
            f"warm={','.join(prepared.modules)}",
            f"precompile={','.join(prepared.sources)}",
            f"vouched={','.join(imports_of_tests(workspace_dir, tests_dir))}",
            "ids:",
            *ids,
        ]
        (self._private / ANSWER_FILE).write_text(final_answer or "", encoding="utf-8")
        exit_code, payload = 0, "\n".join(request).encode("utf-8")
        with self._moved_in(workspace_dir):
            try:
                out, ending = self._exchange(payload, timeout_s + STARTUP_ALLOWANCE_S)
            except BaseException:  # Ctrl-C: as below
                self._halt(patient=False)
                raise
            if ending != "end":  # nothing of this run may still run when its workspace moves back
                exit_code = self._halt(patient=ending == "closed")
        lines = out.decode("utf-8", "replace").splitlines()
        cleared = _authenticated_end(lines.pop(), nonce, len(lines)) if ending == "end" else None
        results, cpu_s = _verified_results("\n".join(lines).encode("utf-8"), nonce, ids)
        if ending == "end" and cleared is None:
            results, cpu_s = _void(ids, "verdict channel: the end line failed authentication"), 0.0
            exit_code = -signal.SIGKILL
        if cleared and self._home is not None:
            try:
                isolation.reset_home(self._home[0], self._home[1], self._user)
            except OSError:
                cleared = False
        if not cleared:
            self.close()
        timed_out = ending == "timeout" or any(r["message"] == "timed out" for r in results.values())
        self.runs += 1
        self._served = self._proc is not None
        return TestRun(results, exit_code, time.perf_counter() - start, timed_out, cpu_s)

    @property
    def _private(self) -> Path:
        return self._folders[0]

    def _start(self, workspace: Path | None) -> None:
        """Lease a uid, make the runner folder (and the judge's own workspace folder), start it."""
        stack = self._stack
        private = Path(tempfile.mkdtemp(prefix=owned_prefix("runner-"), dir=temp_root()))
        stack.callback(shutil.rmtree, private, ignore_errors=True)
        if workspace is None:
            workspace = Path(tempfile.mkdtemp(prefix=owned_prefix("slot-"), dir=temp_root()))
            stack.callback(shutil.rmtree, workspace, ignore_errors=True)
        self._folders = (private, workspace)
        user = stack.enter_context(isolation.sandbox_user())
        profile, setting = self._profile, None
        if profile is not None:
            setting = Path(tempfile.mkdtemp(prefix=owned_prefix("setting-"), dir=temp_root()))
            stack.callback(shutil.rmtree, setting, ignore_errors=True)
        view = isolation.sandbox(workspace, private, user=user, profile=profile, setting=setting)
        self._user = user
        self._home = (
            (profile, isolation.setting_home(setting))
            if profile is not None and setting is not None
            else None
        )
        self.interpreter = next(_INTERPRETERS)
        (private / "_runner.pyc").write_bytes(runner_bytecode())
        setting_folders = [f"/tmp/{entry}" for entry in profile.tmp_entries] if profile is not None else []
        spec = [
            f"workspace={view.workspace_path}",
            f"memory_bytes={profile.memory_bytes if profile is not None else MEMORY_LIMIT_BYTES}",
            f"file_bytes={FILE_SIZE_LIMIT_BYTES if profile is None else ''}",
            f"max_files={profile.open_files if profile is not None else isolation.OPEN_FILES}",
            f"max_processes={view.max_processes or ''}",
            f"drop_uid={view.drop_uid}",
            f"own_pid_namespace={int(view.own_pid_namespace)}",
            f"scratch={','.join(isolation.SCRATCH_FOLDERS) if view.own_pid_namespace else ''}",
            f"scratch_kept={','.join(setting_folders)}",
            f"ordinary={int(profile is not None)}",
            f"shown_id={profile.user_id if profile is not None else ''}",
            f"pid_floor={profile.pid_floor if profile is not None else ''}",
        ]
        (private / "spec.txt").write_text("\n".join(spec) + "\n", encoding="utf-8")
        (private / ANSWER_FILE).write_text("", encoding="utf-8")
        for child in private.iterdir():
            child.chmod(0o644)
        env = (
            dict(profile.env)
            if profile is not None
            else {
                "PATH": "/usr/bin:/bin",
                "HOME": "/tmp",
                "LANG": "C.UTF-8",
                "TMPDIR": "/tmp",
            }
        )
        if profile is None or not view.prefix:  # a drawn setting's cases set it themselves
            env[ANSWER_VARIABLE] = f"{view.runner_path}/{ANSWER_FILE}"
        runner = f"{view.runner_path}/_runner.pyc"
        spec_path = f"{view.runner_path}/spec.txt"
        argv = [*view.prefix, isolation.interpreter(), *_start_options(profile), runner, spec_path]
        self._proc = subprocess.Popen(
            argv,
            cwd=str(private),
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )

    @contextlib.contextmanager
    def _moved_in(self, workspace_dir: Path) -> Iterator[None]:
        """``workspace_dir``'s entries in the judge's workspace folder for the block, then back
        (with whatever the run added), leaving that folder empty. Renames: the same file system."""
        slot = self._folders[1]
        if slot == workspace_dir:
            yield
            return
        for name in os.listdir(workspace_dir):
            os.rename(workspace_dir / name, slot / name)
        try:
            isolation.give_to_user(slot, self._user)
            yield
        finally:
            os.chmod(slot, 0o755)  # a test may have locked the folder it was given, or marked it
            for attribute in os.listxattr(slot):
                os.removexattr(slot, attribute)
            for name in os.listdir(slot):
                os.rename(slot / name, workspace_dir / name)

    def _exchange(self, request: bytes, timeout_s: float) -> tuple[bytes, str]:
        """Send one run and read the judge's answer up to its end line: the output and how it
        ended: ``end`` (the end line came), ``closed`` (the judge's output closed first: what it
        wrote until then) or ``timeout`` (nothing kept, as a run past its time limit)."""
        proc = self._proc
        assert proc is not None and proc.stdin is not None and proc.stdout is not None
        try:
            proc.stdin.write(len(request).to_bytes(4, "big") + request)
            proc.stdin.flush()
        except OSError:
            return b"", "closed"
        fd, out = proc.stdout.fileno(), bytearray()
        deadline = time.monotonic() + timeout_s
        while not _ends_with_end_line(out):
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                return b"", "timeout"
            chunk = os.read(fd, 65536)
            if not chunk:
                return bytes(out), "closed"
            out += chunk
        return bytes(out), "end"


_INTERPRETERS = itertools.count(1)
"""Numbers for the judge interpreters this process starts (:attr:`JudgeServer.interpreter`)."""


ORACLE_START_OPTIONS = ("-I", "-S", "-B")
"""How the oracle's judge starts: isolated from ``PYTHON*`` variables, the user's site folder and the
script's folder on ``sys.path`` (``-I``), without ``site`` (``-S``: nothing of the installation's
``.pth`` lines runs) and writing no bytecode (``-B``)."""


def _start_options(profile: isolation.Profile | None) -> tuple[str, ...]:
    """The interpreter options of a judge: the oracle's (:data:`ORACLE_START_OPTIONS`), or none for
    a judge that shows a drawn setting, started as a developer starts a program (``python3
    main.py``). Those flags are visible (``sys.flags.isolated``, ``sys.flags.no_site``,
    ``sys.dont_write_bytecode``), and a solution right only where they were set passed the oracle
    and a differential run started the same way (session 45). Nothing they kept out reaches that
    judge either: its environment is the drawn one (no ``PYTHONPATH``; ``PYTHONUNBUFFERED`` at
    most), its home is the drawn one (no user site folder), the runner takes its own folder off
    ``sys.path``, and a workspace module never reads or writes bytecode (``_runner._source_only``)."""
    return () if profile is not None else ORACLE_START_OPTIONS


def _ends_with_end_line(out: bytearray) -> bool:
    if not out.endswith(b"\n"):
        return False
    last = out[out.rfind(b"\n", 0, len(out) - 1) + 1 :]
    return last.startswith(b"end\t")


def _authenticated_end(line: str, nonce: bytes, tests: int) -> bool | None:
    """Whether the judge cleared its sandbox for another run, from its end line (``None``: the
    line is missing, does not authenticate, or counts other than ``tests`` result lines)."""
    body, _, mac = line.rpartition("\t")
    parts = body.split("\t")
    expected = hmac.new(nonce, body.encode("utf-8"), hashlib.sha256).hexdigest()
    if len(parts) != 3 or parts[0] != "end" or not hmac.compare_digest(mac, expected):
        return None
    if parts[1] != str(tests):
        return None
    return parts[2] == "1"


class _Keeper:
    """The judges one :func:`judge_servers` block keeps: one per thread that runs under it, keyed by
    the thread itself (an ident can be reused by a later thread; a judge dies with the thread that
    started it, bubblewrap's ``--die-with-parent``)."""

    def __init__(self) -> None:
        self._servers: dict[threading.Thread, JudgeServer] = {}
        self._lock = threading.Lock()
        self._open = True

    def server(self) -> JudgeServer | None:
        """The calling thread's judge (``None`` once the block has closed); a new thread first lets
        go of the judges of threads that have ended."""
        with self._lock:
            if not self._open:
                return None
            me = threading.current_thread()
            server, ended = self._servers.get(me), []
            if server is None:
                ended = [self._servers.pop(t) for t in list(self._servers) if not t.is_alive()]
                server = self._servers[me] = JudgeServer()
        for judge in ended:
            judge.retire()
        return server

    def close(self) -> None:
        """Retire every judge; a thread may still be in a run on one: retire waits for it."""
        with self._lock:
            self._open = False
            closing, self._servers = list(self._servers.values()), {}
        for server in closing:
            server.retire()


_keeper: contextvars.ContextVar[_Keeper | None] = contextvars.ContextVar("judge_servers", default=None)
"""The block whose judges the current context's runs use. Other threads see it only through
:func:`under_judge_servers` (a new thread starts with an empty context): a thread that was not handed
the block (a producer thread started beside it) starts and stops a judge per run, as outside."""


@contextlib.contextmanager
def judge_servers() -> Iterator[None]:
    """Within the block, each of this context's runs (:func:`run_tests_in`) goes to a judge of its
    thread's own, kept warm between runs; worker threads join the block through
    :func:`under_judge_servers`. Every judge is stopped when the block exits (an inner block leaves
    them to the outer one). Outside, each run starts and stops its own judge."""
    if _keeper.get() is not None:
        yield
        return
    keeper = _Keeper()
    token = _keeper.set(keeper)
    try:
        yield
    finally:
        _keeper.reset(token)
        keeper.close()


def under_judge_servers(fn: Callable[..., T]) -> Callable[..., T]:
    """``fn`` bound to the calling context's :func:`judge_servers` block, for a pool's worker thread
    to run: its runs then use a kept judge of that thread's own (none outside a block)."""
    keeper = _keeper.get()

    def bound(*args: Any, **kwargs: Any) -> T:
        token = _keeper.set(keeper)
        try:
            return fn(*args, **kwargs)
        finally:
            _keeper.reset(token)

    return bound


def _thread_server(workspace_dir: Path) -> JudgeServer | None:
    """This thread's kept judge, when it runs under a :func:`judge_servers` block and
    ``workspace_dir`` is a sandbox workspace of this process
    (:class:`~trajectory_platform.gym.sandbox.Workspace`), whose entries may be moved into the
    judge's folder (the same file system) and back."""
    keeper = _keeper.get()
    ours = workspace_dir.parent == Path(temp_root() or tempfile.gettempdir())
    if keeper is None or not (ours and workspace_dir.name.startswith(owned_prefix())):
        return None
    return keeper.server()


def run_tests_in(
    workspace_dir: Path,
    *,
    ids: list[str] | None = None,
    tests_dir: str = "tests",
    load_conftest: bool = False,
    guard: bool = True,
    final_answer: str | None = None,
    timeout_s: float = 10.0,
    schedule_seed: str = "",
    warm: bool = True,
    own_interpreter: bool = False,
    profile: isolation.Profile | None = None,
) -> TestRun:
    """Run tests of ``workspace_dir`` in the sandbox: a judge process, one fresh worker per test.

    The verdicts come back over the judge's stdout, each line authenticated with an HMAC under a
    nonce this process made and handed over stdin; a line that does not verify voids the run
    (every test ``error``), so nothing the workspace writes can stand in for a verdict.

    ``warm`` has the judge import the standard-library modules the tests reach and compile the
    workspace modules they reach before its first worker (:mod:`~trajectory_platform.gym.warm_start`):
    the same verdicts, without each test doing that work again; ``False`` runs every worker cold,
    for comparisons. Under a :func:`judge_servers` block the run goes to this thread's kept judge,
    unless ``own_interpreter``: then a judge is started for this run alone. Its workers are forks
    of a new interpreter, with a string-hash seed of their own (``-I`` ignores ``PYTHONHASHSEED``,
    so Python draws one): runs meant to show whether an outcome varies must not share one.
    ``profile`` runs the tests in that setting instead of the oracle's, in a judge of their own
    (:class:`~trajectory_platform.gym.isolation.Profile`).
    """
    options = {
        "ids": list(ids or []),
        "tests_dir": tests_dir,
        "load_conftest": load_conftest,
        "guard": guard,
        "final_answer": final_answer,
        "timeout_s": timeout_s,
        "schedule_seed": schedule_seed,
        "warm": warm,
    }
    server = None if own_interpreter or profile is not None else _thread_server(workspace_dir)
    if server is not None:
        return server.run(workspace_dir, **options)
    with JudgeServer(workspace_dir, profile) as one_run:
        return one_run.run(workspace_dir, **options)


def _verified_results(
    out: bytes, nonce: bytes, ids: list[str] | None
) -> tuple[dict[str, dict[str, str]], float]:
    """The judge's lines whose HMAC verifies, and the workers' CPU seconds they report (summed);
    one forged or malformed line voids them all (every test ``error``, no CPU time)."""
    results: dict[str, dict[str, str]] = {}
    cpu_s = 0.0
    for line in out.decode("utf-8", "replace").splitlines():
        body, _, mac = line.rpartition("\t")
        expected = hmac.new(nonce, body.encode("utf-8"), hashlib.sha256).hexdigest()
        parts = body.split("\t", 3)
        try:
            used = float(parts[2]) if len(parts) == 4 else -1.0
        except ValueError:
            used = -1.0
        if used < 0 or not hmac.compare_digest(mac, expected):
            return _void(ids or list(results), "verdict channel: a result line failed authentication"), 0.0
        results[parts[0]] = {"status": parts[1], "message": parts[3]}
        cpu_s += used
    return results, cpu_s


def _void(ids: list[str], reason: str) -> dict[str, dict[str, str]]:
    """Every test of a run whose channel failed: ``error``, for ``reason``."""
    return {tid: {"status": "error", "message": reason} for tid in ids}
