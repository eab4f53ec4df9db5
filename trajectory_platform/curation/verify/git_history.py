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

Only a line that is one such git command (after ``cd DIR &&``), optionally piped into other
programs, with no redirection but stderr's, is read so: a line that also runs another command
(``cat x; git log -1``) is compared as a whole as before, so a history read never shelters an
answer about the files.
"""

from __future__ import annotations

from trajectory_platform.curation.verify.calls import after_cd, bash_words

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
_GLOBAL_WITH_VALUE = frozenset({"-C", "-c", "--git-dir", "--work-tree", "--namespace"})
_STDERR_ONLY = frozenset({(">&", "1"), (">", "/dev/null")})
"""The redirections a history read may carry: its stderr merged or dropped (what it prints is
still the answer)."""


def reads_history(line: str) -> bool:
    """Whether ``line`` is one git command reading history (:data:`HISTORY_READS`), optionally
    after ``cd DIR &&``, optionally piped into other programs (``git log --oneline | wc -l``)."""
    split = bash_words(line.strip())
    if split is None:
        return False
    words = after_cd(split)
    stages: list[list[str]] = [[]]
    for word in words:
        if word in ("|", "|&"):
            stages.append([])
        elif word and set(word) <= set(";&()") or "\n" in word:
            return False  # a list of commands: the answer is not the history read's alone
        else:
            stages[-1].append(word)
    first = _without_stderr_redirection(stages[0])
    return first is not None and all(stages) and _git_history_read(first)


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


def _git_history_read(words: list[str]) -> bool:
    """Whether one simple command's words run git with a history-reading subcommand."""
    if not words or words[0].rsplit("/", 1)[-1] != "git":
        return False
    index = 1
    while index < len(words) and words[index].startswith("-"):
        index += 2 if words[index] in _GLOBAL_WITH_VALUE else 1
    if index >= len(words) or words[index] not in HISTORY_READS:
        return False
    subcommand, operands = words[index], [w for w in words[index + 1 :] if not w.startswith("-")]
    if subcommand == "show":
        return not operands or not all(":" in operand for operand in operands)
    if subcommand == "rev-parse":
        return bool(operands)
    return True
