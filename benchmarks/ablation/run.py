"""One (variant, seed) of the ablation: trained, then evaluated closed loop.

Every variant gets the same model init per seed, the same data budget, steps, optimizer and
context warm-up; only its table (pristine, schema-augmented or recovery episodes) or its loss (the
all-token variants) differs. Masked variants train with the platform's runner; the all-token ones
with a loop of their own over the selected examples (:func:`train_all_token`), which builds their
labels and cuts the preamble the selected example declares.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import multiprocessing
import pickle
import time
from concurrent.futures import Executor, ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import cast

import pyarrow as pa
import torch
import torch.nn.functional as F

from trajectory_platform.evaluation.episodes import EpisodeMeasure
from trajectory_platform.evaluation.harness import EvalItem, evaluation_runtime, run_arm
from trajectory_platform.evaluation.policy import ModelPolicy
from trajectory_platform.evaluation.settings import Decoding, EvaluationSettings
from trajectory_platform.training.data.dataset import rows_from_table, split_examples
from trajectory_platform.training.data.labels import IGNORE_INDEX
from trajectory_platform.training.data.tokenizer import load_tokenizer
from trajectory_platform.training.optim.attention import VARLEN_ATTENTION, segment_bounds
from trajectory_platform.training.optim.loop import LoopResult, run_loop
from trajectory_platform.training.optim.model import build_default_model, load_model
from trajectory_platform.training.optim.packing import (
    SHARED_PREFIX_SEGMENT,
    collate_shared_prefix,
    flatten_buffers,
)
from trajectory_platform.training.optim.runner import TrainOutcome, TrainRequest, run_training
from trajectory_platform.training.optim.settings import OptimizerSettings
from trajectory_platform.training.optim.sft import StepStats, model_logits, step_examples, without_preamble

from .corpus import compact_tool

VARIANTS = ("selected", "all_token", "augmented", "recovery", "compute_matched")
EVALUATION_TURNS = 6
"""Turns per closed-loop trial."""


@dataclass(frozen=True)
class VariantSettings:
    """Budget and recipe of one variant run (identical across the variants of an ablation)."""

    steps: int = 300
    examples_per_step: int = 32
    learning_rate: float = 3e-3
    capacity: int = 2048
    device: str | None = None
    preamble_warmup_share: float = 0.0
    """Share of the steps trained without each example's tool block and system prompt first (the
    context warm-up, ``sft.without_preamble``). The learning curve's recipe, 2,000 of 3,000 steps,
    is what made the default learn the held-out family (issue 17); 0 trains every step whole."""

    @property
    def preamble_warmup_steps(self) -> int:
        return int(self.steps * self.preamble_warmup_share)


def train_variant(
    table: pa.Table, out: Path, workdir: Path, seed: int, settings: VariantSettings
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
        shared_prefix=True,
        preamble_warmup_steps=settings.preamble_warmup_steps,
    )
    return run_training(request, table, source_name=f"ablation:{out.name}")


def all_token_pairs(batch: dict[str, torch.Tensor]) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """(predictor index, target index, weight) of every next-token pair of the examples in a
    one-row shared-prefix batch (``collate_shared_prefix`` with ``return_segments``, flattened).

    The all-token objective scores every position after an example's first. Laid out with shared
    prefixes, a prefix's own pairs are computed once and count once per example that continues it
    (their logits are identical in each); a later suffix's first token is predicted from its
    prefix's last position (the first suffix follows it directly); the rest pair within the
    suffix. So the weighted pairs are exactly the pairs of every example's whole sequence, with
    the prefix computed once.
    """
    positions, segments = batch["position_ids"][0], batch["segment_ids"][0]
    if batch["position_ids"].shape[0] != 1 or bool((segments == -1).any()):
        raise ValueError("all_token_pairs takes one flattened row without padding (flatten_buffers)")
    bounds = segment_bounds(positions)
    members: dict[int, int] = {}  # a prefix's start -> the suffixes that continue it
    anchor_of: dict[int, int] = {}
    anchor = 0
    for start, _ in bounds:
        if int(positions[start]) == 0:
            anchor = start
        else:
            members[anchor] = members.get(anchor, 0) + 1
            anchor_of[start] = anchor
    predictors, targets, weights = [], [], []
    for start, end in bounds:
        inner = torch.arange(start + 1, end)
        # A prefix's first suffix continues its positions, so it is part of the prefix's segment:
        # prefix targets count for it and for each later suffix, its own targets once.
        shared = (segments[inner] == SHARED_PREFIX_SEGMENT).float()
        predictors.append(inner - 1)
        targets.append(inner)
        weights.append(1.0 + shared * members.get(start, 0))
        prefix = int(positions[start])
        if prefix > 0:  # a later suffix's first token, predicted from its prefix's last position
            predictors.append(torch.tensor([anchor_of[start] + prefix - 1]))
            targets.append(torch.tensor([start]))
            weights.append(torch.ones(1))
    return torch.cat(predictors), torch.cat(targets), torch.cat(weights)


def all_token_loss(
    model: torch.nn.Module, examples: list[dict], capacity: int, *, compute_matched: bool
) -> tuple[torch.Tensor, StepStats]:
    """One step's all-token (or compute-matched) loss over the *selected* ``examples``, laid out
    with shared prefixes (:func:`all_token_pairs`), and its stats.

    Plain: loss = -(sum over every target) / T. The control: -(sum of selected-target log-probs) /
    N_active - (sum over the other targets) / T. A selected target is one of the example's own
    labels; it never opens a suffix (a shareable prefix ends before the first target's predictor).
    """
    batch = flatten_buffers(collate_shared_prefix(examples, capacity, return_segments=True))
    predictors, targets, weights = all_token_pairs(batch)
    logits = model_logits(model, {k: batch[k] for k in ("input_ids", "labels", "position_ids")})[0]
    device = logits.device
    predictors, targets, weights = predictors.to(device), targets.to(device), weights.to(device)
    ids, labels = batch["input_ids"][0].to(device), batch["labels"][0].to(device)
    nll = F.cross_entropy(logits[predictors].float(), ids[targets], reduction="none")
    selected = (labels[targets] != IGNORE_INDEX) & (predictors == targets - 1)
    n_all, n_sel = int(weights.sum().item()), int(selected.sum().item())
    if compute_matched:
        loss = nll[selected].sum() / n_sel + (nll * weights)[~selected].sum() / n_all
    else:
        loss = (nll * weights).sum() / n_all
    return loss, StepStats(loss.item(), n_all, int(ids.numel()), n_sel)


def train_all_token(
    selected: pa.Table,
    workdir: Path,
    out: Path,
    seed: int,
    settings: VariantSettings,
    *,
    compute_matched: bool,
) -> LoopResult:
    """Ablation A's all-token variants: every position after the first is a target.

    Plain (``compute_matched=False``): loss = -(sum over every target) / T, the runner's token
    normalization. The control (``compute_matched=True``) reweights it so the selected (assistant)
    targets keep the gradient weight they have under the masked objective: loss = -(sum of
    selected-target log-probs) / N_active - (sum over the other tokens) / T, so the actions get
    exactly the masked run's weight and the observations come on top. Comparing the two separates
    "learning to predict observations" from "less gradient on actions".

    Same examples, order, optimizer and schedule as :func:`train_variant`, the same shared-prefix
    packing (:func:`all_token_loss`: a prefix's targets weighted by the examples sharing it, the
    same loss up to float rounding), and the same context warm-up: its first steps leave out the
    preamble the *selected* example declares, so the variants differ in their loss alone.
    """
    base = build_default_model(workdir)
    model = load_model(base, device=settings.device or "cpu")
    model.set_attn_implementation(VARLEN_ATTENTION)
    vocab = cast(int, model.get_input_embeddings().num_embeddings)  # an nn.Embedding: its row count
    loaded = rows_from_table(selected, source="ablation:selected")
    examples = split_examples(loaded, capacity=settings.capacity, vocab_size=vocab).train
    per_step = min(settings.examples_per_step, len(examples))
    torch.manual_seed(seed)  # as the runner seeds a fresh run

    def step(index: int) -> StepStats:
        chosen = step_examples(len(examples), index, per_step, seed)
        view = without_preamble if index < settings.preamble_warmup_steps else (lambda example: example)
        loss, stats = all_token_loss(
            model, [view(examples[i]) for i in chosen], settings.capacity, compute_matched=compute_matched
        )
        loss.backward()
        return stats

    loop = run_loop(
        model,
        step,
        max_steps=settings.steps,
        settings=OptimizerSettings(learning_rate=settings.learning_rate),
        description=f"train[{'compute-matched' if compute_matched else 'all-token'}]",
    )
    out.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(out)
    load_tokenizer(base).save_pretrained(out)
    return loop


ALL_TOKEN_VARIANTS = ("all_token", "compute_matched")
"""Variants trained by :func:`train_all_token` (their own loop); the others go through the runner."""


def train_run(
    variant: str, table: pa.Table, out: Path, workdir: Path, seed: int, settings: VariantSettings
) -> float:
    """Train ``variant`` on ``table`` into ``out``; returns the seconds spent in optimizer steps."""
    if variant in ALL_TOKEN_VARIANTS:
        compute_matched = variant == "compute_matched"
        return train_all_token(
            table, workdir, out, seed, settings, compute_matched=compute_matched
        ).train_seconds
    return train_variant(table, out, workdir, seed, settings).loop.train_seconds


def evaluate(
    path: Path, items: list[EvalItem], seed: int, device: str | None, budget: tuple[int, int]
) -> list[EpisodeMeasure]:
    """Closed loop with the compact tool view the variants were trained on; ``budget`` is
    (max new tokens per turn, max generated tokens per trial) from ``evaluation_budget``."""
    decoding = Decoding(max_new_tokens=budget[0], seed=seed)
    policy = ModelPolicy(path, decoding=decoding, device=device or "cpu", tool_view=compact_tool)
    runtime = evaluation_runtime(max_steps=EVALUATION_TURNS, max_generated_tokens=budget[1])
    return run_arm(path.name, policy, items, runtime, progress=False, batch=EvaluationSettings.batch).measures


RUN_INPUTS = ("trajectory_platform/training", "trajectory_platform/evaluation", "trajectory_platform/gym")
"""Source folders a run's outcome depends on: a finished run is reused only while they are unchanged."""

RUN_MODULES = ("run.py", "corpus.py")
"""This package's modules that train and evaluate a run (``compact_tool`` is the models' tool view);
reading the runs (compare.py), planning and calibration do not change a run, so editing them keeps
the finished runs."""


def run_key(
    variant: str,
    seed: int,
    table: pa.Table,
    items: list[EvalItem],
    settings: VariantSettings,
    budget: tuple[int, int],
) -> str:
    """Digest of everything a (variant, seed) run's measures depend on: its table's bytes, the
    items, settings and budget, and the source of the training, evaluation and gym packages and of
    :data:`RUN_MODULES`."""
    digest = hashlib.sha256()
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, table.schema) as writer:
        writer.write_table(table)
    digest.update(sink.getvalue().to_pybytes())
    spec = [variant, seed, [i.item_id for i in items], dataclasses.asdict(settings), list(budget)]
    digest.update(json.dumps(spec, sort_keys=True).encode())
    root = Path(__file__).resolve().parents[2]
    here = Path(__file__).resolve().parent
    sources = [p for folder in RUN_INPUTS for p in (root / folder).rglob("*.py")]
    for path in sorted(sources + [here / name for name in RUN_MODULES]):
        digest.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def run_variant(
    variant: str,
    seed: int,
    table: pa.Table,
    items: list[EvalItem],
    workdir: Path,
    settings: VariantSettings,
    budget: tuple[int, int],
    threads: int,
) -> tuple[list[EpisodeMeasure], dict[str, float]]:
    """Train one (variant, seed) and evaluate it closed loop: one job of the worker pool.

    A finished run leaves ``result.pickle`` (its :func:`run_key`, measures and timings) in its run
    folder, and a later ``--full`` with the same workdir reuses it while the key matches: the full
    ablation takes hours on two cores, so it can go on where an interrupted one stopped. The file
    is this benchmark's own cache in its own workdir, never input from elsewhere.
    """
    torch.set_num_threads(threads)
    out = workdir / "runs" / f"{variant}-{seed}"
    key = run_key(variant, seed, table, items, settings, budget)
    finished = out / "result.pickle"
    if finished.exists():
        stored_key, measures, timing = pickle.loads(finished.read_bytes())
        if stored_key == key:
            return measures, {**timing, "reused": 1.0}
    tick = time.monotonic()
    train_run(variant, table, out, workdir, seed, settings)
    tock = time.monotonic()
    measures = evaluate(out, items, seed, settings.device, budget)
    timing = {"train_s": round(tock - tick, 1), "eval_s": round(time.monotonic() - tock, 1)}
    finished.write_bytes(pickle.dumps((key, measures, timing)))
    return measures, timing


def worker_pool(workers: int) -> Executor:
    """Worker processes, one run each at a time: generation is bound by per-token overhead, not by
    threads, so two single-thread runs side by side beat one two-thread run on two cores. Fresh
    (spawned) interpreters keep torch's thread pools out of a fork."""
    return ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("spawn"))
