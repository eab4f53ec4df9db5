"""Validation half of the AI SDK's steps saved alone (:data:`ai_sdk_bare_steps.VALIDATION`: one a
line in both releases, a ``tool-error``), held out while the reading was written."""

from __future__ import annotations

from pathlib import Path

import pytest
from ai_sdk_bare_steps import VALIDATION, Case
from test_ai_sdk_bare_steps import assert_one_run


@pytest.mark.parametrize("case", VALIDATION, ids=lambda case: case.name)
def test_the_steps_saved_alone_are_one_run(case: Case, tmp_path: Path):
    assert_one_run(case, tmp_path)
