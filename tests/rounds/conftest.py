"""A small task every rounds test samples on: a task of the learnable family whose expert plan is
read -> edit -> run tests -> answer (so a wrong edit has a before and an after). It is built alone,
without the whole library, to keep the tests fast."""

from __future__ import annotations

import pytest

from trajectory_platform.gym.fixtures import Fixture
from trajectory_platform.gym.library import learnable_fixture


@pytest.fixture(scope="session")
def gym_task() -> Fixture:
    fixture = learnable_fixture("learn-alpha", 6, "path")
    assert [s.op for s in fixture.plan] == ["read", "edit", "run_tests", "answer"]
    return fixture
