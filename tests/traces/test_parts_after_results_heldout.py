"""Validation half of text written after a tool's result within one message
(:data:`parts_after_results.VALIDATION`: two steps, reasoning after a result, a v5 typed tool part),
held out while the reading was written."""

from __future__ import annotations

from pathlib import Path

import pytest
from parts_after_results import VALIDATION, Case
from test_parts_after_results import assert_turns


@pytest.mark.parametrize("case", VALIDATION, ids=lambda case: case.name)
def test_text_after_a_result_is_a_later_turn(case: Case, tmp_path: Path):
    assert_turns(case, tmp_path)
