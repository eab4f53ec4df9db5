"""Proof-of-value machinery on the gym's learnable family (issue 9 item 8), shared by the benchmark
and its CI test.

- :func:`learnable_split`: three learnable repository families train (in the familiar tool
  families ``path``, ``uri``, ``fs``), the fourth is held out and evaluated in every tool family,
  the fully renamed ``alias`` family being the renamed-schema regime.
- :func:`stub_mechanics`: scripted policies with exactly predictable scores through the *real*
  evaluator (runtime, oracle, episode measures, scorecard aggregation). This checks the mechanics
  of measurement, never which training variant wins.
- :func:`expert_corpus`, :func:`masked_table`, :func:`train_variant`: a training variant is a corpus
  (pristine, optionally recovery episodes under reachable faults, optionally schema-augmented), a
  mask mode (selected targets, or every token after the first) and a seed; the same runner the
  ``checkpoint`` asset uses trains it.
- :func:`compact_tool`: the ablations' tool rendering. The delivered tool schemas were 70% of a
  learnable-family example (438 of ~620 tokens); every variant trains on, and the model policy is
  evaluated with, the same compact view, so the comparisons are unchanged while a step costs less.
"""

from __future__ import annotations

import dataclasses
import json
import math
import random
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import pyarrow as pa
import torch

from trajectory_platform.evaluation.harness import SuiteSpec, build_items, evaluation_runtime, run_arm
from trajectory_platform.evaluation.scorecard import CostModel, arm_summary
from trajectory_platform.gym.faults import FAULT_KINDS
from trajectory_platform.gym.fixtures import Fixture
from trajectory_platform.gym.library import build_library
from trajectory_platform.gym.policies import (
    FabricatingStub,
    NeverRecoveringStub,
    NoEndTokenStub,
    ScriptedExpert,
    StaleKeyStub,
)
from trajectory_platform.gym.policy import Policy
from trajectory_platform.gym.reachability import reachable_schedule
from trajectory_platform.gym.runtime import run_episode
from trajectory_platform.gym.tools import manifest
from trajectory_platform.traces.record import ToolSpec, canonical_json
from trajectory_platform.training.data.augment import augment_inputs
from trajectory_platform.training.data.labels import IGNORE_INDEX
from trajectory_platform.training.data.masked_dataset import EpisodeInput, build_masked_dataset, to_table
from trajectory_platform.training.optim.loop import OptimizerSettings
from trajectory_platform.training.optim.runner import TrainOutcome, TrainRequest, run_training

HELD_OUT_FAMILY = "learn-delta"
TRAIN_TOOL_FAMILIES = ("path", "uri", "fs")
TRAINING_FAULT_KINDS = ("http_429", "http_504", "missing_file", "truncated_output")
"""Fault kinds the recovery-augmented corpus shows; every other kind is absent from training."""


def learnable_split(library_seed: int = 0) -> tuple[list[Fixture], list[tuple[Fixture, str]]]:
    """(training fixtures, held-out evaluation pool with regimes) of the learnable family."""
    learnable = [f for f in build_library(library_seed) if f.learnable]
    train = [
        f for f in learnable if f.repo_family != HELD_OUT_FAMILY and f.tool_family in TRAIN_TOOL_FAMILIES
    ]
    pool = [
        (f, "familiar" if f.tool_family in TRAIN_TOOL_FAMILIES else "renamed")
        for f in learnable
        if f.repo_family == HELD_OUT_FAMILY
    ]
    return train, pool


def training_keys() -> set[str]:
    """Argument keys of the training tool families (the PRE key set of these variants)."""
    return set().union(*(manifest(f, "1.0").keys() for f in TRAIN_TOOL_FAMILIES))


STUBS: dict[str, type[Policy]] = {
    "expert": ScriptedExpert,
    "stale_key": StaleKeyStub,
    "fabricating": FabricatingStub,
    "never_recovering": NeverRecoveringStub,
    "no_end_token": NoEndTokenStub,
}


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
    renamed = [i for i in items if i.regime == "renamed"]
    if not renamed:
        raise ValueError("the stub suite needs renamed-schema items")
    config = evaluation_runtime()
    keys = manifest("path", "1.0").keys()  # StaleKeyStub's memorized family
    out = {}
    for name, cls in STUBS.items():
        arm = run_arm(name, cls(), items, config, library_seed=library_seed, progress=False)
        out[name] = arm_summary(arm.measures, training_keys=keys, cost_model=CostModel())
    return out


