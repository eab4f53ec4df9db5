"""Validation half of traced answers holding a provider-run tool
(:data:`traced_provider_tools.VALIDATION`), held out while the reading was written."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_traced_provider_tools import assert_read
from traced_provider_tools import VALIDATION, Case


@pytest.mark.parametrize("case", VALIDATION, ids=lambda case: case.name)
def test_a_traced_answer_holding_a_provider_run_tool_is_its_turns(case: Case, tmp_path: Path):
    assert_read(case, tmp_path)
