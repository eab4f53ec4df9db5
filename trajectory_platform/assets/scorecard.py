"""``scorecard``: the trained checkpoint against its baseline, closed loop, with the release decision.

Thin: read the checkpoint row; gather what the dataset-quality row needs from the latest upstream
materializations' metadata (``verified_traces``: sinks, R_flake, verifier seconds per attempt,
funnel; ``redacted_corpus``: Λ_leak; ``training_mixture``: realized token shares); find which fault
kinds the ``training_mixture`` episodes showed, so recovery on kinds absent from training is
reported apart; call :func:`trajectory_platform.evaluation.run.evaluate` once; attach the report
(path + markdown with the acceptance plot inline) and return one row. The baseline is the
checkpoint's base model (the untrained embedded default on the default run) unless
``baseline_path`` names an incumbent.
Outputs land in ``<workdir>/reports/scorecard/<candidate digest prefix>/``.

The default budget (12 acceptance + 6 recovery + 4 retention trials per arm, 6 turns, at most 300
generated tokens per trial) keeps ``trajectory-platform run`` within minutes; raise ``episodes``
for a real decision. A turn may be as long as the longest selected-target turn in
``token_masked_dataset`` plus 8 tokens (:func:`~trajectory_platform.evaluation.budget.evaluation_budget`),
so no action the training data shows is cut short and scored as a truncated proposal.
"""

import base64
from pathlib import Path
from typing import Any

import pyarrow as pa
import torch
from dagster import AssetExecutionContext, AssetIn, AssetKey, Config, MetadataValue, Output, asset

from trajectory_platform.evaluation.budget import turn_budget
from trajectory_platform.evaluation.episodes import fault_kinds_seen
from trajectory_platform.evaluation.harness import SuiteSpec
from trajectory_platform.evaluation.policy import Decoding
from trajectory_platform.evaluation.run import EvaluationRequest, evaluate
from trajectory_platform.resources import WorkdirResource
from trajectory_platform.traces.schema import EPISODE_SCHEMA, table_to_episodes

SCORECARD_SCHEMA = pa.schema(
    [
        ("decision", pa.string()),
        ("reasons", pa.list_(pa.string())),
        ("n", pa.int64()),
        ("acceptance_candidate", pa.float64()),
        ("acceptance_baseline", pa.float64()),
        ("difference", pa.float64()),
        ("ci_low", pa.float64()),
        ("ci_high", pa.float64()),
        ("candidate_digest", pa.string()),
        ("baseline_digest", pa.string()),
        ("binding_digest", pa.string()),
        ("scorecard_path", pa.string()),
        ("report_path", pa.string()),
    ]
)


class ScorecardConfig(Config):
    """Evaluation budget and decoding; every field lands in the evaluation manifest."""

    episodes: int = 12
    attempts: int = 1
    recovery_episodes: int = 6
    retention_episodes: int = 4
    seed: int = 0
    library_seed: int = 0
    max_steps: int = 6
    max_new_tokens: int = 0  # 0: the longest selected-target turn of token_masked_dataset + 8
    max_generated_tokens: int = 300
    baseline_path: str = ""
    threads: int = 1


def _metadata(context: AssetExecutionContext, asset_name: str) -> dict[str, Any]:
    """Metadata values of the latest materialization of ``asset_name`` (empty when none)."""
    event = context.instance.get_latest_materialization_event(AssetKey(asset_name))
    if event is None or event.asset_materialization is None:
        return {}
    return {k: getattr(v, "value", v) for k, v in event.asset_materialization.metadata.items()}


