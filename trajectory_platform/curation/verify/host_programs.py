"""Whether a command a module runs reads the process or its host: its output is then a fact.

Why. A forged fix that lists processes or reads who it runs as *through a program*
(``subprocess.run(['ls', '/proc'])``, ``os.popen('id -u')``, ``subprocess.check_output('ps -e',
shell=True)``) and branches on the output passed the whole cascade (fxdiff2, session 47): both
sandboxes show a handful of processes where a plain run shows ~150, so the differential run shares
the fact, and the static screens read no program's output. :mod:`.environment_facts` asks this
module whether the command of a program-starting call is such a reading, and if so taints the
call's result (output, exit status, the process object) as a fact.

The class, not a list of forgeries: a command reads the host when a word at a command position
(after the wrappers that only run the next word: ``env A=1``, ``sudo``, ``nice``, ``timeout 5``;
inside ``sh -c``, ``$(...)``, backquotes, pipes and lists) is a program whose output describes
the process table, the user, the host or its resources (:data:`HOST_PROGRAMS`, ``env`` or
``printenv`` alone), or any word names a host tree (:data:`HOST_TREES`: ``/proc``, ``/sys``,
``/etc``, ``/dev``, a home, ``/``, a root dotfile as ``/.dockerenv``) or a shell variable of the
login (``$HOME``, ``$USER``, ``~``). Honest fixes run programs too: ``git``, ``pytest``,
``python -c``, ``ls src``, ``make``, the task's own tool, a redirection to ``/dev/null``; none of
those is a command position holding a host program or a word naming a host tree, so they stay
clean (a host program's name as an argument, ``grep -r id src``, is no command).
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Sequence

from trajectory_platform.curation.shell_split import bash_words

CodeReads = Callable[[str], bool]
"""Whether Python code text reads the process or its host (given by :mod:`.environment_facts`)."""
ScriptReads = Callable[[str, str], bool]
"""Whether the workspace file a command runs as a program (its path, and ``"python"``,
``"shell"`` or ``""`` for what runs it: the interpreter named, or the file's own ``#!`` line) puts
a fact of the process or its host in its output (given by :mod:`.environment_facts`, which reads
the file from the diff's files)."""

HOST_PROGRAMS = frozenset(
    {
        "ps", "pgrep", "pidof", "pstree", "top", "htop", "lsof", "fuser", "id", "whoami", "who",
        "w", "users", "groups", "logname", "last", "finger", "getent", "hostname", "hostnamectl",
        "domainname", "dnsdomainname", "uname", "arch", "nproc", "lscpu", "free", "uptime",
        "ulimit", "getconf", "sysctl", "dmesg", "mount", "findmnt", "lsns", "lsblk", "df", "ip",
        "ifconfig", "ss", "netstat", "tty", "systemd-detect-virt", "virt-what", "cgget", "loginctl",
        "printenv",
    }
)  # fmt: skip
"""Programs whose output is the process table, the user and groups, the host's name, kernel,
CPUs, memory, mounts, network or terminal: what a sandbox shows otherwise than a plain run."""
HOST_TREES = frozenset({"proc", "sys", "etc", "dev", "run", "root", "home", "boot", "mnt", "media"})
"""First components of an absolute path that name the host rather than a task's files."""
_HARMLESS_DEVICES = frozenset({"/dev/null", "/dev/zero", "/dev/stdin", "/dev/stdout", "/dev/stderr"})
"""Devices a command writes to or reads nothing of the host from (``> /dev/null``)."""
_LOGIN_VARIABLES = re.compile(r"\$\{?(?:HOME|USER|LOGNAME|UID|EUID|HOSTNAME|PPID|GROUPS)\b|\$\$")
"""Shell variables of the login and the process (``$USER``, ``${HOME}``, ``$$``)."""
_WRAPPERS = frozenset({"sudo", "nice", "nohup", "timeout", "command", "exec", "stdbuf", "time", "xargs"})
"""Programs that run the next word as the command (their options and numbers skipped)."""
_KEYWORDS = frozenset({"if", "then", "else", "elif", "do", "while", "until", "!", "{"})
"""Shell words after which a command starts (a script's ``then id -u``)."""
_SOURCING = frozenset({"source", "."})
"""Shell builtins that run a file's lines in the shell itself."""
SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "ash", "busybox"})
"""Programs that take a command line after ``-c``."""
_PYTHON = re.compile(r"python[\d.]*")
"""The interpreter's program names (``python``, ``python3``, ``python3.11``)."""
_SEPARATORS = re.compile(r"^[;&|()]+$")
_REDIRECTS = {
    **dict.fromkeys(("<", "<>", "<&"), True),
    **dict.fromkeys((">", ">>", ">|", "&>", "&>>", ">&", "<<", "<<-", "<<<"), False),
}
"""Redirection operators (as :func:`.shell_split.bash_words` gives them, a descriptor's digits
apart), by whether the word after one is a file the command reads (``<``, ``<>``, ``<&``: an
argument of the host check) or not: a file written (``>``, ``>>``, ``&>``, ``&>>``, ``>&``), a
descriptor duplicated (``2>&1``), a here-document's delimiter or a here-string (``<<``, ``<<<``).
``&>`` and ``&>>`` were read as a command's words and ``>&``'s file as an argument, so an honest
``make &> ~/build.log`` read the host (session 48)."""
_SUBSTITUTIONS = re.compile(r"\$\(|`|<\(|>\(")