def expert_corpus(
    fixtures: Sequence[Fixture],
    *,
    seed: int = 0,
    recovery_share: float = 0.0,
    fault_kinds: Sequence[str] = TRAINING_FAULT_KINDS,
) -> list[EpisodeInput]:
    """Scripted-expert episodes on ``fixtures``; a ``recovery_share`` of them under a reachable fault.

    The fault-injected ones carry the expert's recovery (diagnose / retry / re-read) as targets;
    refused proposals stay context through the default target rule.
    """
    rng = random.Random(f"corpus:{seed}")
    inputs = []
    for index, fixture in enumerate(fixtures):
        schedule = None
        if rng.random() < recovery_share:
            schedule = reachable_schedule(fixture, rng, kinds=list(fault_kinds))
        result = run_episode(
            fixture,
            ScriptedExpert(),
            seed=seed,
            faults=schedule or [],
            episode_id=f"train-{seed}-{index:04d}",
            verify=False,
        )
        inputs.append(
            EpisodeInput(result.episode, split="train", role="recovery" if schedule else "pristine")
        )
    return inputs


def compact_tool(spec: ToolSpec) -> ToolSpec:
    """``spec`` as the ablation models see it: tool name and description, each argument's key,
    type and bounds, and the required keys; argument descriptions and the constant
    ``"type": "object"`` / ``"additionalProperties": false`` wrapper are dropped.

    The runtime still validates every call against the full delivered schema: only the text the
    model reads is shorter (276 instead of 434 tokens for the ``path`` family).
    """
    schema = json.loads(spec.parameters_json) if spec.parameters_json else {}
    properties = {
        key: {field: value for field, value in prop.items() if field != "description"}
        for key, prop in schema.get("properties", {}).items()
    }
    compact = {"properties": properties, "required": schema.get("required", [])}
    return dataclasses.replace(spec, parameters_json=canonical_json(compact))


def _with_compact_tools(item: EpisodeInput) -> EpisodeInput:
    episode = dataclasses.replace(item.episode, tools=[compact_tool(t) for t in item.episode.tools])
    return dataclasses.replace(item, episode=episode)


def all_token_labels(table: pa.Table) -> pa.Table:
    """The all-token variant: every position after the first is a target (observations included)."""
    labels = [[IGNORE_INDEX, *ids[1:]] for ids in table.column("input_ids").to_pylist()]
    index = table.schema.get_field_index("labels")
    return table.set_column(index, "labels", pa.array(labels, type=table.schema.field("labels").type))


def masked_table(
    inputs: Sequence[EpisodeInput], tokenizer: Any, *, augment: bool = False, seed: int = 0
) -> pa.Table:
    """Serialize and mask ``inputs`` (plus renamed-schema copies when ``augment``), tools rendered
    through :func:`compact_tool` (after augmentation, so renamed copies are compacted alike)."""
    if augment:
        inputs, _ = augment_inputs(list(inputs), ["rename"], seed=seed)
    return to_table(build_masked_dataset([_with_compact_tools(i) for i in inputs], tokenizer))


@dataclass(frozen=True)
class TrainSettings:
    """Budget of one variant run (identical across the variants of an ablation)."""

    steps: int = 300
    examples_per_step: int = 32
    learning_rate: float = 3e-3
    capacity: int = 2048
    device: str | None = None


def train_variant(
    table: pa.Table, out: Path, workdir: Path, seed: int, settings: TrainSettings
) -> TrainOutcome:
    """Train one variant with the platform runner (same model init per seed, same data budget)."""
    request = TrainRequest(
        out=out,
        workdir=workdir,
        max_steps=settings.steps,
        examples_per_step=settings.examples_per_step,
        capacity=settings.capacity,
        optimizer=OptimizerSettings(learning_rate=settings.learning_rate),
        seed=seed,
        eval_every=max(1, settings.steps),
        device=settings.device,
    )
    return run_training(request, table, source_name=f"ablation:{out.name}")


MIN_STEPS = 50
"""Below this many steps per run a derived plan is refused: the runs would measure only noise."""


@dataclass(frozen=True)
class BudgetPlan:
    """Measured costs on this machine and the steps they allow within the budget."""

    seconds_per_step: float
    fixed_seconds_per_run: float
    """Evaluation plus loading and saving the model: the part of a run that steps do not scale."""
    setup_seconds: float
    runs: int
    steps: int
    budget_seconds: float
    fitting_steps: int
    """The most steps that fit the budget (equal to ``steps`` unless steps were declared)."""
    workers: int = 1
    """Runs side by side; each worker runs ``rounds`` runs one after the other."""

    @property
    def rounds(self) -> int:
        return math.ceil(self.runs / self.workers)

    @property
    def projected_seconds(self) -> float:
        per_run = self.steps * self.seconds_per_step + self.fixed_seconds_per_run
        return self.setup_seconds + self.rounds * per_run

    def to_dict(self) -> dict[str, Any]:
        return {
            "seconds_per_step": round(self.seconds_per_step, 3),
            "fixed_seconds_per_run": round(self.fixed_seconds_per_run, 1),
            "setup_seconds": round(self.setup_seconds, 1),
            "runs": self.runs,
            "workers": self.workers,
            "steps": self.steps,
            "budget_minutes": round(self.budget_seconds / 60, 1),
            "fitting_steps": self.fitting_steps,
            "projected_minutes": round(self.projected_seconds / 60, 1),
        }