@asset(
    ins={"checkpoint": AssetIn(), "training_mixture": AssetIn(), "token_masked_dataset": AssetIn()},
    pool="train",
    group_name="evaluation",
    description="Closed-loop scorecard of the checkpoint vs its baseline on paired held-out gym trials, "
    "with the release decision (promote / hold) and report.html.",
)
def scorecard(
    context: AssetExecutionContext,
    config: ScorecardConfig,
    workdir: WorkdirResource,
    checkpoint: pa.Table,
    training_mixture: pa.Table,
    token_masked_dataset: pa.Table,
) -> Output[pa.Table]:
    """Evaluate the checkpoint row's weights and record the decision."""
    row = checkpoint.to_pylist()[0]
    verified, redacted = _metadata(context, "verified_traces"), _metadata(context, "redacted_corpus")
    mixture = _metadata(context, "training_mixture")
    out = workdir.root / "reports" / "scorecard" / str(row["artifact_digest"])[:16]
    torch.set_num_threads(max(1, config.threads))
    request = EvaluationRequest(
        candidate=workdir.locate(row["path"]),
        out=out,
        baseline=Path(config.baseline_path) if config.baseline_path else None,
        workdir=workdir.root,
        suite=SuiteSpec(
            episodes=config.episodes,
            attempts=config.attempts,
            recovery_episodes=config.recovery_episodes,
            retention_episodes=config.retention_episodes,
            seed=config.seed,
            library_seed=config.library_seed,
        ),
        decoding=Decoding(
            max_new_tokens=config.max_new_tokens
            or turn_budget(token_masked_dataset, cap=config.max_generated_tokens),
            seed=config.seed,
        ),
        max_steps=config.max_steps,
        max_generated_tokens=config.max_generated_tokens,
        progress=False,
        training_fault_kinds=fault_kinds_seen(
            table_to_episodes(training_mixture.select(EPISODE_SCHEMA.names))
        ),
    )
    card = evaluate(
        request,
        pipeline={
            "sinks": verified.get("sinks"),
            "flakiness_index": verified.get("r_flake"),
            "redaction_leakage": redacted.get("leak_rate"),
            "verifier_seconds_per_attempt": verified.get("c_attempt_s"),
        },
        context={
            "funnel": verified.get("funnel"),
            "mixture_token_shares": mixture.get("realized_token_shares"),
        },
    )
    acceptance, diff = card["acceptance"], card["acceptance"]["difference"] or {}
    report = out / "report.html"
    table = pa.Table.from_pylist(
        [
            {
                "decision": card["decision"],
                "reasons": card["reasons"],
                "n": card["n"],
                "acceptance_candidate": acceptance["candidate"],
                "acceptance_baseline": acceptance["baseline"],
                "difference": diff.get("estimate"),
                "ci_low": diff.get("ci_low"),
                "ci_high": diff.get("ci_high"),
                "candidate_digest": card["artifacts"]["candidate"],
                "baseline_digest": card["artifacts"]["baseline"],
                "binding_digest": card["gate"]["binding_digest"],
                "scorecard_path": workdir.relative(out / "scorecard.json"),
                "report_path": workdir.relative(report),
            }
        ],
        schema=SCORECARD_SCHEMA,
    )
    context.log.info(f"scorecard: {card['decision']} ({'; '.join(card['reasons'])}); report {report}")
    return Output(
        table,
        metadata={
            "decision": card["decision"],
            "reasons": MetadataValue.json(card["reasons"]),
            "report": MetadataValue.path(str(report)),
            "scorecard_json": MetadataValue.path(str(out / "scorecard.json")),
            "summary": MetadataValue.md(_summary_md(card, out)),
            "acceptance": MetadataValue.json(
                {k: acceptance[k] for k in ("candidate", "baseline", "difference")}
            ),
            "sfa": MetadataValue.json(card["sfa"]),
            "pre": MetadataValue.json(card["pre"]),
            "dataset_quality": MetadataValue.json(card.get("dataset_quality")),
            "binding_digest": card["gate"]["binding_digest"],
        },
    )


def _summary_md(card: dict[str, Any], out: Path) -> str:
    """Decision, reasons and the acceptance plot inline (a data URI), for the asset page."""
    lines = [f"**Decision: {card['decision']}**", ""] + [f"- {r}" for r in card["reasons"]]
    plot = out / "acceptance.png"
    if plot.exists():
        data = base64.b64encode(plot.read_bytes()).decode()
        lines += ["", f"![acceptance with paired interval](data:image/png;base64,{data})"]
    return "\n".join(lines)
