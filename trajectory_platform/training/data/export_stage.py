"""The export stage end to end: curated episodes -> ``chat.jsonl`` + a Hugging Face dataset folder.

One call writes, under the output folder::

    chat.jsonl                    one chat example per line (messages with weights, tools)
    hf/README.md                  the dataset card (front matter: licence, split files)
    hf/data/<split>.parquet       the same examples per split, loadable with ``datasets``

The caller brings what the card states about earlier stages (their accounting, Λ_leak, the
provenance record); this stage adds its own accounting and what it can read from the rows
(sources, licences, lineage, the corpus digest). The same inputs give byte-identical files.
"""

from __future__ import annotations

import hashlib
import os
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from trajectory_platform.traces.parquet import write_parquet
from trajectory_platform.training.data.dataset_card import UNKNOWN_LICENSE, CardFacts, dataset_card
from trajectory_platform.training.data.export import (
    ChatExport,
    export_chat,
    hf_table,
    jsonl_lines,
)
from trajectory_platform.training.data.export_settings import ExportSettings
from trajectory_platform.training.data.mask_settings import MaskConfig
from trajectory_platform.training.data.masked_dataset import EpisodeInput, corpus_digest

CHAT_FILE = "chat.jsonl"
HF_DIR = "hf"
CARD_FILE = "README.md"


@dataclass(frozen=True)
class CorpusRecord:
    """What the redacted corpus says about one episode (its sealed lineage id and licence tier)."""

    lineage_id: str | None
    license_tier: str | None


@dataclass
class ExportResult:
    """What was written, and the figures the command prints."""

    export: ChatExport
    chat_path: Path
    hf_dir: Path
    card: CardFacts

    def summary(self) -> dict[str, Any]:
        tally = self.export.tally()
        return {
            **tally.metadata(),
            "episodes_in": self.export.episodes_in,
            "splits": self.card.splits,
            "chat_jsonl": str(self.chat_path),
            "hf_dataset": str(self.hf_dir),
            "leak_rate": None if self.card.leak is None else self.card.leak["rate"],
            "corpus_digest": self.card.corpus_digest,
        }


def _write_text(path: Path, text: str) -> None:
    """Atomic, like the Parquet writer: a reader never sees half a file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def _lineage_digest(ids: Sequence[str]) -> str | None:
    return hashlib.sha256("\n".join(sorted(ids)).encode("utf-8")).hexdigest() if ids else None


def write_export(
    inputs: Sequence[EpisodeInput],
    out: Path,
    *,
    settings: ExportSettings | None = None,
    corpus: Mapping[str, CorpusRecord] | None = None,
    yields: Mapping[str, dict[str, Any]] | None = None,
    leak: dict[str, Any] | None = None,
    provenance: dict[str, Any] | None = None,
) -> ExportResult:
    """Export ``inputs`` (module docstring). ``corpus``: episode id -> its redacted-corpus record;
    ``yields``: earlier stages' ``Tally.metadata()`` in pipeline order (this stage's is appended)."""
    settings = settings or ExportSettings()
    config = MaskConfig(settings.rationale, settings.truncation)
    corpus = corpus or {}
    lineage = {e: r.lineage_id for e, r in corpus.items() if r.lineage_id}
    export = export_chat(inputs, config, lineage)
    chat_path = Path(out) / CHAT_FILE
    _write_text(chat_path, "".join(line + "\n" for line in jsonl_lines(export.rows)))
    hf_dir = Path(out) / HF_DIR
    for stale in sorted((hf_dir / "data").glob("*.parquet")):  # a split an earlier export had
        stale.unlink()
    split_files = {}
    for split in export.splits():
        relative = f"data/{split}.parquet"
        write_parquet(hf_table([r for r in export.rows if r["split"] == split]), hf_dir / relative)
        split_files[split] = relative
    exported = {row["episode_id"] for row in export.rows}
    episodes = [i.episode for i in inputs if i.episode.episode_id in exported]
    card = CardFacts(
        name=settings.name,
        splits=export.splits(),
        split_files=split_files,
        corpus_digest=corpus_digest([i for i in inputs if i.episode.episode_id in exported]),
        sources=dict(sorted(Counter(e.source_format for e in episodes).items())),
        source_files=len({e.source_file for e in episodes}),
        lineage_ids=sum(1 for e in exported if e in lineage),
        lineage_digest=_lineage_digest([lineage[e] for e in exported if e in lineage]),
        licenses=dict(
            sorted(Counter((e.task.license if e.task else None) or UNKNOWN_LICENSE for e in episodes).items())
        ),
        license_tiers=dict(
            sorted(
                Counter(corpus[e].license_tier or UNKNOWN_LICENSE for e in exported if e in corpus).items()
            )
        ),
        yields={**(yields or {}), "export": export.tally().metadata()},
        leak=leak,
        provenance=provenance,
        settings={"rationale": config.rationale, "truncation": config.truncation},
    )
    _write_text(hf_dir / CARD_FILE, dataset_card(card))
    return ExportResult(export, chat_path, hf_dir, card)
