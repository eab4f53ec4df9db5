"""Which shell lines print what only the agent's repository history can say (replay cannot re-derive it).

Replay's workspace is a git checkout of S0 holding one commit (``gym.shell.CHECKOUT_SCRIPT``: a
fixed author, date and message), while the agent's repository had its project's real history. A
command whose answer is that history (``git log``'s commits, ``git blame``'s, a hash, a tag, a
branch list, the subject a ``git stash`` or ``git commit`` line names) prints something else in
the replay however honest the log: every such answer drifted, and the episode was refused (red
team rtforge9, 2026-12-06: 0 of 6 honest kept). Nor can the replay say such an answer is true. It
is a fact the environment cannot reproduce, so replay neither compares nor verifies it
(``unchecked_turns``), and its status is the log's word alone (``unreplayed_answers``): it never
backs a quotation nor counts as a fault or a repair (:mod:`.roles`, :mod:`.fabrication`). The
command still runs, for whatever it changes.

Only a line that is one such git command (after ``cd DIR &&`` or ``cd DIR;``, behind quiet
settings and wrappers: ``GIT_PAGER=cat``, ``env``, ``timeout 10``), optionally piped into pure
filters of its output (``wc``, ``head``, ``grep PATTERN``... without a file operand), with no
redirection but stderr's, no line break and no substitution, is read so: any other line
(``cat x; git log -1``, ``git log -1 | cat calc/ops.py``, ``--format="$(cat calc/ops.py)"``) is
compared as a whole, so a history read never shelters an answer about the files.
"""

from __future__ import annotations

import re

from trajectory_platform.curation.shell_split import bash_words
from trajectory_platform.curation.verify.calls import after_cd

HISTORY_READS: dict[str, str] = {
    "log": "commits, their hashes, authors, dates and messages",
    "shortlog": "commits by author",
    "whatchanged": "commits with the files they changed",
    "reflog": "where HEAD has been",
    "rev-list": "commit hashes",
    "blame": "each line's commit, author and date",
    "annotate": "each line's commit, author and date",
    "describe": "the nearest tag and the commits since",
    "name-rev": "a commit's name by the refs",
    "cherry": "commits not yet upstream",
    "tag": "the repository's tags",
    "branch": "the repository's branches (and with -v their commits)",
    "stash": "the stash's commits and the commit each was made on (hash and subject)",
    "commit": "the new commit's hash, which hashes its parent and the clock",
    "show": "a commit (hash, author, date, message); except where every operand is REV:PATH, a file's text",
    "rev-parse": "a revision's hash, with a revision operand (--show-toplevel and the like are compared)",
}
"""The git subcommands whose output is the repository's history, with what of it they print: one
row per subcommand. ``show`` and ``rev-parse`` read history only as their rows say
(:func:`reads_history`)."""
_GLOBAL_OPTIONS = frozenset({"--no-pager", "-P", "--bare", "--no-replace-objects", "--literal-pathspecs"})
_GLOBAL_WITH_VALUE = frozenset({"-C", "--git-dir", "--work-tree", "--namespace"})
"""The global options a history read may carry (``-c`` only with :data:`_QUIET_CONFIG` keys): any
other (``--exec-path``, a pager or alias set by ``-c``) may make git run a program of the line's
choosing, whose output would be sheltered as history."""
_QUIET_CONFIG = ("color.", "log.", "core.abbrev", "core.quotepath", "i18n.")
_STDERR_ONLY = frozenset({(">&", "1"), (">", "/dev/null")})
"""The redirections a history read may carry: its stderr merged or dropped (what it prints is
still the answer)."""
_SETTINGS: dict[str, frozenset[str] | None] = {
    "GIT_PAGER": frozenset({"", "cat"}),
    "PAGER": frozenset({"", "cat"}),
    "LANG": None,
    "LC_ALL": None,
    "TZ": None,
    "TERM": None,
    "COLUMNS": None,
    "NO_COLOR": None,
    "GIT_TERMINAL_PROMPT": None,
}
"""The environment a history read may set ahead of git (``GIT_PAGER=cat git log``), with the
values it may take (``None``: any one word): a pager naming any other program would print what
that program prints (``GIT_PAGER='cat calc/ops.py'``)."""
_WRAPPERS: dict[str, tuple[frozenset[str], frozenset[str], int]] = {
    "env": (frozenset(), frozenset(), 0),
    "command": (frozenset(), frozenset(), 0),
    "timeout": (
        frozenset({"--foreground", "--preserve-status", "-v", "--verbose"}),
        frozenset({"-s", "--signal", "-k", "--kill-after"}),
        1,
    ),
}
"""Programs that run the rest of their words as the command, by name: (flags, options taking a
value, leading operands: ``timeout``'s duration)."""
FILTERS: dict[str, tuple[frozenset[str], frozenset[str], int]] = {
    "cat": (frozenset("nbsAETv"), frozenset(), 0),
    "wc": (frozenset("lwcmL"), frozenset(), 0),
    "head": (frozenset("qv"), frozenset("nc"), 0),
    "tail": (frozenset("qvr"), frozenset("nc"), 0),
    "sort": (frozenset("bdfgihMnRruVsz"), frozenset("kt"), 0),
    "uniq": (frozenset("cdDiuz"), frozenset("fsw"), 0),
    "cut": (frozenset("sz"), frozenset("bcdf"), 0),
    "nl": (frozenset("p"), frozenset("bdfhinsvw"), 0),
    "tr": (frozenset("cCdst"), frozenset(), 2),
    "column": (frozenset("tnex"), frozenset("csoN"), 0),
    "grep": (frozenset("ivnwxcoqsEFGPhHabzlLUT"), frozenset("emABC"), 1),
    "egrep": (frozenset("ivnwxcoqsEFGPhHabzlLUT"), frozenset("emABC"), 1),
    "fgrep": (frozenset("ivnwxcoqsEFGPhHabzlLUT"), frozenset("emABC"), 1),
}
"""The programs a history read may pipe its output into: pure filters of their standard input,
by the short options they take without and with a value, and how many operands they read as
data, never as files (``grep``'s pattern, unless ``-e`` gives it; ``tr``'s sets). A filter given
a file operand, a file-reading option (``grep -f`` / ``-r``, ``sort -o``) or a long option prints or
writes what the line chooses, so the line is then compared as a whole."""


