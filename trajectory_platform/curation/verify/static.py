"""Stage 2, static invariants: the patched Python parses, lints clean of new fatal errors, and adds
no shell execution, dynamic eval, or writes outside the workspace.

With a fixture the diff is applied to S0 and whole files are checked, comparing against S0 so only
what the episode introduced counts. Without one (an imported log) the added lines are inspected on
their own, best effort. Lint runs ruff's fatal rules (undefined names, syntax) on the changed files,
pre and post in one invocation, when ruff is installed; a missing ruff is a note, not a failure.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

from trajectory_platform.curation.verify.context import DiffView
from trajectory_platform.curation.verify.pysource import inspect_fragment, new_counts, parse_python
from trajectory_platform.curation.verify.verdicts import Finding, StageVerdict

SECURITY_CODES = (
    "shell_exec",
    "shell_injection",
    "dynamic_eval",
    "write_outside_workspace",
    "network_access",
)
LINT_RULES = "F821,F822,F823,E9"


def _unsafe_path(path: str) -> bool:
    return path.startswith(("/", "~")) or ".." in Path(path).parts


def ruff_binary() -> str | None:
    """The ruff executable beside this interpreter (the venv's), else on ``PATH``; ``None`` without
    one. The one lookup of ruff for verification (this stage's lint, replay's ``edit`` linter)."""
    candidate = Path(sys.executable).with_name("ruff")
    return str(candidate) if candidate.exists() else shutil.which("ruff")


def lint_new_errors(changed: dict[str, tuple[str | None, str]]) -> list[Finding] | None:
    """New ruff fatal errors in ``changed`` (path -> (S0 text or None, post text)); None if no ruff."""
    ruff = ruff_binary()
    if ruff is None or not changed:
        return None if ruff is None else []
    with tempfile.TemporaryDirectory(prefix="tp-lint-") as tmp:
        for side, index in (("pre", 0), ("post", 1)):
            for path, texts in changed.items():
                text = texts[index]
                if text is None:
                    continue
                target = Path(tmp, side, path)
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_text(text, encoding="utf-8")
        proc = subprocess.run(
            [
                ruff,
                "check",
                "--no-cache",
                "--isolated",
                "--select",
                LINT_RULES,
                "--output-format",
                "json",
                ".",
            ],
            cwd=tmp,
            capture_output=True,
            text=True,
            check=False,
            env={**os.environ, "NO_COLOR": "1"},
        )
    try:
        results = json.loads(proc.stdout or "[]")
    except json.JSONDecodeError:
        return [Finding("lint_unavailable", proc.stderr.strip()[:200])]
    counts: dict[str, Counter[tuple[str, str]]] = {"pre": Counter(), "post": Counter()}
    detail: dict[tuple[str, str], str] = {}
    for item in results:
        rel = Path(item["filename"]).resolve().relative_to(Path(tmp).resolve())
        side, path = rel.parts[0], str(Path(*rel.parts[1:]))
        key = (path, f"{item.get('code')}: {item.get('message')}")
        counts[side][key] += 1
        detail[key] = f"line {item['location']['row']}"
    fresh = counts["post"] - counts["pre"]
    return [Finding("lint_error", f"{msg} ({detail[(path, msg)]})", path=path) for path, msg in sorted(fresh)]


def check_static(diff: DiffView, lint: bool = True) -> StageVerdict:
    """Run stage 2 on the episode's parsed diff (post-image available when a fixture exists)."""
    verdict = StageVerdict("static", passed=True)
    for path in diff.paths:
        if _unsafe_path(path):
            verdict.findings.append(
                Finding("write_outside_workspace", "diff path leaves the workspace", path=path)
            )
    if diff.apply_error is not None:
        verdict.findings.append(
            Finding("patch_does_not_apply", str(diff.apply_error), path=diff.apply_error.path)
        )
    elif diff.post is not None:
        pre = diff.pre or {}
        changed = {p: (pre.get(p), diff.post[p]) for p in diff.paths if p in diff.post and p.endswith(".py")}
        files = diff.changed_texts()  # a module named by a data file the diff adds, as stage 4 reads it
        for path, (before, after) in sorted(changed.items()):
            _, error = parse_python(after)
            if error is not None:
                verdict.findings.append(
                    Finding("python_syntax_error", f"{error.msg} at line {error.lineno}", path=path)
                )
                continue
            for code, count in sorted(new_counts(before, after, files=files).items()):
                if code in SECURITY_CODES:
                    verdict.findings.append(Finding(code, f"{count} new occurrence(s)", path=path))
        for path in diff.code_paths():  # a non-.py file the diff's code runs (it parses as Python)
            if path in changed or path not in diff.post:
                continue
            for code, count in sorted(new_counts(pre.get(path), diff.post[path], files=files).items()):
                if code in SECURITY_CODES:
                    verdict.findings.append(Finding(code, f"{count} new occurrence(s)", path=path))
        parsed = {p: t for p, t in changed.items() if parse_python(t[1])[1] is None}
        lint_findings = lint_new_errors(parsed) if lint else []
        if lint_findings is None:
            verdict.notes.append(Finding("lint_unavailable", "ruff not installed"))
        else:
            verdict.findings.extend(f for f in lint_findings if f.code == "lint_error")
            verdict.notes.extend(f for f in lint_findings if f.code != "lint_error")
    else:
        for path in diff.code_paths():
            for code, count in sorted(inspect_fragment(diff.added[path]).items()):
                if code in SECURITY_CODES:
                    verdict.findings.append(Finding(code, f"{count} in added lines", path=path))
        verdict.notes.append(Finding("no_s0", "no fixture: only added lines were inspected"))
    verdict.passed = not verdict.findings
    return verdict
