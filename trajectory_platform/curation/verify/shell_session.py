"""Whether the agent's shell kept what a line left in it for the next call, and replay that does.

Replay ran every shell line from the repository's root. The harnesses that run every command in one
long-lived shell (SWE-agent's session, OpenHands' bash session, Claude Code's Bash tool) keep the
folder a ``cd`` reached for the calls after it, so an honest ``cd src`` in one call and ``python
x.py`` in the next ran ``src/x.py`` in the agent's run and failed at the root in the replay: the
episode drifted and was refused (session 44). Such a shell keeps the rest of its state too:
``pushd``'s stack, variables (``export PYTHONPATH=src``), aliases, functions, ``set`` / ``shopt``
options, what ``source venv/bin/activate`` defined (session 45). Others run each command afresh
(mini-swe-agent's ``subprocess.run``, Codex and Gemini CLI with a working folder per call).

:func:`keeps_folder` decides from the episode's own evidence, never from what replay would make
of it: a ``pwd`` the log shows after a ``cd`` (the folder it reached: kept; the folder before it:
not), else the harness its format names (:data:`KEPT_BY_FORMAT`). :func:`in_kept_shell` is the
line replay runs then: it starts in the state the previous line left and, once its own commands are
over, records the state it leaves, as bash code bash itself writes (:data:`_WRITER`), in a file of
an unguessable name inside the checkout's git folder, which no final state or diff holds. Nothing
of replay's own is there while the line runs (``trap -p``, ``declare -F``, ``set`` list the agent's
state only), a line that ends its shell (``exit``, ``set -e``) leaves the next one a fresh shell, as
the harness starts one, and a line's own ``EXIT`` handler runs when the shell ends (session 46).

Why each line is still a sandbox of its own rather than one long-lived bash fed every line between
markers: each call keeps its own time limit, output cap and resource limits, and no process outlives
its call, so what replay measures after a call (:class:`.replay._Watch`) is that call's doing (a
background job of a long-lived shell could write a sealed test after its call was measured); no
marker in the output stream can be printed by a command to end its own call early; and a line that
ends its shell is recorded as it ends. A line killed at the time limit leaves replay not knowing
what the agent's shell held: the later lines are refused (``replay._state_lost``).

Neither way opens a door: a replay measures each call's effect wherever it runs it (a quiet test
edit after a lone ``cd tests`` or behind an alias an earlier call defined is then a measured
write), and where replay measured nothing the write reader still takes a call's relative paths from
the folder a lone ``cd`` left (:func:`.write_targets.start_folders`).
"""

from __future__ import annotations

import json
import posixpath
import re
import shlex
from collections.abc import Iterator, Sequence

from trajectory_platform.curation.shell_split import bash_words, is_operator
from trajectory_platform.curation.verify.calls import CallRecord
from trajectory_platform.curation.verify.sweagent_commands import footer_folder
from trajectory_platform.traces.record import Episode

SESSION = "session"
FOLDER = "folder"
KEPT_BY_FORMAT = {"swe-agent": SESSION, "openhands": SESSION, "claude-code": FOLDER}
"""Formats whose harness keeps what a shell line left for the next, and what it keeps. SWE-agent
(its ``swe-rex`` bash session; its state footer shows the folder) and OpenHands (a persistent bash
session; each observation's ``working_dir``) run every line in one long-lived shell: the whole
session is kept (:data:`SESSION`), and a line that ends the shell leaves the next a fresh one.
Claude Code's Bash tool runs each line in a new shell (``source <snapshot> && eval '<line>' &&
pwd -P >| <cwd file>``) and carries its folder alone (:data:`FOLDER`): variables, functions,
aliases and options are gone at the next call (its documentation: "Environment variables do not
persist"), and the folder is the one the line ended in only where the line exited 0; a line that
failed or ended its shell (``exit``, ``set -e``) leaves the folder as it was before it."""
_MOVES = frozenset({"cd", "pushd", "popd"})
_STATE_SETTERS = _MOVES | {
    *("export", "declare", "typeset", "readonly", "unset", "alias", "unalias", "set", "shopt"),
    *("source", ".", "umask", "trap", "function"),
}
"""Commands that change what a shell holds for its next line (folder, directory stack, variables,
aliases, options, what a sourced file defines, traps, functions)."""
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\[[^]]*\])?\+?=")


