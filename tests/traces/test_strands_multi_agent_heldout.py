"""Validation half of the Strands multi-agent sessions (:data:`strands_multi_agent.VALIDATION`),
held out while the reading was written."""

from __future__ import annotations

from pathlib import Path

import pytest
from strands_multi_agent import VALIDATION, Case
from test_strands_multi_agent import assert_read


@pytest.mark.parametrize("case", VALIDATION, ids=lambda case: case.name)
def test_a_multi_agent_session_is_one_episode(case: Case, tmp_path: Path):
    assert_read(case, tmp_path)
