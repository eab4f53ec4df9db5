"""Fixtures every test folder shares: the read-only corpus in ``../shared/data`` next to the checkout."""

from __future__ import annotations

from pathlib import Path

import pytest

SHARED_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """``../shared/data`` (public trajectories, labelled secrets); a skip naming the path when absent."""
    if not SHARED_DATA.is_dir():
        pytest.skip(f"{SHARED_DATA} is absent: the read-only shared corpus is not next to this checkout")
    return SHARED_DATA


@pytest.fixture(scope="session")
def real_root(shared_data: Path) -> Path:
    """The public agent trajectories in their real formats (``../shared/data/real``)."""
    return shared_data / "real"
