"""The admitted corpus in the form fine-tuning frameworks load: chat ``messages`` with per-turn weights.

The token rows of ``token_masked_dataset`` are bound to one tokenizer; a user who trains with TRL,
Axolotl or their own loop needs the same examples as conversations. Each example here is one
:class:`~.serialize.ExamplePlan` (the very grouping the masks use: one transcript per append-only
episode, a new example where a compaction rewrote history), written as:

- ``messages``: roles ``system`` / ``user`` / ``assistant`` / ``tool``; assistant ``tool_calls`` in
  the OpenAI function-calling shape (``{"id", "type": "function", "function": {"name",
  "arguments"}}``, arguments the recorded JSON string); tool results with ``tool_call_id``; every
  message carries ``weight``: 1 on an assistant turn the platform selected as a target, 0 on
  everything else (Axolotl's ``message_field_training: weight``; OpenAI's fine-tuning ``weight``);
- ``tools``: the episode's tool schemas in the OpenAI ``tools`` shape.

Targets are :func:`~.serialize.select_targets`' choice (curation's ``target_turns``), and a
truncated turn is a target only under the ``prefix`` policy, as in the masks. Reasoning is removed
or part of the target (:data:`EXPORT_RATIONALE_MODES`): with either, a framework's loss over the
weighted turns is exactly the platform's masks under the same policy. An episode or example
that gives no weighted turn is dropped with the dataset stage's reason keys, so records in = kept +
dropped by reason. :func:`weighted_labels` turns a framework's assistant-token mask back into the
platform's per-turn targets (TRL's ``assistant_only_loss`` trains every assistant turn).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import pyarrow as pa

from trajectory_platform.traces.drops import Drop, Tally
from trajectory_platform.training.data.export_settings import EXPORT_RATIONALE_MODES
from trajectory_platform.training.data.labels import IGNORE_INDEX
from trajectory_platform.training.data.mask_settings import MaskConfig
from trajectory_platform.training.data.masked_dataset import EpisodeInput
from trajectory_platform.training.data.serialize import ExamplePlan, Turn, plan_examples, select_targets

EXPORT_FORMAT = "trajectory-platform-chat/v1"
DEFAULT_SPLIT = "train"

EXPORT_SCHEMA = pa.schema(
    [
        pa.field("id", pa.string(), nullable=False),
        pa.field("episode_id", pa.string(), nullable=False),
        pa.field("split", pa.string(), nullable=False),
        ("role", pa.string()),
        ("lineage_id", pa.string()),
        ("messages", pa.list_(pa.json_())),
        ("tools", pa.list_(pa.json_())),
        ("weighted_turns", pa.int32()),
    ]
)
"""The Hugging Face ``datasets`` table: each message and tool one JSON value (``datasets.Json``), so
tool schemas that differ between examples load back exactly, not as one unified struct."""

HF_FEATURES = {
    "id": {"dtype": "string", "_type": "Value"},
    "episode_id": {"dtype": "string", "_type": "Value"},
    "split": {"dtype": "string", "_type": "Value"},
    "role": {"dtype": "string", "_type": "Value"},
    "lineage_id": {"dtype": "string", "_type": "Value"},
    "messages": {"feature": {"_type": "Json"}, "_type": "List"},
    "tools": {"feature": {"_type": "Json"}, "_type": "List"},
    "weighted_turns": {"dtype": "int32", "_type": "Value"},
}
"""``datasets``' feature declaration of :data:`EXPORT_SCHEMA` (its Parquet ``huggingface`` metadata)."""


@dataclass
class ChatExport:
    """The exported examples (in order) and the accounting of what was left out."""

    rows: list[dict[str, Any]] = field(default_factory=list)
    episodes_in: int = 0
    dropped: dict[str, int] = field(default_factory=dict)
    first_drops: dict[str, Drop] = field(default_factory=dict)

    def drop(self, drop: Drop) -> None:
        self.dropped[drop.reason] = self.dropped.get(drop.reason, 0) + 1
        self.first_drops.setdefault(drop.reason, drop)

    def tally(self) -> Tally:
        """Examples kept, and by reason the examples and episodes that gave none."""
        return Tally.of(len(self.rows), self.dropped)

    def splits(self) -> dict[str, int]:
        """Examples per split, sorted by split name."""
        counts: dict[str, int] = {}
        for row in self.rows:
            counts[row["split"]] = counts.get(row["split"], 0) + 1
        return dict(sorted(counts.items()))


def _weighted(turn: Turn, config: MaskConfig) -> bool:
    """Whether the masks would supervise this turn (a truncated one only under ``prefix``)."""
    return turn.target and (not turn.truncated or config.truncation == "prefix")


def chat_messages(plan: ExamplePlan, config: MaskConfig) -> list[dict[str, Any]]:
    """The plan's turns as chat messages, each with its ``weight`` (1 = target, 0 = context)."""
    messages = []
    for turn in plan.turns:
        message = {key: value for key, value in turn.message.items() if value is not None}
        message["weight"] = int(turn.kind == "assistant" and _weighted(turn, config))
        messages.append(message)
    return messages


