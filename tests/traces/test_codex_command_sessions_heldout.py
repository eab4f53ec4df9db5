"""Validation half of Codex's command sessions (:data:`codex_command_sessions.VALIDATION`), held out
while the linking was written."""

from __future__ import annotations

from pathlib import Path

import pytest
from codex_command_sessions import VALIDATION, Case
from test_codex_command_sessions import assert_linked


@pytest.mark.parametrize("case", VALIDATION, ids=lambda case: case.name)
def test_a_write_to_a_command_session_is_linked_to_its_command(case: Case, tmp_path: Path):
    assert_linked(case, tmp_path)
