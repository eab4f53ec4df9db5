"""Tokenize ``preference_pairs`` rows into scored spans for span DPO (fine-tuning 16.8).

Curation carries both whole episodes per pair and the assistant events each side scores
(``chosen_turns`` / ``rejected_turns``). Each side is rendered with the same serializer and
masks as SFT (:mod:`trajectory_platform.training.data.serialize`, :mod:`~.masking`), with the pair's
turns as the selected targets, so a DPO score covers exactly the tokens an SFT target would, and
the shared prefix renders to identical tokens on both sides. A side that does not render to one
verified transcript (compacted history, misaligned offsets, no target) refuses the pair with a
reason; nothing is patched.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pyarrow as pa
from transformers import PreTrainedTokenizerBase

from trajectory_platform.traces.record import Episode
from trajectory_platform.training.data.labels import target_positions
from trajectory_platform.training.data.masking import MaskConfig, mask_plans
from trajectory_platform.training.data.serialize import plan_examples, select_targets


@dataclass(frozen=True)
class PreferencePair:
    """One admitted comparison: chosen (preferred) and rejected token ids with their scored indices."""

    pair_id: str
    chosen_ids: tuple[int, ...]
    chosen_selected: tuple[int, ...]
    rejected_ids: tuple[int, ...]
    rejected_selected: tuple[int, ...]

    @classmethod
    def from_row(cls, row: dict[str, Any], index: int) -> PreferencePair:
        """Read a ``preference_pairs`` token row; a selected index must have a preceding position."""
        pair = cls(
            pair_id=str(row.get("pair_id", index)),
            chosen_ids=tuple(int(t) for t in row["chosen_input_ids"]),
            chosen_selected=tuple(int(t) for t in row["chosen_selected"]),
            rejected_ids=tuple(int(t) for t in row["rejected_input_ids"]),
            rejected_selected=tuple(int(t) for t in row["rejected_selected"]),
        )
        for name, ids, selected in (
            ("chosen", pair.chosen_ids, pair.chosen_selected),
            ("rejected", pair.rejected_ids, pair.rejected_selected),
        ):
            if not selected:
                raise ValueError(f"pair {pair.pair_id}: {name} has no selected tokens")
            if min(selected) < 1 or max(selected) >= len(ids):
                raise ValueError(f"pair {pair.pair_id}: {name} selected index outside 1..{len(ids) - 1}")
        return pair


class PairRefused(ValueError):
    """A preference row that cannot become a scored token pair, with the reason."""


def _side(
    episode: Episode, turns: list[int], tokenizer: PreTrainedTokenizerBase, config: MaskConfig
) -> tuple[tuple[int, ...], tuple[int, ...]]:
    plans = plan_examples(episode, select_targets(episode, target_turns=turns))
    if len(plans) != 1:
        raise PairRefused(f"episode {episode.episode_id} renders to {len(plans)} per-invocation examples")
    result = mask_plans(plans, tokenizer, config)
    if not result.examples:
        raise PairRefused(f"episode {episode.episode_id}: {dict(result.drops)}")
    example = result.examples[0]
    selected = target_positions(example.labels)
    return tuple(example.input_ids), selected


def pair_from_row(
    row: dict[str, Any], tokenizer: PreTrainedTokenizerBase, config: MaskConfig | None = None
) -> PreferencePair:
    """One ``PREFERENCE_PAIRS_SCHEMA`` row -> token ids and selected indices for both sides."""
    config = config or MaskConfig()
    chosen_ids, chosen_selected = _side(
        Episode.from_dict(row["chosen"]), list(row["chosen_turns"] or []), tokenizer, config
    )
    rejected_ids, rejected_selected = _side(
        Episode.from_dict(row["rejected"]), list(row["rejected_turns"] or []), tokenizer, config
    )
    return PreferencePair(str(row["pair_id"]), chosen_ids, chosen_selected, rejected_ids, rejected_selected)


def token_pair_rows(table: pa.Table, tokenizer: PreTrainedTokenizerBase) -> tuple[list[dict], list[dict]]:
    """Token rows (``chosen_input_ids`` ...) for every admitted pair, and the refused ones with reasons."""
    rows, refused = [], []
    for line, row in enumerate(table.to_pylist(), start=1):
        try:
            pair = pair_from_row(row, tokenizer)
        except (PairRefused, KeyError, TypeError) as error:
            refused.append({"pair_id": row.get("pair_id"), "line": line, "reason": str(error)})
            continue
        rows.append(
            {
                "pair_id": pair.pair_id,
                "chosen_input_ids": list(pair.chosen_ids),
                "chosen_selected": list(pair.chosen_selected),
                "rejected_input_ids": list(pair.rejected_ids),
                "rejected_selected": list(pair.rejected_selected),
                "_line": line,
            }
        )
    return rows, refused
