"""Where the platform keeps its state when no one says otherwise: the one rule, for every layer.

``$TRAJECTORY_PLATFORM_WORKDIR`` or ``./workdir``. The domain packages (the default model and
tokenizer caches), the Dagster resources and the CLI all ask this module, so they cannot
disagree about where the embedded run's files are.
"""

from __future__ import annotations

import os
from pathlib import Path

WORKDIR_ENV = "TRAJECTORY_PLATFORM_WORKDIR"


def default_workdir() -> Path:
    """``$TRAJECTORY_PLATFORM_WORKDIR`` or ``./workdir``, resolved."""
    return Path(os.environ.get(WORKDIR_ENV, "workdir")).resolve()