def keeps_folder(
    source_format: str, records: list[CallRecord], folders: Sequence[str | None] | None = None
) -> bool:
    """Whether the shell of the episode (its ``source_format``, its calls) kept what a line left in
    it for its later calls. The log's own evidence first: what a ``pwd`` shown after a ``cd`` says
    (:func:`_shown_pwd`), then the folders its harness shows the shell in after each call
    (``folders``, :func:`shown_folders`; :func:`_followed_moves`), and only without either whether
    its format's harness does (:data:`KEPT_BY_FORMAT`). ``False`` for a log none of whose lines
    changes the shell's state (:func:`sets_state`): replay runs it as before."""
    lines = [r.shell_command for r in records if r.shell_command is not None]
    if not any(sets_state(line) for line in lines):
        return False
    shown = shown_evidence(records, folders or [None] * len(records))
    return shown if shown is not None else source_format in KEPT_BY_FORMAT


def kept_scope(
    source_format: str, records: list[CallRecord], folders: Sequence[str | None] | None = None
) -> str | None:
    """What replay keeps from one shell line to the next (``None``: nothing, every line from the
    start): where the shell kept its folder (:func:`keeps_folder`), what its format's harness keeps
    (:data:`KEPT_BY_FORMAT`; a harness not in the table that the log shows keeping its folder: the
    whole session, as a long-lived shell keeps it)."""
    if not keeps_folder(source_format, records, folders):
        return None
    return KEPT_BY_FORMAT.get(source_format, SESSION)


def shown_evidence(records: list[CallRecord], folders: Sequence[str | None]) -> bool | None:
    """What the log itself shows of whether its shell kept its folder (``None``: nothing): a
    ``pwd`` answer after a ``cd`` (:func:`_shown_pwd`), else the folders its harness shows after
    each call (:func:`_followed_moves`)."""
    shown = _shown_pwd(records)
    return shown if shown is not None else _followed_moves(records, folders)


def shown_folders(episode: Episode, records: list[CallRecord]) -> list[str | None]:
    """The folder the log's harness shows the agent's shell in after each call (``None``: not
    shown): the ``working_dir`` OpenHands records with each command's observation or Claude Code's
    ``cwd`` of the entry a result came in (kept by their adapters as ``extra_json.working_dirs``, by
    event index, where they differ), or SWE-agent's state footer (``(Current directory:
    /testbed/src)``) ending the answer."""
    at = {id(event): index for index, event in enumerate(episode.events)}
    recorded = _recorded_folders(episode.extra_json)
    folders: list[str | None] = []
    for record in records:
        answer = record.answer
        index = at.get(id(answer)) if answer is not None else None
        folder = recorded.get(index) if index is not None else None
        if folder is None and answer is not None:
            folder = footer_folder(answer.content or "")
        folders.append(folder.rstrip("/") or "/" if folder else None)
    return folders


def _recorded_folders(extra_json: str | None) -> dict[int, str]:
    """``extra_json``'s ``working_dirs`` (event index -> folder); empty where it holds none."""
    try:
        extra = json.loads(extra_json) if extra_json else None
    except ValueError:
        return {}
    found = extra.get("working_dirs") if isinstance(extra, dict) else None
    if not isinstance(found, dict):
        return {}
    return {int(k): v for k, v in found.items() if k.isdigit() and isinstance(v, str) and v.startswith("/")}


def _followed_moves(records: list[CallRecord], folders: Sequence[str | None]) -> bool | None:
    """What the shown folders say: after a line that moved the shell (the folder shown after it
    differs from the one shown before it), a next line that does not move shows the folder the
    move reached (kept) or the one before it (the shell started afresh). ``None`` where no such
    three calls are shown."""
    shell = [(r.shell_command or "", f) for r, f in zip(records, folders, strict=True) if r.shell_command]
    for (_, before), (moving, reached), (line, after) in zip(shell, shell[1:], shell[2:], strict=False):
        if before is None or reached is None or after is None or before == reached:
            continue
        if not moves(moving) or moves(line):
            continue
        if after in (reached, before):
            return after == reached
    return None


def _commands(line: str) -> Iterator[tuple[str, list[str]]]:
    """Each word of ``line`` that starts a command (first, or after an operator), with the words
    after it."""
    words = bash_words(line) or line.split()
    for i, word in enumerate(words):
        if i == 0 or is_operator(words[i - 1]):
            yield word, words[i + 1 :]