SHOWS_THE_FILES = frozenset({"blame", "annotate"})
"""The history reads that print the working tree's text: each line of the file, after the commit,
author and date that last changed it (:func:`shown_file_text`)."""
_ANNOTATION = re.compile(r"^\^?[0-9a-f]{4,40}(?:\t.*?\t\d+\)(.*)| .*?(?<!\d)\d+\) ?(.*))$")
"""A ``blame`` / ``annotate`` line: a commit (``^`` for a boundary commit), what git prints about it
(``-s`` prints nothing, ``-n`` the original line, ``-e`` an e-mail, ``-f`` the file; ``annotate``
and ``-c`` separate them by tabs), the line number and ``)``, then the line's text."""
_PORCELAIN_HEADER = re.compile(
    r"^(?:[0-9a-f]{40} \d+ \d+(?: \d+)?|(?:author|committer)(?:-mail|-time|-tz)?(?: .*)?"
    r"|summary(?: .*)?|previous .*|filename .*|boundary)$"
)
"""A line ``--porcelain`` / ``--line-porcelain`` prints about a commit, not of the file (whose lines it
prints after a tab)."""


def reads_history(line: str) -> bool:
    """Whether ``line`` is one git command reading history (:data:`HISTORY_READS`), optionally
    after ``cd DIR &&`` / ``cd DIR;``, behind quiet settings or wrappers (``GIT_PAGER=cat``,
    ``env``, ``timeout 10``, ``command``), optionally piped into pure filters of its output
    (``git log --oneline | wc -l``: :data:`FILTERS`).

    Decided on bash's structure, not on the words alone (red team, round 10): a later stage
    reading a file (``git log -1 | cat calc/ops.py``), a second command after a line break, or a
    substitution anywhere (``--format="$(cat calc/ops.py)"``) would print the files under the
    history read's shelter; such a line is compared as a whole."""
    return history_subcommand(line) is not None


def history_subcommand(line: str) -> str | None:
    """The history-reading git subcommand ``line`` runs (:func:`reads_history`), or ``None``."""
    text = line.strip()
    if any(mark in text for mark in ("\n", "\r", "$", "`", "<(", ">(")):
        return None  # a second command, or text bash substitutes before git runs
    split = bash_words(text)
    if split is None:
        return None
    words = _after_cd(split)
    stages: list[list[str]] = [[]]
    for word in words:
        if word in ("|", "|&"):
            stages.append([])
        elif word and set(word) <= set(";&()|"):
            return None  # a list of commands (``||`` too): the answer is not the history read's alone
        else:
            stages[-1].append(word)
    commands = [_without_stderr_redirection(stage) for stage in stages]
    if any(command is None or not command for command in commands):
        return None
    first, *rest = (command for command in commands if command is not None)
    git = _unwrapped(first)
    if git is None or not all(_filters_stdin(stage) for stage in rest):
        return None
    return _git_history_read(git)


