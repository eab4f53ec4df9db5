"""Dagster resources: warehouse, trace source, model store, sandbox, secrets salt."""

from __future__ import annotations

import os
from pathlib import Path


def default_workdir() -> Path:
    """Where every output lands: ``$TRAJECTORY_PLATFORM_WORKDIR`` or ``./workdir``."""
    return Path(os.environ.get("TRAJECTORY_PLATFORM_WORKDIR", "workdir")).resolve()


def build_resources() -> dict:
    """Resources for the default (embedded) deployment."""
    return {}
