"""Sealed test runner: a judge process that never runs workspace code, one worker process per test.

Executed as ``python -I -S -B _runner.py SPEC`` inside the sandbox (see ``isolation.py``), or as a
plain ``python _runner.py SPEC`` for a judge that shows a drawn setting (``gym/judge.py``).
It imports only the standard library and ``_confine`` (the limits and the uid drop, shipped
beside it), and is copied next to (never into) the workspace, so nothing the agent wrote can
replace it. ``SPEC`` is a text file of ``key=value`` lines about the sandbox (``workspace``, the
``setrlimit`` bounds, ``drop_uid``, ``own_pid_namespace``, the ``scratch`` folders). Runs arrive on
stdin, one after another (``gym/judge.py`` keeps a judge for many, or starts one for one): each is
a 4-byte length and the run's own ``key=value`` lines (``nonce`` in hex, ``tests_dir``,
``load_conftest``, ``guard``, ``timeout_s``, ``cpu_s``, ``schedule_seed``, and the warm start's
``warm`` and ``precompile``), then ``ids:`` and one test id per line; an empty id list means
"every module-level ``test_*`` function of ``tests_dir/test_*.py``", found by compiling, not
importing. The judge ends when stdin closes.

The verdict channel (docs/verification.md has the threat model):

- **Judge.** Applies the rlimits, drops to an unprivileged uid when started as root and makes
  itself non-dumpable (no same-uid process may read its memory or reopen its descriptors; forks
  inherit this) before it reads a run. Per run it prepares the warm start (``gym/warm_start.py``:
  installed modules imported, workspace source compiled, nothing run), then forks one worker per
  test. It writes one line per test to stdout (id, status, the CPU seconds the worker used as
  ``wait4`` reported them, message), each with an HMAC under the run's nonce, and after the last
  an ``end`` line (the number of tests, and whether it cleared the sandbox for another run: no
  process, no scratch file, no IPC object left), signed too; the host accepts nothing else.
  Workspace code never runs in the judge.
- **Worker.** A fork of the judge, one per test. Before any workspace code it starts a *holder*
  thread, which reads a per-test token from the judge, installs an audit hook, and waits. The hook
  ends the worker (:data:`REACH_EXIT`) on every way Python offers to reach another thread's frames,
  rewrite a frame's locals or read raw memory (``sys._current_frames``, ``gc``, trace and profile
  hooks, ``ctypes``, opening ``/proc``, bytecode of the workspace's making); it refers to nothing
  secret, since its own frame can reach workspace code. When the test is over the main thread
  wakes the holder and parks; the holder reads the outcome *from the main thread's own frame*, and
  only if that frame is exactly the worker frame it saw before the workspace was imported (an
  ``atexit`` hook, a signal handler or an import-time ``os._exit`` that claims a pass is not that
  frame), the test function's code is the sealed code, (``guard=1``) the builtins are untouched,
  and no class compares true with anything (the comparison probe, run by the holder over its own
  copies of this module's functions, made before any workspace code: this module is the worker's
  ``__main__``, whose globals workspace code can rebind). Then it writes ``id, status, message``
  to the judge with an HMAC of them under the token (never the token
  itself: code that re-points the report descriptor could relay it under another status) and ends
  the process with ``os._exit``, so exit hooks never run.
"""

import builtins
import os
import sys
from gc import callbacks as gc_callbacks
from gc import get_stats as gc_stats
from gc import set_threshold as gc_set_threshold
from operator import eq, ge, gt, is_not, le, lt, ne

TYPE_CHECKING = False  # typing is not imported: the judge loads nothing it does not need
if TYPE_CHECKING:  # annotations naming these are strings, never evaluated at run time
    import types
    from collections.abc import Callable
    from typing import Any

    Pinned = tuple[tuple[Any, tuple[tuple[str, object], ...], bool], ...]
    """Mappings with the names they held and what each was bound to, and whether a class added
    to them counts (a module's or a class's namespace) or not (``sys.modules``)."""

_HERE = os.path.dirname(__file__)
sys.path.insert(0, _HERE)  # the limits and uid drop, shipped beside this script
import _confine  # type: ignore[import-not-found]  # noqa: E402 - see isolation.sandbox

# Workspace code imports its own modules by that name, and finds nothing of this folder: a judge
# started without ``-I`` (a drawn setting: gym/judge.py) had it on ``sys.path`` once more.
sys.path[:] = [entry for entry in sys.path if entry != _HERE]
del sys.modules["_confine"], _HERE

_MODULES = sys.modules
"""The interpreter's table of modules, the one the import system keeps using: code can rebind the
name ``sys.modules`` to a table of its own, and a class it listed there passed for one a module the
tests import holds."""

_REACH_EVENTS = (
    "sys._current_frames",
    "sys._current_exceptions",
    "sys.settrace",
    "sys.setprofile",
    "gc.get_objects",
    "gc.get_referrers",
    "gc.get_referents",
    "sys.monitoring.register_callback",
    "marshal.load",
    "sys.addaudithook",
)
"""Audit events by which code on the main thread could reach the holder thread's frame or objects,
or rewrite a frame's locals (a trace function writes them back); ``ctypes.*`` and opening a
``/proc`` path (``/proc/self/mem``) are raw memory access, and so is a code object built from bytes
(``marshal``; :func:`_crafted_code_checker` for ``code.replace`` and ``marshal.loads``): CPython
does not check bytecode, and a ``LOAD_CONST`` past the constants hands out a fake ``bytearray`` over
all memory.
A ``sys.monitoring`` callback (Python 3.12) runs on every thread, the holder's too. Frames of the
main thread itself (``sys._getframe``, traceback frames) hold nothing secret, so ordinary code that
introspects its own stack (``namedtuple``, ``logging``) keeps working. An audit hook the workspace
adds (``sys.addaudithook``) runs on every thread too, the holder's when it reads the main frame."""

_DENIED_MODULES = frozenset(
    {"_testcapi", "_testinternalcapi", "_testbuffer", "_testmultiphase", "_testsinglephase", "_ctypes_test"}
    | {"_xxtestfuzz", "_xxsubinterpreters", "_xxinterpchannels", "_testimportmultiple", "_testclinic"}
)
"""CPython's test extensions: they read and write objects' memory by address (``import`` event)."""

_PROBE_REACH_EVENTS = ("sys._getframe", "sys._getframemodulename")
_FRAME_ATTRIBUTES = ("tb_frame", "gi_frame", "cr_frame", "ag_frame")
"""Besides, on the holder's own thread once the test is over, where the comparison probe runs
workspace code: any frame of that thread is the holder's, reached by ``sys._getframe`` or through a
traceback's or a generator's frame (``object.__getattr__`` of one of these names)."""


def _parse_spec(text: str) -> tuple[dict[str, str], list[str]]:
    head, _, tail = text.partition("\nids:\n")
    spec = dict(line.split("=", 1) for line in head.splitlines() if "=" in line)
    return spec, [line for line in tail.splitlines() if line]


def _one_line(text: object) -> str:
    return " ".join(str(text).split())[:300]


def _dumpable_reset_by_uid_change(spec: dict[str, str]) -> bool:
    """After ``setresuid`` the kernel sets the dumpable flag to ``fs.suid_dumpable`` (0 unless an
    administrator changed it), so the ctypes call below is only needed when no uid was dropped."""
    if int(spec.get("drop_uid") or -1) < 0:
        return False
    try:
        with open("/proc/sys/fs/suid_dumpable", encoding="ascii") as fh:
            return fh.read().strip() == "0"
    except OSError:
        return False


def _non_dumpable() -> None:
    """PR_SET_DUMPABLE 0: other processes of this uid cannot ptrace us or open /proc/PID/{mem,fd}."""
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(4, 0, 0, 0, 0)
    except (OSError, AttributeError):  # not Linux: the sandbox is then refused anyway
        pass


# ------------------------------------------------------------------------------------- judge