def plan_budget(
    seconds_per_step: float,
    fixed_seconds: float,
    setup_seconds: float,
    runs: int,
    budget_seconds: float,
    steps: int | None,
    *,
    workers: int = 1,
) -> BudgetPlan:
    """The declared ``steps``, or the most that fit:
    budget = setup + ceil(runs / workers) x (steps x step + evaluation).

    The ablations compare variants at one shared step count, so it is fixed before any variant
    trains, from costs measured on the machine that runs them (see ``benchmarks/ablations.py``).
    """
    rounds = math.ceil(runs / workers)
    fitting = max(
        0, int((budget_seconds - setup_seconds - rounds * fixed_seconds) / (rounds * seconds_per_step))
    )
    return BudgetPlan(
        seconds_per_step,
        fixed_seconds,
        setup_seconds,
        runs,
        fitting if steps is None else steps,
        budget_seconds,
        fitting,
        workers,
    )


def fault_kinds_absent_from_training() -> list[str]:
    return [k for k in FAULT_KINDS if k not in TRAINING_FAULT_KINDS]


def smoke_training(workdir: Path, out_root: Path, *, steps: int = 12, seed: int = 0, tasks: int = 12) -> dict:
    """A seconds-long training run, twice, then a two-trial closed-loop check of each checkpoint.

    Mechanics only: the loss must fall, and the two runs must agree bit for bit (checkpoint digest,
    losses, generated episodes), which is what makes any scorecard built on them reproducible.
    """
    from trajectory_platform.evaluation.policy import Decoding, ModelPolicy
    from trajectory_platform.training.data.tokenizer import build_default_tokenizer, load_tokenizer

    train, pool = learnable_split()
    tokenizer = load_tokenizer(build_default_tokenizer(workdir))
    table = masked_table(expert_corpus(train[:tasks], seed=seed), tokenizer)
    settings = TrainSettings(steps=steps, examples_per_step=4, capacity=1024)
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


def train_compute_matched(
    selected: pa.Table, workdir: Path, out: Path, seed: int, settings: TrainSettings
) -> Path:
    """Ablation A's control: all-token loss reweighted so the selected (assistant) targets keep the
    gradient weight they have under the masked objective.

    loss = -(sum of selected-target log-probs) / N_active - (sum over the other tokens) / T, so the
    actions get exactly the masked run's weight and the observations come on top. Comparing it
    with the plain all-token run separates "learning to predict observations" from "less gradient
    on actions". Same examples, order, packing, optimizer and schedule as :func:`train_variant`.
    """
    from trajectory_platform.training.data.dataset import rows_from_table, split_examples
    from trajectory_platform.training.data.tokenizer import load_tokenizer
    from trajectory_platform.training.optim.attention import VARLEN_ATTENTION
    from trajectory_platform.training.optim.loop import run_loop
    from trajectory_platform.training.optim.loss import shifted_target_logprobs
    from trajectory_platform.training.optim.model import build_default_model, load_model
    from trajectory_platform.training.optim.sft import (
        StepStats,
        collate_micro_batches,
        model_logits,
        step_examples,
    )

    base = build_default_model(workdir)
    model = load_model(base, device=settings.device or "cpu")
    model.set_attn_implementation(VARLEN_ATTENTION)
    vocab = cast(int, model.get_input_embeddings().num_embeddings)  # an nn.Embedding: its row count
    split = {}
    for name, table in (("selected", selected), ("all", all_token_labels(selected))):
        loaded = rows_from_table(table, source=f"ablation:{name}")
        split[name] = split_examples(loaded, capacity=settings.capacity, vocab_size=vocab).train
    if [e["key"] for e in split["selected"]] != [e["key"] for e in split["all"]]:
        raise ValueError("the selected and all-token tables must hold the same examples")
    per_step = min(settings.examples_per_step, len(split["selected"]))
    torch.manual_seed(seed)  # as the runner seeds a fresh run

    def step(index: int) -> StepStats:
        chosen = step_examples(len(split["selected"]), index, per_step, seed)
        sel = collate_micro_batches([split["selected"][i] for i in chosen], 1, settings.capacity)[0]
        every = collate_micro_batches([split["all"][i] for i in chosen], 1, settings.capacity)[0]
        logits = model_logits(model, every)
        device = logits.device
        positions = every["position_ids"].to(device)
        lp_sel, m_sel = shifted_target_logprobs(logits, sel["labels"].to(device), positions)
        lp_all, m_all = shifted_target_logprobs(logits, every["labels"].to(device), positions)
        others = m_all & ~m_sel
        n_sel, n_all = int(m_sel.sum()), int(m_all.sum())
        loss = -lp_sel.sum() / n_sel - (lp_all * others).sum() / n_all
        loss.backward()
        return StepStats(loss.item(), n_all, int(every["stored_tokens"]), n_sel)

    run_loop(
        model,
        step,
        max_steps=settings.steps,
        settings=OptimizerSettings(learning_rate=settings.learning_rate),
        description="train[compute-matched]",
    )
    out.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(out)
    load_tokenizer(base).save_pretrained(out)
    return out
