"""Shared fixture for the evaluation tests: one workdir holding the embedded default tokenizer and
base model (building the tokenizer takes tens of seconds, so it is built once per session)."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from trajectory_platform.training.optim.model import build_default_model


@pytest.fixture(scope="session")
def eval_workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    torch.set_num_threads(1)  # tiny models on a shared CPU: one thread is fastest and deterministic
    workdir = tmp_path_factory.mktemp("eval_workdir")
    build_default_model(workdir)
    return workdir