def _discover(workspace: str, tests_dir: str) -> list[str]:
    """Test ids by compiling (never running) the test modules: the module-level ``test_*``
    functions in definition order. The judge never imports workspace code."""
    ids = []
    folder = os.path.join(workspace, tests_dir)
    for fname in sorted(os.listdir(folder)) if os.path.isdir(folder) else []:
        if not (fname.startswith("test_") and fname.endswith(".py")):
            continue
        rel = tests_dir + "/" + fname
        try:
            with open(os.path.join(folder, fname), encoding="utf-8") as fh:
                module_code = compile(fh.read(), rel, "exec")
        except (SyntaxError, ValueError, OSError):
            ids.append(rel + "::<module>")
            continue
        ids.extend(
            rel + "::" + const.co_name
            for const in module_code.co_consts
            if hasattr(const, "co_name") and const.co_name.startswith("test_")
        )
    return ids


def _spawn(
    spec: dict[str, str], test_id: str, module_code: "types.CodeType | None", token_r: int, report_w: int
) -> int:
    """Fork one worker with the token pipe on fd 3, the report pipe on fd 4, nothing else open.

    A fork of the judge is as clean as a fresh interpreter (the judge never imported workspace
    code) and costs a millisecond instead of an interpreter start. The token is made after the
    fork, so the worker's copy of the judge's memory holds none; it holds the run's nonce, which
    is useless to it: its stdout is /dev/null and the judge's descriptors are out of its reach.
    """
    pid = os.fork()
    if pid:
        return pid
    try:
        for i, fd in enumerate((token_r, report_w)):
            os.dup2(fd, 100 + i)
        null = os.open(os.devnull, os.O_RDWR)
        for fd, stream in enumerate(_ordinary_streams() if spec.get("ordinary") == "1" else (null,) * 3):
            os.dup2(stream, fd)
        os.dup2(100, 3)
        os.dup2(101, 4)
        os.closerange(5, 1 << 16)
        if _cpu_limited(spec):  # per worker: the judge's own CPU time grows over the runs it serves
            import resource

            resource.setrlimit(resource.RLIMIT_CPU, (int(spec["cpu_s"]),) * 2)
        worker(spec, test_id, module_code)
    finally:
        os._exit(127)


def _cpu_limited(spec: dict[str, str]) -> bool:
    """Whether a worker runs under ``RLIMIT_CPU`` (the run's ``cpu_s``). The oracle's does. A worker
    of a judge that shows a drawn setting (the differential check) does not, as no program started
    by hand does: a solution right only under a finite CPU limit passed the oracle and a differential
    run under the same one (session 45). That run stays bounded where the judge has its own PID
    namespace: the judge kills the worker at the run's deadline, and every process left after each
    test (:func:`_kill_leftovers`)."""
    ordinary = spec.get("ordinary") == "1" and spec.get("own_pid_namespace") == "1"
    return bool(spec.get("cpu_s")) and not ordinary


def _ordinary_streams() -> "tuple[int, int, int]":
    """A worker's standard streams as an ordinary program started by another one has them, for a
    judge that shows a drawn setting (the differential check): stdin a pipe already at its end
    (``echo -n | python``), stdout and stderr one unnamed file (``> log 2>&1``). The oracle's
    worker has ``/dev/null`` on all three, and a solution that was right only there
    (``os.fstat(0).st_rdev``) passed the oracle and a differential run that had the same
    (red team, 2026-12-06)."""
    stdin, writer = os.pipe()
    os.close(writer)
    try:
        log = os.open("/tmp", os.O_TMPFILE | os.O_WRONLY, 0o600)
    except OSError:  # a file system without O_TMPFILE: a named file, unlinked at once
        path = "/tmp/.log-" + str(os.getpid())
        log = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
        os.unlink(path)
    return stdin, log, log


def _run_worker(
    spec: dict[str, str], test_id: str, module_code: "types.CodeType | None", deadline: float
) -> tuple[str, str, float]:
    """One test in a fresh interpreter: (status, message) as the judge accepts it, and the CPU
    seconds the worker used (user + system, with the children it waited for), as the kernel counted
    them when the judge reaped it: the figure comes from ``wait4``, never from the worker, so
    workspace code cannot state it. Unlike the test's wall time, it does not grow when the machine
    is busy, which is why the host judges a borderline run by it."""
    import select
    import time

    token_r, token_w = os.pipe()
    report_r, report_w = os.pipe()
    pid = _spawn(spec, test_id, module_code, token_r, report_w)
    token = os.urandom(16).hex()
    os.close(token_r)
    os.close(report_w)
    os.write(token_w, token.encode())
    os.close(token_w)
    data, timed_out = b"", False
    while not data.endswith(b"\n"):
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([report_r], [], [], left)[0]:
            timed_out = True
            os.kill(pid, 9)
            break
        chunk = os.read(report_r, 65536)
        if not chunk:
            break
        data += chunk
    _, status, usage = os.wait4(pid, 0)
    cpu_s = usage.ru_utime + usage.ru_stime
    while select.select([report_r], [], [], 0)[0]:  # whatever else was written before it ended
        chunk = os.read(report_r, 65536)
        if not chunk:
            break
        data += chunk
    os.close(report_r)
    if timed_out and not data:
        return "error", "timed out", cpu_s
    lines = data.decode("utf-8", "replace").splitlines()
    if os.WIFEXITED(status) and os.WEXITSTATUS(status) == REACH_EXIT:
        said = [line[6:] for line in lines if line.startswith("reach\t")]
        event = _one_line(said[-1] if said else "?")[:60]
        return "error", "runtime introspection (" + event + ") voids the verdict", cpu_s
    if not lines and os.WIFEXITED(status) and os.WEXITSTATUS(status) == FORGED_EXIT:
        return "error", "a workspace class compares true with any object (found before a collection)", cpu_s
    if len(lines) != 1:
        return "error", f"verdict channel: {len(lines)} verdict lines (exit status {status})", cpu_s
    parts = lines[0].split("\t")
    if len(parts) != 4 or parts[0] != test_id:
        return "error", "verdict channel: malformed verdict", cpu_s
    if parts[3] != _hmac_signer()(token.encode(), "\t".join(parts[:3]).encode("utf-8")):
        return "error", "verdict channel: unauthenticated verdict (" + _one_line(parts[2])[:120] + ")", cpu_s
    return parts[1], parts[2], cpu_s


def _kill_leftovers() -> None:
    """Inside the sandbox's PID namespace every other process is the workspace's: whatever a test
    left running (a double-forked, setsid'd daemon too) dies before the next test starts."""
    try:  # noqa: SIM105 - contextlib would slow the clean interpreter's start
        os.kill(-1, 9)
    except ProcessLookupError:
        pass


def _hmac_signer() -> "Callable[[bytes, bytes], str]":
    """RFC 2104 HMAC-SHA256 (the host checks the judge's lines with ``hmac``), as a function that
    looks nothing up when it signs: ``_sha256``, ``bytes``, ``len`` and the pads (as translation
    tables) are bound when it is made. The holder makes its own before any workspace code runs, so
    a module or builtin the workspace replaced later is never handed the token. ``_sha256`` is built
    in, where ``hashlib`` would cost the judge an OpenSSL load on every run."""
    from _sha256 import sha256  # type: ignore[import-not-found]  # built in; typeshed has no stub

    to_bytes, size = bytes, len
    ipad, opad = to_bytes(i ^ 0x36 for i in range(256)), to_bytes(i ^ 0x5C for i in range(256))

    def sign(key: bytes, message: bytes) -> str:
        key = to_bytes(key) if size(key) <= 64 else sha256(key).digest()
        key = key.ljust(64, b"\0")
        inner = sha256(key.translate(ipad) + message).digest()
        return sha256(key.translate(opad) + inner).hexdigest()

    return sign


def _sealed_modules(workspace: str, ids: list[str]) -> "dict[str, types.CodeType | None]":
    """The test modules, read and compiled once before any worker runs (None: missing or does not
    parse): a test's workspace code may rewrite files under /workspace, but never what a later
    test is judged by, and no worker spends time compiling them again."""
    modules: dict[str, types.CodeType | None] = {}
    for test_id in ids:
        rel = test_id.partition("::")[0]
        if rel not in modules:
            path = os.path.join(workspace, rel)
            try:
                with open(path, encoding="utf-8") as fh:
                    modules[rel] = compile(fh.read(), path, "exec")
            except (OSError, ValueError, SyntaxError):
                modules[rel] = None
    return modules


