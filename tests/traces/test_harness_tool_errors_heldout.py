"""Validation half of a harness's tool-error wording read as a failed call (:mod:`harness_errors`'s
:data:`~harness_errors.VALIDATION`: CrewAI's other errors, LangGraph's execution template, the
Agents SDK's, in LangChain messages stamped ``success``, Anthropic and ShareGPT): held out while
the wordings were registered."""

from __future__ import annotations

from pathlib import Path

import pytest
from harness_errors import VALIDATION, Case
from test_harness_tool_errors import assert_result_status


@pytest.mark.parametrize("case", VALIDATION, ids=lambda case: case.name)
def test_a_harness_error_wording_is_a_failed_call(case: Case, tmp_path: Path):
    assert_result_status(case, tmp_path)
