"""Validation half of LlamaIndex events as a deployment's logger dumps them
(:data:`llamaindex_dumps.VALIDATION`: fields under ``data`` / ``value``, the class as a dotted path,
``class_name``, JSON lists, a failed tool), held out while the reading was written."""

from __future__ import annotations

from pathlib import Path

import pytest
from llamaindex_dumps import VALIDATION, Case
from test_llamaindex_logged_events import assert_read_as_the_run


@pytest.mark.parametrize("case", VALIDATION, ids=lambda case: case.name)
def test_a_loggers_dump_of_the_events_is_read_as_the_run(case: Case, tmp_path: Path):
    assert_read_as_the_run(case, tmp_path)
