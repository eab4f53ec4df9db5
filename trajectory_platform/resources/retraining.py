"""The retraining policy's knobs, as a resource so a deployment configures them, not code."""

from __future__ import annotations

import os

from dagster import ConfigurableResource

MIN_TOKENS_ENV = "TRAJECTORY_PLATFORM_RETRAIN_MIN_TOKENS"
DEFAULT_MIN_NEW_TOKENS = 20_000
"""Sized for the embedded default (a few thousand selected-target tokens per sample day)."""


def default_min_new_tokens() -> int:
    return int(os.environ.get(MIN_TOKENS_ENV, DEFAULT_MIN_NEW_TOKENS))


class RetrainingPolicyResource(ConfigurableResource):
    """Threshold of new admitted selected-target tokens that justifies a new checkpoint."""

    min_new_selected_target_tokens: int = DEFAULT_MIN_NEW_TOKENS
