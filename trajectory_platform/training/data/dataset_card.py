"""The dataset card (``README.md``) of an exported chat dataset: what it is, where it came from, and
what was left out on the way.

A Hugging Face dataset directory is read by people before it is loaded: the card's YAML front matter
is what the Hub and ``datasets.load_dataset(DIR)`` read (licence, the split files), the body is what
a reviewer needs to accept the data: its sources and formats, the lineage it binds to, licences,
each stage's records in / kept / dropped by reason, the measured leak rate Λ_leak with its interval,
and the splits. Every figure arrives as a plain value from the caller (the export command reads
them from the curation tables, manifests or the asset metadata); nothing here is computed twice.
Front-matter values are written as JSON, which YAML reads unchanged.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from trajectory_platform.training.data.export import EXPORT_FORMAT

UNKNOWN_LICENSE = "unknown"


@dataclass
class CardFacts:
    """Everything the card states (figures a stage already reported; ``None``: not available)."""

    name: str
    splits: dict[str, int]
    split_files: dict[str, str]
    corpus_digest: str
    sources: dict[str, int] = field(default_factory=dict)
    """Episodes by source format."""
    source_files: int = 0
    lineage_ids: int = 0
    lineage_digest: str | None = None
    licenses: dict[str, int] = field(default_factory=dict)
    license_tiers: dict[str, int] = field(default_factory=dict)
    yields: dict[str, dict[str, Any]] = field(default_factory=dict)
    """Stage -> ``Tally.metadata()`` (records_in, kept, dropped, dropped_by_reason), in pipeline order."""
    leak: dict[str, Any] | None = None
    """``rate``, ``interval`` (low, high), ``confidence``, ``injected``, ``leaked``."""
    provenance: dict[str, Any] | None = None
    settings: dict[str, Any] = field(default_factory=dict)


def _size_category(n: int) -> str:
    for bound, label in ((1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K")):
        if n < bound:
            return label
    return "100K<n<1M"


def hub_license(licenses: Mapping[str, int]) -> str:
    """The Hub ``license`` id: the one licence every record shares (lowercased SPDX), else ``other``."""
    known = {name for name in licenses if name and name != UNKNOWN_LICENSE}
    return next(iter(known)).lower() if len(known) == 1 and len(licenses) == 1 else "other"


def front_matter(facts: CardFacts) -> str:
    """The YAML header: licence, tags, size, and the split files ``load_dataset(DIR)`` reads."""
    header = {
        "pretty_name": facts.name,
        "license": hub_license(facts.licenses),
        "language": ["en"],
        "task_categories": ["text-generation"],
        "tags": ["agent", "tool-use", "sft", "chat", "trajectory-platform"],
        "size_categories": [_size_category(sum(facts.splits.values()))],
        "configs": [
            {
                "config_name": "default",
                "data_files": [{"split": s, "path": p} for s, p in sorted(facts.split_files.items())],
            }
        ],
    }
    lines = [f"{key}: {json.dumps(value, ensure_ascii=False)}" for key, value in header.items()]
    return "---\n" + "\n".join(lines) + "\n---\n"


def _counts(counts: Mapping[str, int]) -> str:
    return ", ".join(f"`{k}` {v}" for k, v in sorted(counts.items())) or "none"


def _yields_table(yields: Mapping[str, Mapping[str, Any]]) -> list[str]:
    if not yields:
        return ["No stage accounting was available for this export."]
    lines = ["| stage | records in | kept | dropped | dropped by reason |", "|---|---:|---:|---:|---|"]
    for stage, tally in yields.items():
        figures = " | ".join(str(tally.get(key)) for key in ("records_in", "kept", "dropped"))
        lines.append(f"| {stage} | {figures} | {_counts(tally.get('dropped_by_reason') or {})} |")
    return lines


def _leak_lines(leak: Mapping[str, Any] | None) -> list[str]:
    if leak is None:
        return ["Λ_leak was not recorded for this corpus: treat it as unmeasured."]
    low, high = leak["interval"]
    confidence = leak.get("confidence", 0.95)
    return [
        f"Λ_leak = {leak['rate']:.4f} ({leak.get('leaked')} of {leak.get('injected')} planted canary "
        f"secrets survived redaction); exact {confidence:.0%} interval [{low:.4f}, {high:.4f}]. "
        "A corpus where any canary survives is never published, so a released export reads 0 here; "
        "the interval's upper end is what the sample size can vouch for."
    ]


def dataset_card(facts: CardFacts) -> str:
    """The whole ``README.md``: front matter, then the sections a reviewer reads."""
    total = sum(facts.splits.values())
    provenance = json.dumps(facts.provenance, sort_keys=True) if facts.provenance else "none recorded"
    body = [
        f"# {facts.name}",
        "",
        f"{total} chat examples of tool-using agent episodes that passed the verifier cascade and "
        "redaction (the admitted, redacted training mixture of trajectory_platform), in "
        f"`{EXPORT_FORMAT}`: `messages` (system / user / assistant / tool; assistant `tool_calls` in the "
        "OpenAI function-calling shape; tool results with `tool_call_id`) and `tools` (JSON schemas). "
        "Each message has `weight`: 1 on an assistant turn selected as a training target, 0 on context.",
        "",
        "## Splits",
        "",
        "| split | examples | file |",
        "|---|---:|---|",
        *[f"| {s} | {n} | `{facts.split_files.get(s, '')}` |" for s, n in sorted(facts.splits.items())],
        "",
        "## Provenance",
        "",
        f"- sources (episodes by log format): {_counts(facts.sources)}; {facts.source_files} source files",
        "- corpus digest (sha256 over the exported episodes and their target selection): "
        f"`{facts.corpus_digest}`",
        f"- lineage: {facts.lineage_ids} sealed lineage envelopes; digest of their sorted ids: "
        f"`{facts.lineage_digest or 'not available'}`",
        f"- provenance record: `{provenance}`",
        f"- export settings: `{json.dumps(facts.settings, sort_keys=True)}`",
        "",
        "## Licences",
        "",
        f"- task licences (episodes): {_counts(facts.licenses)}",
        f"- licence tiers after fencing: {_counts(facts.license_tiers)}",
        "",
        "Restricted-licence families were blocked before this export (see the redaction stage's drops).",
        "",
        "## Yields",
        "",
        *_yields_table(facts.yields),
        "",
        "Each row is one stage's own accounting (records in = kept + dropped by reason). A stage the "
        "source does not account for is left out, so one row's kept need not equal the next row's "
        "records in: the verifier's hard negatives feed preference pairs, not this mixture, and the "
        "mixture keeps the training split's SFT share.",
        "",
        "## Leak rate",
        "",
        *_leak_lines(facts.leak),
        "",
        "## Loading",
        "",
        "```python",
        "import datasets",
        'ds = datasets.load_dataset("path/to/this/folder")',
        '# or: datasets.load_dataset("json", data_files="chat.jsonl")',
        "```",
        "",
        "TRL's `SFTTrainer` reads `messages` and `tools` as they are (`assistant_only_loss=True` trains "
        "every assistant turn; `weighted_labels` in `trajectory_platform.training.data.export` keeps only "
        "weight-1 turns). Axolotl: `type: chat_template`, `field_messages: messages`, "
        "`message_field_training: weight`.",
        "",
    ]
    return front_matter(facts) + "\n" + "\n".join(body)