def shown_file_text(answer: str) -> str:
    """What a ``blame`` / ``annotate`` answer (:data:`SHOWS_THE_FILES`) shows of the files: each
    line's text without the commit, author and date before it, a line of another shape (git's
    error, a filter's count) as it is. The history is the log's word; the text is the workspace's,
    which replay re-derives: a forged blame that showed lines the file never held (its fix already
    in, a test's assertion) was admitted under the history read's shelter (red team items,
    session 43)."""
    shown = []
    for line in answer.replace("\r\n", "\n").split("\n"):
        if _PORCELAIN_HEADER.match(line):
            continue
        match = _ANNOTATION.match(line)
        shown.append(match.group(1) or match.group(2) or "" if match else line.removeprefix("\t"))
    return "\n".join(shown)


def _after_cd(words: list[str]) -> list[str]:
    """``words`` without the ``cd DIR &&`` or ``cd DIR;`` steps leading them."""
    while True:
        words = after_cd(words)
        if words[1:3] and words[0] == "cd" and words[2:3] == [";"]:
            words = words[3:]
        else:
            return words


def _unwrapped(words: list[str]) -> list[str] | None:
    """The command ``words`` run once the leading settings (:data:`_SETTINGS`) and wrappers
    (:data:`_WRAPPERS`) are taken off; ``None`` when a setting or a wrapper's option is not one
    a history read may carry."""
    index = 0
    while index < len(words):
        word = words[index]
        name, equals, value = word.partition("=")
        if equals and name.isidentifier():
            if name not in _SETTINGS or len(value.split()) > 1:
                return None
            allowed = _SETTINGS[name]
            if allowed is not None and value not in allowed:
                return None
            index += 1
        elif word in _WRAPPERS:
            flags, with_value, operands = _WRAPPERS[word]
            index += 1
            while index < len(words) and words[index].startswith("-"):
                option = words[index].split("=", 1)[0]
                if option in with_value:
                    index += 1 if "=" in words[index] else 2
                elif option in flags:
                    index += 1
                else:
                    return None
            index += operands
        else:
            return words[index:]
    return None


def _filters_stdin(words: list[str]) -> bool:
    """Whether one pipeline stage is a pure filter of its standard input (:data:`FILTERS`)."""
    if not words or words[0] not in FILTERS:
        return False
    flags, with_value, data_operands = FILTERS[words[0]]
    operands = []
    given_by_option = False
    index = 1
    while index < len(words):
        word = words[index]
        if word.startswith("-") and len(word) > 1 and not word.startswith("--"):
            letters = word[1:]
            if letters.isdigit():  # head -5, tail -20
                index += 1
                continue
            for position, letter in enumerate(letters):
                if letter in with_value:
                    given_by_option = given_by_option or letter == "e"
                    index += 0 if letters[position + 1 :] else 1
                    break
                if letter not in flags:
                    return False
        elif word.startswith("-") and len(word) > 1:
            return False  # a long option: some read files (--file, --files0-from, --output)
        else:
            operands.append(word)
        index += 1
    return len(operands) <= (0 if given_by_option else data_operands)


def _without_stderr_redirection(words: list[str]) -> list[str] | None:
    """The command's words without ``2>&1`` / ``2>/dev/null``; ``None`` when it redirects
    anything else (its output then goes elsewhere, or it reads a file)."""
    kept: list[str] = []
    index = 0
    while index < len(words):
        word = words[index]
        if word and set(word) <= set("<>&"):
            target = words[index + 1] if index + 1 < len(words) else ""
            if kept[-1:] != ["2"] or (word, target) not in _STDERR_ONLY:
                return None
            kept.pop()
            index += 2
            continue
        kept.append(word)
        index += 1
    return kept


def _quiet_config(value: list[str]) -> bool:
    """Whether a ``-c`` setting only chooses how git prints (colour, abbreviation, encoding, a
    ``cat`` pager): any other may name a program git runs."""
    return value[:1] == ["core.pager=cat"] or bool(value) and value[0].startswith(_QUIET_CONFIG)


def _git_history_read(words: list[str]) -> str | None:
    """The history-reading subcommand one simple command's words run git with, or ``None``."""
    if not words or words[0].rsplit("/", 1)[-1] != "git":
        return None
    index = 1
    while index < len(words) and words[index].startswith("-"):
        option, _, value = words[index].partition("=")
        if option in _GLOBAL_WITH_VALUE:
            index += 1 if value else 2
        elif option == "-c" and _quiet_config(words[index + 1 : index + 2]):
            index += 2
        elif option in _GLOBAL_OPTIONS and not value:
            index += 1
        else:
            return None
    if index >= len(words) or words[index] not in HISTORY_READS:
        return None
    subcommand, operands = words[index], [w for w in words[index + 1 :] if not w.startswith("-")]
    if subcommand == "show" and any(":" in operand for operand in operands):
        return None
    if subcommand == "rev-parse" and not operands:
        return None
    return subcommand
