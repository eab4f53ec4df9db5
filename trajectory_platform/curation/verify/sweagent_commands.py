"""SWE-agent's pre-1.0 built-in commands, re-executed in the replay sandbox as SWE-agent ran them.

Before 1.0, SWE-agent gave its agent a windowed file viewer and a line editor as bash functions
sourced into the container's shell (``config/commands/defaults.sh``, ``edit_linting.sh``,
``search.sh``): ``open``, ``goto``, ``scroll_up``, ``scroll_down``, ``create``,
``edit START:END`` (its replacement text ending on a line ``end_of_edit``), ``find_file``,
``search_file`` and ``search_dir``. A plain shell lacks them, so :func:`command_script` wraps the
recorded action line in a script that defines them first (:data:`FUNCTIONS`: written here from the
commands' documented behaviour, with bash arithmetic where SWE-agent called ``jq``; only their
printed strings follow SWE-agent's, since those are what the logs recorded and replay compares)
and runs it with ``/bin/bash -c`` in the sandbox, as any recorded
shell command is: bash parses the agent's arguments exactly as SWE-agent's shell did, and nothing
the log holds ever runs outside the sandbox.

The viewer's state (the open file, the window's line, the scroll count) lived in the agent's
long-running shell; a replayed command runs in a fresh one, so the host carries it
(:class:`WindowState`) into each script and reads the new state from a last line the script prints
after a per-replay random marker (:func:`split_report`), which is taken off the output.

The viewer's size is the run's own: ``WINDOW`` and ``OVERLAP`` from the environment variables the
log's recorded configuration holds (:func:`recorded_viewer`; SWE-agent's defaults, :data:`WINDOW`
and :data:`OVERLAP`, when it holds none). ``edit``'s linter decides on the host
(:mod:`edit_lint`: it parses, it never runs the file): the edit runs first as if accepted, the
host lints the file before and after, and an edit that introduced errors runs again from the same
files with them (``LINT_ERRORS``), printing SWE-agent's refusal and restoring the file. Paths print
under the repository root the log's own state footer names (:func:`recorded_root`): the sandbox
shows the workspace there too when it may (``replay.repository_root``), and where it may not
(a root shadowing a system folder), its own workspace path is written as that root (:func:`shown`).
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Collection
from dataclasses import dataclass

from trajectory_platform.traces.record import Episode

COMMANDS = (
    "open",
    "goto",
    "scroll_up",
    "scroll_down",
    "create",
    "edit",
    "find_file",
    "search_file",
    "search_dir",
)
"""The pre-1.0 commands replay re-executes (``submit`` ends the episode and is not replayed)."""
WINDOW = 100
"""Lines the viewer shows (SWE-agent's default ``WINDOW``)."""
OVERLAP = 2
"""Lines a scroll keeps in view (SWE-agent's default ``OVERLAP``)."""
VIEWER_VARIABLES = ("WINDOW", "OVERLAP")
"""The environment variables of a run's configuration that size the viewer."""
EDIT_END = "end_of_edit"
REJECTED = "Your proposed edit has introduced new syntax error(s)."
"""How SWE-agent's ``edit`` begins its answer when the linter rejects the edit (file unchanged)."""
_EDITED = re.compile(r"(\d+):(\d+):(\d+)")
_FOOTER_ROOT = re.compile(r"\(Open file: ([^\n]*)\)\n\(Current directory: ([^\n]*)\)\n?(?:bash-\$)?\s*\Z")

FUNCTIONS = r"""
_lines() { grep -c '' "$1"; }
_count() { local n; n=$(wc -l); echo $((n)); }
_p() {
    if [ -n "$SHOW_ROOT" ] && [[ $1 == "$SHOW_ROOT" || $1 == "$SHOW_ROOT"/* ]]; then
        printf '%s' "$WS${1#"$SHOW_ROOT"}"
    else
        printf '%s' "$1"
    fi
}
_print() {
    local total_lines=$(_lines "$CURRENT_FILE")
    local half=$((WINDOW / 2))
    echo "[File: $(realpath "$CURRENT_FILE") ($total_lines lines total)]"
    local lines_above=$((CURRENT_LINE - (WINDOW + 1) / 2))
    local lines_below=$((total_lines - CURRENT_LINE - half))
    local last=$((CURRENT_LINE + half))
    if [ $last -lt $half ]; then last=$half; fi
    if [ $lines_above -gt 0 ]; then echo "($lines_above more lines above)"; fi
    grep -n '$' "$CURRENT_FILE" | head -n $last | tail -n $WINDOW
    if [ $lines_below -gt 0 ]; then echo "($lines_below more lines below)"; fi
}
_constrain_line() {
    if [ -z "$CURRENT_FILE" ]; then
        echo "No file open. Use the open command first."
        return
    fi
    local max_line=$(_lines "$CURRENT_FILE")
    local half=$((WINDOW / 2))
    if [ $CURRENT_LINE -gt $((max_line - half)) ]; then CURRENT_LINE=$((max_line - half)); fi
    if [ $CURRENT_LINE -lt $half ]; then CURRENT_LINE=$half; fi
}
open() {
    if [ -z "$1" ]; then
        echo "Usage: open <file>"
        return
    fi
    local path=$(_p "$1")
    local line_number=$((WINDOW / 2))
    if [ -n "$2" ]; then
        if ! [[ $2 =~ ^[0-9]+$ ]]; then
            echo "Usage: open <file> [<line_number>]"
            echo "Error: <line_number> must be a number"
            return
        fi
        local max_line=$(_lines "$path")
        if [ $((10#$2)) -gt $max_line ]; then
            echo "Warning: <line_number> ($2) is greater than the number of lines in the file ($max_line)"
            echo "Warning: Setting <line_number> to $max_line"
            line_number=$max_line
        elif [ $((10#$2)) -lt 1 ]; then
            echo "Warning: <line_number> ($2) is less than 1"
            echo "Warning: Setting <line_number> to 1"
            line_number=1
        else
            line_number=$((10#$2 + WINDOW / 2 - WINDOW / 6))
            if [ $line_number -lt 1 ]; then line_number=1; fi
        fi
    fi
    if [ -f "$path" ]; then
        CURRENT_FILE=$(realpath "$path")
        CURRENT_LINE=$line_number
        _constrain_line
        _print
    elif [ -d "$path" ]; then
        echo "Error: $1 is a directory. You can only open files. Use cd or ls to navigate directories."
    else
        echo "File $1 not found"
    fi
}
goto() {
    if [ $# -gt 1 ]; then
        echo "goto allows only one line number at a time."
        return
    fi
    if [ -z "$CURRENT_FILE" ]; then
        echo "No file open. Use the open command first."
        return
    fi
    if [ -z "$1" ]; then
        echo "Usage: goto <line>"
        return
    fi
    if ! [[ $1 =~ ^[0-9]+$ ]]; then
        echo "Usage: goto <line>"
        echo "Error: <line> must be a number"
        return
    fi
    local max_line=$(_lines "$CURRENT_FILE")
    if [ $((10#$1)) -gt $max_line ]; then
        echo "Error: <line> must be less than or equal to $max_line"
        return
    fi
    CURRENT_LINE=$((10#$1 + WINDOW / 2 - WINDOW / 6))
    if [ $CURRENT_LINE -lt 1 ]; then CURRENT_LINE=1; fi
    _constrain_line
    _print
}
_scroll_warning_message() {
    if [ "$LAST_ACTION" != "scroll_up" ] && [ "$LAST_ACTION" != "scroll_down" ]; then SCROLL_COUNT=0; fi
    SCROLL_COUNT=$((SCROLL_COUNT + 1))
    if [ $SCROLL_COUNT -ge 3 ]; then
        echo ""
        echo "WARNING: Scrolling many times in a row is very inefficient."
        echo "If you know what you are looking for, use \`search_file <pattern>\` instead."
        echo ""
    fi
}
_scroll() {
    if [ -z "$CURRENT_FILE" ]; then
        echo "No file open. Use the open command first."
        return
    fi
    CURRENT_LINE=$((CURRENT_LINE + $1))
    _constrain_line
    _print
    _scroll_warning_message
}
scroll_down() { _scroll $((WINDOW - OVERLAP)); }
scroll_up() { _scroll $((OVERLAP - WINDOW)); }
create() {
    if [ -z "$1" ]; then
        echo "Usage: create <filename>"
        return
    fi
    if [ -e "$(_p "$1")" ]; then
        echo "Error: File '$1' already exists."
        open "$1"
        return
    fi
    printf "\n" > "$(_p "$1")"
    open "$1"
}
edit() {
    if [ -z "$CURRENT_FILE" ]; then
        echo 'No file open. Use the `open` command first.'
        return
    fi
    local start_line end_line
    if [ $# -eq 2 ]; then
        start_line=$1
        end_line=$2
    else
        start_line="$(echo $1: | cut -d: -f1)"
        end_line="$(echo $1: | cut -d: -f2)"
    fi
    if [ -z "$start_line" ] || [ -z "$end_line" ]; then
        echo "Usage: edit <start_line>:<end_line>"
        return
    fi
    local re='^[0-9]+$'
    if ! [[ $start_line =~ $re ]]; then
        echo "Usage: edit <start_line>:<end_line>"
        echo "Error: start_line must be a number"
        return
    fi
    if ! [[ $end_line =~ $re ]]; then
        echo "Usage: edit <start_line>:<end_line>"
        echo "Error: end_line must be a number"
        return
    fi
    start_line=$((10#$start_line - 1))
    end_line=$((10#$end_line))
    local replacement=() line line_count=0
    while IFS= read -r line; do replacement+=("$line"); line_count=$((line_count + 1)); done
    local backup
    backup=$(cat "$CURRENT_FILE"; printf x)
    local lines
    mapfile -t lines < "$CURRENT_FILE"
    local new_lines=("${lines[@]:0:$start_line}" "${replacement[@]}" "${lines[@]:$end_line}")
    printf "%s\n" "${new_lines[@]}" >| "$CURRENT_FILE"
    EDITED="$((start_line + 1)):$end_line:$line_count"
    if [ -z "$LINT_ERRORS" ]; then
        CURRENT_LINE=$start_line
        _constrain_line
        _print
        echo "File updated. Please review the changes and make sure they are correct" \
            "(correct indentation, no duplicate lines, etc). Edit the file again if necessary."
        return
    fi
    echo "$REJECTED Please read this error message carefully and then retry editing the file."
    echo ""
    echo "ERRORS:"
    echo "$LINT_ERRORS"
    echo ""
    local line_before=$CURRENT_LINE window_before=$WINDOW
    CURRENT_LINE=$((line_count / 2 + start_line))
    WINDOW=$((line_count + 10))
    echo "This is how your edit would have looked if applied"
    echo "-------------------------------------------------"
    _constrain_line
    _print
    echo "-------------------------------------------------"
    echo ""
    printf '%s' "${backup%x}" >| "$CURRENT_FILE"
    CURRENT_LINE=$(((end_line - start_line + 1) / 2 + start_line))
    WINDOW=$((end_line - start_line + 10))
    echo "This is the original code before your edit"
    echo "-------------------------------------------------"
    _constrain_line
    _print
    echo "-------------------------------------------------"
    CURRENT_LINE=$line_before
    WINDOW=$window_before
    echo "Your changes have NOT been applied. Please fix your edit command and try again."
    echo "You either need to 1) Specify the correct start/end line arguments or 2) Correct your edit code."
    echo "DO NOT re-run the same failed edit command. Running it again will lead to the same error."
}
_dir_arg() {  # find_file's and search_dir's folder: ./ without a second argument, else that one
    if [ $# -eq 0 ]; then
        dir="./"
    elif [ -d "$(_p "$1")" ]; then
        dir="$(_p "$1")"
    else
        echo "Directory $1 not found"
        return 1
    fi
}
search_dir() {
    if [ $# -ne 1 ] && [ $# -ne 2 ]; then
        echo "Usage: search_dir <search_term> [<dir>]"
        return
    fi
    local search_term="$1" dir
    _dir_arg "${@:2}" || return 0
    dir=$(realpath "$dir")
    local matches=$(find "$dir" -type f ! -path '*/.*' -exec grep -nIH -- "$search_term" {} + \
        | cut -d: -f1 | sort | uniq -c)
    if [ -z "$matches" ]; then
        echo "No matches found for \"$search_term\" in $dir"
        return
    fi
    local num_matches=0 count path
    while read -r count path; do num_matches=$((num_matches + count)); done <<< "$matches"
    local num_files=$(echo "$matches" | _count)
    if [ $num_files -gt 100 ]; then
        echo "More than $num_files files matched for \"$search_term\" in $dir. Please narrow your search."
        return
    fi
    echo "Found $num_matches matches for \"$search_term\" in $dir:"
    while read -r count path; do echo "$path ($count matches)"; done <<< "$matches"
    echo "End of matches for \"$search_term\" in $dir"
}
search_file() {
    if [ -z "$1" ]; then
        echo "Usage: search_file <search_term> [<file>]"
        return
    fi
    if [ -n "$2" ]; then
        if [ -f "$(_p "$2")" ]; then
            local file="$(_p "$2")"
        else
            echo "Usage: search_file <search_term> [<file>]"
            echo "Error: File name $2 not found. Please provide a valid file name."
            return
        fi
    else
        if [ -z "$CURRENT_FILE" ]; then
            echo "No file open. Use the open command first."
            return
        fi
        local file="$CURRENT_FILE"
    fi
    local search_term="$1"
    file=$(realpath "$file")
    local matches=$(grep -nH -- "$search_term" "$file")
    if [ -z "$matches" ]; then
        echo "No matches found for \"$search_term\" in $file"
        return
    fi
    local num_matches=$(echo "$matches" | _count)
    local num_lines=$(echo "$matches" | cut -d: -f1 | sort | uniq | _count)
    if [ $num_lines -gt 100 ]; then
        echo "More than $num_lines lines matched for \"$search_term\" in $file. Please narrow your search."
        return
    fi
    echo "Found $num_matches matches for \"$search_term\" in $file:"
    echo "$matches" | cut -d: -f1-2 | sort -u -t: -k2,2n | while IFS=: read -r filename line_number; do
        echo "Line $line_number:$(sed -n "${line_number}p" "$file")"
    done
    echo "End of matches for \"$search_term\" in $file"
}
find_file() {
    if [ $# -ne 1 ] && [ $# -ne 2 ]; then
        echo "Usage: find_file <file_name> [<dir>]"
        return
    fi
    local file_name="$1" dir
    _dir_arg "${@:2}" || return 0
    dir=$(realpath "$dir")
    local matches=$(find "$dir" -type f -name "$file_name" | sort)
    if [ -z "$matches" ]; then
        echo "No matches found for \"$file_name\" in $dir"
        return
    fi
    local num_matches=$(echo "$matches" | _count)
    echo "Found $num_matches matches for \"$file_name\" in $dir:"
    echo "$matches"
}
"""
"""The commands' bash bodies, written after SWE-agent's documented behaviour and printing its
strings, with ``jq`` arithmetic done by bash (``jq``'s halves of an odd window, floored above
the window and rounded below it, are the integer expressions ``_print`` uses), ``edit``'s linter
decided by the host (``LINT_ERRORS``: empty, the edit stands; else the refusal, listing them;
``EDITED`` reports the lines it replaced), paths under the recorded root mapped to the workspace (``_p``),
and ``find_file``'s matches sorted (``find`` lists in the file system's own order, which a replay
on another disk does not share: the comparison sorts the recorded listing too,
:data:`UNORDERED`)."""
UNORDERED = ("find_file",)
"""Commands whose listed lines are compared in any order."""


@dataclass(frozen=True)
class Setting:
    """What stays fixed over one episode's replay: the per-replay report marker, the repository
    root the log shows (:func:`recorded_root`) and the viewer's size (:func:`recorded_viewer`)."""

    marker: str
    root: str | None = None
    window: int = WINDOW
    overlap: int = OVERLAP


@dataclass(frozen=True)
class Report:
    """What one command's script printed: its own output, the viewer's state after it, the
    sandbox's workspace path (``None`` without a report) and, for an ``edit`` that wrote the file,
    the lines it replaced and how many it wrote (``first``, ``last``, ``count``; 1-based);
    ``checked`` is false for a 1.0 tool whose rendering replay cannot reproduce
    (:mod:`sweagent_tools`: a ``filemap`` of a file Python cannot parse)."""

    text: str
    state: WindowState
    workspace: str | None = None
    edited: tuple[int, int, int] | None = None
    checked: bool = True


@dataclass(frozen=True)
class WindowState:
    """The viewer's state between commands: the open file (workspace-relative; absolute when it
    lies outside the workspace; empty when none), the window's centre line, the consecutive scroll
    count and the previous action's command line (a third scroll in a row warns)."""

    file: str = ""
    line: int = 0
    scroll_count: int = 0
    last_action: str = ""


def command_name(raw: str) -> str | None:
    """The pre-1.0 command a text action line runs (its first word, when one of :data:`COMMANDS`)."""
    first = raw.split(maxsplit=1)[:1]
    return first[0] if first and first[0] in COMMANDS else None


def recorded_root(episode: Episode) -> str | None:
    """The repository root the agent's container held: the directory the first SWE-agent state
    footer (``(Current directory: /repo)``) shows; ``None`` when no observation has one."""
    for event in episode.events:
        if event.kind == "tool" and (folder := footer_folder(event.content or "")) is not None:
            return folder.rstrip("/") or None
    return None


def footer_folder(text: str) -> str | None:
    """The directory the state footer ending ``text`` (an answer) shows: where SWE-agent's shell,
    which keeps its folder between calls, was after the call; ``None`` without a footer."""
    found = _FOOTER_ROOT.search(text)
    return found.group(2) if found else None


def unknown_footer_path(text: str, root: str | None, known: Collection[str], called: str) -> str | None:
    """The first path of ``text``'s state footer (its open file, its directory) that names nothing
    the replay knows, or ``None``. A path is known where it is the recorded ``root``, or a file or
    folder under it of S0 or of the replayed final files (``known``, root-relative), or where the
    agent's own calls name it (``called``: a file created, opened, then removed). The footer is
    stripped before comparing, so an instruction spelled as a path there (``/NOTE_TO_AGENTS/...``)
    fitted its path grammar and was replay-verified (red team rtforge9 F10, 2026-12-06)."""
    found = _FOOTER_ROOT.search(text)
    if found is None:
        return None
    for path in found.groups():
        shown = path.rstrip("/")
        if shown in ("n/a", "") or shown == root:
            continue
        relative = shown[len(root) + 1 :] if root is not None and shown.startswith(root + "/") else None
        if relative not in known and shown not in called and (relative is None or relative not in called):
            return path
    return None


def recorded_viewer(episode: Episode) -> tuple[int, int]:
    """The run's ``WINDOW`` and ``OVERLAP``: the environment variables its recorded configuration
    held (the SWE-agent adapter keeps them as ``env_variables``), else SWE-agent's defaults."""
    variables = episode.extra().get("env_variables")
    found = variables if isinstance(variables, dict) else {}
    window, overlap = (found.get(name) for name in VIEWER_VARIABLES)
    return (
        window if isinstance(window, int) and window > 0 else WINDOW,
        overlap if isinstance(overlap, int) and overlap >= 0 else OVERLAP,
    )


def command_script(raw: str, state: WindowState, setting: Setting, lint_errors: str = "") -> str:
    """The bash script that runs the recorded action line ``raw`` with the commands defined and
    ``state`` restored, and ends by printing the setting's marker and the new state
    (:func:`split_report`).

    An ``edit`` line's replacement text is fed to it as SWE-agent did, as a here-document ending at
    the line ``end_of_edit``; ``lint_errors`` (the host's :func:`edit_lint.listing`) makes it the
    linter's refusal."""
    head, _, body = raw.partition("\n")
    if command_name(head) == "edit" and body:
        raw = f"{head} << '{EDIT_END}'\n{body.rstrip(chr(10))}\n"
    relative = state.file and not state.file.startswith("/")
    current = f'"$WS"/{shlex.quote(state.file)}' if relative else shlex.quote(state.file)
    prologue = "\n".join(
        (
            "WS=$(pwd -P)",
            f"WINDOW={int(setting.window)}",
            f"OVERLAP={int(setting.overlap)}",
            f"SHOW_ROOT={shlex.quote(setting.root or '')}",
            f"CURRENT_FILE={current}",
            f"CURRENT_LINE={int(state.line)}",
            f"SCROLL_COUNT={int(state.scroll_count)}",
            f"LAST_ACTION={shlex.quote(state.last_action)}",
            f"REJECTED={shlex.quote(REJECTED)}",
            f"LINT_ERRORS={shlex.quote(lint_errors)}",
            "EDITED=",
            f"_report() {{ printf '\\n%s\\t%s\\t%s\\t%s\\t%s\\t%s\\n' {shlex.quote(setting.marker)} "
            '"$WS" "$CURRENT_FILE" "$CURRENT_LINE" "$SCROLL_COUNT" "$EDITED"; }',
            "trap _report EXIT",
        )
    )
    return f"{prologue}\n{FUNCTIONS}\n{raw}"


def split_report(output: str, marker: str, state: WindowState) -> Report:
    """The command's own output and what its script reported after ``marker``.

    Without the report (the output was cut, or the script was killed) the state is kept and the
    workspace path is ``None``. A 1.0 tool's report (:mod:`sweagent_tools`) has a sixth field,
    whether its output can be compared."""
    head, sep, tail = output.rpartition(f"\n{marker}\t")
    fields = tail.rstrip("\n").split("\t") if sep else []
    if len(fields) not in (5, 6) or not fields[2].lstrip("-").isdigit() or not fields[3].isdigit():
        return Report(output, state)
    workspace, current, line, scrolls, edited = fields[:5]
    rel = current[len(workspace) + 1 :] if current.startswith(f"{workspace}/") else current
    span = _EDITED.fullmatch(edited)
    lines = (int(span[1]), int(span[2]), int(span[3])) if span else None
    checked = fields[5:] != ["0"]
    return Report(head, WindowState(rel, int(line), int(scrolls)), workspace, lines, checked)


def shown(output: str, workspace: str | None, root: str | None) -> str:
    """``output`` with the sandbox's workspace path written as the recorded repository root: the
    path itself and paths under it, not a longer name it begins (``/workspaces``, ``/workspace-2``)."""
    if not workspace or root is None or workspace == root:
        return output
    return re.sub(rf"{re.escape(workspace)}(?![\w-]|\.\w)", lambda _: root, output)


def edit_rejected(text: str) -> bool:
    """Whether an ``edit`` answer is the linter's rejection (the file left as it was)."""
    return text.lstrip().startswith(REJECTED.rstrip("."))
