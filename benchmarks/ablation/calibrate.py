"""Calibrating the instrument before the experiment: the evaluator against scripted policies with
exactly known scores, a smoke training run, and the costs of a step and an evaluation here.

- :func:`stub_mechanics`: scripted policies through the *real* evaluator (runtime, oracle, episode
  measures, scorecard aggregation). It checks the mechanics of measurement, never which training
  variant wins (the ``--quick`` tier, and CI).
- :func:`smoke_training`: a seconds-long training run, twice; the loss must fall and the runs agree.
- :func:`measure_costs`: seconds per training step, a run's time outside its steps and (for one
  variant, :func:`evaluation_sample`) a bound on its evaluation on this machine, which :mod:`.plan`
  turns into a step count.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any, NamedTuple

import pyarrow as pa
import torch

from trajectory_platform.evaluation.harness import EvalItem, build_items, evaluation_runtime, run_arm
from trajectory_platform.evaluation.policy import ModelPolicy
from trajectory_platform.evaluation.scorecard import CostModel, arm_summary
from trajectory_platform.evaluation.settings import Decoding, SuiteSpec
from trajectory_platform.gym.policies import (
    FabricatingStub,
    NeverRecoveringStub,
    NoEndTokenStub,
    ScriptedExpert,
    StaleKeyStub,
)
from trajectory_platform.gym.policy import Policy
from trajectory_platform.gym.tools import manifest
from trajectory_platform.training.data.tokenizer import build_default_tokenizer, load_tokenizer

from .corpus import compact_tool, expert_corpus, learnable_split, masked_table
from .run import ALL_TOKEN_VARIANTS, VARIANTS, VariantSettings, evaluate, train_run, train_variant

STUBS: dict[str, type[Policy]] = {
    "expert": ScriptedExpert,
    "stale_key": StaleKeyStub,
    "fabricating": FabricatingStub,
    "never_recovering": NeverRecoveringStub,
    "no_end_token": NoEndTokenStub,
}
EXPECTED_STUBS: dict[str, dict[Any, float]] = {
    "expert": {"acceptance": 1.0, "recovery": 1.0},
    "stale_key": {("pre", "renamed"): 1.0, ("sfa", "renamed"): 0.0},
    "fabricating": {"fabricated_observation_rate": 1.0},
    "never_recovering": {"recovery": 0.0},
    "no_end_token": {"runaway_rate": 1.0},
}
"""What each stub must measure exactly; a key is a summary field or (field, regime)."""
CALIBRATION_STEPS = 30
"""Steps of the calibration run: under the context warm-up two thirds of them train without the
preamble, as the run will (about 0.11 s vs 0.23 s a step here), and the first step's one-time cost
is spread thin. Four steps (two of each, the first among them) read 0.298 s a step where the run's
mix measures 0.153 (2026-12-04). A run declared shorter is calibrated on its own step count: it
pays the first step's cost in the same share, and a toy run does not train 30 steps to plan 4."""
CALIBRATION_ITEMS = 6
SAME_COST = {v: ALL_TOKEN_VARIANTS[0] for v in ALL_TOKEN_VARIANTS[1:]}
"""Variants that train exactly as another one does (the all-token loop on the same batches, another
weighting of the same log-probabilities), so they are not calibrated again."""
CALIBRATED = tuple(v for v in VARIANTS if v not in SAME_COST)
"""One calibration per distinct training cost. They differ: the all-token loop runs the head at
every position, renamed copies share their tool block with fewer examples, recovery examples are
longer (2026-12-04: about 0.20, 0.27 and 0.19 s a step against the reference's 0.15)."""


class RunCosts(NamedTuple):
    """What :func:`measure_costs` measures for one training cost."""

    step_seconds: float
    outside_seconds: float
    """The training's time outside its steps: loading, saving the checkpoint and its manifest."""
    evaluation_seconds: float
    """An upper bound on the closed-loop evaluation of a trained run (see :func:`measure_costs`)."""


def calibrated(variants: Sequence[str]) -> tuple[str, ...]:
    """The :data:`CALIBRATED` variants whose costs a run training ``variants`` needs."""
    return tuple(v for v in CALIBRATED if v in {SAME_COST.get(w, w) for w in variants})


def mean_step_seconds(measured: dict[str, float], variants: Sequence[str] = VARIANTS) -> float:
    """The mean step time over ``variants`` (each trains on the same seeds and steps), from the
    :func:`calibrated` ones' measured times."""
    return sum(measured[SAME_COST.get(v, v)] for v in variants) / len(variants)