def _warm(spec: dict[str, str]) -> None:
    """Prepare what every worker would otherwise redo (``gym/warm_start.py`` says why the verdicts
    stay the same): import the standard-library modules the host named (spec ``warm``), and
    compile the workspace sources it named (spec ``precompile``). The judge's ``sys.path`` is the
    installation's alone, and compiling runs nothing, so no workspace code runs here."""
    for name in spec.get("warm", "").split(","):
        if name:
            try:  # noqa: SIM105 - contextlib would slow the clean interpreter's start
                __import__(name)
            except Exception:  # noqa: BLE001, S110 - a module this interpreter lacks stays cold
                pass
    _COMPILED.clear()
    for rel in spec.get("precompile", "").split(","):
        path = os.path.join(spec["workspace"], rel)
        data = _read_regular(path) if rel else None
        if data is not None:
            try:  # noqa: SIM105 - contextlib would slow the clean interpreter's start
                _COMPILED[path] = (data, compile(data, path, "exec", dont_inherit=True))
            except (SyntaxError, ValueError, MemoryError, RecursionError):
                pass  # the worker's import compiles it again and raises what it raised
    if _COMPILED:
        _serve_compiled()


def _read_regular(path: str) -> "bytes | None":
    """The bytes of the regular file at ``path``, not through a link (None otherwise)."""
    import stat

    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        chunks = []
        while chunk := os.read(fd, 1 << 20):
            chunks.append(chunk)
        return b"".join(chunks)
    except OSError:
        return None
    finally:
        os.close(fd)


_COMPILED: "dict[str, tuple[bytes, types.CodeType]]" = {}
"""The current run's compiled workspace sources by path (refilled for each run)."""


def _serve_compiled() -> None:
    """Have the import system use a code object of :data:`_COMPILED` when, and only when, the
    source it read is byte for byte the source compiled, with the flags it compiles with
    (``dont_inherit``, the interpreter's own optimization level): a workspace module a test
    rewrote compiles afresh. Installed once per judge."""
    loader = sys.modules["_frozen_importlib_external"].SourceFileLoader
    if "source_to_code" in vars(loader):
        return
    cold = loader.source_to_code

    def source_to_code(self: object, data: object, path: str, *, _optimize: int = -1) -> "types.CodeType":
        hit = _COMPILED.get(path) if _optimize == -1 else None
        if hit is not None and hit[0] == data:
            return hit[1]
        return cold(self, data, path, _optimize=_optimize)

    loader.source_to_code = source_to_code


def _source_only(workspace: str) -> None:
    """Workspace modules run from their source alone. Bytecode left in the workspace would run
    code its source, and so the diff, does not show: an unchecked hash-based ``.pyc`` in
    ``__pycache__`` is loaded whatever the source beside it says, and a bare ``.pyc`` is a module
    with no source at all. So no bytecode cache is looked up for a workspace source, and the
    workspace's folders import extension modules (an in-place build) and sources, never bytecode.
    Installed modules keep their caches. Installed in each worker before the workspace is on
    ``sys.path``."""
    external: Any = sys.modules["_frozen_importlib_external"]
    inside = workspace.rstrip("/") + "/"
    cached = external.cache_from_source

    def cache_from_source(path: str, debug_override: object = None, *, optimization: object = None) -> str:
        if path.startswith(inside):
            raise NotImplementedError("a workspace module compiles from its source")
        return cached(path, debug_override, optimization=optimization)

    external.cache_from_source = cache_from_source
    loaders = (
        (external.ExtensionFileLoader, external.EXTENSION_SUFFIXES),
        (external.SourceFileLoader, external.SOURCE_SUFFIXES),
    )

    def workspace_finder(path: str) -> "Any":
        if path + "/" != inside and not path.startswith(inside):
            raise ImportError("not a workspace folder")  # the next hook finds it
        return external.FileFinder(path, *loaders)

    # Named as the stock hook it stands beside: its own name in ``str(sys.path_hooks)`` told
    # workspace code it ran in the judge (red team, 2026-12-06).
    stock = sys.path_hooks[-1]
    workspace_finder.__name__, workspace_finder.__qualname__ = stock.__name__, stock.__qualname__
    sys.path_hooks.insert(0, workspace_finder)
    sys.path_importer_cache.clear()


_COMPARISONS = (
    ("__eq__", True),
    ("__lt__", True),
    ("__le__", True),
    ("__gt__", True),
    ("__ge__", True),
    ("__ne__", False),
)
"""Each comparison a workspace class may define, and the answer that, given two fresh objects it
knows nothing of, says "the assertion holds" whatever was compared."""

_OPERATORS: "tuple[Callable[[Any, Any], Any], ...]" = (eq, lt, le, gt, ge, ne)
"""The same comparisons as the interpreter makes them: the method looked up on the type, bound as
an ``==`` would bind it (``__eq__ = bool`` is called with the other operand alone), the reflected
one asked when it answers ``NotImplemented``."""

_JUDGE_CLASSES: "dict[type, tuple[type, tuple[object, ...]]]" = {}
"""The classes the judge holds when it forks this run's workers (the standard library and installed
modules it warmed), each with itself (a workspace metaclass's ``__eq__`` and ``__hash__`` could
make a dictionary find another class's entry) and its comparisons (:func:`_comparisons_of`): none
is the workspace's, so a worker asks the classes created since, and those whose comparisons were
replaced since."""

_PERMISSIVE: "list[type]" = []
"""The judge's classes equal to anything (``unittest.mock.ANY``'s) from modules this run's tests
do not import: only workspace code would hand the tests one of their instances."""

_PERMISSIVE_SEEN: "dict[type, bool]" = {}
"""Whether each class the judge ever held is equal to anything: the judge runs no workspace code,
so the answer never changes while it serves runs."""


_COMPARISON_NAMES = tuple(name for name, _ in _COMPARISONS)
_INSTALLED = tuple({path.rstrip("/") + "/" for path in (sys.prefix, sys.base_prefix, sys.exec_prefix)})
_HEAP_TYPE = 1 << 9
"""``Py_TPFLAGS_HEAPTYPE``: a class made by a ``class`` statement or ``type()``, whose attributes can
be replaced; a built-in type's cannot, so its comparisons never change."""

FORGED_EXIT = 86
"""The exit status of a worker whose comparison probe found a forger before a collection: a dead
worker sends no verdict, and no code can take that back."""

REACH_EXIT = 87
"""The exit status of a worker whose audit hook saw a reach (:data:`_REACH_EVENTS`): the judge
reports an error whatever the worker wrote, so a verdict signed with a token read afterwards (or
before, by a way the hook missed but the process did not survive) counts for nothing."""


def _proc_path_checker() -> "Callable[[object], bool]":
    """Whether an ``open`` event's path resolves into ``/proc`` (``//proc``, ``proc/self/maps``
    from ``/``, a link to it), with what it calls bound now, before any workspace code."""
    realpath, fspath, kind_of, text, startswith = os.path.realpath, os.fspath, type, str, str.startswith
    fsdecode, data = os.fsdecode, bytes

    def into_proc(path: "Any") -> bool:
        if kind_of(path) is data:
            path = fsdecode(path)
        elif kind_of(path) is not text and kind_of(path) is not int:
            path = fspath(path)  # a PathLike
        if kind_of(path) is not text or "proc" not in path:
            return False
        resolved = realpath(path)
        return resolved == "/proc" or startswith(resolved, "/proc/")

    return into_proc


def _crafted_code_checker() -> "Callable[[str, object], bool]":
    """Whether a ``code.__new__`` or ``marshal.loads`` event makes a code object from bytes the
    workspace chose. Two callers make one from trusted bytes: ``types.coroutine`` (``asyncio``
    imports use it), which changes a compiled function's flags alone, and the import system
    reading a cached module of the installation (read-only in the sandbox): importlib's own
    ``_compile_bytecode``, on the bytes of the file it names, under an installed prefix. Any other
    (``code.replace(co_code=...)``, ``types.CodeType``, ``marshal.loads``, a pickle of either) is
    refused, along with the libraries that build code for their own ends (``cloudpickle``, Jinja's
    traceback rewriting). What it calls is bound now, before any workspace code."""
    loader_code = sys.modules["_frozen_importlib_external"]._compile_bytecode.__code__
    flags_only_code = __import__("types").coroutine.__code__
    getframe, realpath, startswith = sys._getframe, os.path.realpath, str.startswith
    kind_of, text, data = type, str, bytes
    open_, read, close, fstat, is_regular = os.open, os.read, os.close, os.fstat, __import__("stat").S_ISREG
    flags, installed = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK, _INSTALLED

    def crafted(event: str, loaded: object) -> bool:
        caller = getframe(2)  # 0: here, 1: the audit hook, 2: who built the code object
        if event == "code.__new__":
            return caller.f_code is not flags_only_code
        if caller.f_code is not loader_code:
            return True
        path: Any = caller.f_locals.get("bytecode_path")
        if kind_of(path) is not text or not startswith(path := realpath(path), installed):
            return True
        fd = open_(path, flags)
        try:
            if not is_regular(fstat(fd).st_mode):
                return True
            chunks = []
            while chunk := read(fd, 1 << 20):
                chunks.append(chunk)
        finally:
            close(fd)
        return data().join(chunks)[16:] != data(loaded)  # type: ignore[call-overload]

    return crafted


