"""Validation half of the results a person typed in a chat app's export
(:data:`role_played_loops.VALIDATION`), held out while the rule was written."""

from __future__ import annotations

from pathlib import Path

import pytest
from role_played_loops import VALIDATION, Case
from test_role_played_loops import assert_stays_the_persons


@pytest.mark.parametrize("case", VALIDATION, ids=lambda case: case.name)
def test_a_result_a_person_typed_in_a_chat_app_stays_theirs(case: Case, tmp_path: Path):
    assert_stays_the_persons(case, tmp_path)
