"""Validation half of the words after a provider-run tool (:data:`provider_tool_turns.VALIDATION`),
held out while the readings were written."""

from __future__ import annotations

from pathlib import Path

import pytest
from provider_tool_turns import VALIDATION, Case
from test_provider_tool_turns import assert_turns


@pytest.mark.parametrize("case", VALIDATION, ids=lambda case: case.name)
def test_the_words_after_a_provider_run_tool_are_the_next_turn(case: Case, tmp_path: Path):
    assert_turns(case, tmp_path)
