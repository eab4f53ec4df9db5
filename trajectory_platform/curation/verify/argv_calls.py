"""The command lines programs are started with from argv lists in code, for the action screen.

A script that starts a program from an argv list (``subprocess.run(["rm", "-rf", "/srv/data"])``,
``os.execvp``, ``asyncio.create_subprocess_exec``, Node's ``spawnSync``, Go's ``exec.Command``)
names no shell line, so the command-safety screen (:mod:`.action_safety`) saw nothing of it (red
team, round 10: deletes outside the workspace written, run and deleted in one turn, or kept in the
diff's Python, were trained). :func:`argv_lines` writes each such constant argv as the line bash
would run, and the screen's one rule table reads it. Text, not a parse: the code sits in shell
lines (heredocs, ``python3 -c "..."``) and in other languages as often as in a Python module.
"""

from __future__ import annotations

import re
import shlex

from trajectory_platform.curation.call_arguments import call_arguments

_STARTERS = re.compile(
    r"(?:run|call|Popen|check_call|check_output|create_subprocess_exec|posix_spawnp?|exec[lv]?p?e?"
    r"|spawn[lv]?p?e?|spawnSync|execFile(?:Sync)?|execa(?:Sync)?|Command|system)"
)
"""The names of calls that start a program from an argv (Python's ``subprocess`` and ``os.exec*`` /
``spawn*``, asyncio's ``create_subprocess_exec``, Node's ``spawn`` / ``execFile``, Go's
``exec.Command``, Ruby's and Perl's many-argument ``system``)."""
_CALL = re.compile(r"(?<!\w)(?:[A-Za-z_]\w*\.)*([A-Za-z_]\w*)\s*\(")
_STRING = re.compile(r"""[rbuRBU]?(?:"((?:[^"\\\n]|\\.)*)"|'((?:[^'\\\n]|\\.)*)')""")
_KEYWORD_ARGUMENT = re.compile(r"\s*\w+\s*[=:](?!=)")
_REACH = 2000
"""How far past its ``(`` a starting call's arguments are read: an argv list may be long."""


def _starter_names(text: str) -> set[str]:
    """The local names ``text`` binds a program-starting call to (``from subprocess import run as
    go``, ``import subprocess as sp``'s ``sp.call`` needs none: the call's own name counts)."""
    names: set[str] = set()
    for imported, local in re.findall(r"\b([A-Za-z_]\w*)\s+as\s+([A-Za-z_]\w*)", text):
        if _STARTERS.fullmatch(imported):
            names.add(local)
    return names


def argv_lines(text: str) -> list[str]:
    """The command lines that calls in ``text`` start from constant argv lists, written as bash
    would need them (``subprocess.run(["rm", "-rf", "/srv/data"])`` is ``rm -rf /srv/data``;
    ``os.execvp("rm", ["rm", ...])`` is ``rm rm ...``, whose operands are read all the same):
    every string literal of the call's positional arguments, in order, lists flattened. A script
    that starts a program this way names no shell line, so the rules saw nothing of it (red team,
    round 10: deletes outside the workspace through ``subprocess``, ``os.execvp``,
    ``asyncio.create_subprocess_exec``, an imported alias, in a heredoc script or the diff's
    Python). A call with one literal is a line already read as one (a quoted line inside code)."""
    starters = _starter_names(text)
    lines = []
    for match in _CALL.finditer(text):
        name = match.group(1)
        if not (_STARTERS.fullmatch(name) or name in starters):
            continue
        spans = call_arguments(text, match.end(), reach=_REACH, unclosed=True) or []
        positional = [text[a:b] for a, b in spans if not _KEYWORD_ARGUMENT.match(text[a:b])]
        literals = [m for argument in positional for m in _STRING.finditer(argument)]
        words = [m.group(1) if m.group(1) is not None else m.group(2) for m in literals]
        if len(words) >= 2:
            lines.append(shlex.join(words))
    return lines