def _comparisons_of(cls: type) -> "tuple[object, ...]":
    """The comparisons ``cls`` defines itself (``None`` where it defines none); empty for a built-in
    type. Kept as the objects, compared by identity: ``id()`` raises an audit event, and every
    worker's audit hook would run for each class."""
    if not cls.__flags__ & _HEAP_TYPE:
        return ()
    return tuple(map(cls.__dict__.get, _COMPARISON_NAMES))


def _all_classes() -> "list[type]":
    """Every class alive, found by walking ``object``'s subclasses (no audited event). A class with
    two bases is listed under each: cheaper than a set of those seen, on a walk every passing test
    takes."""
    found: list[type] = [object]
    for cls in found:  # the list grows while it is walked: breadth first
        found.extend(type.__subclasses__(cls))  # not cls's own: a metaclass may override it
    return found


def _code_objects(code: "types.CodeType") -> "tuple[types.CodeType, ...]":
    """``code`` and every code object compiled inside it (functions, classes, their methods)."""
    found = [code]
    for each in found:
        found.extend(c for c in each.co_consts if type(c) is type(code))
    return tuple(found)


def _sealed(cls: type, sealed_code: "tuple[types.CodeType, ...]") -> bool:
    """Is ``cls`` a sealed test's own class: does it define comparisons, each compiled from the
    test module itself? Asked by identity: a workspace can compile the same source under the same
    file name, and code objects compare equal by value."""
    methods = [m for m in map(cls.__dict__.get, _COMPARISON_NAMES) if m is not None]
    codes = [getattr(getattr(m, "__func__", m), "__code__", None) for m in methods]
    return bool(codes) and all(any(c is sealed for sealed in sealed_code) for c in codes)


def _compares_anything(sealed_code: "tuple[types.CodeType, ...]", vouched: "tuple[str, ...]") -> bool:
    """Does a class the workspace could have made or handed over answer a comparison with something
    it knows nothing of as true (``==``, ``<``, ... ; ``!=`` as false)? An object "equal to
    everything" passes any ``assert result == expected`` without computing anything: the classic
    forged pass, however its class is written (``type()`` with a dict, ``setattr`` of a built name,
    a metaclass, ``exec`` under an installed file's name, a ``MagicMock`` told to equal anything,
    ``unittest.mock.ANY``). A real comparison reads what it is given, so an unrelated object makes it
    return ``NotImplemented``, a falsy answer, or raise. Asked:

    - every class created since the judge forked (:data:`_JUDGE_CLASSES`), but the sealed tests'
      own (:func:`_sealed`) and, among those whose comparisons are installed code, the classes of
      a module the tests import (``vouched``: a test may compare with ``mock.ANY``); equality only
      for installed comparisons (``urllib.request``'s handlers order before anything);
    - the judge's own classes whose comparisons were replaced since (``Fraction.__eq__ = ...``);
    - the judge's classes equal to anything from modules the tests do not import (:data:`_PERMISSIVE`).

    Run by the holder after a passing test (with the collector off: a class made in the test may
    be garbage), and before every collection the test set off (:class:`_CollectionWatch`)."""
    judge, names, permissive = _JUDGE_CLASSES, _COMPARISON_NAMES, _PERMISSIVE  # locals: hot loop
    for cls in _all_classes():
        known = judge.get(cls)
        if known is None or known[0] is not cls:  # created since the fork
            if _sealed(cls, sealed_code):
                continue
            installed = _installed(cls)
            if installed and _held_by(cls, vouched):
                continue
            orderings = not installed
        elif known[1] and any(map(is_not, known[1], map(cls.__dict__.get, names))):
            orderings = True  # the judge's own class, one of its comparisons replaced since
        elif cls in permissive:
            orderings = False
        else:
            continue
        if _holds_for_strangers(cls, orderings):
            return True
    return False


def _held_by(cls: type, vouched: "tuple[str, ...]") -> bool:
    """Is ``cls`` the class of that name in a module the tests import (``unittest.mock._ANY``)? Its
    ``__module__`` is a writable string and its file name only what ``compile`` was told (both
    forged a pass); a module holding it is a fact, which the pinned attributes keep (a class added
    to such a module, or the module swapped in ``sys.modules``, voids the pass)."""
    name = getattr(cls, "__module__", None)
    return name in vouched and getattr(_MODULES.get(name), cls.__name__, None) is cls


def _installed(cls: type) -> bool:
    """Is each comparison ``cls`` defines a function compiled from an installed file (none defined:
    yes)? A built-in callable set as one (``__eq__ = bool``) is not. A file name is only what
    ``compile`` was told: only a class of a module the tests import is exempted on it."""
    for method in map(cls.__dict__.get, _COMPARISON_NAMES):
        if method is None:
            continue
        code = getattr(getattr(method, "__func__", method), "__code__", None)
        where = getattr(code, "co_filename", None)
        if not (isinstance(where, str) and where.startswith(_INSTALLED)):
            return False
    return True


GC_THRESHOLD = 10_000
"""The worker's first-generation collection threshold (Python's is 700): a collection asks the
comparison probe first (:class:`_CollectionWatch`), so a test that allocates much sets off fewer."""


def _collections() -> int:
    """How many collections this process has run: counted by the collector itself, so no code can
    run one without it showing here."""
    return sum(generation["collections"] for generation in gc_stats())


class _CollectionWatch:
    """The comparison probe before every collection of the test.

    A class is only ever freed by the cyclic collector (its method resolution order refers to it),
    and a class made inside the tested function is unreachable once the compared object is gone:
    a collection after the assertion (``gc.collect()`` in the object's ``__del__``, or any later
    allocation reaching the threshold) freed a forger before the holder's probe could ask it. So
    the probe also runs at the start of every collection, while every class is still alive, and a
    forger it finds ends the worker there (:data:`FORGED_EXIT`). The collector counts its own runs;
    a run this watch did not see (its callback removed around a ``gc.collect()``) voids the pass, as
    does a watch called by hand between two runs (the holder compares the counts)."""

    def __init__(self, sealed_code: "tuple[types.CodeType, ...]", vouched: "tuple[str, ...]") -> None:
        self.asked = (sealed_code, vouched)
        self.seen = 0
        self.start = _collections()
        self.blind = False
        gc_set_threshold(GC_THRESHOLD)
        gc_callbacks.insert(0, self.before)

    def before(self, phase: str, info: "dict[str, int]") -> None:
        if phase != "start":
            return
        self.blind = self.blind or _collections() != self.start + self.seen
        self.seen += 1
        if _compares_anything(*self.asked):
            os._exit(FORGED_EXIT)


def _holds_for_strangers(cls: type, orderings: bool = True, build: bool = True) -> bool:
    """Does a comparison of ``cls`` hold against a stranger (see :func:`_compares_anything`)? Made
    as the interpreter makes it (:data:`_OPERATORS`) on an instance built without ``__init__``
    (``build``), and each comparison ``cls`` defines itself called on a bare object too (a class
    whose ``__new__`` needs arguments). ``orderings=False`` asks ``==`` and ``!=`` alone. The
    strangers are made here, from constants: nothing a test names. The instance is one of ``cls``
    itself: a ``__new__`` that answers something else when called bare (a plain ``0``) is passed
    over for the next base's along the method resolution order."""
    instance, built = _bare_instance(cls) if build else (None, False)
    for (name, holds), compare in zip(_COMPARISONS, _OPERATORS, strict=True):
        equality = name in ("__eq__", "__ne__")
        if not (equality or orderings):
            continue
        # An ordering holds against a number or a string for a real numeric or text class: only a
        # bare object is a stranger to it.
        strangers = (object(), 0x5EED1E55, "\x00stranger\x00") if equality else (object(),)
        if built and _any_holds(compare, instance, holds, strangers):
            return True
        if name in cls.__dict__:
            try:
                own = _bound(cls, name, object())
            except BaseException:  # noqa: BLE001, S112 - a descriptor that refuses a bare object
                continue
            if _any_holds(lambda _self, other: own(other), None, holds, strangers):  # noqa: B023 - called here
                return True
    return False


