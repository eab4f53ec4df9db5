"""The scorecard stage: one call from a checkpoint row and the pipeline's figures to the decision row.

The ``scorecard`` asset and any other caller hand over what they hold (settings, the candidate,
the training tables, the upstream stages' figures) and get back the scorecard, the one-row table
with its declared schema, and the paths written. Budget defaults that depend on the data (a turn
as long as the longest selected-target turn + 8 when ``max_new_tokens`` is 0) are resolved here.
Registered task environments (the ``task_environments`` rows) are offered to the held-out suites:
those the split plan holds out are evaluated through their own tools, beside the gym's fixtures.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa

from trajectory_platform.curation.split_mixture_stage import sft_token_shares
from trajectory_platform.curation.splits import SplitPolicy
from trajectory_platform.evaluation.budget import turn_budget
from trajectory_platform.evaluation.episodes import fault_kinds_seen
from trajectory_platform.evaluation.report import report_markdown
from trajectory_platform.evaluation.report_next_steps import FailedCheck
from trajectory_platform.evaluation.run import EvaluationRequest, evaluate
from trajectory_platform.evaluation.scorecard import row_figures
from trajectory_platform.evaluation.settings import EvaluationSettings
from trajectory_platform.gym.fixtures import Fixture
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


@dataclass(frozen=True)
class UpstreamFigures:
    """What the upstream stages reported, for the dataset-quality row and the report's context."""

    verified: Mapping[str, Any]
    redacted: Mapping[str, Any]


@dataclass
class ScorecardStageResult:
    """The scorecard, its one-row table (:data:`SCORECARD_SCHEMA`) and where it was written."""

    card: dict[str, Any]
    table: pa.Table
    out: Path

    @property
    def report(self) -> Path:
        return self.out / "report.html"

    def metadata(self) -> dict[str, Any]:
        """What a person reads on the asset page: ``json`` and ``paths`` groups, the rest plain."""
        card = self.card
        acceptance = {
            k: card["acceptance"].get(k) for k in ("candidate", "baseline", "difference", "by_source")
        }
        return {
            "decision": card["decision"],
            "binding_digest": card["gate"]["binding_digest"],
            "json": {
                "reasons": card["reasons"],
                "acceptance": acceptance,
                "sfa": card["sfa"],
                "pre": card["pre"],
                "dataset_quality": card.get("dataset_quality"),
                "environments": card.get("environments"),
            },
            "paths": {"report": self.report, "scorecard_json": self.out / "scorecard.json"},
        }

    def summary_markdown(self) -> str:
        """The report for an asset page: decision, next steps, measurements with their meaning and
        every plot inline (data URIs)."""
        return report_markdown(self.out)


def scorecard_stage(
    settings: EvaluationSettings,
    candidate: Path,
    out: Path,
    *,
    workdir: Path,
    token_masked_dataset: pa.Table,
    training_mixture: pa.Table,
    upstream: UpstreamFigures,
    split_policy: SplitPolicy | None = None,
    stored_path: Callable[[Path], str] = str,
    failed_checks: Sequence[FailedCheck] = (),
    environments: Sequence[Fixture] = (),
) -> ScorecardStageResult:
    """Evaluate ``candidate`` (written under ``out``); ``stored_path`` turns a written file into the
    path the table stores (relative to the workdir, so the bytes do not depend on where it is);
    ``failed_checks`` (upstream checks whose latest evaluation failed) become next steps of the report;
    ``environments`` (brought task environments) join the suites where the split plan holds them out."""
    if not settings.max_new_tokens:
        budget = turn_budget(token_masked_dataset, cap=settings.max_generated_tokens)
        settings = dataclasses.replace(settings, max_new_tokens=budget)
    episodes = table_to_episodes(training_mixture.select(EPISODE_SCHEMA.names))
    request = EvaluationRequest.from_settings(
        settings,
        candidate,
        out,
        workdir=workdir,
        progress=False,
        split_policy=split_policy,
        training_fault_kinds=fault_kinds_seen(episodes),
        environments=tuple(environments),
    )
    verified = upstream.verified
    card = evaluate(
        request,
        pipeline={
            "sinks": verified.get("sinks"),
            "flakiness_index": verified.get("r_flake"),
            "redaction_leakage": upstream.redacted.get("leak_rate"),
            "redaction_leakage_interval": upstream.redacted.get("leak_rate_interval"),
            "redaction_leak_sample_records": upstream.redacted.get("leak_sample_records"),
            "verifier_seconds_per_attempt": verified.get("c_attempt_s"),
        },
        context={
            "funnel": verified.get("funnel"),
            "mixture_token_shares": sft_token_shares(training_mixture),
            "failed_checks": list(failed_checks),
        },
    )
    return ScorecardStageResult(card, scorecard_table(card, out, stored_path), out)


def scorecard_table(card: dict[str, Any], out: Path, stored_path: Callable[[Path], str] = str) -> pa.Table:
    """The one-row ``scorecard`` table of a decided scorecard written under ``out``."""
    row = {
        **row_figures(card),
        "scorecard_path": stored_path(out / "scorecard.json"),
        "report_path": stored_path(out / "report.html"),
    }
    return pa.Table.from_pylist([row], schema=SCORECARD_SCHEMA)