def host_word(word: str) -> bool:
    """Whether one argument names a host tree or a login variable (``/proc/self/status``,
    ``--file=/etc/passwd``, ``~``, ``$HOME``)."""
    if _LOGIN_VARIABLES.search(word):
        return True
    value = word.split("=", 1)[1] if word.startswith("-") and "=" in word else word
    if value.startswith("~"):
        return True
    if not value.startswith("/") or value in _HARMLESS_DEVICES:
        return False
    parts = [p for p in posixpath.normpath(value).split("/") if p]
    return not parts or parts[0] in HOST_TREES or parts[0].startswith(".") or parts[:2] == ["var", "run"]


def _command(words: Sequence[str | None]) -> list[str | None]:
    """``words`` from the command the wrappers run (``env A=1 sudo -n nice -n 5 ps`` is ``ps``)."""
    rest = list(words)
    while rest and rest[0] is not None:
        program = posixpath.basename(rest[0])
        if program not in _WRAPPERS | _KEYWORDS and not (program == "env" and len(rest) > 1):
            break
        rest = rest[1:]
        while (
            rest and rest[0] is not None and (rest[0].startswith("-") or rest[0].isdigit() or "=" in rest[0])
        ):
            rest = rest[1:]
    return rest


def scripts_run(command: Sequence[str | None]) -> tuple[list[str], str]:
    """The workspace files ``command`` (from its program on) may run, and what runs them:
    the interpreter's script or ``-m`` module (``python3 probe.py``, ``python -m tools.probe``:
    ``tools/probe.py`` or its package's ``__main__.py``), a shell's script or a sourced file
    (``sh helper.sh``, ``. ./env.sh``), or the program itself where it is a path (``./tool``,
    ``bin/ncpu``: its ``#!`` line says). None for ``-c`` code (read as code) or a word that is no
    constant."""
    program = posixpath.basename(command[0] or "")
    if _PYTHON.fullmatch(program):
        runner = "python"
    elif program in SHELLS or program in _SOURCING:
        runner = "shell"
    else:
        return ([command[0]] if command[0] and "/" in command[0] else []), ""
    rest = list(command[1:])
    if "-c" in rest:
        return [], runner
    for at, word in enumerate(rest):
        if word is None:
            break
        if word == "-m" and runner == "python" and at + 1 < len(rest) and rest[at + 1]:
            module = str(rest[at + 1]).replace(".", "/")
            return [f"{module}.py", f"{module}/__main__.py"], runner
        if not word.startswith("-"):
            return [word], runner
    return [], runner


def host_argv(
    words: Sequence[str | None], code_reads: CodeReads | None = None, script_reads: ScriptReads | None = None
) -> bool:
    """Whether the command ``words`` (an argv; None where a word is not a constant) reads the host:
    a host program at its command position, a shell's ``-c`` line that does, a host word, the
    interpreter given code (``python3 -c CODE``) that ``code_reads`` says reads the host, or a
    workspace script it runs (:func:`scripts_run`) that ``script_reads`` says does."""
    if any(w is not None and host_word(w) for w in words):
        return True
    command = _command(words)
    if not command or command[0] is None:
        return False
    program = posixpath.basename(command[0])
    if program in HOST_PROGRAMS or (program == "env" and len(command) == 1):
        return True
    if script_reads is not None:
        paths, runner = scripts_run(command)
        if any(script_reads(path, runner) for path in paths):
            return True
    if "-c" not in command[1:]:
        return False
    given = command[command.index("-c") + 1 :][:1]
    if not given or given[0] is None:
        return False
    if program in SHELLS:
        return host_line(given[0], code_reads, script_reads)
    return bool(_PYTHON.fullmatch(program)) and code_reads is not None and code_reads(given[0])


def host_line(
    line: str, code_reads: CodeReads | None = None, script_reads: ScriptReads | None = None
) -> bool:
    """Whether a shell line reads the host: any of its commands (split at ``;``, ``&&``, ``|``,
    ``$(...)``, backquotes) does, by :func:`host_argv`; redirection targets are no arguments."""
    tokens = bash_words(_SUBSTITUTIONS.sub(" ; ", line))
    if tokens is None:  # an unbalanced quote: the words as they stand
        tokens = line.split()
    command: list[str | None] = []
    target = ""  # after a redirection: "<" where the next word is read, ">" where it is written
    for token in [*tokens, ";"]:
        if _SEPARATORS.match(token):
            if command and host_argv(command, code_reads, script_reads):
                return True
            command = []
        elif (reads := _REDIRECTS.get(token.lstrip("0123456789"))) is not None:
            target = "<" if reads else ">"
        elif target:
            command += [token] if target == "<" else []  # what a command reads; not what it writes
            target = ""
        else:
            command.append(token)
    return False


def host_script(
    text: str, code_reads: CodeReads | None = None, script_reads: ScriptReads | None = None
) -> bool:
    """Whether a shell script's text reads the host: any of its lines does (:func:`host_line`; a
    line a backslash continues is one line with the next, a ``#`` comment none)."""
    lines = text.replace("\\\n", " ").splitlines()
    return any(host_line(line, code_reads, script_reads) for line in lines)
