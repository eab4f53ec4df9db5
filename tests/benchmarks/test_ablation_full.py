"""`benchmarks/ablations.py --full` end to end at a toy scale, through its ``main`` as a user's
command line reaches it: calibration, the plan, the references, the gate, the streaming queue of the
other variants, the comparisons, the JSON and the exit code. Mechanics only (4 steps learn nothing);
the gate is set so that every seed passes, or none."""

from __future__ import annotations

import contextlib
import io
import json
import re
import shutil
from collections.abc import Iterator
from concurrent.futures import Executor
from pathlib import Path
from typing import Any

import ablations
import pytest
from ablation.compare import REFERENCE
from ablation.run import VARIANTS, worker_pool

WORKERS = 2
"""The script's default ``--workers``: the references of two seeds run side by side, so the order
test sees a seed's variants wait for its own reference while the other worker is busy."""
# Four tasks, not eight: the expert tables then size the evaluation's token budget at (51, 176)
# instead of (61, 238), and every run's evaluation (most of the test's time: an untrained model runs
# away to that budget on every trial) generates a quarter fewer tokens; a batch of four halves each
# step. The mechanics under test read neither.
TOY = ["--full", "--steps", "4", "--seeds", "2", "--episodes", "2", "--tasks", "4", "--batch", "4"]


@pytest.fixture(scope="module")
def pool() -> Iterator[Executor]:
    """The script's own worker pool (:func:`ablation.run.worker_pool`, spawned), started once for the
    module: each spawned worker imports torch, transformers and the package (about 5 s of CPU), and
    one script run used to start its own two, plus its own interpreter, three times over. The runs
    still start from a fresh workdir each; a worker holds nothing between jobs but its imports, as
    it does between the calibration and the runs of one script run."""
    with worker_pool(WORKERS) as executor:
        yield executor


def _full(
    eval_workdir: Path, workdir: Path, pool: Executor, monkeypatch: pytest.MonkeyPatch, gate: str, *more: str
) -> tuple[int, dict[str, Any], list[str]]:
    """Exit code, the JSON of the last stdout line, and the runs in the order they finished, of
    ``ablations.main`` on the command line's arguments, run in this process on the module's pool."""
    shutil.copytree(eval_workdir / "models", workdir / "models")  # the default base, built once

    def lent(workers: int) -> contextlib.nullcontext[Executor]:
        assert workers == WORKERS  # the default, which the pool was started with
        return contextlib.nullcontext(pool)  # the module's pool outlives the run

    monkeypatch.setattr(ablations, "worker_pool", lent)
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = ablations.main([*TOY, "--gate", gate, "--workdir", str(workdir), *more])
    # A run is found by its name, whatever else its line carries.
    names = "|".join(sorted(VARIANTS, key=len, reverse=True))
    finished = re.findall(rf"((?:{names})-\d): train [\d.]+ s, evaluate", err.getvalue())
    return code, json.loads(out.getvalue().strip().splitlines()[-1]), finished


@pytest.mark.slow
def test_every_seed_past_the_gate_trains_every_variant_after_its_reference(
    eval_workdir: Path, tmp_path: Path, pool: Executor, monkeypatch: pytest.MonkeyPatch
):
    code, result, finished = _full(eval_workdir, tmp_path, pool, monkeypatch, "0")
    assert code == 0 and result["tier"] == "full" and result["steps"] == 4
    assert result["gated_seeds"] == [0, 1]
    assert sorted(result["timings"]) == sorted(f"{v}-{s}" for v in VARIANTS for s in (0, 1))
    assert sorted(finished) == sorted(result["timings"])
    for seed in (0, 1):  # a seed's variants start only once its reference has finished
        reference = finished.index(f"{REFERENCE}-{seed}")
        assert all(reference < finished.index(f"{v}-{seed}") for v in VARIANTS if v != REFERENCE)
    assert {(c["ablation"], c["variant"]) for c in result["comparisons"]} == {
        ("A", "all_token"),
        ("A", "compute_matched"),
        ("B", "augmented"),
        ("C", "recovery"),
    }
    plan = result["plan"]
    assert plan["steps"] == 4 and plan["training_minutes"] <= plan["projected_minutes"]


@pytest.mark.slow
def test_no_seed_past_the_gate_stops_after_the_references(
    eval_workdir: Path, tmp_path: Path, pool: Executor, monkeypatch: pytest.MonkeyPatch
):
    """(On seeds 5 and 6: a replication's seeds start at ``--first-seed``. Of claim C only: the
    stop after the references is the same whichever variants would have followed them, and the
    run calibrates two training costs instead of four.)"""
    code, result, finished = _full(
        eval_workdir, tmp_path, pool, monkeypatch, "1.01", "--first-seed", "5", "--claims", "C"
    )
    assert code == 1 and result["gated_seeds"] == [] and "stopped early" in result["stopped_early"]
    assert sorted(finished) == sorted(result["timings"]) == [f"{REFERENCE}-5", f"{REFERENCE}-6"]
    assert result["first_seed"] == 5 and sorted(result["familiar_acceptance"]) == ["5", "6"]


@pytest.mark.slow
def test_a_replication_of_one_claim_trains_only_its_variants_and_reads_it_at_its_own_alpha(
    eval_workdir: Path, tmp_path: Path, pool: Executor, monkeypatch: pytest.MonkeyPatch
):
    """``--claims C`` as planned for a replication of (C): the reference and the recovery corpus
    only, (C) alone at alpha 0.05, and ``--recovery-episodes`` fault-injected trials per seed."""
    code, result, finished = _full(
        eval_workdir,
        tmp_path,
        pool,
        monkeypatch,
        "0",
        "--claims",
        "C",
        "--seeds",
        "1",
        "--recovery-episodes",
        "3",
    )
    assert code == 0 and result["claims"] == "C" and result["bonferroni_alpha"] == 0.05
    assert finished == [f"{REFERENCE}-0", "recovery-0"]
    assert set(result["plan"]["seconds_per_step_by_variant"]) == {REFERENCE, "recovery"}
    assert result["plan"]["runs"] == 2
    (recovery,) = result["comparisons"]
    assert (recovery["ablation"], recovery["variant"], recovery["n"]) == ("C", "recovery", 3)
    assert result["recovery_episodes"] == 3