def _bare_instance(cls: type) -> "tuple[object, bool]":
    """An instance of ``cls`` itself made without ``__init__``, and whether one was made: by the
    first ``__new__`` along its method resolution order that makes one when called bare. A class
    made abstract after its instance was (``__abstractmethods__`` set on it) refuses every
    ``__new__``: its abstract names are set aside while the instance is made."""
    for maker in type.__dict__["__mro__"].__get__(cls):
        try:
            made = maker.__new__(cls)
        except BaseException:  # noqa: BLE001, S112 - a __new__ that needs arguments: the next base's
            continue
        if type(made) is cls:
            return made, True
    abstract = cls.__dict__.get("__abstractmethods__")
    if not abstract or not cls.__flags__ & _HEAP_TYPE:
        return None, False
    type.__setattr__(cls, "__abstractmethods__", frozenset())
    try:
        return _bare_instance(cls)
    finally:
        type.__setattr__(cls, "__abstractmethods__", abstract)


def _bound(cls: type, name: str, instance: object) -> "Callable[..., Any]":
    """``cls``'s own ``name`` bound to ``instance`` as the interpreter binds a special method: through
    its ``__get__`` when it has one (a function, a ``staticmethod``), as it is when not (``slice``
    set as ``__exit__`` is called with the statement's arguments alone)."""
    method = cls.__dict__[name]
    getter = getattr(type(method), "__get__", None)
    return getter(method, instance, cls) if getter is not None else method


def _swallows_failures(sealed_code: "tuple[types.CodeType, ...]") -> bool:
    """Does a class created since the judge forked end a ``with`` block by swallowing a failed
    assertion? ``with Calculator() as c: assert c.add(2, 3) == 5`` passed whatever ``add`` answered
    when the class's ``__exit__`` returned true (red team). Asked on an instance made as for the
    comparison probe, ``__exit__`` bound as the ``with`` statement binds it (a ``staticmethod``, a
    builtin such as ``slice``); a sealed test's own context manager is not asked."""
    for cls in _all_classes():
        known = _JUDGE_CLASSES.get(cls)
        exit_method = cls.__dict__.get("__exit__")
        if (known is not None and known[0] is cls) or exit_method is None:
            continue
        code = getattr(exit_method, "__code__", None)
        if any(code is sealed for sealed in sealed_code):
            continue
        instance, built = _bare_instance(cls)
        if not built:
            continue
        try:
            if _bound(cls, "__exit__", instance)(AssertionError, AssertionError("stranger"), None):
                return True
        except BaseException:  # noqa: BLE001, S112 - a real __exit__ may raise here
            continue
    return False


def _any_holds(
    compare: "Callable[[Any, Any], Any]", self: object, holds: bool, strangers: "tuple[object, ...]"
) -> bool:
    """Does ``compare(self, stranger)`` answer ``holds`` for one of ``strangers``?"""
    for stranger in strangers:
        try:
            answer = compare(self, stranger)
            if answer is not NotImplemented and bool(answer) is holds:
                return True
        except BaseException:  # noqa: BLE001, S112 - a real comparison may raise here
            continue
    return False


_MODULE_ATTRIBUTES = frozenset(
    {"__name__", "__doc__", "__package__", "__loader__", "__spec__", "__file__", "__cached__"}
    | {"__builtins__", "__annotations__", "__warningregistry__"}
)
"""Names a module's namespace holds that no statement of its own binds (``warnings`` adds the
registry of the warnings its code raised)."""


_BINDINGS: "dict[types.CodeType, tuple[frozenset[str], frozenset[str]] | None]" = {}
"""This run's sealed test modules' :func:`_global_bindings`, read by the judge before it forks."""


def _global_bindings(module_code: "types.CodeType") -> "tuple[frozenset[str], frozenset[str]] | None":
    """The names a test module may hold (what its own statements bind at the top, and what its
    functions bind with ``global``) and those its functions may rebind while a test runs, read from
    the bytecode (``STORE_NAME`` at the top, ``STORE_GLOBAL`` anywhere); None after ``import *``,
    whose names no bytecode lists."""
    from opcode import opmap

    top = {opmap["STORE_NAME"], opmap["DELETE_NAME"]}
    anywhere = {opmap["STORE_GLOBAL"], opmap["DELETE_GLOBAL"]}
    star, extended = opmap["IMPORT_STAR"], opmap["EXTENDED_ARG"]
    bound: set[str] = set()
    rebound: set[str] = set()
    for code in _code_objects(module_code):
        raw, argument = code.co_code, 0
        for at in range(0, len(raw), 2):
            op, argument = raw[at], argument << 8 | raw[at + 1]
            if op == extended:
                continue
            if op == star and code is module_code:
                return None
            if op in anywhere:
                rebound.add(code.co_names[argument])
            elif op in top and code is module_code:
                bound.add(code.co_names[argument])
            argument = 0
    return frozenset(bound | rebound), frozenset(rebound)


def _tampered_globals(
    namespace: "dict[Any, Any]", loaded: "tuple[tuple[str, object], ...]", bindings: "Any", run_by: "Any"
) -> str:
    """A name of the test module's namespace that workspace code added or rebound, or "": a name
    no statement of the module binds (``abs``, ``isinstance`` put there shadow the builtins for the
    module's functions), or one rebound since the module was loaded that no test function rebinds
    itself (``EXPECTED``, the ``json`` the test computes its expected value with); the builtins the
    module and the test function (``run_by``) look names up in."""
    builtins_dict = vars(builtins)
    if getattr(run_by, "__builtins__", None) is not builtins_dict:
        return "__builtins__"
    if namespace.get("__builtins__") not in (builtins, builtins_dict):
        return "__builtins__"
    if bindings is None:
        return ""
    may_hold, may_rebind = bindings
    for name in tuple(namespace):
        if type(name) is not str or (name not in may_hold and name not in _MODULE_ATTRIBUTES):
            return repr(name)[:40]
    for name, value in loaded:
        if name not in may_rebind and namespace.get(name, namespace) is not value:
            return name
    return ""


_NEVER_PINNED = frozenset({"sys", "builtins", "__main__"})
"""Modules whose attributes a test's own run rebinds as a matter of course (``sys.stdout``,
``sys.path``), or guarded on their own (``builtins``)."""


def _pinned_attributes(modules: "tuple[str, ...]") -> "Pinned":
    """The public attributes (no leading underscore) of the installed modules the tests import that
    the judge had loaded, and of the classes among them: what each name is bound to before any
    workspace code runs, with the mapping to read it from again. A workspace that rebinds one
    (``json.dumps``, ``math.isclose``, ``unittest.TestCase.assertEqual``) changes what a test
    computes its expected value with, or compares by."""
    pinned: list[tuple[Any, tuple[tuple[str, object], ...], bool]] = []
    for name in modules:
        module = _MODULES.get(name)
        if type(module) is not type(sys) or name in _NEVER_PINNED or not _installed_module(module):
            continue  # not loaded, not a module (typing's io and re pseudo-modules), or not pinned
        public = tuple((key, value) for key, value in vars(module).items() if not key.startswith("_"))
        pinned.append((vars(module), public, True))
        pinned.append((_MODULES, ((name, module),), False))  # not swapped for a copy in sys.modules
        for _, value in public:
            if isinstance(value, type) and value.__flags__ & _HEAP_TYPE:
                members = vars(value)
                own = tuple((k, v) for k, v in members.items() if not k.startswith("_"))
                pinned.append((members, own, True))
    return tuple(pinned)


def _installed_module(module: object) -> bool:
    where = getattr(module, "__file__", None)
    return where is None or (isinstance(where, str) and where.startswith(_INSTALLED))


