"""What importing the Dagster resources costs: every process that loads them (the code server,
the CLI, each run's subprocess) pays it, so a resource module imports the light module it needs,
never the redaction engine or the verifier cascade that a stage runs (``docs/architecture.md``)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

HEAVY = ("trajectory_platform.curation.redact.corpus", "trajectory_platform.curation.verify.cascade")
"""Modules that only a stage's body (or a CLI command) uses, each some seconds to import."""


def _loaded(module: str) -> list[str]:
    """The :data:`HEAVY` modules a fresh interpreter has loaded after importing ``module``."""
    code = f"import json, sys, {module}; print(json.dumps([m for m in {HEAVY!r} if m in sys.modules]))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


LIGHT = [
    "trajectory_platform.resources",
    "trajectory_platform.curation.day_figures",
    "trajectory_platform.curation.keys",
]
"""The package's resources and the light modules they import the domain through."""


@pytest.mark.parametrize("module", LIGHT)
def test_importing_a_resource_loads_no_stage_engine(module: str) -> None:
    assert _loaded(module) == []


def test_the_check_sees_an_engine_a_module_loads() -> None:
    assert _loaded("trajectory_platform.curation.redact") == [HEAVY[0]]
