"""Validation half of the AI SDK's steps keeping a Responses API request
(:data:`ai_sdk_requests.VALIDATION`), held out while the reading was written."""

from __future__ import annotations

from pathlib import Path

import pytest
from ai_sdk_requests import GEMINI_VALIDATION, OTHERS_VALIDATION, VALIDATION, Case
from test_ai_sdk_responses_requests import assert_prompt_read


@pytest.mark.parametrize("case", VALIDATION, ids=lambda case: case.name)
def test_a_responses_request_is_the_runs_prompt(case: Case, tmp_path: Path):
    assert_prompt_read(case, tmp_path)


@pytest.mark.parametrize("case", GEMINI_VALIDATION, ids=lambda case: case.name)
def test_a_gemini_request_is_the_runs_prompt(case: Case, tmp_path: Path):
    assert_prompt_read(case, tmp_path)


@pytest.mark.parametrize("case", OTHERS_VALIDATION, ids=lambda case: case.name)
def test_another_providers_request_is_the_runs_prompt(case: Case, tmp_path: Path):
    assert_prompt_read(case, tmp_path)