def _rebound_attribute(pinned: "Pinned") -> str:
    """The first pinned attribute (:func:`_pinned_attributes`) bound to something else now, or a
    public class added to a pinned module or class (a class a workspace hangs on a module the tests
    import is reachable from it, as the comparison probe's vouched classes are), or ""."""
    for members, pairs, closed in pinned:
        for key, value in pairs:
            if members.get(key, pinned) is not value:
                return key
        held = {key for key, _ in pairs}
        for key, value in tuple(members.items()) if closed else ():
            if type(key) is str and not key.startswith("_") and key not in held and isinstance(value, type):
                return key
    return ""


def _private_copies() -> "dict[str, Callable[..., Any]]":
    """:func:`_compares_anything` and :func:`_collections` over their own copy of this module's
    globals and of the builtins, made before any workspace code runs. Workspace code can reach
    this module (``import __main__``, a hook's ``__globals__``) and rebind what the worker's own
    functions look up when they run: replacing a class's method or a global stood in for the probe
    and passed an object equal to everything. The copy's names lead only to the objects they named
    now."""
    function: Any = type(_private_copies)
    namespace = dict(globals())
    namespace["__builtins__"] = dict(vars(builtins))
    namespace["_JUDGE_CLASSES"] = dict(_JUDGE_CLASSES)
    namespace["_PERMISSIVE"] = tuple(_PERMISSIVE)
    originals = (
        _compares_anything,
        _all_classes,
        _sealed,
        _installed,
        _holds_for_strangers,
        _any_holds,
        _collections,
        _tampered_globals,
        _rebound_attribute,
        _held_by,
        _bare_instance,
        _bound,
        _swallows_failures,
    )
    for original in originals:
        copy = function(original.__code__, namespace, original.__name__, original.__defaults__)
        namespace[original.__name__] = copy
    return {original.__name__: namespace[original.__name__] for original in originals}


def _read_request() -> "bytes | None":
    """The next run the host asks for on stdin (a 4-byte big-endian length, then that many bytes),
    or None when stdin is closed: the host is done with this judge."""
    data = b""
    while len(data) < 4:
        chunk = os.read(0, 4 - len(data))
        if not chunk:
            return None
        data += chunk
    size, body = int.from_bytes(data, "big"), b""
    while len(body) < size:
        chunk = os.read(0, size - len(body))
        if not chunk:
            return None
        body += chunk
    return body


def _remove_tree(path: str) -> bool:
    """Remove ``path`` (never following a link); False when something stayed."""
    import stat

    try:
        mode = os.lstat(path).st_mode
        if not stat.S_ISDIR(mode):
            os.unlink(path)
            return True
        os.chmod(path, 0o700)  # a test may have locked its own folder
        done = all([_remove_tree(os.path.join(path, name)) for name in os.listdir(path)])
        os.rmdir(path)
        return done
    except FileNotFoundError:
        return True
    except OSError:
        return False


def _remove_ipc_objects() -> bool:
    """Remove the System V shared memory segments, message queues and semaphore sets left in the
    sandbox's IPC namespace (they outlive the processes that made them); False when one stayed."""
    found = []
    for kind in ("shm", "msg", "sem"):
        try:
            with open("/proc/sysvipc/" + kind, encoding="ascii") as fh:
                found += [(kind, int(line.split()[1])) for line in fh.read().splitlines()[1:]]
        except (OSError, ValueError, IndexError):
            return False
    if not found:
        return True
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    ipc_rmid, removed = 0, True
    for kind, ident in found:
        if kind == "sem":
            removed = libc.semctl(ident, 0, ipc_rmid) == 0 and removed
        else:
            removed = getattr(libc, kind + "ctl")(ident, ipc_rmid, None) == 0 and removed
    return removed


def _clear_between_runs(spec: dict[str, str]) -> bool:
    """Leave nothing of this run for the next one the judge serves: no process (each test's were
    killed already; once more), no file in the sandbox's private scratch folders (spec ``scratch``:
    its ``/tmp``, ``/dev/shm``, ``/dev/mqueue``) and no System V IPC object. The workspace itself
    is the host's to take away. The folders of the setting itself (spec ``scratch_kept``: a drawn
    setting's ``/tmp`` entries, which the sandbox made and the run may not remove) are emptied and
    kept, so the next run sees the same setting. True when all of it is gone; the host retires the
    judge otherwise."""
    if spec.get("own_pid_namespace") != "1":
        return False  # no sandbox of its own (the unsafe opt-out): never reused
    _kill_leftovers()
    kept = set(filter(None, spec.get("scratch_kept", "").split(",")))
    clean = True
    for folder in filter(None, [*spec.get("scratch", "").split(","), *sorted(kept)]):
        try:
            names = os.listdir(folder)
        except OSError:
            names, clean = [], False
        paths = [os.path.join(folder, name) for name in names]
        clean = all([_remove_tree(path) for path in paths if path not in kept]) and clean
    return _remove_ipc_objects() and clean


def _signed_line(nonce: bytes, line: str) -> bytes:
    return (line + "\t" + _hmac_signer()(nonce, line.encode("utf-8")) + "\n").encode("utf-8")


def _judge_run(spec: dict[str, str], ids: list[str], nonce: bytes) -> int:
    """One run: a worker per test, one signed line per test on stdout; the number of tests."""
    import time

    os.environ["GYM_SCHEDULE_SEED"] = spec.get("schedule_seed", "")
    ids = ids or _discover(spec["workspace"], spec["tests_dir"])
    modules = _sealed_modules(spec["workspace"], ids)
    _BINDINGS.clear()
    _BINDINGS.update((code, _global_bindings(code)) for code in modules.values() if code is not None)
    _warm(spec)
    _JUDGE_CLASSES.clear()
    _JUDGE_CLASSES.update((cls, (cls, _comparisons_of(cls))) for cls in _all_classes())
    vouched = set(spec.get("vouched", "").split(","))
    for cls in _JUDGE_CLASSES:
        if cls not in _PERMISSIVE_SEEN:  # installed code only: the judge runs no workspace code
            _PERMISSIVE_SEEN[cls] = _holds_for_strangers(cls, orderings=False, build=False)
    _PERMISSIVE[:] = [c for c in _JUDGE_CLASSES if _PERMISSIVE_SEEN[c] and c.__module__ not in vouched]
    deadline = time.monotonic() + float(spec.get("timeout_s", "10"))
    out = sys.stdout.buffer
    for test_id in ids:
        module_code = modules[test_id.partition("::")[0]]
        status, message, cpu_s = _run_worker(spec, test_id, module_code, deadline)
        if spec.get("own_pid_namespace") == "1":
            _kill_leftovers()
        line = test_id + "\t" + status + "\t" + f"{cpu_s:.6f}" + "\t" + _one_line(message)
        out.write(_signed_line(nonce, line))
        out.flush()
    return len(ids)


def judge(spec_path: str) -> None:
    """Serve runs until the host closes stdin. Each request is the run's part of the spec (the
    same ``key=value`` lines, ``nonce`` in hex, ``ids:`` and the test ids) on top of the sandbox's
    part in ``spec_path``; the answer is one signed line per test, then ``end``, the number of
    tests and whether the sandbox was cleared for another run, signed too."""
    with open(spec_path, encoding="utf-8") as fh:
        sandbox_spec, _ = _parse_spec(fh.read())
    if sandbox_spec.get("ordinary") == "1":
        _raised_pids(sandbox_spec)
        _confine.confine({k: v for k, v in sandbox_spec.items() if k != "max_processes"})
        _plain_identity(sandbox_spec)
    else:
        _confine.confine(sandbox_spec)
        if not _dumpable_reset_by_uid_change(sandbox_spec):
            _non_dumpable()
    while (request := _read_request()) is not None:
        run_spec, ids = _parse_spec(request.decode("utf-8"))
        spec = {**sandbox_spec, **run_spec}
        nonce = bytes.fromhex(spec.pop("nonce"))
        count = _judge_run(spec, ids, nonce)
        clean = _clear_between_runs(spec)
        sys.stdout.buffer.write(_signed_line(nonce, f"end\t{count}\t{int(clean)}"))
        sys.stdout.buffer.flush()
    os._exit(0)  # skip the interpreter's teardown (ms per judge)


_OVERFLOW_ID = 65534
"""``nobody``: the uid and gid the waiting first process of a drawn setting's sandbox drops to."""