def export_chat(
    inputs: Sequence[EpisodeInput],
    config: MaskConfig | None = None,
    lineage_ids: Mapping[str, str] | None = None,
) -> ChatExport:
    """Every input episode as chat examples (module docstring), ordered by episode then example.

    ``lineage_ids`` (episode id -> the redacted corpus' sealed lineage id) is carried on each row."""
    config = config or MaskConfig(rationale=EXPORT_RATIONALE_MODES[0])
    if config.rationale not in EXPORT_RATIONALE_MODES:
        raise ValueError(
            f"rationale {config.rationale!r} has no chat form (a framework trains a weighted turn whole, "
            f"reasoning included): use one of {EXPORT_RATIONALE_MODES}"
        )
    lineage_ids = lineage_ids or {}
    export = ChatExport(episodes_in=len(inputs))
    for item in sorted(inputs, key=lambda i: i.episode.episode_id):
        episode = item.episode
        if not any(e.kind == "assistant" for e in episode.events):
            export.drop(Drop("no_invocation", episode.episode_id))
            continue
        try:
            plans = plan_examples(episode, select_targets(episode, item.target_turns), config.rationale)
        except json.JSONDecodeError as exc:
            export.drop(Drop("embedded_json_unreadable", f"{episode.episode_id}: {exc}"))
            continue
        for plan in plans:
            if plan.problem is not None:
                export.drop(Drop(plan.problem, plan.example_id))
                continue
            messages = chat_messages(plan, config)
            weighted = sum(m["weight"] for m in messages)
            if not weighted:
                export.drop(Drop("no_target", plan.example_id))
                continue
            export.rows.append(
                {
                    "id": plan.example_id,
                    "episode_id": episode.episode_id,
                    "split": item.split or DEFAULT_SPLIT,
                    "role": item.role,
                    "lineage_id": lineage_ids.get(episode.episode_id),
                    "messages": messages,
                    "tools": plan.tools,
                    "weighted_turns": weighted,
                }
            )
    return export


def jsonl_lines(rows: Sequence[Mapping[str, Any]]) -> list[str]:
    """One canonical JSON line per example (sorted keys, so the same rows give the same bytes)."""
    return [json.dumps(row, sort_keys=True, ensure_ascii=False) for row in rows]


def hf_table(rows: Sequence[Mapping[str, Any]]) -> pa.Table:
    """The rows as :data:`EXPORT_SCHEMA`, with the ``huggingface`` features metadata ``datasets``
    reads back (messages and tools decode to the exported dicts)."""

    def as_json(values: Sequence[Any]) -> list[str]:
        return [json.dumps(value, sort_keys=True, ensure_ascii=False) for value in values]

    columns: dict[str, list[Any]] = {name: [] for name in EXPORT_SCHEMA.names}
    for row in rows:
        for name in EXPORT_SCHEMA.names:
            value = row[name]
            columns[name].append(as_json(value) if name in ("messages", "tools") else value)
    # Arrow builds JSON values from their text: assemble as strings, then cast to the JSON type.
    as_text = pa.schema(
        [
            pa.field(f.name, pa.list_(pa.string())) if f.name in ("messages", "tools") else f
            for f in EXPORT_SCHEMA
        ]
    )
    table = pa.Table.from_pydict(columns, schema=as_text).cast(EXPORT_SCHEMA)
    features = json.dumps({"info": {"features": HF_FEATURES}}, sort_keys=True)
    return table.replace_schema_metadata({b"huggingface": features.encode("utf-8")})


def weighted_labels(
    messages: Sequence[Mapping[str, Any]], input_ids: Sequence[int], assistant_masks: Sequence[int]
) -> list[int]:
    """Labels that train only the weighted assistant turns of a tokenized example.

    ``assistant_masks`` is the chat template's assistant-token mask
    (``apply_chat_template(..., return_assistant_tokens_mask=True)``, TRL's ``assistant_masks``):
    its runs of ones are the assistant turns in order. A run whose message has ``weight`` 0 becomes
    context (:data:`IGNORE_INDEX`). Raises ``ValueError`` when the runs and the assistant messages
    do not correspond (a template that merges or hides assistant turns).
    """
    if len(input_ids) != len(assistant_masks):
        raise ValueError(f"{len(input_ids)} input ids but {len(assistant_masks)} mask entries")
    runs: list[tuple[int, int]] = []
    for position, bit in enumerate(assistant_masks):
        if bit and (position == 0 or not assistant_masks[position - 1]):
            runs.append((position, position + 1))
        elif bit:
            runs[-1] = (runs[-1][0], position + 1)
    weights = [m.get("weight", 1) for m in messages if m["role"] == "assistant"]
    if len(runs) != len(weights):
        raise ValueError(
            f"the assistant mask has {len(runs)} turns but the example {len(weights)} assistant messages"
        )
    labels = [IGNORE_INDEX] * len(input_ids)
    for (start, end), weight in zip(runs, weights, strict=True):
        if weight:
            labels[start:end] = input_ids[start:end]
    return labels
