"""The embedded run's settings per asset, and checking them before any work: shared by ``run`` and
``round`` (a round's checkpoint and scorecard take the same profile as the unpartitioned ones, so a
round is trained and scored like the default run's checkpoint)."""

from __future__ import annotations

from typing import Any

from trajectory_platform.commands._settings import (
    SettingError,
    checked_values,
    model_fields,
    parse_settings,
    unknown_key,
)

QUIET_LOGS = {"loggers": {"console": {"config": {"log_level": "WARNING"}}}}
"""Run config that keeps a step's Dagster log at warnings: the command prints its own progress."""

EMBEDDED_PROFILE: dict[str, dict[str, Any]] = {
    "checkpoint": {
        "max_steps": 3000,
        "capacity": 2048,
        "examples_per_step": 8,
        "eval_every": 1000,
        "shared_prefix": True,
        "preamble_warmup_steps": 2000,
    },
    "scorecard": {
        "episodes": 48,
        "recovery_episodes": 6,
        "max_steps": 6,
        "max_generated_tokens": 300,
    },
    "verified_traces": {"yield_low": 0.6, "yield_high": 0.95},
}
"""Where the embedded run departs from the stages' product defaults, on purpose: the default
model trains from scratch on two CPU cores, so it takes 3,000 steps of 8 examples in 2048-token
buffers (validated every 1,000) instead of the product's 200 x 16 in 1024. Its first 2,000 steps
leave each example's tool block and system prompt out (the context warm-up: a small model learns
to copy names from the prompt and observations first, in steps 2.3x cheaper), and the rest store
that shared prefix once per buffer; its ``checkpoint`` asset trains in about 5 minutes on an idle
machine (305 s on 2026-12-04; issue 17, docs/training.md). Its
scorecard runs 48 acceptance trials (every focus task of the held-out learnable family: enough
for a paired interval to clear zero when the candidate wins about a third of them), 6 recovery
trials, each of at most 6 turns and 300 generated tokens, since the gym's short tasks need no
more. Its logs are the platform's own gym rollout, about 84% scripted-expert episodes by design,
so the verifier should admit about 0.85-0.9 of each day: the product's yield band [0.05, 0.5] is
the curation chapter's for production logs (above 0.5 there means a lax verifier) and would warn on
every embedded day (0.86-0.88 at seed 0). The embedded band is [0.6, 0.95] instead: a verifier
that also admitted the rollout's designed failures (tampered tests, wrong fixes, malformed calls,
flaky fixtures: about a tenth of each day) would put every day at 0.95 or above, and one rejecting
a third of its expert episodes below 0.6. ``--set`` overrides these like any other setting."""

EMBEDDED_PROFILE["round_checkpoint"] = EMBEDDED_PROFILE["checkpoint"]
EMBEDDED_PROFILE["round_scorecard"] = EMBEDDED_PROFILE["scorecard"]


def asset_settings(settings: list[str]) -> dict[str, dict]:
    """The embedded profile with the ``--set`` values on top, per asset."""
    config = {asset: dict(values) for asset, values in EMBEDDED_PROFILE.items()}
    for asset, values in parse_settings(settings).items():
        config.setdefault(asset, {}).update(values)
    return config


def config_class(assets_def: Any) -> type | None:
    """The ``Config`` class an asset takes (``None``: the asset takes no run config)."""
    compute = assets_def.op.compute_fn
    if not compute.has_config_arg():
        return None
    annotation = compute.get_config_arg().annotation
    return annotation if isinstance(annotation, type) else None


def checked_asset_config(assets_defs: list, config: dict[str, dict]) -> dict[str, dict]:
    """``config`` checked against the assets' run configs before any work starts, so a typo or a
    bad value fails at once with a suggestion instead of minutes later as a Dagster traceback
    (:class:`~trajectory_platform.commands._settings.SettingError`)."""
    from trajectory_platform.resources.stage_config import SETTINGS_CLASS

    classes = {assets_def.node_def.name: config_class(assets_def) for assets_def in assets_defs}
    configurable = sorted(name for name, cls in classes.items() if cls is not None)
    checked: dict[str, dict] = {}
    for asset, values in config.items():
        if asset not in classes:
            raise SettingError(unknown_key("asset", asset, configurable))
        model = classes[asset]
        if model is None:
            raise SettingError(
                f"asset {asset} takes no settings (assets with settings: {', '.join(configurable)})"
            )
        checked[asset] = checked_values(asset, values, model)
        source = getattr(model, SETTINGS_CLASS, None)  # the settings dataclass the Config came from
        if source is not None:  # its own checks too (a worker count of 0, a share above 1)
            fields = set(model_fields(source))
            checked_values(asset, {k: v for k, v in checked[asset].items() if k in fields}, source)
    return checked
