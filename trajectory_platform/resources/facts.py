"""``upstream_facts``: an input manager that hands an asset what an upstream stage *reported*.

Some stages need an upstream stage's figures, not its rows: the scorecard reports the verifier's
sinks and cost and the redaction leak rate, and picks its held-out suites with the settings
``split_assignments`` ran with. Declaring those upstream assets as inputs loaded by this manager
keeps every such dependency an edge of the graph (lineage, staleness, the UI) and the one place
that reads a materialization's metadata out of the instance is here, not in an asset body.
"""

from __future__ import annotations

from typing import Any

from dagster import AssetKey, DagsterInstance, InputContext, InputManager, input_manager

UPSTREAM_FACTS = "upstream_facts"
"""The resource key assets name in ``AssetIn(input_manager_key=...)``."""


def latest_metadata(instance: DagsterInstance, asset: AssetKey | str) -> dict[str, Any]:
    """Metadata values of ``asset``'s latest materialization (empty when there is none)."""
    key = asset if isinstance(asset, AssetKey) else AssetKey(asset)
    event = instance.get_latest_materialization_event(key)
    if event is None or event.asset_materialization is None:
        return {}
    return {k: getattr(v, "value", v) for k, v in event.asset_materialization.metadata.items()}


class UpstreamFactsManager(InputManager):
    """Loads an input as its upstream asset's latest materialization metadata (a plain dict)."""

    def load_input(self, context: InputContext) -> dict[str, Any]:
        return latest_metadata(context.instance, context.asset_key)


@input_manager
def upstream_facts_manager() -> UpstreamFactsManager:
    return UpstreamFactsManager()
