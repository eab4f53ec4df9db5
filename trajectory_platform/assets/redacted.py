"""``redacted_corpus``: verified episodes redacted, lineage sealed, licenses fenced.

Thin: load ``verified_traces``, call :func:`redact_corpus` once with the key from the
``secrets_salt`` resource and the run's :class:`RedactSettings` (the canary sample), attach findings
by kind, Λ_leak with its 95% interval and sample size, throughput and the license audit, return the
table. ``redact_corpus`` raises when a canary survives, so a leaking corpus is never
materialized (a failed blocking check would still have recorded it).
"""

import dataclasses

import pyarrow as pa
from dagster import AssetExecutionContext, AssetIn, MetadataValue, Output, asset

from trajectory_platform.assets._house import declared, tally_metadata
from trajectory_platform.curation.redact import RedactSettings, redact_corpus
from trajectory_platform.curation.redact.corpus import CorpusResult, corpus_tally, output_schema
from trajectory_platform.curation.verify.tables import VERIFIED_SCHEMA
from trajectory_platform.resources.secrets import SecretsSaltResource
from trajectory_platform.resources.stage_config import SETTINGS_KEY, settings_of, stage_config
from trajectory_platform.sensors.automation import CURATION_CONDITION

RedactConfig = stage_config(RedactSettings, "RedactConfig")


@asset(
    ins={"verified_traces": AssetIn()},
    **declared("curation", output_schema(VERIFIED_SCHEMA)),
    automation_condition=CURATION_CONDITION,
    description="Every verified episode redacted (three passes, keyed pseudonyms, JSON kept valid), sealed "
    "with its lineage envelope (lineage_id, merkle_root, lineage_json) and fenced by license "
    "(license_tier, license_action, taint). Restricted-license families are blocked and audited in metadata.",
)
def redacted_corpus(
    context: AssetExecutionContext,
    config: RedactConfig,
    secrets_salt: SecretsSaltResource,
    verified_traces: pa.Table,
) -> Output[pa.Table]:
    """Redact, seal and fence ``verified_traces``; verdict columns pass through."""
    settings = settings_of(config, RedactSettings)
    result = redact_corpus(verified_traces, secrets_salt.key(), settings=settings)
    for row in result.audit.to_pylist():
        context.log.warning(
            f"license block: {row['episode_id']} ({row['license']}, family {row['repo_family']})"
        )
    return Output(result.table, metadata=_metadata(result, secrets_salt.source, settings))


def _metadata(result: CorpusResult, salt_source: str, settings: RedactSettings) -> dict:
    stats, leak = result.stats, result.leak.as_dict()
    return {
        **tally_metadata(corpus_tally(result)),
        "rows_in": stats["rows_in"],
        "rows_out": stats["rows_out"],
        "license_blocked": stats["blocked"],
        "license_quarantined": stats["quarantined"],
        "license_tainted": stats["tainted"],
        "findings_by_kind": MetadataValue.json(result.findings_by_kind),
        "findings_total": sum(result.findings_by_kind.values()),
        "leak_rate": result.leak.rate,
        "leak_rate_interval": MetadataValue.json(leak["interval"]),
        "leak_sample_records": result.leak.records_planted,
        "canaries": MetadataValue.json(leak),
        "mb_per_s": stats["mb_per_s"],
        "text_mb": round(stats["text_bytes"] / 1e6, 4),
        "json_regressions": stats["json_regressions"],
        "license_audit": MetadataValue.json(result.audit.to_pylist()),
        "salt_source": salt_source,
        SETTINGS_KEY: MetadataValue.json(dataclasses.asdict(settings)),
    }
