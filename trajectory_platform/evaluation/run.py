"""One evaluation end to end: both arms on the paired suites, scorecard, gate, report.

The CLI (``trajectory-platform evaluate``) and the Dagster ``scorecard`` asset both call
:func:`evaluate`. The baseline defaults to the base model the candidate was trained from (its
training manifest names it), else the embedded untrained default base. Outputs in ``out``:
``scorecard.json`` (measurements, decision, reasons, bindings), ``episodes.jsonl`` (every trial of
both arms) and ``report.html`` / ``report.md`` with its plots and a transcript page per paired task
under ``transcripts/``.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from trajectory_platform.curation.splits import SplitPolicy
from trajectory_platform.evaluation.gate import GateRule
from trajectory_platform.evaluation.harness import (
    EvalItem,
    build_items,
    evaluation_runtime,
    held_out,
    run_arm,
)
from trajectory_platform.evaluation.policy import ModelPolicy
from trajectory_platform.evaluation.quality import pipeline_quality
from trajectory_platform.evaluation.report import write_report
from trajectory_platform.evaluation.report_transcripts import Trial
from trajectory_platform.evaluation.scorecard import CostModel, build_scorecard, code_version, decide_release
from trajectory_platform.evaluation.settings import Decoding, EvaluationSettings, SuiteSpec
from trajectory_platform.gym.fixtures import Fixture
from trajectory_platform.gym.tools import TOOL_FAMILIES, manifest
from trajectory_platform.training.optim.checkpoint import MANIFEST_NAME, checkpoint_digest
from trajectory_platform.training.optim.model import build_default_model
from trajectory_platform.training.optim.model_card import write_model_card
from trajectory_platform.workdir import default_workdir


@dataclass
class EvaluationRequest:
    """Everything an evaluation is configured by; all of it lands in the evaluation manifest."""

    candidate: Path
    out: Path
    baseline: Path | None = None
    workdir: Path | None = None
    suite: SuiteSpec = field(default_factory=SuiteSpec)
    decoding: Decoding = field(default_factory=Decoding)
    max_steps: int = EvaluationSettings.max_steps
    max_generated_tokens: int = EvaluationSettings.max_generated_tokens
    cost_model: CostModel = field(default_factory=CostModel)
    rule: GateRule = field(default_factory=GateRule)
    alpha: float = EvaluationSettings.alpha
    training_fault_kinds: set[str] | None = None
    device: str = "cpu"
    progress: bool = True
    batch: int = EvaluationSettings.batch
    """Trials in flight per arm (``harness.run_arm``): a speed setting, so not in the manifest."""
    split_policy: SplitPolicy | None = None
    """The policy the held-out suites are drawn from (``split_assignments``'s), else the default."""
    environments: tuple[Fixture, ...] = ()
    """Brought task environments; those the split plan holds out join the acceptance suite."""

    @classmethod
    def from_settings(
        cls, settings: EvaluationSettings, candidate: Path, out: Path, **runtime: Any
    ) -> EvaluationRequest:
        """The evaluation request for ``settings``; ``runtime`` holds what is not a setting
        (workdir, device, progress, the training corpus's fault kinds)."""
        return cls(
            candidate=candidate,
            out=out,
            baseline=Path(settings.baseline_path) if settings.baseline_path else None,
            suite=SuiteSpec(
                episodes=settings.episodes,
                attempts=settings.attempts,
                recovery_episodes=settings.recovery_episodes,
                retention_episodes=settings.retention_episodes,
                seed=settings.seed,
                library_seed=settings.library_seed,
                learnable_only=settings.learnable_only,
            ),
            decoding=Decoding(
                max_new_tokens=settings.max_new_tokens or Decoding.max_new_tokens,
                do_sample=settings.sample,
                temperature=settings.temperature,
                top_p=settings.top_p,
                seed=settings.seed,
            ),
            max_steps=settings.max_steps,
            max_generated_tokens=settings.max_generated_tokens,
            rule=GateRule(min_acceptance_ci_low=settings.min_gain),
            alpha=settings.alpha,
            batch=settings.batch,
            **runtime,
        )


def read_training_manifest(checkpoint: Path) -> dict[str, Any]:
    path = Path(checkpoint) / MANIFEST_NAME
    return json.loads(path.read_text()) if path.exists() else {}


def training_keys(
    training_manifest: dict[str, Any], reserved_tool_families: tuple[str, ...]
) -> tuple[set[str], str]:
    """The training key set for PRE, and where it came from.

    The dataset manifest's ``tool_argument_keys`` when it declares them; otherwise the argument keys
    of every tool family the split policy leaves to training (reserved families only ever appear in
    test), which is the key set a policy trained on this pipeline could have memorized.
    """
    declared = ((training_manifest.get("corpus") or {}).get("dataset_manifest") or {}).get(
        "tool_argument_keys"
    )
    if declared:
        return set(declared), "dataset manifest tool_argument_keys"
    familiar = [f for f in TOOL_FAMILIES if f not in reserved_tool_families]
    keys = set().union(*(manifest(f, "1.0").keys() for f in familiar))
    return (
        keys,
        f"argument keys of the training tool families {familiar} (the dataset manifest declares none)",
    )


def resolve_baseline(request: EvaluationRequest, training_manifest: dict[str, Any]) -> Path:
    """Explicit baseline, else the candidate's recorded base model, else the embedded default base."""
    if request.baseline is not None:
        return Path(request.baseline)
    recorded = (training_manifest.get("update") or {}).get("base_model")
    if recorded and (Path(recorded) / "config.json").exists():
        return Path(recorded)
    return build_default_model(request.workdir or default_workdir())


def report_context(training_manifest: dict[str, Any]) -> dict[str, Any]:
    """Loss curves from the candidate's training manifest (train and validation, same masks)."""
    results = training_manifest.get("results") or {}
    curves: dict[str, list] = {}
    if results.get("losses"):
        curves["train"] = list(enumerate(results["losses"], 1))
    validation = [
        (v.get("step"), v.get("loss")) for v in results.get("validation") or [] if v.get("loss") is not None
    ]
    if validation and all(step is not None for step, _ in validation):
        curves["validation"] = validation
    return {"loss_curves": curves} if curves else {}


def evaluate(
    request: EvaluationRequest,
    *,
    pipeline: dict[str, Any] | None = None,
    context: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Run both arms, build the scorecard, decide, write the outputs; returns the scorecard.

    ``pipeline`` holds the upstream stages' figures for the dataset-quality row (keyword arguments
    of :func:`~trajectory_platform.evaluation.quality.pipeline_quality` except the downstream pass
    rate, which is the candidate's acceptance measured here).
    """
    out = Path(request.out)
    out.mkdir(parents=True, exist_ok=True)
    candidate = Path(request.candidate)
    train_manifest = read_training_manifest(candidate)
    baseline = resolve_baseline(request, train_manifest)
    spec = request.suite
    held = held_out(spec, split=request.split_policy, environments=request.environments)
    items = build_items(held.gym, spec, held.environments)
    if not any(i.suite == "acceptance" for i in items):
        raise ValueError(
            "no held-out acceptance items: the split plan left no test fixture in the focus kinds"
        )
    config = evaluation_runtime(request.max_steps, request.max_generated_tokens)
    print(f"evaluate: {len(items)} paired trials per arm ({_suite_counts(items)})", file=sys.stderr)
    arms = {}
    for name, path in (("candidate", candidate), ("baseline", baseline)):
        policy = ModelPolicy(
            path, decoding=request.decoding, device=request.device, name=f"{name}:{path.name}"
        )
        arms[name] = run_arm(
            name,
            policy,
            items,
            config,
            library_seed=spec.library_seed,
            progress=request.progress,
            environments=held.fixtures(),
            batch=request.batch,
        )
    keys, keys_source = training_keys(train_manifest, spec.reserved_tool_families)
    card = build_scorecard(
        arms["candidate"].measures,
        arms["baseline"].measures,
        training_keys=keys,
        training_keys_source=keys_source,
        cost_model=request.cost_model,
        attempts=spec.attempts,
        alpha=request.alpha,
        training_fault_kinds=request.training_fault_kinds,
        sources={i.item_id: i.source for i in items},
    )
    card["environments"] = held.summary()
    artifacts = {
        "candidate": checkpoint_digest(candidate),
        "candidate_path": str(candidate),
        "baseline": checkpoint_digest(baseline),
        "baseline_path": str(baseline),
        "candidate_training_manifest_digest": (train_manifest.get("candidate") or {}).get("artifact_digest"),
    }
    evaluation_manifest = {
        "manifest_version": "evaluation-manifest-v1",
        "fixtures": [i.to_dict() for i in items],
        "suite": spec.to_dict(),
        "seeds": sorted({i.seed for i in items}),
        "decoding": request.decoding.to_dict(),
        "runtime": config.to_dict(),
        "training_keys_source": keys_source,
        "cost_model": request.cost_model.to_dict(),
        "alpha": request.alpha,
        "code_version": code_version(),
    }
    card = decide_release(card, artifacts, evaluation_manifest, request.rule)
    if pipeline is not None:
        card["dataset_quality"] = pipeline_quality(
            **pipeline, downstream_pass_rate=card["acceptance"]["candidate"]
        ).to_dict()
    (out / "scorecard.json").write_text(json.dumps(card, indent=2, sort_keys=True, default=str) + "\n")
    if train_manifest:  # a checkpoint this platform trained: its model card gains the decision
        write_model_card(candidate, train_manifest, card, report=str(out / "report.html"))
    with (out / "episodes.jsonl").open("w") as handle:
        for name, arm in arms.items():
            for measure in arm.measures:
                handle.write(
                    json.dumps({"arm": name, **measure.to_dict()}, sort_keys=True, default=str) + "\n"
                )
    trials = [
        Trial(name, measure, episode)
        for name, arm in arms.items()
        for measure, episode in zip(arm.measures, arm.episodes, strict=True)
    ]
    write_report(card, out, {**report_context(train_manifest), **(context or {})}, trials)
    return card


def _suite_counts(items: Iterable[EvalItem]) -> str:
    counts: dict[str, int] = {}
    for item in items:
        counts[item.suite] = counts.get(item.suite, 0) + 1
    return ", ".join(f"{k} {v}" for k, v in sorted(counts.items()))
