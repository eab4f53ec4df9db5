"""Validation half of span-traced answers holding a provider-run tool
(:data:`span_provider_tools.VALIDATION`), held out while the reading was written."""

from __future__ import annotations

from pathlib import Path

import pytest
from span_provider_tools import VALIDATION, Case
from test_span_provider_tools import assert_read


@pytest.mark.parametrize("case", VALIDATION, ids=lambda case: case.name)
def test_a_span_answer_holding_a_provider_run_tool_is_its_turns(case: Case, tmp_path: Path):
    assert_read(case, tmp_path)
