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

import pyarrow as pa
import torch
from dagster import AssetExecutionContext, AssetIn, MetadataValue, Output, asset

from trajectory_platform.assets._house import declared
from trajectory_platform.curation.split_mixture_stage import SplitSettings
from trajectory_platform.evaluation.run import EvaluationSettings
from trajectory_platform.evaluation.stage import SCORECARD_SCHEMA, UpstreamFigures, scorecard_stage
from trajectory_platform.resources import WorkdirResource
from trajectory_platform.resources.stage_config import (
    latest_metadata,
    materialized_settings,
    settings_of,
    stage_config,
)

ScorecardConfig = stage_config(EvaluationSettings, "ScorecardConfig")


@asset(
    ins={"checkpoint": AssetIn(), "training_mixture": AssetIn(), "token_masked_dataset": AssetIn()},
    # their materialization metadata feeds the report; the split plan's settings pick the suites
    deps=["verified_traces", "redacted_corpus", "split_assignments"],
    pool="train",
    **declared("evaluation", SCORECARD_SCHEMA),
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
    torch.set_num_threads(max(1, config.threads))
    result = scorecard_stage(
        settings_of(config, EvaluationSettings),
        workdir.locate(row["path"]),
        workdir.root / "reports" / "scorecard" / str(row["artifact_digest"])[:16],
        workdir=workdir.root,
        token_masked_dataset=token_masked_dataset,
        training_mixture=training_mixture,
        upstream=UpstreamFigures(
            *(
                latest_metadata(context.instance, a)
                for a in ("verified_traces", "redacted_corpus", "training_mixture")
            )
        ),
        split_policy=materialized_settings(context.instance, "split_assignments", SplitSettings).policy(),
        stored_path=workdir.relative,
    )
    card = result.card
    context.log.info(f"scorecard: {card['decision']} ({'; '.join(card['reasons'])}); report {result.report}")
    return Output(
        result.table,
        metadata={
            "decision": card["decision"],
            "reasons": MetadataValue.json(card["reasons"]),
            "report": MetadataValue.path(str(result.report)),
            "scorecard_json": MetadataValue.path(str(result.out / "scorecard.json")),
            "summary": MetadataValue.md(result.summary_markdown()),
            "acceptance": MetadataValue.json(
                {k: card["acceptance"][k] for k in ("candidate", "baseline", "difference")}
            ),
            "sfa": MetadataValue.json(card["sfa"]),
            "pre": MetadataValue.json(card["pre"]),
            "dataset_quality": MetadataValue.json(card.get("dataset_quality")),
            "binding_digest": card["gate"]["binding_digest"],
        },
    )
