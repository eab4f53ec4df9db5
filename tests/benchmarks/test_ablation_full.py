"""`benchmarks/ablations.py --full` end to end at a toy scale, as a user runs it: calibration, the
plan, the references, the gate, the streaming queue of the other variants, the comparisons and the
JSON. Mechanics only (4 steps learn nothing); the gate is set so that every seed passes, or none."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from ablation.compare import REFERENCE
from ablation.run import VARIANTS

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "ablations.py"
# Four tasks, not eight: the expert tables then size the evaluation's token budget at (51, 176)
# instead of (61, 238), and every run's evaluation (most of the test's time: an untrained model runs
# away to that budget on every trial) generates a quarter fewer tokens; a batch of four halves each
# step. The mechanics under test read neither.
TOY = ["--full", "--steps", "4", "--seeds", "2", "--episodes", "2", "--tasks", "4", "--batch", "4"]


def _full(eval_workdir: Path, workdir: Path, gate: str, *more: str) -> tuple[int, dict[str, Any], list[str]]:
    """Exit code, the JSON of the last stdout line, and the runs in the order they finished."""
    shutil.copytree(eval_workdir / "models", workdir / "models")  # the default base, built once
    done = subprocess.run(
        [sys.executable, str(SCRIPT), *TOY, "--gate", gate, "--workdir", str(workdir), *more],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    # The workers share the stderr the parent prints to: another process's line may end glued to
    # the front of a run's (``... 0.123 MBcompute_matched-1: train``), so a run is found by its name.
    names = "|".join(sorted(VARIANTS, key=len, reverse=True))
    finished = re.findall(rf"((?:{names})-\d): train [\d.]+ s, evaluate", done.stderr)
    return done.returncode, json.loads(done.stdout.strip().splitlines()[-1]), finished


@pytest.mark.slow
def test_every_seed_past_the_gate_trains_every_variant_after_its_reference(
    eval_workdir: Path, tmp_path: Path
):
    code, result, finished = _full(eval_workdir, tmp_path, gate="0")
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
def test_no_seed_past_the_gate_stops_after_the_references(eval_workdir: Path, tmp_path: Path):
    """(On seeds 5 and 6: a replication's seeds start at ``--first-seed``. Of claim C only: the
    stop after the references is the same whichever variants would have followed them, and the
    run calibrates two training costs instead of four.)"""
    code, result, finished = _full(eval_workdir, tmp_path, "1.01", "--first-seed", "5", "--claims", "C")
    assert code == 1 and result["gated_seeds"] == [] and "stopped early" in result["stopped_early"]
    assert sorted(finished) == sorted(result["timings"]) == [f"{REFERENCE}-5", f"{REFERENCE}-6"]
    assert result["first_seed"] == 5 and sorted(result["familiar_acceptance"]) == ["5", "6"]


@pytest.mark.slow
def test_a_replication_of_one_claim_trains_only_its_variants_and_reads_it_at_its_own_alpha(
    eval_workdir: Path, tmp_path: Path
):
    """``--claims C`` as planned for a replication of (C): the reference and the recovery corpus
    only, (C) alone at alpha 0.05, and ``--recovery-episodes`` fault-injected trials per seed."""
    code, result, finished = _full(
        eval_workdir, tmp_path, "0", "--claims", "C", "--seeds", "1", "--recovery-episodes", "3"
    )
    assert code == 0 and result["claims"] == "C" and result["bonferroni_alpha"] == 0.05
    assert finished == [f"{REFERENCE}-0", "recovery-0"]
    assert set(result["plan"]["seconds_per_step_by_variant"]) == {REFERENCE, "recovery"}
    assert result["plan"]["runs"] == 2
    (recovery,) = result["comparisons"]
    assert (recovery["ablation"], recovery["variant"], recovery["n"]) == ("C", "recovery", 3)
    assert result["recovery_episodes"] == 3
