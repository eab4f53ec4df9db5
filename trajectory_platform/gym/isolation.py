"""Isolation of untrusted code with bubblewrap: what a sandboxed process may see and do.

Everything that runs code from a trajectory or a workspace (the agent's test command, the sealed
oracle) goes through :func:`sandbox`. We use bubblewrap (``bwrap``, Debian package
``bubblewrap``), the sandbox Flatpak is built on, rather than home-made checks: it sets up Linux
namespaces and mounts in one audited setuid-free binary, and its flags say exactly what is shared.

Inside, a process sees only the interpreter's installation and the system libraries (read-only),
the runner directory (read-only, ``/runner``), the workspace (``/workspace``), a private ``/tmp``
and its own ``/proc``; not the repository, the workdir, ``secrets/`` or the host's ``/tmp``. Of
``/etc`` it sees two read-only entries, never the whole folder: ``ld.so.cache`` and
``alternatives`` (Debian's ``awk``, ``which``, ``pager``... are links through it, and an agent's
recorded ``awk`` must run); a drawn setting's sandbox (:class:`Profile`) sees its own ``passwd`` and
``group`` there too (:func:`account_files`), never the host's. Its ``PATH`` starts with a
sandbox-only folder (:data:`BIN_MOUNT`) where ``python`` and ``python3`` name the sandbox's
interpreter, as they do in the containers agents ran in (a Debian system has no ``python``, and its
``python3`` is not the interpreter the oracle runs). A replay may also show the workspace at the
absolute path the agent's own container held
the repository at (``mount_at``: SWE-agent's ``/testbed``, ``/SWE-agent__test-repo``...), a second
bind of the same directory, so a recorded ``python3 /testbed/x.py`` runs as it did; a path that
would shadow or sit above anything the sandbox itself mounts is refused (:func:`mount_refusal`).
It has no network (a new network namespace holds only a downed loopback), its own PID namespace (every
descendant dies with the sandbox, however it forked or whichever session it started), its own IPC
and UTS namespaces, and ``--die-with-parent`` (a killed platform process takes its sandboxes with
it). Started as root, the runner drops to an unprivileged uid before any workspace code runs, so
``RLIMIT_NPROC`` binds (the kernel does not apply it to root) and root-only files stay unreadable.
That uid is leased (:func:`sandbox_user`) from a block no account uses, one per open sandbox:
``RLIMIT_NPROC`` counts all processes of a uid, so sandboxes sharing one would share one process
budget, and a fork-heavy workspace would make a concurrent honest one's forks fail.

Where bubblewrap cannot run, untrusted code is refused with :class:`IsolationUnavailable`, unless
the user sets ``TRAJECTORY_PLATFORM_UNSAFE_NO_SANDBOX=1``, which runs it unconfined with a warning
each time a process starts.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import logging
import os
import random
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from trajectory_platform.gym import uid_lease

OPT_OUT_ENV = "TRAJECTORY_PLATFORM_UNSAFE_NO_SANDBOX"
FRAME_LOCALS_WRITE_THROUGH = (3, 13)
"""The first Python whose ``frame.f_locals`` writes through to the frame (PEP 667): the sealed
runner's holder trusts that workspace code cannot rewrite the worker frame's locals."""
SANDBOX_UIDS_ENV = "TRAJECTORY_PLATFORM_SANDBOX_UIDS"
"""The setting (``FIRST-LAST``) naming the uids, and same-numbered gids, sandboxes run as when the
platform runs as root."""
DEFAULT_SANDBOX_UIDS = "60600-60855"
"""256 uids (one per sandbox open at once: verification workers times pipelines on the machine) in
the block systemd's UIDS-GIDS.md leaves unallocated (60578-61183): above the regular users Debian's
adduser makes (1000-59999) and systemd-homed's, below DynamicUser's (61184-65519) and ``nobody``,
and inside the 65,536 ids a rootless container maps. A sandbox uid must be no account's: it owns the
workspace while the sandbox is open, and the account would own, and could signal, what runs there."""
LEASE_DIR = Path("/run/trajectory_platform/sandbox-uids")
"""The lock files of the uid leases (root-only, cleared at boot): every platform process on the
machine that shares this folder leases from the same block without handing a uid out twice."""
CONFINE_MODULE = "_confine.py"
CONFINE_SOURCE = (Path(__file__).parent / CONFINE_MODULE).read_text(encoding="utf-8")
WORKSPACE_MOUNT = "/workspace"
RUNNER_MOUNT = "/runner"
SCRATCH_FOLDERS = ("/tmp", "/dev/shm", "/dev/mqueue")
"""The sandbox's own writable folders besides the workspace (each a fresh, private mount): what a
judge that serves several runs empties between them (``gym/judge.py``)."""
PROCESS_BUDGET = 64
"""Processes one sandbox may hold at once (RLIMIT_NPROC above what its uid already runs: nothing, for
a leased uid)."""
OPEN_FILES = 256
"""Descriptors one sandboxed process may hold (RLIMIT_NOFILE)."""
BIN_MOUNT = "/sandbox/bin"
"""The sandbox-only folder of command names (links to the sandbox's interpreter), first on ``PATH``."""
INTERPRETER_NAMES = ("python", "python3")
SANDBOX_PATH = f"{BIN_MOUNT}:/usr/local/bin:/usr/bin:/bin"
"""The ``PATH`` every sandboxed process starts with, whatever its caller's environment said."""
SYSTEM_ETC = ("/etc/ld.so.cache", "/etc/alternatives")
"""The only entries of the host's ``/etc`` a sandbox sees (read-only, when they exist): the
loader's cache, and the alternatives links Debian's ``/usr/bin/awk`` and others resolve through.
Both hold link targets and library paths, no secrets; ``/etc`` as a whole (``passwd``, keys,
credentials a host may keep there) is never bound."""
SYSTEM_DIRECTORIES = (
    "/usr",
    "/bin",
    "/sbin",
    "/lib",
    "/lib32",
    "/lib64",
    "/libx32",
    "/etc",
    "/proc",
    "/dev",
    "/sys",
    "/tmp",
    "/var",
    "/run",
    "/boot",
)
"""Top-level folders a repository path may not be, lie under or contain (:func:`mount_refusal`):
what the sandbox mounts for its own system (read-only), its private ``/tmp`` and kernel file
systems, and the host folders a process expects to be the system's."""
MOUNT_REFUSALS = ("malformed", "system_directory", "sandbox_directory", "interpreter_directory")
"""Why :func:`mount_refusal` refuses a path (codes: no path text, which comes from a log)."""

log = logging.getLogger(__name__)


class IsolationUnavailable(RuntimeError):
    """Untrusted code cannot be confined here, and the user did not opt out."""


@dataclass(frozen=True)
class Isolation:
    """How a sandboxed process is started: the argv prefix, the paths it sees, its limits."""

    prefix: tuple[str, ...]
    workspace_path: str
    runner_path: str
    drop_uid: int
    max_processes: int
    own_pid_namespace: bool


@dataclass(frozen=True)
class Profile:
    """Where a sandboxed run appears to happen: an ordinary-looking setting in place of the
    oracle's, for a run whose result must not depend on recognising the oracle's sandbox (the
    differential check, ``gym/differential.py``). It changes only what a process *observes*
    (paths, names, variables, folder contents, and in the judge's workers their standard streams,
    ``__main__`` and thread count: ``gym/_runner.py``); every guard of :func:`sandbox` stays: the
    same namespaces, the same read-only system, the same private ``/tmp``, no network, the same
    limits except two. The open-files one is the usual 1024 (no safety rests on 256), and the
    address space is a drawn 2 to 4 GiB instead of 1 GiB: a solution that tried an allocation the
    oracle's limit refuses (``bytearray(1 << 30)`` raising ``MemoryError``) and answered right only
    then passed the oracle and a differential run under the same limit (red team, 2026-12-06).
    Raised no further: it is virtual memory, and the judge's workers may touch all of it. And
    (session 46) what the processes see of their identity and the rest of their limits is a plain
    program's, each bound kept otherwise (``gym/_runner.py`` ``_plain_identity``, ``_raised_pids``):
    a drawn uid and gid over the leased ones, process ids above a drawn floor, no file-size limit
    (it bounded one file, never a run's total, which the run's deadline bounds as before), and the
    process limit they inherited while the kernel still holds them to the process budget. And
    (session 47) the accounts a plain machine names: an ``/etc/passwd`` and ``/etc/group`` holding
    the shown uid and gid under the setting's user name, home and shell (:func:`account_files`),
    where the oracle's sandbox has neither (``pwd.getpwuid(os.getuid())`` fails there, as it did in
    the differential run too)."""

    workspace: str
    """Where the workspace is mounted and the working folder (never :data:`WORKSPACE_MOUNT`)."""
    home: str
    user: str
    hostname: str
    dotfiles: tuple[tuple[str, str], ...]
    """(name, text) of the files the home holds (``.bashrc``, ``.profile``...)."""
    tmp_entries: tuple[str, ...]
    """Folders ``/tmp`` holds (``.X11-unix``, a build folder...): an ordinary ``/tmp`` is not empty."""
    env: tuple[tuple[str, str], ...]
    """The whole environment the run starts with (``PATH`` included)."""
    memory_bytes: int
    """``RLIMIT_AS`` of the run's processes (drawn: :data:`PROFILE_MEMORY_GIB`)."""
    user_id: int
    """The uid and gid the run's processes see (drawn: :data:`PROFILE_USER_IDS`). What they see
    only: the kernel still counts and owns everything they do under the leased uid
    (``gym/_runner.py`` ``_plain_identity``)."""
    pid_floor: int
    """The last process id used in the sandbox's PID namespace before its judge starts (drawn:
    :data:`PROFILE_PID_FLOORS`): its workers' ids and their parent's lie above it, as a program's
    on a machine that has run for a while (``gym/_runner.py`` ``_raised_pids``)."""
    open_files: int = 1024

    @property
    def bin_dir(self) -> str:
        """The folder of the command names (:data:`INTERPRETER_NAMES`), first on its ``PATH``: a
        user's own ``~/.local/bin``, where :data:`BIN_MOUNT` would name the sandbox."""
        return f"{self.home}/.local/bin"


_SYLLABLES = (
    "an", "bel", "cor", "da", "el", "fin", "gar", "ha", "is", "jo", "ka", "lin", "mar", "no", "or",
    "pe", "ra", "sam", "ti", "ul", "ve", "wen", "yu", "zo", "ben", "chr", "dev", "lu", "mi", "ro",
)  # fmt: skip
"""Pieces of the user, host and project names: drawn, not picked from a short list, so that no
list in this file names them all (code that compared with such a list would know the judge)."""
_HOSTS = ("devbox", "laptop", "ws", "build", "ci-runner", "thinkpad", "mbp", "dev", "box", "node")
_PROJECT_PARENTS = ("src", "code", "projects", "work", "git", "repos", "dev", "Documents", "")
_PROJECT_SUFFIXES = ("", "-service", "-api", "-lib", "_tools", "-app", "2", "-main")
_DOTFILES = (
    (".bashrc", "# ~/.bashrc: executed by bash for non-login shells.\ncase $- in *i*) ;; *) return;; esac\n"
     "HISTCONTROL=ignoreboth\nshopt -s histappend\nalias ll='ls -alF'\n"),
    (".profile", "# ~/.profile: executed by the command interpreter for login shells.\n"
     'if [ -d "$HOME/.local/bin" ] ; then\n    PATH="$HOME/.local/bin:$PATH"\nfi\n'),
    (".bash_logout", "# ~/.bash_logout: executed by bash when login shell exits.\n"),
    (".gitconfig", "[user]\n\tname = Dev\n[init]\n\tdefaultBranch = main\n"),
    (".bash_history", "git status\nls\npython3 -m pytest -q\n"),
    (".vimrc", "set number\nsyntax on\n"),
    (".inputrc", "set completion-ignore-case on\n"),
)  # fmt: skip
_TMP_ENTRIES = (".X11-unix", ".ICE-unix", ".font-unix", ".XIM-unix", ".Test-unix")
_OPTIONAL_ENV = (
    ("TERM", ("xterm-256color", "screen-256color", "xterm")),
    ("COLORTERM", ("truecolor",)),
    ("EDITOR", ("vim", "nano", "code --wait")),
    ("PAGER", ("less",)),
    ("LESS", ("-R", "-FRX")),
    ("SHLVL", ("1", "2")),
    ("LC_ALL", ("C.UTF-8", "en_US.UTF-8")),
    ("TZ", ("UTC", "Europe/Berlin", "America/New_York")),
    ("PYTHONUNBUFFERED", ("1",)),
    ("VISUAL", ("vim", "nano")),
    ("HISTSIZE", ("1000", "10000")),
    ("SSH_TTY", ("/dev/pts/0", "/dev/pts/1")),
    ("DISPLAY", (":0", ":1")),
    ("GIT_PAGER", ("less -FRX",)),
    ("CLICOLOR", ("1",)),
    ("MANPAGER", ("less",)),
    ("LSCOLORS", ("Gxfxcxdxbxegedabagacad",)),
    ("XDG_SESSION_TYPE", ("tty", "x11", "wayland")),
    ("XDG_SESSION_CLASS", ("user",)),
    ("WORKON_HOME", ("~/.virtualenvs",)),
)


PROFILE_MEMORY_GIB = (2, 3, 4)
"""The address-space limits (GiB) a :class:`Profile` draws from: above the oracle's 1 GiB
(``sandbox.MEMORY_LIMIT_BYTES``), so an allocation probe of that limit answers otherwise."""
PROFILE_USER_IDS = (1000, 1000, 1000, 1001, 1002, 501, 0)
"""The uids (and same-numbered gids) a :class:`Profile` shows its processes, drawn per setting: a
Linux machine's first and later accounts, a macOS account's, a container's root. Not the leased one
(60,600 and up, as no one's account is): a solution right only under a uid that high passed the
oracle and a differential run that showed it (session 46); a solution keyed on any one of these is
right in one of the check's two settings and wrong in the other (``unstable``) in most draws."""
PROFILE_PID_FLOORS = (1_000, 30_000)
"""The range a :class:`Profile`'s :attr:`~Profile.pid_floor` is drawn from: process ids of a
machine that has run a while, under the smallest ``pid_max`` Linux defaults to (32,768), with room
for a run's own processes. Not the ones a fresh PID namespace hands out (the judge 2, its workers
3 and up): ``os.getppid() < 10`` held in the oracle's worker and in a differential run alike."""


def ordinary_profile(seed: str) -> Profile:
    """A :class:`Profile` drawn from ``seed``: a user, a home with dotfiles, a project folder in
    it, a host name, a ``/tmp`` with entries and an environment of 20 to 30 ordinary variables.
    Deterministic in ``seed`` (the same episode is judged in the same setting everywhere), and
    drawn from a family, so no one value of any of these identifies the judge."""
    rng = random.Random(hashlib.sha256(seed.encode("utf-8")).digest())
    user = "".join(rng.choice(_SYLLABLES) for _ in range(rng.randint(2, 3)))
    home = f"/home/{user}"
    project = "".join(rng.choice(_SYLLABLES) for _ in range(rng.randint(2, 4))) + rng.choice(
        _PROJECT_SUFFIXES
    )
    parent = rng.choice(_PROJECT_PARENTS)
    workspace = f"{home}/{parent}/{project}" if parent else f"{home}/{project}"
    hostname = rng.choice(
        (f"{rng.choice(_HOSTS)}-{rng.randrange(16**4):04x}", f"{user}-{rng.choice(_HOSTS)}")
    )
    skeleton, extras = _DOTFILES[:3], _DOTFILES[3:]  # what Debian's /etc/skel gives every user
    dotfiles = tuple(sorted([*skeleton, *rng.sample(extras, rng.randint(0, len(extras)))]))
    tmp = [*rng.sample(_TMP_ENTRIES, rng.randint(1, len(_TMP_ENTRIES)))]
    tmp += [f"tmp{rng.randrange(16**8):08x}" for _ in range(rng.randint(1, 4))]
    env = {
        "HOME": home,
        "USER": user,
        "LOGNAME": user,
        "SHELL": rng.choice(("/bin/bash", "/usr/bin/zsh", "/bin/bash")),
        "PATH": f"{home}/.local/bin:/usr/local/bin:/usr/bin:/bin:/usr/local/games:/usr/games",
        "PWD": workspace,
        "OLDPWD": home,
        "LANG": rng.choice(("C.UTF-8", "en_US.UTF-8", "en_GB.UTF-8")),
        "HOSTNAME": hostname,
        "MAIL": f"/var/mail/{user}",
        "TMPDIR": "/tmp",
        "_": "/usr/bin/python3",
    }
    for name, values in rng.sample(_OPTIONAL_ENV, rng.randint(8, 18)):
        env[name] = rng.choice(values)
    memory_bytes = rng.choice(PROFILE_MEMORY_GIB) << 30
    return Profile(
        memory_bytes=memory_bytes,
        user_id=rng.choice(PROFILE_USER_IDS),
        pid_floor=rng.randrange(*PROFILE_PID_FLOORS),
        workspace=workspace,
        home=home,
        user=user,
        hostname=hostname,
        dotfiles=dotfiles,
        tmp_entries=tuple(sorted(tmp)),
        env=tuple(sorted(env.items())),
    )


_SYSTEM_ACCOUNTS = (
    ("root", 0, "root", "/root", "/bin/bash"),
    ("daemon", 1, "daemon", "/usr/sbin", "/usr/sbin/nologin"),
    ("bin", 2, "bin", "/bin", "/usr/sbin/nologin"),
    ("sys", 3, "sys", "/dev", "/usr/sbin/nologin"),
    ("sync", 4, "sync", "/bin", "/bin/sync"),
    ("games", 5, "games", "/usr/games", "/usr/sbin/nologin"),
    ("man", 6, "man", "/var/cache/man", "/usr/sbin/nologin"),
    ("lp", 7, "lp", "/var/spool/lpd", "/usr/sbin/nologin"),
    ("mail", 8, "mail", "/var/mail", "/usr/sbin/nologin"),
    ("news", 9, "news", "/var/spool/news", "/usr/sbin/nologin"),
    ("uucp", 10, "uucp", "/var/spool/uucp", "/usr/sbin/nologin"),
    ("proxy", 13, "proxy", "/bin", "/usr/sbin/nologin"),
    ("www-data", 33, "www-data", "/var/www", "/usr/sbin/nologin"),
    ("backup", 34, "backup", "/var/backups", "/usr/sbin/nologin"),
    ("list", 38, "Mailing List Manager", "/var/list", "/usr/sbin/nologin"),
    ("irc", 39, "ircd", "/run/ircd", "/usr/sbin/nologin"),
    ("_apt", 42, "", "/nonexistent", "/usr/sbin/nologin"),
    ("nobody", 65534, "nobody", "/nonexistent", "/usr/sbin/nologin"),
)
"""Debian's base accounts (``base-passwd``): (name, uid and primary gid, gecos, home, shell); the
gid of ``_apt`` and ``nobody`` is ``nogroup``'s."""
_SYSTEM_GROUPS = (
    ("root", 0), ("daemon", 1), ("bin", 2), ("sys", 3), ("adm", 4), ("tty", 5), ("disk", 6),
    ("lp", 7), ("mail", 8), ("news", 9), ("uucp", 10), ("man", 12), ("proxy", 13), ("kmem", 15),
    ("dialout", 20), ("fax", 21), ("voice", 22), ("cdrom", 24), ("floppy", 25), ("tape", 26),
    ("sudo", 27), ("audio", 29), ("dip", 30), ("www-data", 33), ("backup", 34), ("operator", 37),
    ("list", 38), ("irc", 39), ("src", 40), ("shadow", 42), ("utmp", 43), ("video", 44),
    ("sasl", 45), ("plugdev", 46), ("staff", 50), ("games", 60), ("users", 100), ("nogroup", 65534),
)  # fmt: skip
"""Debian's base groups (``base-passwd``): (name, gid)."""
_NOGROUP = 65534


def account_files(profile: Profile) -> tuple[tuple[str, str], ...]:
    """The ``/etc`` files (name, text) of ``profile``'s accounts: Debian's base accounts and groups,
    and the setting's user at its shown uid and gid, with its home and shell (a base entry with that
    id or name gives way: a shown root is the setting's user, as ``$USER`` says; ``adduser``
    appends the user after ``nobody``). Why: the oracle's sandbox
    binds no ``passwd``, so ``pwd.getpwuid(os.getuid())``, ``whoami`` and ``id -Gn`` fail there, and
    failed in the differential run too, where every plain machine names its user (session 47). No
    supplementary group names the user: the reference host's plain run shows none
    (``os.getgroups()`` is ``[]`` in both workers too), so ``id -Gn`` shows the primary group alone."""
    env = dict(profile.env)
    shown = profile.user_id
    shell = env.get("SHELL", "/bin/bash")
    user = (profile.user, shown, f"{profile.user.capitalize()},,,", profile.home, shell)
    ours = (profile.user, shown)
    accounts = [*(a for a in _SYSTEM_ACCOUNTS if a[1] != shown and a[0] != profile.user), user]
    passwd = "".join(
        f"{name}:x:{uid}:{_NOGROUP if name in ('_apt', 'nobody') else uid}:{gecos}:{folder}:{login}\n"
        for name, uid, gecos, folder, login in accounts
    )
    groups = [*(g for g in _SYSTEM_GROUPS if g[1] != shown and g[0] != profile.user), ours]
    group = "".join(f"{name}:x:{gid}:\n" for name, gid in groups)
    return (("passwd", passwd), ("group", group))


def unsafe_opt_out() -> bool:
    return os.environ.get(OPT_OUT_ENV, "") == "1"


def interpreter() -> str:
    """The real interpreter binary (a venv's ``python`` is a link to it)."""
    return os.path.realpath(getattr(sys, "_base_executable", None) or sys.executable)


@functools.cache
def probe() -> str | None:
    """Why bubblewrap cannot confine a process here, or None when it can (asked once per process)."""
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        return "bubblewrap (bwrap) is not installed"
    try:
        proc = subprocess.run(
            [bwrap, *_namespace_flags(), "--ro-bind", "/", "/", "--", "/bin/true"],
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"bwrap could not start: {exc}"
    return None if proc.returncode == 0 else f"bwrap failed: {proc.stderr.strip()[:300]}"


def require() -> None:
    """Raise :class:`IsolationUnavailable` unless untrusted code can be confined (or the user opted
    out), or when, as root, the sandbox uid range is malformed or collides with an account."""
    if sys.version_info >= FRAME_LOCALS_WRITE_THROUGH:
        raise IsolationUnavailable(
            "refusing to judge untrusted code on Python "
            f"{sys.version_info.major}.{sys.version_info.minor}: the verdict channel reads a test's "
            "outcome from the worker's frame, and since Python 3.13 (PEP 667) code holding a frame "
            "writes its locals through f_locals, so workspace code could rewrite the outcome. "
            "Use Python 3.11 or 3.12 for verification, rollouts and evaluation."
        )
    reason = probe()
    if reason is not None and not unsafe_opt_out():
        raise IsolationUnavailable(
            f"refusing to run untrusted code: {reason}. Install it (Debian/Ubuntu: "
            "`apt-get install bubblewrap`; `make setup` does this when run as root), or set "
            f"{OPT_OUT_ENV}=1 to run workspace code UNCONFINED on this machine, at your own risk."
        )
    if reason is None and os.geteuid() == 0:
        sandbox_uids()


def sandbox_uids() -> range:
    """The uids sandboxes lease (``$TRAJECTORY_PLATFORM_SANDBOX_UIDS``, else
    :data:`DEFAULT_SANDBOX_UIDS`), checked against the accounts; raises :class:`IsolationUnavailable`."""
    configured = os.environ.get(SANDBOX_UIDS_ENV)
    try:
        block = uid_lease.parse_range(configured or DEFAULT_SANDBOX_UIDS)
        uid_lease.check_range(block)
    except ValueError as exc:
        setting = f"{SANDBOX_UIDS_ENV}={configured}" if configured else f"{SANDBOX_UIDS_ENV} (unset)"
        raise IsolationUnavailable(f"refusing to run untrusted code: {setting}: {exc}") from exc
    return block


@contextlib.contextmanager
def sandbox_user() -> Iterator[int]:
    """The uid the sandboxes opened in this block run as, for :func:`sandbox`'s ``user``: as root
    (and confined), one of :func:`sandbox_uids` leased to this block alone and released when it
    exits, however; otherwise ``-1`` (a user namespace already makes the sandbox unprivileged).

    Hold it as long as a workspace handed over to it is used (a replay session's): its files are
    that uid's. Raises :class:`IsolationUnavailable` as :func:`require` does, or when every uid
    is leased."""
    require()
    if probe() is not None or os.geteuid() != 0:
        yield -1
        return
    with contextlib.ExitStack() as held:
        try:
            uid = held.enter_context(uid_lease.lease(sandbox_uids(), LEASE_DIR))
        except (uid_lease.UidsExhausted, OSError) as exc:
            raise IsolationUnavailable(
                f"refusing to run untrusted code: no sandbox uid to lease ({exc}); {SANDBOX_UIDS_ENV} "
                f"names the uids, {LEASE_DIR} holds the leases"
            ) from exc
        yield uid


def _namespace_flags() -> list[str]:
    flags = ["--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try"]
    return flags if os.geteuid() == 0 else ["--unshare-user", *flags]


def _system_mounts(commands: bool = True) -> list[str]:
    """The read-only system; with ``commands``, the sandbox's own command folder and ``PATH``
    (a :class:`Profile` brings its own, in its home)."""
    args = ["--ro-bind", "/usr", "/usr"]
    for top in ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"):
        if os.path.islink(top):
            args += ["--symlink", os.readlink(top), top]
        elif os.path.isdir(top):
            args += ["--ro-bind", top, top]
    args += ["--perms", "0755", "--dir", "/etc"]  # else bwrap makes it 0700: closed to ``nobody``
    for entry in SYSTEM_ETC:
        args += ["--ro-bind-try", entry, entry]
    for path in _installation():
        args += _traversable_parents(path) + ["--ro-bind", path, path]
    return args + (_command_names() if commands else [])


def _installation() -> list[str]:
    """The interpreter's installation folders the sandbox binds beyond ``/usr`` (none for a
    Debian ``python3``; a ``/usr/local`` or ``/opt`` build's prefix, and its binary's folder when
    that lies elsewhere)."""
    prefix = os.path.realpath(sys.base_prefix)
    binary_dir = os.path.dirname(interpreter())
    installation = [prefix] if not _under(prefix, "/usr") else []
    if not (_under(binary_dir, "/usr") or _under(binary_dir, prefix)):
        installation.append(binary_dir)
    return installation


def _command_names() -> list[str]:
    """The sandbox-only ``bin`` folder (``python``, ``python3``: links to :func:`interpreter`) and
    the ``PATH`` that puts it first. Links, not copies: the interpreter finds its installation
    through them as it does through a venv's."""
    args = ["--perms", "0755", "--dir", BIN_MOUNT]
    for name in INTERPRETER_NAMES:
        args += ["--symlink", interpreter(), f"{BIN_MOUNT}/{name}"]
    return args + ["--setenv", "PATH", SANDBOX_PATH]


def _under(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


def mount_refusal(path: str) -> str | None:
    """Why the workspace may not also be shown at ``path`` (one of :data:`MOUNT_REFUSALS`), or
    ``None`` when it may.

    ``path`` comes from a log, so it is held to what cannot weaken the sandbox: a normalized
    absolute path (no ``..``, no ``//``, no trailing ``/``, no control character), neither equal
    to, under nor above a folder the sandbox mounts for its own use (:data:`SYSTEM_DIRECTORIES`,
    :data:`BIN_MOUNT`'s ``/sandbox``, :data:`RUNNER_MOUNT`, :data:`WORKSPACE_MOUNT`'s inside, the
    interpreter's installation). A bind there would hide the system the commands run on, or land
    inside the writable workspace. :data:`WORKSPACE_MOUNT` itself is allowed: it is the workspace.
    """
    if (
        not path.startswith("/")
        or os.path.normpath(path) != path
        or path.startswith("//")
        or any(ord(c) < 32 or c == "\x7f" for c in path)
    ):
        return "malformed"
    if path == WORKSPACE_MOUNT:
        return None
    if path == "/" or any(_under(path, d) or _under(d, path) for d in SYSTEM_DIRECTORIES):
        return "system_directory"
    own = ("/" + BIN_MOUNT.split("/")[1], RUNNER_MOUNT, WORKSPACE_MOUNT)
    if any(_under(path, d) or _under(d, path) for d in own):
        return "sandbox_directory"
    if any(_under(path, d) or _under(d, path) for d in _installation()):
        return "interpreter_directory"
    return None


def _traversable_parents(path: str) -> list[str]:
    """Create ``path``'s ancestors world-traversable: bwrap would copy a ``0700`` home's mode, and
    the unprivileged sandbox user could not reach an interpreter installed under it."""
    args: list[str] = []
    parent = Path(path).parent
    for ancestor in reversed([parent, *parent.parents][:-1]):
        args += ["--perms", "0755", "--dir", str(ancestor)]
    return args


def sandbox(
    workspace: Path,
    runner_dir: Path,
    *,
    user: int,
    hand_over: bool = True,
    mount_at: str | None = None,
    profile: Profile | None = None,
    setting: Path | None = None,
    scratch: Path | None = None,
) -> Isolation:
    """The isolation for one run over ``workspace`` with the runner files in ``runner_dir``, run as
    ``user`` (from :func:`sandbox_user`, held while the run lasts).

    ``mount_at`` (a path :func:`mount_refusal` allows; :class:`ValueError` otherwise) shows the
    same workspace there too, a second read-write bind of the one directory, and makes it the
    working directory and :attr:`Isolation.workspace_path`: what the agent's container called
    its repository. Nothing else becomes visible or writable through it. Unconfined (the user
    opted out) there are no mounts: commands see the workspace at its host path.

    Prepares ownership so that the sandbox user may write the workspace and read the runner
    directory, and puts :data:`CONFINE_MODULE` (the limits and the uid drop every in-sandbox script
    applies) there; ``hand_over=False`` skips the workspace's part, for a caller that handed it over
    to the same ``user`` before and since let only sandboxed runs (which create nothing but that
    user's files) write it. Raises :class:`IsolationUnavailable` as :func:`require` does.

    ``profile`` shows the run that setting in place of the oracle's (the differential check), and
    needs ``setting``: an empty host folder of the setting's own, where its home
    (:func:`setting_home`) and its account files are written.

    ``scratch``: a host folder (mode ``1777``, as ``/tmp`` is) the run sees as its ``/tmp`` in place
    of a fresh one, so that what one run leaves there is there for the next run given the same
    folder, as an agent's container keeps its ``/tmp`` from one call to the next (replay:
    ``gym.shell.LiveShell``'s ``scratch``).
    """
    require()
    if mount_at is not None and (reason := mount_refusal(mount_at)) is not None:
        raise ValueError(f"the workspace cannot also be mounted there ({reason})")
    (runner_dir / CONFINE_MODULE).write_text(CONFINE_SOURCE, encoding="utf-8")
    (runner_dir / CONFINE_MODULE).chmod(0o644)
    if probe() is not None:
        log.warning("%s=1: running workspace code UNCONFINED (no sandbox)", OPT_OUT_ENV)
        return Isolation((), str(workspace), str(runner_dir), -1, 0, own_pid_namespace=False)
    root = os.geteuid() == 0
    if root and user < 0:
        raise ValueError("a sandbox started as root needs a leased uid: open it inside sandbox_user()")
    if profile is not None and (
        setting is None or mount_at is not None or mount_refusal(profile.workspace) is not None
    ):
        raise ValueError("a profile needs a setting folder and a workspace path of its own")
    shown_at = profile.workspace if profile is not None else mount_at or WORKSPACE_MOUNT
    runner_dir.chmod(0o755)
    if hand_over:
        give_to_user(workspace, user)
    shown = _profile_mounts(profile, setting, user) if profile is not None and setting is not None else []
    prefix = (
        shutil.which("bwrap") or "bwrap",
        *_namespace_flags(),
        "--die-with-parent",
        "--new-session",
        *_system_mounts(commands=profile is None),
        "--proc",
        "/proc",
        "--dev",
        "/dev",
        "--mqueue",
        "/dev/mqueue",
        *(
            ("--bind", str(scratch), "/tmp")
            if scratch is not None
            else ("--perms", "1777", "--tmpfs", "/tmp")
        ),
        "--ro-bind",
        str(runner_dir),
        RUNNER_MOUNT,
        *(() if profile is not None else ("--bind", str(workspace), WORKSPACE_MOUNT)),
        *shown,  # the home first: the workspace is a folder of it
        *_second_bind(workspace, shown_at),
        "--chdir",
        shown_at,
        *(("--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID") if root else ()),
        "--",
    )
    return Isolation(
        prefix,
        shown_at,
        RUNNER_MOUNT,
        drop_uid=user if root else -1,
        max_processes=PROCESS_BUDGET if root else uid_lease.processes_of(os.getuid()) + PROCESS_BUDGET,
        own_pid_namespace=True,
    )


def setting_home(setting: Path) -> Path:
    """The host folder of the home of a setting whose folder is ``setting`` (:func:`sandbox`)."""
    return setting / "home"


def _profile_mounts(profile: Profile, setting: Path, user: int) -> list[str]:
    """The bubblewrap arguments of ``profile``'s setting: its home (:func:`_fill_home`, in the host
    folder :func:`setting_home`) bound read-write, as a workspace is, its accounts
    (:func:`account_files`, in ``setting/etc``) read-only, its host name, its ``/tmp`` entries."""
    home, etc = setting_home(setting), setting / "etc"
    home.mkdir()
    etc.mkdir()
    _fill_home(profile, home, user)
    args = [*_traversable_parents(profile.home), "--bind", str(home), profile.home]
    for name, text in account_files(profile):
        (etc / name).write_text(text, encoding="utf-8")
        (etc / name).chmod(0o644)
        args += ["--ro-bind", str(etc / name), f"/etc/{name}"]
    args += ["--hostname", profile.hostname]
    for entry in profile.tmp_entries:
        args += ["--perms", "1777", "--dir", f"/tmp/{entry}"]
    return args


def _fill_home(profile: Profile, home: Path, user: int) -> None:
    """Write ``profile``'s home into the empty host folder ``home``: its dotfiles and the command
    links, the folder ``0700`` (as ``mkdtemp`` and ``adduser`` make it), all handed to ``user``."""
    home.chmod(0o700)
    (home / ".local" / "bin").mkdir(parents=True, exist_ok=True)
    for name, text in profile.dotfiles:
        (home / name).write_text(text, encoding="utf-8")
    for name in INTERPRETER_NAMES:
        (home / ".local" / "bin" / name).symlink_to(interpreter())
    give_to_user(home, user, below=(".local", *(name for name, _ in profile.dotfiles)))


def reset_home(profile: Profile, home: Path, user: int) -> None:
    """Put the host folder ``home`` of a sandbox open in ``profile``'s setting back as
    :func:`_fill_home` wrote it, between two runs of one judge (``gym/judge.py``): every entry a run
    added, changed or removed, the folders' modes and extended attributes. The folders bubblewrap
    made for the workspace's mount (its ancestors inside the home, and the mount point) stay, and
    so does the mount: removing a mount point from outside detaches the mount inside. Raises
    ``OSError`` when something cannot be put back (the judge is then retired)."""
    chain = PurePosixPath(profile.workspace).relative_to(profile.home).parts
    folder = home
    for kept in chain:
        _strip_attributes(folder)
        folder.chmod(0o700 if folder == home else 0o755)  # as mkdtemp and _traversable_parents made them
        for entry in os.scandir(folder):
            if entry.name != kept or not entry.is_dir(follow_symlinks=False):
                _remove(Path(entry.path))
        folder = folder / kept
    _strip_attributes(folder)  # the mount point: the workspace's own entries are the host's to move
    _fill_home(profile, home, user)


def _strip_attributes(path: Path) -> None:
    for attribute in os.listxattr(path, follow_symlinks=False):
        os.removexattr(path, attribute, follow_symlinks=False)


def _remove(path: Path) -> None:
    """Remove ``path``, never following a link, a folder whose mode a run locked included."""
    if not path.is_dir() or path.is_symlink():
        path.unlink()
        return
    path.chmod(0o700)
    for child in path.iterdir():
        _remove(child)
    path.rmdir()


def give_to_user(path: Path, user: int, below: tuple[str, ...] | None = None) -> None:
    """Make ``path`` and everything under it ``user``'s (a leased uid, when the host is root), so
    that a sandbox running as ``user`` may write it; nothing to do without root (``user`` -1).
    ``below``: of what lies under ``path``, only those entries (and what they hold): a home put back
    between runs keeps the folders bubblewrap made for the workspace's mount as bubblewrap made them."""
    if os.geteuid() == 0 and user >= 0:
        entries = [path / name for name in below] if below is not None else [path]
        for each in (path, *entries, *(found for entry in entries for found in entry.rglob("*"))):
            os.chown(each, user, user, follow_symlinks=False)


def _second_bind(workspace: Path, path: str) -> list[str]:
    """The bubblewrap arguments that show ``workspace`` at ``path`` too (none for
    :data:`WORKSPACE_MOUNT`): its ancestors made world-traversable folders of the sandbox's own
    root, then the bind."""
    if path == WORKSPACE_MOUNT:
        return []
    return [*_traversable_parents(path), "--bind", str(workspace), path]