def _raised_pids(spec: dict[str, str]) -> None:
    """Process ids of plausible size for a judge that shows a drawn setting. A fresh PID namespace
    numbers from 2 (the judge) and 3 (its first worker): ``os.getppid() < 10`` held in the oracle's
    worker and in a differential run alike (session 46). So, before anything else, as root in the
    sandbox's own namespace, this sets the namespace's last id to the setting's ``pid_floor`` and
    goes on in a fork: the judge, every worker and its parent then have ids above it, and the judge
    starts a session of its own (the workers' process group and session are its id, not 2). This
    process, the namespace's first after bubblewrap, only waits for the judge, so that the sandbox
    lives as long as it does (bubblewrap ends the namespace when its first process ends). It holds
    no descriptor and no capability: it waits as ``nobody`` (:data:`_OVERFLOW_ID`), which neither the
    judge's uid nor workspace code can signal. Nothing to do without root or a namespace of its own,
    or where the kernel refuses the write."""
    floor = spec.get("pid_floor") or ""
    if not floor.isdigit() or spec.get("own_pid_namespace") != "1" or os.geteuid() != 0:
        return
    try:
        with open("/proc/sys/kernel/ns_last_pid", "w", encoding="ascii") as fh:
            fh.write(floor)
    except OSError:
        return
    judge_pid = os.fork()
    if judge_pid == 0:
        os.setsid()  # its session and group its own id, not the namespace's 2 (os.getpgrp, getsid)
        return
    os.closerange(0, 1 << 16)
    os.setgroups([])
    os.setresgid(_OVERFLOW_ID, _OVERFLOW_ID, _OVERFLOW_ID)
    os.setresuid(_OVERFLOW_ID, _OVERFLOW_ID, _OVERFLOW_ID)  # every capability goes with root
    code = os.waitstatus_to_exitcode(os.waitpid(judge_pid, 0)[1])
    os._exit(code if code >= 0 else 128 - code)


_CLONE_NEWUSER = 0x10000000
_PR_SET_DUMPABLE = 4
_PR_CAPBSET_DROP = 24
_CAPABILITY_VERSION_3 = 0x20080522


def _plain_identity(spec: dict[str, str]) -> None:
    """What a judge that shows a drawn setting does after the limits and the uid drop
    (``_confine``), before any run: its processes see the setting's uid and gid (``shown_id``) and
    unlimited ``RLIMIT_NPROC``, as a program a user starts does, where the oracle's see the leased
    uid (60,600 and up) and a budget of 64 (a solution right only under either passed the oracle and
    a differential run that showed the same: session 46).

    How, without loosening either: the judge enters a user namespace of its own, in which the uid
    it runs as (the leased one, or bubblewrap's where the platform is not root) shows as
    ``shown_id``, one id mapped and no other, and drops every capability the new namespace gave it,
    the bounding set included (a shown root has none either). The kernel keeps owning and counting
    everything under the outer uid: files, signals, and the process budget, which the kernel enforces
    at each user namespace above the process, at the limit its creator had when it made the
    namespace. So the budget is set just before the namespace is made and then put back: the
    processes show the limit they inherited while forks past the budget still fail. Where the
    kernel refuses the namespace, the budget stays set, and the leased uid shows. Ends
    non-dumpable, as :func:`_non_dumpable` leaves the oracle's judge."""
    import ctypes
    import resource

    imported = set(_MODULES)
    libc = ctypes.CDLL(None, use_errno=True)
    nproc = resource.RLIMIT_NPROC
    inherited = resource.getrlimit(nproc)
    budget = int(spec.get("max_processes") or 0)
    if budget and inherited[0] != resource.RLIM_INFINITY:
        budget = min(budget, inherited[0])
    if budget:
        resource.setrlimit(nproc, (budget, inherited[1]))
    uid, gid, shown = os.geteuid(), os.getegid(), int(spec["shown_id"])
    libc.prctl(_PR_SET_DUMPABLE, 1, 0, 0, 0)  # else its own /proc files are root's: no map written
    if libc.unshare(_CLONE_NEWUSER) != 0:
        if budget:
            resource.setrlimit(nproc, (budget, budget))
    else:
        maps = (("uid_map", f"{shown} {uid} 1"), ("setgroups", "deny"), ("gid_map", f"{shown} {gid} 1"))
        for name, text in maps:
            with open("/proc/self/" + name, "w", encoding="ascii") as fh:
                fh.write(text)
        capability = 0
        while libc.prctl(_PR_CAPBSET_DROP, capability, 0, 0, 0) == 0:
            capability += 1
        header = (ctypes.c_uint32 * 2)(_CAPABILITY_VERSION_3, 0)
        if libc.capset(header, (ctypes.c_uint32 * 6)()) != 0:
            raise OSError(ctypes.get_errno(), "capset")
        resource.setrlimit(nproc, inherited)
    libc.prctl(_PR_SET_DUMPABLE, 0, 0, 0, 0)  # as _non_dumpable: no same-uid process may read it
    for name in set(_MODULES) - imported:  # the judge's own imports are no worker's
        del _MODULES[name]


# ------------------------------------------------------------------------------------ worker


def _load(path: str, name: str, code: "types.CodeType | None" = None) -> "dict[str, Any]":
    """Execute a module (``code`` compiled beforehand, else the file at ``path``) as ``name``;
    the dict it ran in. Taken before the module runs: code it imports may swap the module's class
    so that its ``__dict__`` attribute (what ``vars()`` reads) answers something else."""
    module = type(sys)(name)
    module.__file__ = path
    namespace = module.__dict__
    sys.modules[name] = module
    if code is None:
        with open(path, encoding="utf-8") as fh:
            code = compile(fh.read(), path, "exec")
    exec(code, namespace)
    return namespace


def _function_code(module_code: "types.CodeType", func: str) -> "types.CodeType | None":
    """The code object of ``func`` defined at the top of ``module_code``, or None."""
    for const in module_code.co_consts:
        if getattr(const, "co_name", None) == func:
            return const
    return None