def moves(line: str) -> bool:
    """Whether a command of ``line`` changes the shell's folder (:data:`_MOVES`)."""
    return any(word in _MOVES for word, _ in _commands(line))


def sets_state(line: str) -> bool:
    """Whether a command of ``line`` (a word at the start or after an operator) changes the shell's
    state: one of :data:`_STATE_SETTERS`, an assignment standing alone (``X=1``, ``A=(a b)``; not
    the prefix of a command), or a function definition (``f() {``)."""
    for word, rest in _commands(line):
        if word in _STATE_SETTERS or word.endswith("()") or rest[:1] == ["()"]:
            return True
        if _ASSIGNMENT.match(word) and (not rest or is_operator(rest[0])):
            return True
    return False


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
        at = [i for i, w in enumerate(words) if w in _MOVES and (i == 0 or is_operator(words[i - 1]))]
        if at:
            moved = _plain_folder(words[1:2]) if at == [0] and words[0] == "cd" else ""
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


_RESTORE = "builtin shopt -s expand_aliases; builtin unset -v BASH_EXECUTION_STRING"
"""What starts each line of a kept shell, before the state is sourced: aliases expand, as in the
harnesses' interactive shells (they are restored on a line of their own, before the line they apply
to), and ``BASH_EXECUTION_STRING`` (the whole script ``bash -c`` runs: replay's own code) is not
there, as in an interactive shell."""
_WRITER = r"""{ __replay_rc=$? __replay_f=$-; builtin set +eux; builtin shopt -u expand_aliases; } 2>/dev/null
for __replay_p in "${PROMPT_COMMAND[@]}"; do builtin eval "$__replay_p"; done
__replay_save() {
  local IFS=$' \t\n' __replay_n __replay_i __replay_fl __replay_t
  builtin printf 'builtin cd -- %q\n' "${DIRSTACK[${#DIRSTACK[@]}-1]}"
  for ((__replay_i = ${#DIRSTACK[@]} - 2; __replay_i >= 0; __replay_i--)); do
    builtin printf 'builtin pushd -- %q >/dev/null\n' "${DIRSTACK[__replay_i]}"
  done
  builtin printf '%s\n' 'for __replay_n in $(builtin compgen -e); do' \
    '  case $__replay_n in PWD|SHLVL|_) ;; *) builtin unset -v "$__replay_n" ;; esac' 'done'
  builtin declare -p IFS
  for __replay_n in $(builtin compgen -v); do
    case $__replay_n in
      BASH*|IFS|__replay_*|DIRSTACK|EPOCHREALTIME|EPOCHSECONDS|EUID|FUNCNAME|GROUPS|HISTCMD|LINENO) ;;
      PIPESTATUS|PPID|PWD|RANDOM|SECONDS|SHELLOPTS|SHLVL|SRANDOM|UID|_) ;;
      *) builtin declare -p "$__replay_n" ;;
    esac
  done
  builtin printf '%s\n' 'builtin unset -v __replay_n'
  while builtin read -r _ __replay_fl __replay_n; do
    case $__replay_n in __replay_*) continue ;; esac
    builtin declare -f "$__replay_n"
    [[ $__replay_fl != *x* ]] || builtin printf 'builtin export -f %s\n' "$__replay_n"
  done < <(builtin declare -F)
  builtin alias -p
  __replay_t=$(builtin trap -p)  # a command substitution sees the shell's traps, a process one not
  while IFS= builtin read -r __replay_n; do
    [[ $__replay_n != "trap -- "* ]] || builtin printf 'builtin %s\n' "$__replay_n"
  done <<<"$__replay_t"
  builtin printf 'builtin umask %s\n' "$(builtin umask)"
  builtin shopt -p
  builtin printf '%s\n' 'builtin shopt -s expand_aliases'
  builtin set +o
  [[ $__replay_f != *e* ]] || builtin printf '%s\n' 'builtin set -e'
  [[ $__replay_f != *u* ]] || builtin printf '%s\n' 'builtin set -u'
  [[ $__replay_f != *x* ]] || builtin printf '%s\n' 'builtin set -x'
}
{ __replay_save >| @STATE@; } 2>/dev/null
builtin trap - EXIT
builtin exit "$__replay_rc"
"""
"""What runs after each line of a kept shell, once the line's own commands are over (so none of it
is there for the line to list: no function, variable or trap of replay's shows in ``declare -F``,
``set``, ``compgen`` or ``trap -p``). ``__replay_save`` writes the state as bash code that restores
it (bash's own words, so nothing of it is emulated piece by piece): the directory stack (its bottom
entry, then each ``pushd`` up to the folder), the variables (``declare -p``: exported or not,
arrays, attributes; bash's own read-only and per-process ones left out, and the environment's
exported names unset first, so an ``unset`` holds), functions (``declare -f``, ``export -f``),
aliases, traps (the line's own ``EXIT`` handler included), the ``umask``, ``shopt`` and ``set``
options (``-e``, ``-u``, ``-x`` as the line left them: they are off while the state is written, so
neither a failing write nor a trace of it ends or shows in the line). ``PROMPT_COMMAND`` (one, or a
bash 5.1 array of them) runs first, as an interactive shell runs it before its next prompt. Then the
``EXIT`` handler is taken away before the shell ends: a long-lived shell runs it when the shell
itself ends, not after each line (the next line restores it). A line that ends its shell (``exit``, a
failure under ``set -e``, ``exec``) never gets here: it records no state, its own ``EXIT`` handler
runs as bash runs it when a shell exits, and the next line starts in a fresh shell, as the harness
starts one."""


