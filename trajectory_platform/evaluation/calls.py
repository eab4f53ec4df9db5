"""Call validity (fine-tuning table 11), schema-following accuracy and parametric recall error.

Every proposed call is scored against the schema set *delivered at that invocation*, through
the same parser and validator the runtime uses (the caller passes parsed calls in). Bad calls
are split by cause instead of collapsed into one failure rate, because each cause points at a
different fix (template, schema coverage, tool inventory, output limit, or the tool itself).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import jsonschema

CALL_CATEGORIES = (
    "valid",
    "malformed_serialization",
    "truncated_proposal",
    "undeclared_tool",
    "schema_violation",
    "tool_execution_error",
)


@dataclass(frozen=True)
class ScoredCall:
    """One proposed call as the evaluator saw it.

    ``arguments`` is None when the serialization did not parse; ``active_schemas`` maps each
    tool name delivered at this invocation to its JSON-Schema ``parameters``.
    """

    tool: str | None
    arguments: dict | None
    active_schemas: dict[str, dict]
    truncated: bool = False
    execution_error: bool = False
    regime: str = "familiar"
    metadata: dict = field(default_factory=dict)


def _satisfies(arguments: dict, schema: dict) -> bool:
    try:
        jsonschema.validate(arguments, schema)
    except jsonschema.ValidationError:
        return False
    return True


def classify_call(call: ScoredCall) -> str:
    """The table-11 category of one call; causes are checked from transport up to execution."""
    if call.truncated:
        return "truncated_proposal"
    if call.arguments is None or call.tool is None:
        return "malformed_serialization"
    if call.tool not in call.active_schemas:
        return "undeclared_tool"
    if not _satisfies(call.arguments, call.active_schemas[call.tool]):
        return "schema_violation"
    if call.execution_error:
        return "tool_execution_error"
    return "valid"


def call_validity(calls: Iterable[ScoredCall]) -> dict[str, object]:
    """Counts and rates per category, plus the total scored."""
    counts = Counter(classify_call(c) for c in calls)
    total = sum(counts.values())
    return {
        "total": total,
        "counts": {cat: counts.get(cat, 0) for cat in CALL_CATEGORIES},
        "rates": {cat: (counts.get(cat, 0) / total if total else None) for cat in CALL_CATEGORIES},
    }


def schema_following_accuracy(calls: Sequence[ScoredCall]) -> float | None:
    """SFA: share of calls naming a declared tool whose arguments satisfy its delivered schema.

    A truncated proposal never counts, even when its cut-off JSON happens to close.
    """
    if not calls:
        return None
    ok = sum(1 for c in calls if classify_call(c) in ("valid", "tool_execution_error"))
    return ok / len(calls)


def _delivered_params(call: ScoredCall) -> set[str]:
    params: set[str] = set()
    for schema in call.active_schemas.values():
        params.update((schema.get("properties") or {}).keys())
    return params


def parametric_recall_error(calls: Sequence[ScoredCall], training_keys: set[str]) -> float | None:
    """PRE: share of calls emitting a training-set key that the delivered schema set lacks."""
    if not calls:
        return None
    recalled = sum(
        1
        for c in calls
        if c.arguments is not None
        and any(k in training_keys and k not in _delivered_params(c) for k in c.arguments)
    )
    return recalled / len(calls)


def by_regime(calls: Sequence[ScoredCall], training_keys: set[str]) -> dict[str, dict[str, float | None]]:
    """SFA and PRE for each schema regime (familiar, renamed, unfamiliar family, ...)."""
    regimes = sorted({c.regime for c in calls})
    out: dict[str, dict[str, float | None]] = {}
    for regime in regimes:
        subset = [c for c in calls if c.regime == regime]
        out[regime] = {
            "n_calls": len(subset),
            "sfa": schema_following_accuracy(subset),
            "pre": parametric_recall_error(subset, training_keys),
        }
    return out
