"""Whether the agent's shell kept its working folder from one call to the next, and replay that does.

Replay ran every shell line from the repository's root. The harnesses that run every command in one
long-lived shell (SWE-agent's session, OpenHands' bash session, Claude Code's Bash tool) keep the
folder a ``cd`` reached for the calls after it, so an honest ``cd src`` in one call and ``python
x.py`` in the next ran ``src/x.py`` in the agent's run and failed at the root in the replay: the
episode drifted and was refused (session 44). Others run each command afresh (mini-swe-agent's
``subprocess.run``, Codex and Gemini CLI with a working folder per call).

:func:`keeps_folder` decides from the episode's own evidence, never from what replay would make
of it: a ``pwd`` the log shows after a ``cd`` (the folder it reached: kept; the folder before it:
not), else the harness its format names (:data:`KEPT_BY_FORMAT`). :func:`in_kept_folder` is the
line replay runs then: it starts where the previous line left the shell and records where it
leaves it (an ``EXIT`` trap, so ``exit 3`` and a failing line leave it too), in a file of an
unguessable name inside the checkout's git folder, which no final state or diff holds.

Neither way opens a door: a replay measures each call's effect wherever it runs it (a quiet test
edit after a lone ``cd tests`` is then a measured write), and where replay measured nothing the
write reader still takes a call's relative paths from the folder a lone ``cd`` left
(:func:`.write_targets.start_folders`).
"""

from __future__ import annotations

import posixpath
import shlex

from trajectory_platform.curation.shell_split import bash_words, is_operator
from trajectory_platform.curation.verify.calls import CallRecord

KEPT_BY_FORMAT = frozenset({"swe-agent", "openhands", "claude-code"})
"""Formats whose harness runs every shell command in one session that keeps its folder: SWE-agent
(its ``swe-rex`` bash session; its state footer shows the folder), OpenHands (a persistent bash
session; each observation's ``working_dir``), Claude Code (its Bash tool keeps the working folder
between calls)."""
_MOVES = frozenset({"cd", "pushd", "popd"})


def keeps_folder(source_format: str, records: list[CallRecord]) -> bool:
    """Whether the shell of the episode (its ``source_format``, its calls) kept the folder a ``cd``
    reached for its later calls: what a ``pwd`` shown after a ``cd`` says (:func:`_shown_pwd`),
    else whether its format's harness does (:data:`KEPT_BY_FORMAT`). ``False`` for a log that
    never changes folder: replay runs it as before."""
    lines = [r.shell_command for r in records if r.shell_command is not None]
    if not any(_MOVES & set(bash_words(line) or line.split()) for line in lines):
        return False
    shown = _shown_pwd(records)
    return shown if shown is not None else source_format in KEPT_BY_FORMAT


def _shown_pwd(records: list[CallRecord]) -> bool | None:
    """What the answers of lone ``pwd`` calls say: after a line whose first command was ``cd DIR``
    (a plain relative folder, one move in the line), a path ending in that folder means the shell
    kept it; the path a ``pwd`` showed before any move means it did not. ``None`` where no such
    pair is shown (a ``cd ..``, a variable or a second move leave the folder unknown)."""
    moved: str | None = None  # the folder the last move named; "" where unknown
    before: set[str] = set()
    for record in records:
        line = record.shell_command
        if line is None:
            continue
        words = bash_words(line.strip()) or []
        if words == ["pwd"] and record.answer is not None:
            shown = (record.answer.content or "").strip().splitlines()
            path = shown[0].strip().rstrip("/") if shown else ""
            if not path.startswith("/"):
                continue
            if moved is None:
                before.add(path)
            elif moved and path.endswith(f"/{moved}"):
                return True
            elif moved and path in before:
                return False
            continue
        moves = [i for i, w in enumerate(words) if w in _MOVES and (i == 0 or is_operator(words[i - 1]))]
        if moves:
            moved = _plain_folder(words[1:2]) if moves == [0] and words[0] == "cd" else ""
    return None


def _plain_folder(operands: list[str]) -> str:
    """``cd``'s operand as a folder below the current one (``src``, ``./pkg/sub/``); ``""`` for
    anything else (none, an option, ``..``, an absolute path, a variable, ``~``, ``-``)."""
    if len(operands) != 1 or is_operator(operands[0]):
        return ""
    folder = posixpath.normpath(operands[0])
    if folder.startswith(("/", "~", "$", "-", "..")) or folder == ".":
        return ""
    return folder


def in_kept_folder(command: str, state_file: str) -> str:
    """``command`` as a kept shell runs it: from the folder the previous line left (recorded in
    ``state_file``, an absolute path in the sandbox; none yet: where it starts anyway), recording
    the folder it leaves on exit. Prints nothing of its own; the command's exit code is the line's."""
    return (
        f"__replay_folder={shlex.quote(state_file)}; "
        'cd -- "$(cat -- "$__replay_folder" 2>/dev/null)" 2>/dev/null; '
        """trap 'pwd >| "$__replay_folder" 2>/dev/null' EXIT\n"""
        f"{command}"
    )