_FOLDER_WRITER = """{ __replay_rc=$?; builtin set +eux; } 2>/dev/null
{ [[ $__replay_rc != 0 ]] || builtin printf 'builtin cd -- %q\\n' "$(builtin pwd -P)" >| @STATE@
} 2>/dev/null
builtin exit "$__replay_rc"
"""
"""What runs after each line of a shell whose harness carries its folder alone (:data:`FOLDER`):
the folder the line ended in, where it exited 0 (Claude Code's ``&& pwd -P >| <cwd file>``). The
folder before the line was written first (:func:`in_kept_shell`), so a line that failed or ended its
shell leaves that one. Nothing else is written: the line's own ``EXIT`` handler runs when its shell
ends, as each call's shell ends."""


def in_kept_shell(command: str, state_file: str, previous: str | None, scope: str = SESSION) -> str:
    """``command`` as a kept shell runs it: in the state the previous line left (recorded in the
    sandbox file ``previous``; none, or a file the previous line never wrote because it ended its
    shell: as a fresh shell starts), writing the state it leaves to ``state_file`` (a new name for
    every line, so a line that ends its shell leaves the next one nothing to source) once its own
    commands are over (:data:`_WRITER`). Where the harness keeps the folder alone (``scope``
    :data:`FOLDER`), the folder is written before the line too, and after it only where it exited 0
    (:data:`_FOLDER_WRITER`), and the line runs as that harness runs it, ``eval``-ed on the script's
    first line (so ``$LINENO`` counts as there: 1 on a one-line call). Prints nothing of its own;
    the command's exit code is the line's."""
    restore = f"; {{ builtin . {shlex.quote(previous)}; }} 2>/dev/null" if previous else ""
    state = shlex.quote(state_file)
    if scope == FOLDER:  # the line is its harness's ``eval``, on the shell's first line ($LINENO)
        before = f"; {{ builtin printf 'builtin cd -- %q\\n' \"$(builtin pwd -P)\" >| {state}; }} 2>/dev/null"
        line = f"eval {shlex.quote(command)}"  # not `builtin eval`: bash numbers its lines otherwise
        return f"{_RESTORE}{restore}{before}; {line}\n{_FOLDER_WRITER.replace('@STATE@', state)}"
    return f"{_RESTORE}{restore}\n{command}\n{_WRITER.replace('@STATE@', state)}"


def session_end(previous: str) -> str:
    """What ends a kept shell after its last line: the state that line left (``previous``), then
    ``exit``, so an ``EXIT`` handler the agent's lines left runs as it runs when a long-lived shell
    ends."""
    return f"{{ builtin . {shlex.quote(previous)}; }} 2>/dev/null\nbuiltin exit 0"


def pending_exit_handler(recorded: str | None) -> bool:
    """Whether the state a kept shell's line recorded (``recorded``, :func:`in_kept_shell`'s state
    file's text; ``None``: none) holds an ``EXIT`` handler, which a long-lived shell runs when it
    ends."""
    return recorded is not None and any(
        line.startswith("builtin trap -- ") and line.endswith(" EXIT") for line in recorded.splitlines()
    )