def stub_mechanics(library_seed: int = 0, episodes: int = 4) -> dict[str, dict[str, Any]]:
    """Each stub's measurements on the same held-out learnable items (see the module docstring)."""
    _, pool = learnable_split(library_seed)
    spec = SuiteSpec(
        episodes=episodes,
        recovery_episodes=episodes,
        retention_episodes=max(1, episodes // 2),
        library_seed=library_seed,
        retention_kinds=("count_files",),
    )
    items = build_items(pool, spec)
    if not any(i.regime == "renamed" for i in items):
        raise ValueError("the stub suite needs renamed-schema items")
    config = evaluation_runtime()
    keys = manifest("path", "1.0").keys()  # StaleKeyStub's memorized family
    out = {}
    for name, cls in STUBS.items():
        arm = run_arm(name, cls(), items, config, library_seed=library_seed, progress=False)
        out[name] = arm_summary(arm.measures, training_keys=keys, cost_model=CostModel())
    return out


def stub_deviations(stubs: dict[str, dict[str, Any]]) -> list[tuple[str, str, float, float]]:
    """(stub, measure, expected, measured) for every entry of :data:`EXPECTED_STUBS`."""
    rows = []
    for name, expected in EXPECTED_STUBS.items():
        for key, want in expected.items():
            got = stubs[name][key[0]][key[1]] if isinstance(key, tuple) else stubs[name][key]
            rows.append((name, "/".join(key) if isinstance(key, tuple) else key, want, got))
    return rows


def smoke_training(
    workdir: Path, out_root: Path, *, steps: int = 12, seed: int = 0, tasks: int = 12
) -> dict[str, Any]:
    """A seconds-long training run, twice, then a two-trial closed-loop check of each checkpoint.

    Mechanics only: the loss must fall, and the two runs must agree bit for bit (checkpoint digest,
    losses, generated episodes), which is what makes any scorecard built on them reproducible.
    """
    train, pool = learnable_split()
    tokenizer = load_tokenizer(build_default_tokenizer(workdir))
    table = masked_table(expert_corpus(train[:tasks], seed=seed), tokenizer)
    settings = VariantSettings(steps=steps, examples_per_step=4, capacity=1024)
    items = build_items(pool, SuiteSpec(episodes=2, recovery_episodes=0, retention_episodes=0, seed=seed))
    runs = []
    for run in ("a", "b"):
        outcome = train_variant(table, out_root / f"smoke-{run}", workdir, seed, settings)
        policy = ModelPolicy(
            outcome.checkpoint_dir, decoding=Decoding(max_new_tokens=24), tool_view=compact_tool
        )
        arm = run_arm(f"smoke-{run}", policy, items, evaluation_runtime(max_steps=3), progress=False)
        runs.append(
            {
                "digest": outcome.artifact_digest,
                "losses": outcome.loop.losses,
                "episodes": [m.to_dict() | {"wall_s": None} for m in arm.measures],
            }
        )
    return {"examples": table.num_rows, "runs": runs}


def measure_costs(
    index: int,
    variant: str,
    table: pa.Table,
    sample: list[EvalItem],
    evaluated_share: float,
    workdir: Path,
    settings: VariantSettings,
    budget: tuple[int, int],
    threads: int,
) -> RunCosts:
    """A run's costs, measured on this machine.

    :data:`CALIBRATION_STEPS` steps (or the run's ``settings.steps``, if fewer) of ``variant`` on
    its ``table``, under the context warm-up share, give its step time, and the training's time
    outside them (loading, saving the checkpoint and its manifest). The barely trained checkpoint
    then runs the ``sample`` of the suite's items (:func:`evaluation_sample`): it mostly runs away to
    the token budget, so its time over ``evaluated_share`` is an upper bound on a trained variant's
    evaluation. An empty ``sample`` measures no evaluation (``evaluation_seconds`` 0.0).
    """
    torch.set_num_threads(threads)
    out = workdir / "runs" / f"calibration-{index}"
    started = time.monotonic()
    steps = min(CALIBRATION_STEPS, settings.steps)
    train_seconds = train_run(variant, table, out, workdir, 0, replace(settings, steps=steps))
    outside_steps = time.monotonic() - started - train_seconds
    started = time.monotonic()
    if sample:
        evaluate(out, sample, 0, settings.device, budget)
    evaluation = (time.monotonic() - started) / evaluated_share if sample else 0.0
    return RunCosts(train_seconds / steps, outside_steps, evaluation)


def evaluation_sample(items: list[EvalItem], variant: str, first: str) -> tuple[list[EvalItem], float]:
    """The items ``variant``'s calibration evaluates, and their share of ``items``: the first
    :data:`CALIBRATION_ITEMS` for the ``first`` calibrated variant, none for the others. Every variant
    runs the same items under the same token budget, and a barely trained checkpoint of any of them
    runs away to that budget, so one variant's time bounds them all; measuring it once spares a
    ``--full`` run three more barely trained evaluations."""
    sample = items[:CALIBRATION_ITEMS] if variant == first else []
    return sample, len(sample) / len(items)
