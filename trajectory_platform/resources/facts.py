"""``upstream_facts``: an input manager that hands an asset what an upstream stage *reported*.

Some stages need an upstream stage's figures, not its rows: the scorecard reports the verifier's
sinks and cost and the redaction leak rate, and picks its held-out suites with the settings
``split_assignments`` ran with. Declaring those upstream assets as inputs loaded by this manager
keeps every such dependency an edge of the graph (lineage, staleness, the UI) and the one place
that reads a materialization's metadata out of the instance is here, not in an asset body.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from dagster import AssetKey, AssetRecordsFilter, DagsterInstance, InputContext, InputManager, input_manager

from trajectory_platform.curation.day_figures import corpus_redaction, corpus_verification

UPSTREAM_FACTS = "upstream_facts"
"""The resource key assets name in ``AssetIn(input_manager_key=...)``."""


def latest_metadata(
    instance: DagsterInstance, asset: AssetKey | str, partition: str | None = None
) -> dict[str, Any]:
    """Metadata values of ``asset``'s latest materialization, or of ``partition``'s latest one
    (empty when there is none)."""
    key = asset if isinstance(asset, AssetKey) else AssetKey(asset)
    if partition is None:
        event = instance.get_latest_materialization_event(key)
        materialization = event.asset_materialization if event is not None else None
    else:
        found = instance.fetch_materializations(
            AssetRecordsFilter(asset_key=key, asset_partitions=[partition]), limit=1
        ).records
        materialization = found[0].asset_materialization if found else None
    if materialization is None:
        return {}
    return {k: getattr(v, "value", v) for k, v in materialization.metadata.items()}


DAY_FIGURES: dict[str, Callable[[Sequence[Mapping[str, Any]]], dict[str, Any]]] = {
    "verified_traces": corpus_verification,
    "redacted_corpus": corpus_redaction,
}
"""Per-day assets whose days' figures combine into the corpus's (``curation/day_figures.py``)."""


def reported_figures(instance: DagsterInstance, asset: AssetKey | str) -> dict[str, Any]:
    """What ``asset`` reported about the whole of its data: its latest materialization's metadata,
    or, for a per-day asset (:data:`DAY_FIGURES`), the latest figures of every day it has,
    combined (the latest day alone would describe one day, not the corpus). A per-day asset with
    no day materialized (a workdir from before per-day curation) reports its latest metadata."""
    key = asset if isinstance(asset, AssetKey) else AssetKey(asset)
    combine = DAY_FIGURES.get(key.to_user_string())
    days = sorted(instance.get_materialized_partitions(key)) if combine is not None else []
    if combine is None or not days:
        return latest_metadata(instance, key)
    return combine([latest_metadata(instance, key, day) for day in days])


class UpstreamFactsManager(InputManager):
    """Loads an input as what its upstream asset reported (:func:`reported_figures`, a plain dict)."""

    def load_input(self, context: InputContext) -> dict[str, Any]:
        return reported_figures(context.instance, context.asset_key)


@input_manager
def upstream_facts_manager() -> UpstreamFactsManager:
    return UpstreamFactsManager()
