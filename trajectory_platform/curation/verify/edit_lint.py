"""The linter of SWE-agent's pre-1.0 ``edit``, for replay: which errors an edit introduced.

SWE-agent (0.7) ran ``flake8 --isolated --select=F821,F822,F831,E111,E112,E113,E999,E902`` on a
Python file before and after each ``edit`` and refused the edit (the file restored) when the
second run showed an error the first did not. Its ``_split_string`` helper decided "did not": an
error above the edited lines keeps its line number, one below them moves by the lines the edit
added, and one inside them is never forgiven. The refusal lists each new error as
``- CODE message`` (:func:`listing`). Replay must refuse the same edits, or an episode whose agent
met an undefined-name refusal would read as drift.

flake8 is not a dependency; the same checks come from two parsers the platform already has, with
flake8's message texts:

- ``E999``: like flake8, the file must first parse with Python's own parser (:func:`ast.parse`, the
  one flake8 uses); if it does not, that is the only error, ``E999 SyntaxError: <message>``.
- ``F821``, ``F822``, ``E111``, ``E112``, ``E113``: ruff's rules of the same codes (ruff
  re-implements pyflakes' and pycodestyle's rules; its ``E11x`` are preview rules, hence
  ``--preview``), their messages rewritten to pyflakes' and pycodestyle's wording.
- ``F831`` (duplicate argument): ruff reports it as a syntax error, ``Duplicate parameter``.

``E902`` (flake8 could not read the file) cannot occur: the file is text replay holds.

This runs on the host, not in the sandbox: both parsers read the source and never execute it (the
static stage lints post-images the same way), ruff reads no configuration (``--isolated``) and gets
the text on stdin in an empty temporary directory.
"""

from __future__ import annotations

import json
import re
import subprocess
import tempfile
from dataclasses import dataclass, replace

from trajectory_platform.curation.verify.pysource import parse_module
from trajectory_platform.curation.verify.static import ruff_binary

RUFF_RULES = "F821,F822,E111,E112,E113"
"""SWE-agent's selection that ruff implements under the same codes (``F831`` and ``E999`` aside)."""
RUFF_TIMEOUT_S = 30.0
_UNDEFINED = re.compile(r"Undefined name `(.+?)`")
_DUPLICATE = re.compile(r'Duplicate parameter "(.+?)"')


class LintUnavailable(RuntimeError):
    """ruff could not lint a file (not installed, crashed, or answered something unreadable)."""


@dataclass(frozen=True)
class LintError:
    """One error as flake8 reports it: its line and column, and ``CODE message`` (``problem``)."""

    line: int
    column: int
    problem: str


def lint(source: str) -> list[LintError]:
    """flake8's errors of SWE-agent's selection in a Python ``source``, in flake8's order."""
    try:
        parse_module(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:  # ValueError: a NUL byte
        line = getattr(exc, "lineno", None) or 1
        column = getattr(exc, "offset", None) or 0
        message = exc.args[0] if exc.args else str(exc)
        return [LintError(line, column, f"E999 {type(exc).__name__}: {message}")]
    found = [error for item in _ruff(source) if (error := _flake8_error(item)) is not None]
    return sorted(found, key=lambda e: (e.line, e.column))


def introduced(
    before: list[LintError], after: list[LintError], first: int, last: int, new_lines: int
) -> list[LintError]:
    """The errors of ``after`` an edit of lines ``first``..``last`` (1-based, inclusive) into
    ``new_lines`` lines did not find in ``before``, with SWE-agent's line bookkeeping."""
    shift = new_lines - (last - first + 1)
    known = {
        replace(error, line=error.line + shift) if error.line > last else error
        for error in before
        if not first <= error.line <= last
    }
    return [error for error in after if error not in known]


def listing(errors: list[LintError]) -> str:
    """The refusal's list of errors, one ``- CODE message`` line each."""
    return "\n".join(f"- {error.problem}" for error in errors)


def _ruff(source: str) -> list[dict[str, object]]:
    """ruff's JSON findings for ``source`` (raises :class:`LintUnavailable`)."""
    ruff = ruff_binary()
    if ruff is None:
        raise LintUnavailable("ruff is not installed: an edited file cannot be linted")
    argv = [
        ruff,
        "check",
        "--isolated",
        "--no-cache",
        "--preview",
        "--select",
        RUFF_RULES,
        "--output-format",
        "json",
        "--stdin-filename",
        "edited.py",
        "-",
    ]
    with tempfile.TemporaryDirectory(prefix="tp-edit-lint-") as empty:
        try:
            proc = subprocess.run(
                argv,
                input=source,
                capture_output=True,
                text=True,
                cwd=empty,
                timeout=RUFF_TIMEOUT_S,
                check=False,
                env={"NO_COLOR": "1", "PATH": "/usr/bin:/bin"},
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise LintUnavailable(f"ruff could not lint an edited file: {exc}") from exc
    try:
        found = json.loads(proc.stdout)
    except json.JSONDecodeError as exc:
        raise LintUnavailable(f"ruff exited {proc.returncode}: {proc.stderr.strip()[:200]}") from exc
    if not isinstance(found, list):
        raise LintUnavailable("ruff's JSON output is not a list of findings")
    return found


def _flake8_error(item: dict[str, object]) -> LintError | None:
    """A ruff finding as flake8 words it, or ``None`` for one outside SWE-agent's selection."""
    code, message = item.get("code"), str(item.get("message") or "")
    location = item.get("location")
    where = location if isinstance(location, dict) else {}
    line, column = int(where.get("row") or 1), int(where.get("column") or 0)
    named = _UNDEFINED.match(message)
    if code == "F821" and named:
        return LintError(line, column, f"F821 undefined name '{named.group(1)}'")
    if code == "F822" and named:
        return LintError(line, column, f"F822 undefined name '{named.group(1)}' in __all__")
    if isinstance(code, str) and code.startswith("E11") and message:
        return LintError(line, column, f"{code} {message[0].lower()}{message[1:]}")
    duplicate = _DUPLICATE.match(message) if code is None else None
    if duplicate:
        return LintError(
            line, column, f"F831 duplicate argument '{duplicate.group(1)}' in function definition"
        )
    return None