def _holder(box: "list[Any]") -> None:
    """The thread that owns the token; see the module docstring. ``box`` is emptied on start."""
    import _thread
    from gc import disable as gc_off

    main_ident, worker_code, ready_w, wake_r, test_id, expected, asked, guard, bindings, ordinary = box
    box.clear()
    private = _private_copies()
    probe, collections = private["_compares_anything"], private["_collections"]
    tampered_globals, rebound_attribute = private["_tampered_globals"], private["_rebound_attribute"]
    swallows_failures = private["_swallows_failures"]
    pinned = _pinned_attributes(asked[1]) if guard else ()
    read, write, close, exit_ = os.read, os.write, os.close, os._exit
    get_ident, current_frames, ident = _thread.get_ident, sys._current_frames, _thread.get_ident()
    bdict, id_, to_bytes, function = vars(builtins), builtins.id, bytes, type(_holder)
    # Builtins too: a name looked up when the holder reports finds what the workspace put there.
    kind_of, size, attribute, pair = type, len, getattr, tuple
    sign = _hmac_signer()  # made now: a module or builtin replaced later would be handed the token
    token = to_bytes(read(3, 64))
    close(3)
    probing = False  # while the probe runs workspace comparisons on this thread (rebound below)
    reach, probe_reach, frame_attributes = _REACH_EVENTS, _PROBE_REACH_EVENTS, _FRAME_ATTRIBUTES
    denied, proc_path, crafted_code = _DENIED_MODULES, _proc_path_checker(), _crafted_code_checker()
    text, startswith, one_line, getpid, worker_pid = str, str.startswith, _one_line, os.getpid, os.getpid()

    def hook(event: str, args: "tuple[Any, ...]") -> None:
        """Ends the worker at the first reach (:data:`REACH_EXIT`): irreversible, where voiding a
        flag could be undone by code that reached this frame. It refers to nothing secret: an
        exception raised inside it (a ``RecursionError`` at the stack's limit) or a signal handler
        run at its first instruction hands workspace code this frame, so the token is not in it,
        and every flag it reads is a cell no frame's locals can rebind."""
        if get_ident() == ident and not probing:
            return
        hit = event in reach or startswith(event, "ctypes.") or (event == "import" and args[0] in denied)
        hit = hit or (event == "open" and proc_path(args[0]))
        hit = hit or (event in ("code.__new__", "marshal.loads") and crafted_code(event, args[0]))
        if probing and get_ident() == ident:
            hit = hit or event in probe_reach
            hit = hit or (event == "object.__getattr__" and args[1] in frame_attributes)
        if hit:
            if getpid() == worker_pid:  # a process the workspace forked ends alone, unreported
                write(4, b"reach\t" + text(event).encode("ascii", "replace")[:60] + b"\n")
            exit_(REACH_EXIT)

    baseline = {k: id_(v) for k, v in bdict.items()}
    sys.addaudithook(hook)
    main_frame: types.FrameType | None = current_frames()[main_ident]
    while main_frame is not None and main_frame.f_code is not worker_code:
        main_frame = main_frame.f_back
    write(ready_w, b"1")
    close(ready_w)
    read(wake_r, 1)
    # No collection from here on: a collection runs the workspace's gc callbacks on the thread
    # that set it off, and reading the frames below allocates (a red team forged a pass so).
    gc_off()
    status, message = "error", "verdict channel: test process was not at its reporting point"
    frame = current_frames().get(main_ident)
    # From here on, any code of the workspace this thread runs (the probe's comparisons, a property
    # on an object read below) is watched as the main thread's is: it reaches for this frame.
    probing = True
    if main_frame is not None and frame is main_frame and frame.f_locals.get("settled") is True:
        local = frame.f_locals
        outcome: Any = local.get("outcome")
        module_state = (local.get("namespace") or {}, local.get("loaded") or ())
        fn, seen = local.get("fn"), local["watch"]
        if kind_of(outcome) is pair and size(outcome) == 2:
            status, message = outcome
        # The sealed function itself: a look-alike carrying its code object, or its code run over
        # other globals, is not (code objects compare equal by value, so identity is asked).
        sealed = (
            kind_of(fn) is function
            and attribute(fn, "__globals__", None) is local.get("namespace")
            and (expected is None or attribute(fn, "__code__", None) is expected)
        )
        if status == "passed" and not sealed:
            status, message = "error", "test function was replaced at run time"
        if status == "passed" and guard and {k: id_(v) for k, v in bdict.items()} != baseline:
            status, message = "error", "test runtime was modified (builtins patched)"
        if status == "passed" and guard and (name := tampered_globals(*module_state, bindings, fn)):
            status, message = "error", f"test module globals were changed at run time ({name})"
        if status == "passed" and (name := rebound_attribute(pinned)):
            status, message = "error", f"test runtime was modified (an imported module's {name} replaced)"
        if status == "passed":
            # The collector is off (above): a class made in the test may be garbage, and the probe
            # must find it alive.
            if not ordinary and (seen.blind or collections() != seen.start + seen.seen):
                status, message = "error", "the garbage collector ran without the comparison probe"
            elif probe(*asked):
                status, message = "error", "a workspace class compares true with any object"
            elif swallows_failures(asked[0]):
                status, message = "error", "a workspace context manager swallows failed assertions"
    verdict = "\t".join((test_id, text(status), one_line(message))).encode("utf-8", "replace")
    write(4, verdict + b"\t" + sign(token, verdict).encode() + b"\n")
    exit_(0)


def _ordinary_process(workspace: str) -> None:
    """What a worker of a judge that shows a drawn setting (the differential check) changes, before
    any workspace code, so that the process looks like an ordinary program's rather than the
    oracle's worker (the standard streams: :func:`_ordinary_streams`; the interpreter's flags and
    ``site``: ``gym/judge.py`` starts that judge as a plain ``python``; the CPU limit:
    :func:`_cpu_limited`; the collector: :func:`worker`): ``__main__`` a plain script's module, not
    this runner (whose names, ``REACH_EXIT``..., workspace code could look for), ``sys.argv`` and
    ``sys.orig_argv`` those of ``python3 main.py``, not the runner's and its spec's, and an idle
    thread started through ``threading`` beside the holder, so the thread counts
    (``_thread._count()`` 1, ``threading.active_count()`` 1 in the oracle's worker) differ from
    the oracle's. A solution that decided on any of them passed the oracle and a differential run
    that showed the same (red team, 2026-12-06; session 45 for ``argv``); now the two runs
    disagree."""
    import threading

    main = type(sys)("__main__")
    main.__file__ = os.path.join(workspace, "main.py")
    vars(main)["__builtins__"] = builtins
    _MODULES["__main__"] = main
    sys.argv = ["main.py"]
    sys.orig_argv = ["python3", "main.py"]
    idle_r, _idle_w = os.pipe()  # never written: the thread waits until the worker exits
    threading.Thread(target=os.read, args=(idle_r, 1), daemon=True).start()


def worker(spec: dict[str, str], test_id: str, module_code: "types.CodeType | None") -> None:
    """Run one test; ``module_code`` is the test module as the judge compiled it before any worker
    (None: missing or does not parse)."""
    import _thread

    workspace, tests_dir = spec["workspace"], spec["tests_dir"]
    rel, _, func = test_id.partition("::")
    path = os.path.join(workspace, rel)
    expected = _function_code(module_code, func) if module_code is not None else None
    ready_r, ready_w = os.pipe()
    wake_r, wake_w = os.pipe()
    park_r, park_w = os.pipe()  # nobody writes park_w: the main thread waits there for os._exit
    sealed_code = _code_objects(module_code) if module_code is not None else ()
    asked = (sealed_code, tuple(name for name in spec.get("vouched", "").split(",") if name))
    guard = spec.get("guard") == "1"
    bindings = _BINDINGS.get(module_code) if module_code is not None else None
    ordinary = spec.get("ordinary") == "1"
    box = [_thread.get_ident(), worker.__code__, ready_w, wake_r, test_id, expected, asked, guard, bindings]
    box.append(ordinary)
    _thread.start_new_thread(_holder, (box,))
    os.read(ready_r, 1)
    del box
    if ordinary:
        _ordinary_process(workspace)
    write, read = os.write, os.read
    os.chdir(workspace)
    _source_only(workspace)
    # The oracle's worker asks the comparison probe before every collection, at a raised threshold.
    # A worker of a drawn setting leaves the collector as the interpreter set it (no callback, its
    # own threshold): a solution right only under the judge's collector passed the oracle and a
    # differential run under the same one (session 45). Nothing there needs the watch: its cases
    # compare nothing in the worker, the host compares their plain values (gym/differential.py).
    watch = None if ordinary else _CollectionWatch(*asked)  # noqa: F841 - the holder reads it
    sys.path.insert(0, workspace)
    if spec.get("load_conftest") == "1":
        for folder in ("", tests_dir):
            conftest = os.path.join(workspace, folder, "conftest.py")
            if os.path.isfile(conftest):
                try:  # noqa: SIM105 - contextlib would slow the clean interpreter's start
                    _load(conftest, "conftest_" + (folder or "root").replace("/", "_"))
                except BaseException:  # noqa: BLE001 - a broken conftest is the agent's problem
                    pass
    fn, outcome, namespace, settled = None, None, None, False
    loaded: tuple[tuple[str, object], ...] = ()
    try:
        if module_code is None:
            raise SyntaxError(f"test module {rel} is missing or does not parse")
        namespace = _load(path, "_test_" + rel.replace("/", "_")[:-3], module_code)
        loaded = tuple(namespace.items())  # noqa: F841 - the holder reads it: what the module bound
        fn = namespace.get(func)
        if fn is None:
            outcome = ("missing", "no such test")
        elif getattr(fn, "__unittest_skip__", False):
            outcome = ("skipped", getattr(fn, "__unittest_skip_why__", ""))
        else:
            fn()
            outcome = ("passed", "")  # the holder asks the comparison probe before it believes it
    except AssertionError as exc:
        outcome = ("failed", "AssertionError: " + _one_line(exc))
    except BaseException as exc:  # noqa: BLE001 - every outcome is a result, never a crash
        outcome = ("error", type(exc).__name__ + ": " + _one_line(exc))  # noqa: F841 - the holder reads it
    # The outcome is final: the holder reads it only now. Workspace code can write to the wake pipe
    # too (it is a descriptor of this process), and a holder woken early once read a pass that
    # the comparison probe was about to void.
    settled = True  # noqa: F841 - the holder reads it
    write(wake_w, b"1")
    read(park_r, 1)  # parked: the holder reads this frame, reports, and ends the process


if __name__ == "__main__":
    judge(sys.argv[1])
