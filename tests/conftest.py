"""Fixtures every test folder shares: the read-only corpus in ``../shared/data`` next to the checkout,
one workdir holding the embedded default tokenizer and base model, a Dagster instance that is
closed when its test ends, and the scripted corpus a round's tests start from."""

from __future__ import annotations

import fcntl
import os
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pyarrow as pa
import pytest
import torch

from trajectory_platform.training.data.tokenizer import build_default_tokenizer, default_tokenizer_dir
from trajectory_platform.training.optim.model import build_default_model

if TYPE_CHECKING:
    from dagster import DagsterInstance

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


@pytest.fixture(scope="session")
def default_tokenizer(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The embedded default tokenizer's directory, trained once for the whole test session: the
    workers of ``make test`` share one build (the first to take the lock trains it, seconds of CPU;
    the others wait and read it), where every module, workdir fixture and worker used to train its
    own (about ten trainings of the same bytes). Read it, never write to it: copy it first
    (:func:`lay_default_tokenizer`). ``tests/training/test_dataset_tokenizer.py`` still trains one
    of its own and compares the two."""
    base = tmp_path_factory.getbasetemp()
    shared = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base  # the workers' common parent
    with (shared / "default_tokenizer.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        return build_default_tokenizer(shared / "default_tokenizer_workdir")


@pytest.fixture(scope="session")
def lay_default_tokenizer(default_tokenizer: Path) -> Callable[[Path], Path]:
    """Copy the session's default tokenizer into a workdir, where ``build_default_tokenizer`` (and
    ``build_default_model``, which starts with it) finds it built instead of training its own."""

    def lay(workdir: Path) -> Path:
        shutil.copytree(default_tokenizer, default_tokenizer_dir(workdir))
        return workdir

    return lay


@pytest.fixture(scope="session")
def eval_workdir(
    tmp_path_factory: pytest.TempPathFactory, lay_default_tokenizer: Callable[[Path], Path]
) -> Path:
    """A workdir with the embedded default tokenizer and base model, built once per session."""
    torch.set_num_threads(1)  # tiny models on a shared CPU: one thread is fastest and deterministic
    workdir = lay_default_tokenizer(tmp_path_factory.mktemp("eval_workdir"))
    build_default_model(workdir)
    return workdir


@pytest.fixture
def instance() -> Iterator[DagsterInstance]:
    """An ephemeral (in-memory) Dagster instance, disposed when its test ends.

    An instance left to the garbage collector keeps its SQLite connections and its temporary
    artifact directory until some later collection or interpreter exit finalizes them, in
    whatever order that happens; disposing each one here releases them while its test is still
    the one running. (dagster is imported here, not at the top: most folders never use it.)
    """
    from dagster import DagsterInstance

    with DagsterInstance.ephemeral() as ephemeral:
        yield ephemeral


@pytest.fixture(scope="session")
def scripted_corpus() -> pa.Table:
    """The verified outcomes a round's tests start from, built once per session (a worker that runs
    both users verifies the four episodes, in the sandbox, once instead of three times): the scripted
    expert and the wrong fix on the first two training tasks, one pass and one failure each (p = 0.5,
    in the band if they counted), with no round recorded. Read it, never change it (a pyarrow table
    cannot be changed in place). (Imported here, not at the top: most folders never use it.)"""
    from trajectory_platform.curation.split_mixture_stage import SplitSettings
    from trajectory_platform.curation.verify import verified_table, verify_episodes
    from trajectory_platform.gym.policies import ScriptedExpert, WrongFixPolicy
    from trajectory_platform.gym.runtime import run_episode
    from trajectory_platform.rounds.stage import training_fixtures

    fixtures = training_fixtures(SplitSettings())[:2]
    episodes = [
        run_episode(
            f, policy, seed=7, episode_id=f"corpus-{f.fixture_id}-{policy.name}", verify=False
        ).episode
        for f in fixtures
        for policy in (ScriptedExpert(), WrongFixPolicy())
    ]
    return verified_table(episodes, verify_episodes(episodes, {f.fixture_id: f for f in fixtures}))


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Tests marked ``slow`` run first, the rest in their usual order.

    ``make test`` splits the collection between its workers in two contiguous halves and balances
    them by stealing from the tail of a queue; a minutes-long end-to-end test met late in a queue
    ends the suite minutes after everything else. Started first, it runs while the other worker
    and stealing share out the rest (the order is the same on every worker, as xdist requires)."""
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)
