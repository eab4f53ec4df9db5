"""Validation half of when a user turn written as a tool result is the loop's reply
(:mod:`user_typed_results`'s :data:`~user_typed_results.VALIDATION` and
:data:`~user_typed_results.VALIDATION_GENUINE`: the Anthropic format, LangChain's ReAct prompt as
the system prompt, an output over several lines): held out while the rule was written."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_user_typed_results import assert_pairs_to_the_call, assert_stays_the_users
from user_typed_results import VALIDATION, VALIDATION_GENUINE, Case


@pytest.mark.parametrize("case", VALIDATION, ids=lambda case: case.name)
def test_a_result_the_user_typed_stays_the_users_turn(case: Case, tmp_path: Path):
    assert_stays_the_users(case, tmp_path)


@pytest.mark.parametrize("case", VALIDATION_GENUINE, ids=lambda case: case.name)
def test_a_loops_reply_in_the_calls_convention_is_its_result(case: Case, tmp_path: Path):
    assert_pairs_to_the_call(case, tmp_path)
