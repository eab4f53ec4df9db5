"""``scorecard``: the trained checkpoint against its baseline, closed loop, with the release decision.

Thin: read the checkpoint row and call
:func:`trajectory_platform.evaluation.stage.scorecard_stage` once; attach the report (its path,
and ``summary``: the report as markdown with every plot inline as a PNG data URI, so the plots
show on the asset page) and return one row. What the dataset-quality row needs from upstream
stages arrives as declared inputs loaded by the ``upstream_facts`` manager (``verified_traces``:
sinks, R_flake, verifier seconds per attempt, funnel; ``redacted_corpus``: Λ_leak;
``split_assignments``: the split settings that pick the held-out suites); the realized token
shares come from the ``training_mixture`` rows themselves. The brought environments are
``task_environments``' registry (a dependency, read from the workdir, so a sensor-launched run needs
no stored copy of that table): those the split plan holds out are evaluated through their own tools
beside the gym's fixtures, and the report says how many and why any were skipped. The baseline is
the checkpoint's base model (the untrained embedded default on the default run) unless
``baseline_path`` names an incumbent. Outputs land in
``<workdir>/reports/scorecard/<candidate digest prefix>/``.

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
from trajectory_platform.environments.table import registered_fixtures
from trajectory_platform.evaluation.report_next_steps import FailedCheck
from trajectory_platform.evaluation.settings import EvaluationSettings
from trajectory_platform.evaluation.stage import SCORECARD_SCHEMA, UpstreamFigures, scorecard_stage
from trajectory_platform.resources import UPSTREAM_FACTS, WorkdirResource
from trajectory_platform.resources.stage_config import recorded_settings, settings_of, stage_config


class ScorecardConfig(stage_config(EvaluationSettings)):  # type: ignore[misc]
    """``scorecard``'s run config: :class:`EvaluationSettings`' fields."""


FACTS = AssetIn(input_manager_key=UPSTREAM_FACTS)
"""An upstream stage whose reported figures (not its rows) the scorecard reads."""


def failed_checks(context: AssetExecutionContext) -> list[FailedCheck]:
    """Checks of other assets whose latest stored evaluation failed: the report's next steps name them.
    The checks are those of the graph the run's job was cut from (an in-process run has no
    repository to ask)."""
    graph = context.job_def.asset_layer.asset_graph
    graph = getattr(graph, "source_asset_graph", graph)
    failed = []
    upstream = [key for key in graph.asset_check_keys if key.asset_key != context.asset_key]
    for key in sorted(upstream, key=lambda k: (k.asset_key.to_user_string(), k.name)):
        record = context.instance.get_latest_asset_check_evaluation_record(key)
        evaluation = record.evaluation if record is not None else None
        if evaluation is None or evaluation.passed:
            continue
        spec = graph.get_check_spec(key)
        failed.append(
            FailedCheck(
                key.asset_key.to_user_string(),
                key.name,
                str(evaluation.severity.value),
                spec.description or "",
                evaluation.partition,
            )
        )
    return failed


@asset(
    ins={
        "checkpoint": AssetIn(),
        "training_mixture": AssetIn(),
        "token_masked_dataset": AssetIn(),
        **{name: FACTS for name in ("verified_traces", "redacted_corpus", "split_assignments")},
    },
    deps=["task_environments"],
    pool="train",
    **declared("evaluation", SCORECARD_SCHEMA),
    description="Closed-loop scorecard of the checkpoint vs its baseline on paired held-out trials "
    "(gym fixtures and held-out task environments), "
    "with the release decision (promote / hold) and report.html.",
)
def scorecard(
    context: AssetExecutionContext,
    config: ScorecardConfig,
    workdir: WorkdirResource,
    checkpoint: pa.Table,
    training_mixture: pa.Table,
    token_masked_dataset: pa.Table,
    verified_traces: dict,
    redacted_corpus: dict,
    split_assignments: dict,
) -> Output[pa.Table]:
    """Evaluate the checkpoint row's weights and record the decision."""
    torch.set_num_threads(max(1, config.threads))
    upstream = UpstreamFigures(verified=verified_traces, redacted=redacted_corpus)
    settings = settings_of(config, EvaluationSettings)
    row = checkpoint.to_pylist()[0]
    return scored_output(
        context, settings, workdir, row, training_mixture, token_masked_dataset, upstream, split_assignments
    )


def scored_output(
    context: AssetExecutionContext,
    settings: EvaluationSettings,
    workdir: WorkdirResource,
    row: dict,
    training_mixture: pa.Table,
    token_masked_dataset: pa.Table,
    upstream: UpstreamFigures,
    split_assignments: dict,
) -> Output[pa.Table]:
    """Evaluate the checkpoint ``row`` names and return its scorecard row with the report attached:
    what ``scorecard`` and each round's ``round_scorecard`` return."""
    result = scorecard_stage(
        settings,
        workdir.locate(row["path"]),
        workdir.root / "reports" / "scorecard" / str(row["artifact_digest"])[:16],
        workdir=workdir.root,
        token_masked_dataset=token_masked_dataset,
        training_mixture=training_mixture,
        upstream=upstream,
        split_policy=recorded_settings(split_assignments, SplitSettings).policy(),
        stored_path=workdir.relative,
        failed_checks=failed_checks(context),
        environments=registered_fixtures(workdir.environments_dir),
    )
    card = result.card
    context.log.info(
        f"{context.asset_key.to_user_string()}: {card['decision']} ({'; '.join(card['reasons'])})"
    )
    metadata = result.metadata()
    return Output(
        result.table,
        metadata={
            **{key: MetadataValue.json(value) for key, value in metadata.pop("json").items()},
            **{key: MetadataValue.path(str(path)) for key, path in metadata.pop("paths").items()},
            "summary": MetadataValue.md(result.summary_markdown()),
            **metadata,
        },
    )
