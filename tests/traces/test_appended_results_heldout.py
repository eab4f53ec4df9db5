"""Validation half of whose results an assistant text holds (:mod:`appended_results`'s
:data:`~appended_results.VALIDATION` and :data:`~appended_results.VALIDATION_GENUINE`: the Anthropic
format, the later layouts, the parallel templates, the other pasted prompts): held out while the
rule was written."""

from __future__ import annotations

from pathlib import Path

import pytest
from appended_results import VALIDATION, VALIDATION_GENUINE
from hallucinated_react import Case
from test_appended_results import assert_splits_unflagged
from test_hallucinated_react_observations import assert_stays_text_and_is_flagged


@pytest.mark.parametrize("case", VALIDATION, ids=lambda case: case.name)
def test_a_result_the_model_wrote_stays_text_and_is_flagged(case: Case, tmp_path: Path):
    assert_stays_text_and_is_flagged(case, tmp_path)


@pytest.mark.parametrize(("case", "layout"), VALIDATION_GENUINE, ids=lambda item: getattr(item, "name", ""))
def test_qwen_agents_own_log_still_splits_into_calls_and_results(case: Case, layout: int, tmp_path: Path):
    assert_splits_unflagged(case, layout, tmp_path)
