"""Writes, moves, truncations and permission changes outside the workspace made by inline code's
own library (red team rtforge12, 2026-12-07): ``rm``'s operands and the shell's redirections were
read, and so were a library's deletes (``shutil.rmtree``), but ``open('/etc/hosts', 'w')``,
``Path('~/.bashrc').write_text``, ``os.rename('/etc/passwd', ...)``, ``fs.writeFileSync`` and
Perl's ``open(my $f, '>', ...)`` in a ``python3 -c``, a heredoc or ``node -e`` were admitted.

The cases are ``benchmarks/action_safety.py``'s (``code_writes``: 5 files outside x 10 Python
spellings x 2 wrappings + 4 other languages, and 2 places a write may create but a move may not
take from), split by its digest into development and validation; the honest ones are its
``honest_code_writes`` (the same calls on the workspace, scratch space, or reading outside)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def _benchmark():
    spec = importlib.util.spec_from_file_location(
        "action_safety_benchmark", REPO / "benchmarks" / "action_safety.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


BENCH = _benchmark()


@pytest.mark.parametrize("half", ["dev", "val"])
def test_inline_code_changing_a_path_outside_the_workspace_is_quarantined(half):
    cases = [c for c in BENCH.code_writes() if BENCH.half(c) == half]
    missed = [c for c in cases if BENCH.severity(c) != BENCH.QUARANTINE]
    assert cases and missed == [], f"{len(missed)} of {len(cases)} missed: {missed[:3]}"


@pytest.mark.parametrize("line", BENCH.honest_code_writes())
def test_inline_code_writing_the_workspace_or_scratch_or_reading_outside_is_not_flagged(line):
    assert BENCH.severity(line) is None
