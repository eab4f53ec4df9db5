"""Validation half of a made-up ``Observation:`` in a generic chat log (:mod:`hallucinated_react`'s
:data:`~hallucinated_react.VALIDATION`: the Anthropic format, the later layouts, system prompts
close to CrewAI's or LangChain's ReAct prompt): held out while the reading was written."""

from __future__ import annotations

from pathlib import Path

import pytest
from hallucinated_react import VALIDATION, Case
from test_hallucinated_react_observations import assert_stays_text_and_is_flagged


@pytest.mark.parametrize("case", VALIDATION, ids=lambda case: case.name)
def test_a_made_up_observation_stays_text_and_is_flagged(case: Case, tmp_path: Path):
    assert_stays_text_and_is_flagged(case, tmp_path)
