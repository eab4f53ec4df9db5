"""Validation half of Claude Code sub-agents (:data:`claude_code_sub_agents.VALIDATION`), held out
while the reading was written."""

from __future__ import annotations

from pathlib import Path

import pytest
from claude_code_sub_agents import VALIDATION, Case
from test_claude_code_sub_agents import assert_sub_agents


@pytest.mark.parametrize("case", VALIDATION, ids=lambda case: case.name)
def test_a_sub_agent_is_an_episode_of_its_own_linked_to_its_parent(case: Case, tmp_path: Path):
    assert_sub_agents(case, tmp_path)
